// The installer's "check" of an output before it is saved: one read of the coil (FC01) or of the
// binary output's present value, on the field service's own bus queue, nothing written. A typo in
// an address then costs a line of words on the form, not a P1 drive-failure alarm on every tablet.
import { FieldFailure, errorText } from '../../field/errors.js';
import { bacnetReader } from '../../field/poll-read.js';
import type { FieldService } from '../../field/index.js';
import type { ModbusBusSpec } from '../../field/modbus-plan.js';
import type { OutputRow } from './schema.js';

/** BACnet object type binary-output, property present-value (as output.ts writes them). */
const BINARY_OUTPUT = 4;
const PRESENT_VALUE = 85;

export interface CheckOutcome {
  /** The output answered. */
  ok: boolean;
  /** What it holds now (true energised); null when it did not answer. */
  energised: boolean | null;
  /** The field service's words when it did not answer. */
  message: string | null;
}

type Where = Pick<OutputRow, 'transport' | 'host' | 'port' | 'serial_port' | 'baud_rate' | 'parity' | 'unit_id' | 'coil' | 'device_instance' | 'object_instance'>;

async function readOnce(field: FieldService, w: Where): Promise<number> {
  if (w.transport === 'bacnet') {
    const g = await bacnetReader(field);
    const r = await g.readPoints(w.device_instance ?? 0, [{ key: 'output', kind: 'reading', address: w.object_instance ?? 0, bacnet_object_type: BINARY_OUTPUT, property: PRESENT_VALUE }]);
    const value = r.values.get('output');
    if (value === undefined) throw new FieldFailure('exception', r.failures.get('output') ?? `device:${w.device_instance} binary output ${w.object_instance}: no value`);
    return value;
  }
  const serial = { ...field.config.modbus.serial, path: w.serial_port ?? '', ...(w.baud_rate !== null ? { baud_rate: w.baud_rate } : {}), ...(w.parity !== null ? { parity: w.parity as 'none' | 'even' | 'odd' } : {}) };
  const spec: ModbusBusSpec = w.transport === 'modbus-tcp' ? { kind: 'tcp', host: w.host ?? '', port: w.port ?? 502 } : { kind: 'rtu', serial };
  const read = { unitId: w.unit_id ?? 1, table: 'coil' as const, address: w.coil ?? 0, count: 1 };
  const { data } = await field.modbusBus(spec).read(spec.kind === 'rtu' ? { ...read, serial } : read);
  return data[0] ?? 0;
}

export async function checkOutput(field: FieldService, w: Where): Promise<CheckOutcome> {
  try {
    return { ok: true, energised: (await readOnce(field, w)) !== 0, message: null };
  } catch (err) {
    return { ok: false, energised: null, message: err instanceof FieldFailure ? err.message : errorText(err) };
  }
}
