// An adapter profile as the editor holds it (every input as typed) and back: the create body
// ({item}) and one row as a read-now body. Fields the form does not show (a BACnet priority, a
// reading's cov, ...) ride along untouched, so a file imported and saved loses nothing. What is
// wrong with a draft is said in the reader's words (adapters.invalid.*).
import { readerLocale, t } from './i18n';
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
    // i18n-ok: the register tables are the API's values (the editor shows them in words)
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

/** The fields a draft's numbers are typed in: their words are adapters.field.<name>. */
type NumField = 'address' | 'bacnet_object_type' | 'property' | 'scale' | 'offset' | 'period' | 'port' | 'device_instance' | 'modbus_unit_id' | 'poll_period_s' | 'loss_after_misses';
/** Which row a message is about: "Setpoint 2", "Reading 1" (none: the link). */
interface RowRef { list: 'points' | 'readings'; i: number }
const rowArgs = (row: RowRef) => ({ list: row.list, n: row.i + 1 });

/** A number typed in a field, or undefined when blank; a message naming the field (and its row) otherwise. */
function num(text: string, field: NumField, whole: boolean, row?: RowRef): number | undefined {
  if (text.trim() === '') return undefined;
  const n = Number(text.replace(',', '.'));
  if (!Number.isFinite(n) || (whole && !Number.isInteger(n))) {
    const what = t(`adapters.field.${field}`);
    throw new Error(row ? t(whole ? 'adapters.invalid.rowWhole' : 'adapters.invalid.rowNumber', { ...rowArgs(row), what }) : t(whole ? 'adapters.invalid.whole' : 'adapters.invalid.number', { what }));
  }
  return n;
}

const defined = (o: Obj): Obj => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== ''));

function rowBody(d: Draft, list: 'points' | 'readings', i: number): Obj {
  const r = d[list][i]!;
  const row: RowRef = { list, i };
  if (!r.key.trim()) throw new Error(t('adapters.invalid.rowKey', rowArgs(row)));
  const address = num(r.address, 'address', true, row);
  if (address === undefined) throw new Error(t('adapters.invalid.rowAddress', rowArgs(row)));
  const bit = r.object_type === 'coil' || r.object_type === 'discrete input';
  const where = d.transport === 'bacnet'
    ? { bacnet_object_type: num(r.bacnet_object_type, 'bacnet_object_type', true, row), property: num(r.property, 'property', true, row) }
    : { object_type: r.object_type, data_type: bit ? 'bool' : r.data_type, order: bit ? undefined : r.order };
  return defined({
    ...r.extra, key: r.key.trim(), address, ...where,
    scale: num(r.scale, 'scale', false, row), offset: num(r.offset, 'offset', false, row),
    ...(list === 'readings' ? { period_s: num(r.period_s, 'period', true, row) } : { read_back: r.read_back }),
  });
}

function linkBody(d: Draft): Obj {
  return defined({
    transport: d.transport,
    ...(d.transport === 'modbus-tcp' ? { host: d.host.trim(), port: num(d.port, 'port', true) } : {}),
    ...(d.transport === 'modbus-rtu' ? { serial_path: d.serial_path.trim() } : {}),
    ...(d.transport === 'bacnet' ? { device_instance: num(d.device_instance, 'device_instance', true) } : { modbus_unit_id: num(d.modbus_unit_id, 'modbus_unit_id', true) }),
  });
}

/** The create body's item; throws a message naming the field on bad input. */
export function toProfile(d: Draft, holdsSetpoints = true): Obj {
  if (!d.unit_id.trim()) throw new Error(t(holdsSetpoints ? 'adapters.invalid.unitController' : 'adapters.invalid.unitDevice'));
  if (!d.controller_id.trim()) throw new Error(t(holdsSetpoints ? 'adapters.invalid.nameController' : 'adapters.invalid.nameDevice'));
  if (holdsSetpoints && !d.points.length) throw new Error(t('adapters.invalid.noSetpoint'));
  if (!holdsSetpoints && !d.readings.length) throw new Error(t('adapters.invalid.noReading'));
  return defined({
    ...d.extra, unit_id: d.unit_id.trim(), controller_id: d.controller_id.trim(), ...linkBody(d),
    poll_period_s: num(d.poll_period_s, 'poll_period_s', true), loss_after_misses: num(d.loss_after_misses, 'loss_after_misses', true),
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
      // i18n-ok: the register tables are the API's values (the editor shows them in words)
      en((list === 'readings' ? reading : point)?.properties?.object_type, list === 'readings' ? ['input register', 'holding register', 'coil', 'discrete input'] : ['holding register', 'coil']),
  };
}

/** The unit of each reading key (its symbol in the reader's writing: adapters.unit.<unit>). */
const UNITS: Record<string, string> = { temp: 'c', outside_temp: 'c', humidity: 'pct', co2: 'ppm', nh3: 'ppm', ventilation: 'pct', water_l: 'l', feed_kg: 'kg' };

/** The engineering unit of a reading key, or of a setpoint key by its suffix (_c, _pct, _ppm), as the reader writes it ("L", "л"). */
export function unitOf(key: string): string {
  const unit = UNITS[key] ?? (/^vwc_pct_\d+$/.test(key) ? 'pct' : /_(c|pct|ppm|kg|l|s|min|ms|mm|w_m2)$/.exec(key)?.[1]);
  return unit ? t(`adapters.unit.${unit}` as 'adapters.unit.c') : '';
}

/** A value read from the equipment with its unit, as the reader writes numbers ("27.5 °C", "27,5 °C"). */
export function readingText(value: number, key: string): string {
  const unit = unitOf(key);
  const n = new Intl.NumberFormat(readerLocale(), { useGrouping: false, maximumSignificantDigits: 10 }).format(value);
  return unit ? t('adapters.read.value', { value: n, unit }) : n;
}
