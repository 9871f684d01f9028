import { FieldFailure, errorText } from './errors.js';
import type { ModbusBusSpec } from './modbus-plan.js';
import type { ModbusReadOutcome, ModbusRead } from './modbus-bus.js';
import type { FieldConfig } from './config.js';
import type { PolledDevice, PollPoint } from './poll-types.js';
import { pointValue, type ReadRun } from './read-plan.js';

// One poll of one device: the requests on the wire and the values they give. Scheduling, link
// state and events are the poller's (poller.ts).

/** What the poller needs of the field service (src/field/service.ts implements it). */
export interface PollerField {
  modbusBus(spec: ModbusBusSpec): { read(r: ModbusRead): Promise<ModbusReadOutcome> };
  /** The BACnet gateway; its reading half is checked at run time (see BacnetReader). */
  bacnet(): Promise<object>;
  readonly config: Pick<FieldConfig, 'modbus'>;
}

/** The reading half of BacnetGateway (src/field/bacnet.ts), as the poller uses it. */
export interface BacnetReader {
  /** Rejects with a FieldFailure when the device does not answer; per-point failures otherwise. */
  readPoints(deviceInstance: number, points: readonly PollPoint[]): Promise<{ values: Map<string, number>; failures: Map<string, string> }>;
  subscribeCov(deviceInstance: number, point: PollPoint, lifetimeS: number, onValue: (value: number, at: Date) => void): Promise<() => Promise<void>>;
}

export function isBacnetReader(g: object): g is BacnetReader {
  const r = g as Partial<BacnetReader>;
  return typeof r.readPoints === 'function' && typeof r.subscribeCov === 'function';
}

export interface PollOutcome {
  /** Key -> engineering value of the points of kind 'reading' read in this poll. */
  values: Record<string, number>;
  /** The same for points of kind 'setpoint' (what the controller holds). */
  setpoints: Record<string, number>;
  /** How many values the two hold. */
  count: number;
  /** Points the device answered for with an error (Modbus exception, BACnet property error). */
  failures: string[];
}

/** The bus a device is on, as events name it. */
export function deviceBus(d: PolledDevice): string {
  if (d.transport === 'bacnet') return `bacnet:device:${d.device_instance ?? '?'}`;
  if (d.transport === 'modbus-rtu') return `rtu:${d.serial_path ?? '?'}`;
  return `tcp:${d.host ?? '?'}:${d.port ?? 502}`;
}

/** The Modbus bus of a device, with the configured line settings for RTU; null when it has no address. */
export function modbusSpec(d: PolledDevice, config: Pick<FieldConfig, 'modbus'>): ModbusBusSpec | null {
  if (d.transport === 'modbus-tcp') return d.host ? { kind: 'tcp', host: d.host, port: d.port ?? 502 } : null;
  if (d.transport === 'modbus-rtu') return d.serial_path ? { kind: 'rtu', serial: { ...config.modbus.serial, path: d.serial_path } } : null;
  return null;
}

/**
 * Reads the runs one after the other, each its own queue job, so a write waiting for the bus goes
 * between two of them. The first run that gets no answer ends the poll: a dead device costs one
 * request's timeout (and its retries), not one per run.
 */
export async function readModbus(field: PollerField, d: PolledDevice, runs: readonly ReadRun[]): Promise<PollOutcome> {
  const spec = modbusSpec(d, field.config);
  if (!spec) throw new FieldFailure('invalid', `Device ${d.id} has no ${d.transport === 'modbus-rtu' ? 'serial_path' : 'host'}`);
  const bus = field.modbusBus(spec);
  const unitId = d.modbus_unit_id ?? 1;
  const out: PollOutcome = { values: {}, setpoints: {}, count: 0, failures: [] };
  for (const run of runs) {
    let data: number[];
    try {
      const request = spec.kind === 'rtu'
        ? { unitId, table: run.table, address: run.address, count: run.count, serial: spec.serial }
        : { unitId, table: run.table, address: run.address, count: run.count };
      ({ data } = await bus.read(request));
    } catch (err) {
      // An exception answer means the device is there; the run's points are missing this time.
      if (err instanceof FieldFailure && err.kind === 'exception') {
        out.failures.push(err.message);
        continue;
      }
      throw err;
    }
    for (const pp of run.points) {
      const value = pointValue(pp, data);
      // A NaN or infinite float is a sensor fault code on many controllers, not a reading.
      if (Number.isFinite(value)) put(out, pp.point, value);
      else out.failures.push(`point ${pp.point.key}: not a finite value (${value})`);
    }
  }
  return out;
}

export async function readBacnet(field: PollerField, d: PolledDevice, points: readonly PollPoint[]): Promise<PollOutcome> {
  const g = await bacnetReader(field);
  const r = await g.readPoints(d.device_instance ?? 0, points);
  const out: PollOutcome = { values: {}, setpoints: {}, count: 0, failures: [...r.failures].map(([k, why]) => `point ${k}: ${why}`) };
  for (const p of points) {
    const v = r.values.get(p.key);
    if (v !== undefined && Number.isFinite(v)) put(out, p, v);
  }
  return out;
}

export function put(out: PollOutcome, p: PollPoint, value: number): void {
  (p.kind === 'setpoint' ? out.setpoints : out.values)[p.key] = value;
  out.count++;
}

export async function bacnetReader(field: PollerField): Promise<BacnetReader> {
  let g: object;
  try {
    g = await field.bacnet();
  } catch (err) {
    throw new FieldFailure('refused', `BACnet unavailable: ${errorText(err)}`);
  }
  if (!isBacnetReader(g)) throw new FieldFailure('refused', 'BACnet reads are not available in this build (BacnetGateway.readPoints)');
  return g;
}
