import Bacnet, { type BacnetValue, type ReadAccessResult } from 'node-bacnet';
import type { PollPoint } from './poll-types.js';
import type { Logger } from './types.js';

// BACnet reading
// ==============
// readPoints(device, points) reads every point of a device in one transaction on the device's
// queue (the queue writes use), resolving the address as writes do (configuration, I-Am cache,
// Who-Is):
// - ReadPropertyMultiple with all points, grouped by object, property default 85 (present-value).
//   A device that refuses RPM (Reject or Abort, or an Error of class services) is remembered and
//   read with one ReadProperty per point from then on (for the gateway's life); an Error of another
//   class for the whole RPM (some devices answer an unknown object that way) falls back to
//   ReadProperty for that cycle only, so each point gets its own verdict.
// - REAL, DOUBLE, UNSIGNED, SIGNED, ENUMERATED and BOOLEAN (0/1) become `raw / scale + offset`.
//   A point the device answers with an error, or with another tag, is in `failures` under its key
//   ("Error read property device:<d> obj:<t>:<i> prop:<p> BacnetError Class: ... Code: ...");
//   the other points still arrive in `values`.
// - No answer: the request is retried (config.retries) and readPoints rejects with a FieldFailure
//   of kind timeout ("Timeout device:<d> obj:<t>:<i> prop:<p>", the first point of the request)
//   and the cached address is dropped, so the next cycle asks Who-Is again.
// subscribeCov (bacnet-cov.ts) subscribes with confirmed notifications, renews at 80 % of the
// lifetime and acknowledges every notification it receives on the gateway's socket.

export const PRESENT_VALUE = 85;
const ERROR_TAG = 105; // node-bacnet's marker for an error entry in an RPM answer
const ERROR_CLASS_SERVICES = 5;

export interface ReadOutcome {
  values: Map<string, number>;
  failures: Map<string, string>;
}

/** What reading needs of the gateway: its socket, its address book, its queues and retries. */
export interface BacnetLink {
  client(): Bacnet;
  resolve(deviceInstance: number): Promise<string>;
  /** Runs `run` on the device's queue; `transactions` sizes the watchdog. */
  enqueue<T>(deviceInstance: number, address: string, describe: string, transactions: number, run: () => Promise<T>): Promise<T>;
  /** One request under the configured deadline and retries (timeouts retried, device errors not). */
  attempt(where: string, what: string, op: () => Promise<void>): Promise<number>;
  log: Logger;
}

type DeviceError = Error & { bacnetErrorClass?: number; bacnetErrorCode?: number; bacnetAbortReason?: number };

interface Target {
  point: PollPoint;
  type: number;
  instance: number;
  property: number;
}

export function describePoint(deviceInstance: number, t: { type: number; instance: number; property: number }): string {
  return `device:${deviceInstance} obj:${t.type}:${t.instance} prop:${t.property}`;
}

/** The same words node-bacnet uses for an Error PDU, so RPM entry errors read like RP errors. */
export function bacnetErrorText(errorClass: number, errorCode: number): string {
  const names = Bacnet.enum as unknown as { ErrorClassName: Record<number, string>; ErrorCodeName: Record<number, string> };
  return `BacnetError Class: ${names.ErrorClassName[errorClass] ?? '?'} (${errorClass}) Code: ${names.ErrorCodeName[errorCode] ?? '?'} (${errorCode})`;
}

/** The engineering value, or why there is none. */
export function engineering(v: BacnetValue | undefined, p: PollPoint): number | string {
  if (!v) return 'no value in the answer';
  let raw: number;
  switch (v.type) {
    case 1: // BOOLEAN
      raw = v.value ? 1 : 0;
      break;
    case 2: // UNSIGNED
    case 3: // SIGNED
    case 4: // REAL
    case 5: // DOUBLE
    case 9: // ENUMERATED
      if (typeof v.value !== 'number') return `tag ${v.type} without a number`;
      raw = v.value;
      break;
    default:
      return `tag ${v.type} is not a number`;
  }
  return raw / (p.scale ?? 1) + (p.offset ?? 0);
}

function isDeviceError(e: unknown): e is DeviceError {
  const d = e as DeviceError | null;
  return !!d && (d.bacnetErrorClass !== undefined || d.bacnetAbortReason !== undefined);
}

/** An answer the device gave (value or error), as opposed to no answer (which throws and is retried). */
type Answer<T> = { ok: true; value: T } | { ok: false; error: DeviceError };

