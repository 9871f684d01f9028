// An adapter profile as the editor holds it (every input as typed) and back: the create body
// ({item}) and one row as a read-now body. Fields the form does not show (a BACnet priority, a
// reading's cov, ...) ride along untouched, so a file imported and saved loses nothing.
import type { JsonSchema } from './types';

export interface Row {
  key: string;
  object_type: string;
  address: string;
  data_type: string;
  order: string;
  scale: string;
  offset: string;
  period_s: string;
  bacnet_object_type: string;
  property: string;
  read_back: boolean;
  extra: Record<string, unknown>;
}

export interface Draft {
  unit_id: string;
  controller_id: string;
  transport: string;
  host: string;
  port: string;
  serial_path: string;
  modbus_unit_id: string;
  device_instance: string;
  poll_period_s: string;
  loss_after_misses: string;
  points: Row[];
  readings: Row[];
  extra: Record<string, unknown>;
}

type Obj = Record<string, unknown>;
const str = (v: unknown) => (v === undefined || v === null ? '' : String(v));
const ROW_FIELDS = ['key', 'object_type', 'address', 'data_type', 'order', 'scale', 'offset', 'period_s', 'bacnet_object_type', 'property', 'read_back'];
const LINK_FIELDS = ['unit_id', 'controller_id', 'transport', 'host', 'port', 'serial_path', 'modbus_unit_id', 'device_instance', 'poll_period_s', 'loss_after_misses', 'points', 'readings'];
// A saved profile's empty fields (site_id null) are left out: the body takes them absent, not null.
const pick = (o: Obj, skip: string[]) => Object.fromEntries(Object.entries(o).filter(([k, v]) => !skip.includes(k) && v !== null));

export function blankRow(list: 'points' | 'readings', transport = 'modbus-tcp'): Row {
  return {
    key: '', object_type: list === 'readings' ? 'input register' : 'holding register', address: '', data_type: 'int16', order: 'LE', scale: '', offset: '',
    period_s: '', bacnet_object_type: transport === 'bacnet' ? '0' : '', property: '', read_back: true, extra: {},
  };
}

function rowFrom(list: 'points' | 'readings', o: Obj): Row {
  const b = blankRow(list);
  return {
    key: str(o.key), object_type: str(o.object_type) || b.object_type, address: str(o.address), data_type: str(o.data_type) || b.data_type, order: str(o.order) || 'LE',
    scale: str(o.scale), offset: str(o.offset), period_s: str(o.period_s), bacnet_object_type: str(o.bacnet_object_type), property: str(o.property),
    read_back: o.read_back !== false, extra: pick(o, ROW_FIELDS),
  };
}

/**
 * A profile as a file or the API holds it ({item: {...}} or the item itself) as a draft. A new
 * one starts with a blank row of each list the devices have (no setpoints where they are only read).
 */
export function fromProfile(input: unknown, holdsSetpoints = true): Draft {
  const o = (input && typeof input === 'object' && 'item' in input ? (input as { item: unknown }).item : input) as Obj | null;
  const p: Obj = o && typeof o === 'object' && !Array.isArray(o) ? o : {};
  const rows = (list: 'points' | 'readings', v: unknown) => (Array.isArray(v) ? v.filter((x): x is Obj => !!x && typeof x === 'object').map((x) => rowFrom(list, x)) : []);
  const points = rows('points', p.points);
  const readings = rows('readings', p.readings);
  const transport = str(p.transport) || 'modbus-tcp';
  return {
    unit_id: str(p.unit_id), controller_id: str(p.controller_id), transport, host: str(p.host), port: str(p.port), serial_path: str(p.serial_path),
    modbus_unit_id: str(p.modbus_unit_id), device_instance: str(p.device_instance), poll_period_s: str(p.poll_period_s), loss_after_misses: str(p.loss_after_misses),
    points: points.length || o || !holdsSetpoints ? points : [blankRow('points', transport)],
    readings: readings.length || o ? readings : [blankRow('readings', transport)],
    extra: pick(p, [...LINK_FIELDS, 'id', 'tenant_id', 'created_at', 'updated_at']),
  };
}

/** A number typed in a field, or undefined when blank; a message naming the field otherwise. */
function num(text: string, what: string, whole: boolean): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text.replace(',', '.'));
  if (!Number.isFinite(n) || (whole && !Number.isInteger(n))) throw new Error(`${what} must be ${whole ? 'a whole number' : 'a number'}.`);
  return n;
}

const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));

