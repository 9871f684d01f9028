// Failures carry the contract's message shape ("<What> <target> addr:<n>[ <detail>]") plus a kind
// the service uses for HTTP status, retry and audit decisions.

export type FailureKind =
  | 'invalid' // refused before anything was sent
  | 'queue_full' // refused by the bus queue, nothing sent
  | 'refused' // connection refused / port unavailable, nothing sent
  | 'timeout' // no answer within the deadline, after all attempts
  | 'link_lost' // link dropped while a request was outstanding
  | 'crc' // corrupted reply (RTU)
  | 'exception' // device answered with a Modbus exception or BACnet error
  | 'bad_reply' // device answered something that is not the echo of our request
  | 'verify' // write acknowledged but read-back differs
  | 'not_found' // BACnet device did not answer Who-Is
  | 'skipped'; // not executed because an earlier item failed

export class FieldFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    message: string,
    readonly detail?: string,
  ) {
    super(message);
    this.name = 'FieldFailure';
  }
}

/**
 * Failures worth another attempt on a fresh link: the write may or may not have landed, and
 * writing the same absolute value again is harmless (FC05/06/15/16 and WriteProperty set values,
 * they do not increment). A bad_reply is usually a stale answer left on the line.
 */
export function isRetryable(kind: FailureKind): boolean {
  return kind === 'timeout' || kind === 'link_lost' || kind === 'crc' || kind === 'bad_reply';
}

export const MODBUS_EXCEPTIONS: Readonly<Record<number, string>> = {
  1: 'Illegal function',
  2: 'Illegal data address',
  3: 'Illegal data value',
  4: 'Slave device failure',
  5: 'Acknowledge',
  6: 'Slave device busy',
  7: 'Negative acknowledge',
  8: 'Memory parity error',
  10: 'Gateway path unavailable',
  11: 'Gateway target device failed to respond',
};

export function modbusExceptionText(code: number): string {
  return MODBUS_EXCEPTIONS[code] ?? `Exception code ${code}`;
}

export function errorText(err: unknown): string {
  if (err instanceof Error) return err.message;
  return String(err);
}
