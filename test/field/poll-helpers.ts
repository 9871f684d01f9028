import { type EventBus } from '../../src/realtime/bus.js';
import type { BusLinkEvent, DeviceLinkEvent, DeviceReadingEvent, PolledDevice, PollPoint } from '../../src/field/poll-types.js';
import type { ModbusRead, ModbusReadOutcome } from '../../src/field/modbus-bus.js';
import type { PollerField } from '../../src/field/poller.js';
import type { ModbusPeer } from './helpers.js';

// Shared by the poller tests: an event recorder, a device factory and a spy on the field's reads.

export interface Recorded {
  readings: (DeviceReadingEvent & { t: number })[];
  links: (DeviceLinkEvent & { t: number })[];
  buses: (BusLinkEvent & { t: number })[];
}

export function record(bus: EventBus): Recorded {
  const r: Recorded = { readings: [], links: [], buses: [] };
  bus.on('device_readings', (e) => r.readings.push({ ...e, t: Date.now() }));
  bus.on('device_link', (e) => r.links.push({ ...e, t: Date.now() }));
  bus.on('bus_link', (e) => r.buses.push({ ...e, t: Date.now() }));
  return r;
}

export function device(id: string, over: Partial<PolledDevice>): PolledDevice {
  return {
    id,
    industry: 'poultry',
    tenant_id: 'tenant-1',
    site_id: 'site-1',
    unit_id: 'house-1',
    controller_id: `ctl-${id}`,
    transport: 'modbus-tcp',
    host: '127.0.0.1',
    modbus_unit_id: 1,
    period_ms: 300,
    loss_after_misses: 3,
    points: [],
    ...over,
  };
}

export const hr = (key: string, address: number, extra: Partial<PollPoint> = {}): PollPoint => ({ key, kind: 'reading', object_type: 'holding register', address, ...extra });

export interface ReadLog {
  unitId: number;
  table: string;
  address: number;
  count: number;
  start: number;
  end: number;
  ok: boolean;
  kind?: string;
}

/** The real field service's reads, each logged with its outcome. */
export function spyField(field: PollerField): { field: PollerField; reads: ReadLog[] } {
  const reads: ReadLog[] = [];
  return {
    reads,
    field: {
      config: field.config,
      bacnet: () => field.bacnet(),
      modbusBus: (spec) => {
        const bus = field.modbusBus(spec);
        return {
          read: async (r: ModbusRead): Promise<ModbusReadOutcome> => {
            const entry: ReadLog = { unitId: r.unitId, table: r.table, address: r.address, count: r.count, start: Date.now(), end: 0, ok: false };
            reads.push(entry);
            try {
              const out = await bus.read(r);
              entry.ok = true;
              return out;
            } catch (err) {
              entry.kind = (err as { kind?: string }).kind;
              throw err;
            } finally {
              entry.end = Date.now();
            }
          },
        };
      },
    },
  };
}

export const regsOf = (hex: string): number[] => hex.split(' ').map((w) => parseInt(w, 16));

/** Raw registers placed at the slave (hand-written hex) and the engineering value they must read as. */
export const VALUE_CASES: { point: Omit<PollPoint, 'address' | 'key' | 'kind'>; hex: string; value: number }[] = [
  { point: { data_type: 'int16', order: 'LE' }, hex: 'fffe', value: -2 },
  { point: { data_type: 'int16', order: 'BE' }, hex: 'feff', value: -2 },
  { point: { data_type: 'uint16', order: 'BADC' }, hex: '3412', value: 4660 },
  { point: { data_type: 'uint16', order: 'CDAB' }, hex: 'ffff', value: 65535 },
  { point: { data_type: 'int16', order: 'LE', scale: 10, offset: -40 }, hex: '0267', value: 21.5 },
  { point: { data_type: 'bool', order: 'LE' }, hex: '0001', value: 1 },
  { point: { data_type: 'bool', order: 'BE' }, hex: '0000', value: 0 },
  { point: { data_type: 'int32', order: 'LE' }, hex: '1234 5678', value: 305419896 },
  { point: { data_type: 'int32', order: 'BE' }, hex: '7856 3412', value: 305419896 },
  { point: { data_type: 'int32', order: 'CDAB' }, hex: 'a988 edcb', value: -305419896 },
  { point: { data_type: 'int32', order: 'BADC' }, hex: '3412 7856', value: 305419896 },
  { point: { data_type: 'uint32', order: 'CDAB' }, hex: 'beef dead', value: 3735928559 },
  { point: { data_type: 'uint32', order: 'LE', scale: 1000 }, hex: '0001 0000', value: 65.536 },
  { point: { data_type: 'uint32', order: 'BADC', scale: 100, offset: 2 }, hex: '0000 e204', value: 14.5 },
  { point: { data_type: 'float32', order: 'LE' }, hex: '41ac 0000', value: 21.5 },
  { point: { data_type: 'float32', order: 'BE' }, hex: '0000 ac41', value: 21.5 },
  { point: { data_type: 'float32', order: 'CDAB' }, hex: '0000 41ac', value: 21.5 },
  { point: { data_type: 'float32', order: 'BADC', scale: 2, offset: 1 }, hex: 'ac41 0000', value: 11.75 },
  { point: { data_type: 'float64', order: 'LE' }, hex: '4035 8000 0000 0000', value: 21.5 },
  { point: { data_type: 'float64', order: 'BE' }, hex: '0000 0000 0080 3540', value: 21.5 },
  { point: { data_type: 'float64', order: 'CDAB', scale: 0.5 }, hex: '0000 0000 8000 4035', value: 43 },
  { point: { data_type: 'float64', order: 'BADC' }, hex: 'f83f 0000 0000 0000', value: 1.5 },
];

/** Places every case 5 registers apart (gaps bridged: one request) in `table`; returns the points. */
export async function placeCases(p: ModbusPeer, table: 'hr' | 'ir'): Promise<PollPoint[]> {
  const points: PollPoint[] = [];
  for (const [i, c] of VALUE_CASES.entries()) {
    await p.set(table, i * 5, regsOf(c.hex));
    points.push({ ...c.point, key: `v${i}`, kind: 'reading', object_type: table === 'hr' ? 'holding register' : 'input register', address: i * 5 });
  }
  return points;
}

export const expectedValues = (): Record<string, number> => Object.fromEntries(VALUE_CASES.map((c, i) => [`v${i}`, c.value]));