function rowBody(d: Draft, list: 'points' | 'readings', i: number): Obj {
  const r = d[list][i]!;
  const what = `${list === 'points' ? 'Setpoint' : 'Reading'} ${i + 1}`;
  if (!r.key.trim()) throw new Error(`${what}: choose what it is.`);
  const address = num(r.address, `${what}: the address`, true);
  if (address === undefined) throw new Error(`${what}: the address is required.`);
  const bit = r.object_type === 'coil' || r.object_type === 'discrete input';
  const where = d.transport === 'bacnet'
    ? { bacnet_object_type: num(r.bacnet_object_type, `${what}: the BACnet object type`, true), property: num(r.property, `${what}: the property`, true) }
    : { object_type: r.object_type, data_type: bit ? 'bool' : r.data_type, order: bit ? undefined : r.order };
  return defined({
    ...r.extra, key: r.key.trim(), address, ...where,
    scale: num(r.scale, `${what}: the scale`, false), offset: num(r.offset, `${what}: the offset`, false),
    ...(list === 'readings' ? { period_s: num(r.period_s, `${what}: the period`, true) } : { read_back: r.read_back }),
  });
}

function linkBody(d: Draft): Obj {
  return defined({
    transport: d.transport,
    ...(d.transport === 'modbus-tcp' ? { host: d.host.trim(), port: num(d.port, 'The port', true) } : {}),
    ...(d.transport === 'modbus-rtu' ? { serial_path: d.serial_path.trim() } : {}),
    ...(d.transport === 'bacnet' ? { device_instance: num(d.device_instance, 'The BACnet device', true) } : { modbus_unit_id: num(d.modbus_unit_id, 'The Modbus unit id', true) }),
  });
}

/** The create body's item; throws a message naming the field on bad input. */
export function toProfile(d: Draft, holdsSetpoints = true): Obj {
  if (!d.unit_id.trim()) throw new Error(holdsSetpoints ? 'Say which house or room the controller is in.' : 'Say which field the device serves.');
  if (!d.controller_id.trim()) throw new Error(holdsSetpoints ? 'Give the controller a name.' : 'Give the device a name.');
  if (holdsSetpoints && !d.points.length) throw new Error('Add at least one setpoint the controller holds.');
  if (!holdsSetpoints && !d.readings.length) throw new Error('Add at least one reading the device gives.');
  return defined({
    ...d.extra, unit_id: d.unit_id.trim(), controller_id: d.controller_id.trim(), ...linkBody(d),
    poll_period_s: num(d.poll_period_s, 'Read every', true), loss_after_misses: num(d.loss_after_misses, 'Alarm after missed reads', true),
    points: d.points.map((_, i) => rowBody(d, 'points', i)),
    readings: d.readings.map((_, i) => rowBody(d, 'readings', i)),
  });
}

/** One row, not saved, as the read-now command takes it. */
export function readNowBody(d: Draft, list: 'points' | 'readings', i: number): Obj {
  const { read_back: _rb, ...row } = rowBody(d, list, i);
  return { ...linkBody(d), [list === 'points' ? 'point' : 'reading']: row };
}

/** The choices the API's own schema offers (the read-now command's body), with fallbacks. */
export function enumsOf(body: JsonSchema | null) {
  const reading = body?.properties?.reading;
  const point = body?.properties?.point;
  const en = (s: JsonSchema | undefined, fallback: string[]) => ((s?.enum ?? s?.anyOf?.find((a) => a.enum)?.enum) as string[] | undefined) ?? fallback;
  const key = reading?.properties?.key;
  return {
    // Devices that hold setpoints: the read-now body takes a setpoint point (melioration's
    // stations and probes are only read, and its body has none).
    holdsSetpoints: body === null || point !== undefined,
    // Keys beyond the list (a probe's vwc_pct_<depth>): typed, with the list offered.
    openKeys: Boolean(key?.anyOf?.some((a) => a.pattern !== undefined)),
    transports: en(body?.properties?.transport, ['modbus-tcp', 'modbus-rtu', 'bacnet']),
    readingKeys: en(reading?.properties?.key, ['temp', 'humidity', 'co2', 'nh3', 'ventilation', 'water_l', 'feed_kg', 'outside_temp']),
    dataTypes: en(reading?.properties?.data_type, ['int16', 'uint16', 'bool', 'int32', 'uint32', 'float32', 'float64']),
    orders: en(reading?.properties?.order, ['LE', 'BE', 'CDAB', 'BADC']),
    table: (list: 'points' | 'readings') =>
      en((list === 'readings' ? reading : point)?.properties?.object_type, list === 'readings' ? ['input register', 'holding register', 'coil', 'discrete input'] : ['holding register', 'coil']),
  };
}

const UNITS: Record<string, string> = { temp: '°C', outside_temp: '°C', humidity: '%', co2: 'ppm', nh3: 'ppm', ventilation: '%', water_l: 'L', feed_kg: 'kg' };

/** The engineering unit of a reading key, or of a setpoint key by its suffix (_c, _pct, _ppm). */
export function unitOf(key: string): string {
  if (UNITS[key]) return UNITS[key]!;
  if (/^vwc_pct_\d+$/.test(key)) return '%';
  const m = /_(c|pct|ppm|kg|l|s|min|ms|mm|w_m2)$/.exec(key);
  return m ? ({ c: '°C', pct: '%', ppm: 'ppm', kg: 'kg', l: 'L', s: 's', min: 'min', ms: 'm/s', mm: 'mm', w_m2: 'W/m²' } as Record<string, string>)[m[1]!]! : '';
}