function call<T>(send: (next: (err: DeviceError | null | undefined, value?: T) => void) => void): Promise<Answer<T>> {
  return new Promise((resolve, reject) => {
    send((err, value) => {
      if (err) return isDeviceError(err) ? resolve({ ok: false, error: err }) : reject(err);
      if (value === undefined) return reject(new Error('empty answer'));
      resolve({ ok: true, value });
    });
  });
}

export class BacnetReader {
  /** Devices that refused ReadPropertyMultiple: read point by point. */
  private readonly noRpm = new Set<number>();

  constructor(private readonly link: BacnetLink) {}

  async readPoints(deviceInstance: number, points: readonly PollPoint[]): Promise<ReadOutcome> {
    const out: ReadOutcome = { values: new Map(), failures: new Map() };
    const targets: Target[] = [];
    for (const point of points) {
      if (point.bacnet_object_type === undefined) out.failures.set(point.key, `Invalid point device:${deviceInstance} key:${point.key} no bacnet_object_type`);
      else targets.push({ point, type: point.bacnet_object_type, instance: point.address, property: point.property ?? PRESENT_VALUE });
    }
    const first = targets[0];
    if (!first) return out;
    const where = describePoint(deviceInstance, first);
    const address = await this.link.resolve(deviceInstance);
    // Worst case: an RPM refused, then one RP per point.
    return this.link.enqueue(deviceInstance, address, where, targets.length + 1, async () => {
      if (!this.noRpm.has(deviceInstance) && (await this.rpm(deviceInstance, address, targets, out))) return out;
      for (const t of targets) await this.rp(deviceInstance, address, t, out);
      return out;
    });
  }

  /** true when the RPM answer settled every point; false to read them one by one. */
  private async rpm(d: number, address: string, targets: Target[], out: ReadOutcome): Promise<boolean> {
    const objects = new Map<string, { objectId: { type: number; instance: number }; properties: { id: number }[] }>();
    for (const t of targets) {
      const k = `${t.type}:${t.instance}`;
      const o = objects.get(k) ?? { objectId: { type: t.type, instance: t.instance }, properties: [] };
      if (!o.properties.some((p) => p.id === t.property)) o.properties.push({ id: t.property });
      objects.set(k, o);
    }
    const where = describePoint(d, targets[0] as Target);
    let answer: Answer<{ values: ReadAccessResult[] }> | undefined;
    await this.link.attempt(where, 'Error read property multiple', async () => {
      answer = await call((next) => this.link.client().readPropertyMultiple(address, [...objects.values()], {}, next));
    });
    if (!answer) return false;
    if (!answer.ok) {
      const e = answer.error;
      const refused = e.bacnetAbortReason !== undefined || e.bacnetErrorClass === ERROR_CLASS_SERVICES;
      if (refused) {
        this.noRpm.add(d);
        this.link.log('info', 'bacnet device refuses ReadPropertyMultiple, reading it point by point from now on', { device: d, error: e.message });
      } else this.link.log('debug', 'bacnet RPM answered one error for all points, reading them one by one', { device: d, error: e.message });
      return false;
    }
    for (const t of targets) {
      const entry = answer.value.values
        .find((r) => r.objectId.type === t.type && r.objectId.instance === t.instance)
        ?.values.find((v) => v.id === t.property);
      this.settle(d, t, entry?.value[0], out);
    }
    return true;
  }

  private async rp(d: number, address: string, t: Target, out: ReadOutcome): Promise<void> {
    let answer: Answer<{ values: BacnetValue[] }> | undefined;
    await this.link.attempt(describePoint(d, t), 'Error read property', async () => {
      answer = await call((next) => this.link.client().readProperty(address, { type: t.type, instance: t.instance }, t.property, {}, next));
    });
    if (!answer) return;
    if (answer.ok) this.settle(d, t, answer.value.values[0], out);
    else out.failures.set(t.point.key, `Error read property ${describePoint(d, t)} ${answer.error.message}`);
  }

  private settle(d: number, t: Target, v: BacnetValue | undefined, out: ReadOutcome): void {
    const where = describePoint(d, t);
    if (v?.type === ERROR_TAG) {
      const e = v.value as { errorClass: number; errorCode: number };
      out.failures.set(t.point.key, `Error read property ${where} ${bacnetErrorText(e.errorClass, e.errorCode)}`);
      return;
    }
    const x = engineering(v, t.point);
    if (typeof x === 'number') out.values.set(t.point.key, x);
    else out.failures.set(t.point.key, `Error read property ${where} ${x}`);
  }
}
