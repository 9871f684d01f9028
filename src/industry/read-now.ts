// "Read now" of an adapter profile being commissioned: one reading or setpoint point, not saved,
// read once from the controller through the poller's own path (the point as toPolledDevices makes
// it, the read plan, the field service's bus queue, the codec), so the value the installer sees
// in engineering units is the one the poller will store. Nothing is written to the device or the
// database; a device that does not answer is 502 device_read_failed with the field service's words.
import * as v from 'valibot';
import { ApiError } from '../kernel/errors.js';
import type { HandlerContext } from '../kernel/route.js';
import { FieldFailure, errorText } from '../field/errors.js';
import { planReads, ReadPlanError } from '../field/read-plan.js';
import { readBacnet, readModbus, type PollOutcome } from '../field/poll-read.js';
import type { PolledDevice, PollPoint } from '../field/poll-types.js';
import { adapterPointSchema, adapterReadingSchemaOf, climateKey, connectionFields, type ReadingKeySchema } from './dispatch.js';
import { readingPoint, setpointPoint } from './polled-devices.js';

type Reached = { transport: string; host?: string; serial_path?: string; device_instance?: number };
type Target = { bacnet_object_type?: number } | undefined;
/** What every read-now must name to reach its device, whichever point it reads. */
const reachable = (b: Reached, target: Target) =>
  (b.transport !== 'modbus-tcp' || b.host !== undefined) && (b.transport !== 'modbus-rtu' || b.serial_path !== undefined)
  && (b.transport !== 'bacnet' || (b.device_instance !== undefined && target?.bacnet_object_type !== undefined));
const REACH = 'modbus-tcp needs host, modbus-rtu serial_path, bacnet device_instance and bacnet_object_type';

/** The read-now body of an industry whose devices hold setpoints: one reading or one point. */
const withSetpoints = (key: ReadingKeySchema) => v.pipe(v.strictObject({
  ...connectionFields,
  /** One entry of the profile's readings[] ... */
  reading: v.optional(adapterReadingSchemaOf(key)),
  /** ... or of its points[] (a setpoint, read as the poller reads it back). */
  point: v.optional(adapterPointSchema),
}),
v.check((b) => (b.reading === undefined) !== (b.point === undefined), 'give one reading or one point'),
v.check((b) => reachable(b, b.reading ?? b.point), REACH));

/** The read-now body of an industry whose devices are only read (melioration): one reading. */
const readingsOnly = (key: ReadingKeySchema) => v.pipe(v.strictObject({ ...connectionFields, reading: adapterReadingSchemaOf(key) }),
  v.check((b) => reachable(b, b.reading), REACH));

export const readNowBody = withSetpoints(climateKey);
export type ReadNowBody = v.InferOutput<typeof readNowBody>;
/** An industry's read-now body: its own reading keys, and `point` only where its devices hold setpoints. */
export const readNowBodyOf = (o: { key: ReadingKeySchema; setpoints: boolean }) =>
  (o.setpoints ? withSetpoints(o.key) : readingsOnly(o.key)) as unknown as typeof readNowBody;


export const readNowResponse = {
  type: 'object', required: ['key', 'kind', 'value', 'read_at'],
  properties: {
    key: { type: 'string' }, kind: { type: 'string', enum: ['reading', 'setpoint'] },
    value: { type: 'number', description: 'Engineering units: raw / scale + offset.' },
    read_at: { type: 'string', format: 'date-time' },
  },
} as const;

export async function readNow(ctx: HandlerContext<ReadNowBody>): Promise<{ key: string; kind: PollPoint['kind']; value: number; read_at: string }> {
  const b = ctx.body;
  const point = b.reading ? readingPoint(b.reading) : setpointPoint(b.point!);
  const device: PolledDevice = {
    id: 'read-now', industry: 'poultry', tenant_id: ctx.caller?.tenant_id ?? '', site_id: null, unit_id: '', controller_id: 'read-now',
    transport: b.transport, host: b.host, port: b.transport === 'modbus-tcp' ? (b.port ?? 502) : undefined, serial_path: b.serial_path,
    modbus_unit_id: b.modbus_unit_id, device_instance: b.device_instance, period_ms: 0, loss_after_misses: 1, points: [point],
  };
  let out: PollOutcome;
  try {
    out = b.transport === 'bacnet' ? await readBacnet(ctx.services.field, device, [point]) : await readModbus(ctx.services.field, device, planReads([point]));
  } catch (err) {
    if (err instanceof ReadPlanError) throw new ApiError('validation_error', err.message, [{ field: b.reading ? 'reading' : 'point', reason: 'invalid_value' }]);
    if (err instanceof FieldFailure) throw new ApiError('device_read_failed', err.message);
    throw new ApiError('device_read_failed', errorText(err));
  }
  const value = (point.kind === 'setpoint' ? out.setpoints : out.values)[point.key];
  if (value === undefined) throw new ApiError('device_read_failed', out.failures.join('; ') || `point ${point.key}: no value`);
  return { key: point.key, kind: point.kind, value, read_at: new Date().toISOString() };
}
