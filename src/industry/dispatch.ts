// Setpoint dispatch of the industry workspaces: an adapter profile (data) says which controller
// holds which setpoint, where and in which encoding; dispatchSetpoints() turns confirmed setpoint
// values into ONE request for the field-write service behind POST /api/rpc
// (src/field/service.ts, built by the composition root: services.field), so a setpoint takes
// the same path as any field write: the same queue per bus (a house controller on RS-485 is never
// written by two callers at once), the same read-back verification, one audit record per item
// with the correlation id, and the same failure messages as the contract's ("Connection refused
// <ip:port> addr:<n>", "Error write bit <ip:port> addr:<n> Illegal function", ...).
//
// Adapter profile (one per controller; swine and poultry declare their own table with
// defineAdapterRecord):
//   controller_id    the controller's name on site ("house-3-climate")
//   transport        modbus-tcp (host, port, modbus_unit_id) | modbus-rtu (serial_path,
//                    modbus_unit_id; line settings from the field config) | bacnet (device_instance)
//   points           [{ key, address, object_type?, data_type?, order?, scale?,            (Modbus)
//                       bacnet_object_type?, property?, priority?, tag? }]                 (BACnet)
//                    key = the setpoint's field name (target_temp_c, min_ventilation_pct, ...);
//                    offset? (engineering = raw / scale + offset, a write sends (value - offset) * scale),
//                    read_back? (default true: the poller reads the setpoint back)
//   readings         [{ key, address, object_type?, data_type?, order?, scale?, offset?,
//                       bacnet_object_type?, property?, period_s?, cov? }]: what the poller reads
//                    (src/industry/polled-devices.ts turns a profile into a PolledDevice)
//   poll_period_s, loss_after_misses, comm_loss_priority: how often, when a silence is a
//                    communication loss, and how urgent its alarm is (default 10 s, 3, P1)
//
// Outcome (DispatchResult.status): `verified` when the device read back every value written;
// `written` when the device accepted every write but read-back was not possible (BACnet without
// a readable property, or verify off); `failed` with the field service's messages otherwise
// (nothing after the first failed item is sent); `not_configured` when no adapter profile holds
// any of the changed setpoints (nothing to write).
import { english, type TextParams } from './box-text.js';
import * as v from 'valibot';
import type { Services } from '../kernel/context.js';
import { defineRecord } from '../kernel/record.js';
import type { ItemResult } from '../field/service.js';

export const TRANSPORTS = ['modbus-tcp', 'modbus-rtu', 'bacnet'] as const;
export type Transport = (typeof TRANSPORTS)[number];
// skipped: confirmed without a write (setpoint-program.ts: e.g. a poultry age phase not in force).
export const DISPATCH_STATUSES = ['pending', 'written', 'verified', 'failed', 'not_configured', 'skipped'] as const;
export type DispatchStatus = (typeof DISPATCH_STATUSES)[number];

export const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));

export const adapterPointSchema = v.strictObject({
  key,
  address: int(0, 4_194_303),
  object_type: v.optional(v.picklist(['holding register', 'coil'])),
  data_type: v.optional(v.picklist(['int16', 'uint16', 'bool', 'int32', 'uint32', 'float32', 'float64'])),
  order: v.optional(v.picklist(['LE', 'BE', 'CDAB', 'BADC'])),
  scale: v.optional(v.pipe(v.number(), v.finite(), v.check((s) => s !== 0, 'scale must not be 0'))),
  bacnet_object_type: v.optional(int(0, 1023)),
  property: v.optional(int(0, 4_194_303)),
  priority: v.optional(int(1, 16)),
  tag: v.optional(int(0, 12)),
  offset: v.optional(v.pipe(v.number(), v.finite())),
  read_back: v.optional(v.boolean()),
});
export type AdapterPoint = v.InferOutput<typeof adapterPointSchema>;

/** Reading keys of the industries (poultry and swine share the climate names). */
export const READING_KEYS = ['temp', 'humidity', 'co2', 'nh3', 'ventilation', 'water_l', 'feed_kg', 'outside_temp'] as const;
export type ReadingKey = (typeof READING_KEYS)[number];
const BIT_TABLES = ['coil', 'discrete input'];

/** A key schema of an industry's readings (a picklist, or a pattern such as vwc_pct_<depth>). */
export type ReadingKeySchema = v.GenericSchema<string, string>;
export const climateKey: ReadingKeySchema = v.picklist(READING_KEYS, `key must be one of ${READING_KEYS.join(', ')}`);

/** One reading of an adapter profile, with the industry's keys. */
export const adapterReadingSchemaOf = (key: ReadingKeySchema) => v.pipe(v.strictObject({
  key,
  object_type: v.optional(v.picklist(['holding register', 'input register', 'coil', 'discrete input'])),
  address: int(0, 4_194_303),
  data_type: v.optional(v.picklist(['int16', 'uint16', 'bool', 'int32', 'uint32', 'float32', 'float64'])),
  order: v.optional(v.picklist(['LE', 'BE', 'CDAB', 'BADC'])),
  scale: v.optional(v.pipe(v.number(), v.finite(), v.check((s) => s !== 0, 'scale must not be 0'))),
  offset: v.optional(v.pipe(v.number(), v.finite())),
  bacnet_object_type: v.optional(int(0, 1023)),
  property: v.optional(int(0, 4_194_303)),
  period_s: v.optional(int(1, 86_400)),
  cov: v.optional(v.boolean()),
}),
// A coil or discrete input is one bit: a word type there is a profile that reads garbage.
v.check((r) => !BIT_TABLES.includes(r.object_type ?? '') || r.data_type === undefined || r.data_type === 'bool', 'a coil or discrete input reading is a bool (no word data_type)'),
v.check((r) => r.data_type !== 'bool' || BIT_TABLES.includes(r.object_type ?? 'input register'), 'data_type bool is for coil or discrete input readings'))
;
export const adapterReadingSchema = adapterReadingSchemaOf(climateKey);
export type AdapterReading = v.InferOutput<typeof adapterReadingSchema>;

export const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/**
 * The body of an adapter profile (create) with an industry's reading keys; cross-field rules per
 * transport. `setpoints: false` is a device that is only read (a weather station, a soil probe):
 * no points, at least one reading.
 */
/** How a controller is reached: the fields a profile and a read-now before it share. */
export const connectionFields = {
  transport: v.picklist(TRANSPORTS),
  host: v.optional(v.pipe(v.string(), v.regex(IPV4, 'host must be a dotted IPv4 address'))),
  port: v.optional(int(1, 65535)),
  serial_path: v.optional(v.pipe(v.string(), v.minLength(1), v.maxLength(300))),
  modbus_unit_id: v.optional(int(0, 255)),
  device_instance: v.optional(int(0, 4_194_302)),
};

export const adapterBodySchemaOf = (o: { key: ReadingKeySchema; setpoints: boolean }) => v.pipe(v.strictObject({
  id: v.optional(v.pipe(key, v.regex(/^[A-Za-z0-9._:-]+$/, 'letters, digits and . _ : -'))),
  tenant_id: v.optional(key),
  site_id: v.optional(key),
  unit_id: key,
  controller_id: key,
  ...connectionFields,
  points: o.setpoints
    ? v.pipe(v.array(adapterPointSchema), v.minLength(1), v.maxLength(100))
    : v.optional(v.pipe(v.array(adapterPointSchema), v.maxLength(0, 'a device that is only read has no setpoints')), []),
  readings: o.setpoints
    ? v.optional(v.pipe(v.array(adapterReadingSchemaOf(o.key)), v.maxLength(100)))
    : v.pipe(v.array(adapterReadingSchemaOf(o.key)), v.minLength(1, 'a device that is only read needs readings'), v.maxLength(100)),
  poll_period_s: v.optional(int(1, 3600)),
  loss_after_misses: v.optional(int(1, 100)),
  comm_loss_priority: v.optional(v.picklist(['P1', 'P2'])),
}),
v.check((b) => b.transport !== 'modbus-tcp' || b.host !== undefined, 'modbus-tcp needs host'),
v.check((b) => b.transport !== 'modbus-rtu' || b.serial_path !== undefined, 'modbus-rtu needs serial_path'),
v.check((b) => b.transport !== 'bacnet' || (b.device_instance !== undefined && b.points.every((p) => p.bacnet_object_type !== undefined)), 'bacnet needs device_instance and bacnet_object_type on every point'),
v.check((b) => new Set(b.points.map((p) => p.key)).size === b.points.length, 'each setpoint key once per controller'),
v.check((b) => b.transport !== 'bacnet' || (b.readings ?? []).every((r) => r.bacnet_object_type !== undefined), 'bacnet needs bacnet_object_type on every reading'),
v.check((b) => b.transport === 'bacnet' || (b.readings ?? []).every((r) => r.address <= 65535 && r.cov === undefined), 'a Modbus reading has an address 0..65535 and no cov'),
v.check((b) => { const keys = (b.readings ?? []).map((r) => r.key); return new Set(keys).size === keys.length; }, 'each reading key once per controller'));
export const adapterBodySchema = adapterBodySchemaOf({ key: climateKey, setpoints: true });
export type AdapterBody = v.InferOutput<typeof adapterBodySchema>;

/** An industry's adapter profile table (poultry: poultry_adapter_profiles). */
export function defineAdapterRecord(name: string, unitLabel = 'Unit', readingKeys = READING_KEYS.join(', ')) {
  return defineRecord(name, {
    id: { type: 'string', label: 'ID', readOnly: true },
    tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
    site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
    unit_id: { type: 'string', label: unitLabel, filter: true, sortable: true, searchable: true, description: 'The unit (house, room) whose setpoints this controller holds.' },
    controller_id: { type: 'string', label: 'Controller', filter: true, sortable: true, searchable: true, ui: { primary: true } },
    transport: { type: 'string', label: 'Transport', enum: TRANSPORTS, filter: true, ui: { badge: true } },
    host: { type: 'string', label: 'Host', nullable: true, description: 'Modbus TCP: the controller\'s IPv4 address.' },
    port: { type: 'integer', label: 'Port', nullable: true, description: 'Modbus TCP port (default 502).' },
    serial_path: { type: 'string', label: 'Serial port', nullable: true, description: 'Modbus RTU: the RS-485 adapter (e.g. /dev/ttyUSB0).' },
    modbus_unit_id: { type: 'integer', label: 'Modbus unit id', nullable: true },
    device_instance: { type: 'integer', label: 'BACnet device', nullable: true },
    points: { type: 'array', label: 'Setpoints', description: '[{key, address, object_type, data_type, order, scale, offset, bacnet_object_type, property, priority, tag, read_back}]: where each setpoint key lives (read_back, default true: the poller reads it back).' },
    readings: { type: 'array', label: 'Readings', nullable: true, description: `[{key (${readingKeys}), object_type, address, data_type, order, scale, offset, bacnet_object_type, property, period_s, cov}]: what the poller reads (engineering = raw / scale + offset).` },
    poll_period_s: { type: 'integer', label: 'Poll period', nullable: true, description: 'How often the controller is read (default 10 s).', ui: { unit: 's' } },
    loss_after_misses: { type: 'integer', label: 'Loss after misses', nullable: true, description: 'Consecutive missed polls that are a communication loss (default 3).' },
    comm_loss_priority: { type: 'string', label: 'Communication loss priority', nullable: true, enum: ['P1', 'P2'], description: 'Priority of the comm_loss alarm when the controller stops answering (default P1).' },
    created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
    updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
  }, { indexes: [{ name: `${name}_unit`, columns: ['tenant_id', 'unit_id'] }] });
}
export type AdapterRow = ReturnType<typeof defineAdapterRecord>['row'];

/** A dispatch message the box words: its English, key and parameters (box-text.ts). */
export function dispatchText(services: Partial<Pick<Services, 'catalogues' | 'config'>> | undefined, key: string, params: TextParams): Pick<DispatchResult, 'message' | 'message_key' | 'text_params'> {
  return { message: english(services).t(key, params), message_key: key, text_params: params };
}

export interface DispatchResult {
  adapter_profile_id: string | null;
  controller_id: string | null;
  transport: Transport | null;
  status: DispatchStatus;
  /** The field service's messages when failed; null otherwise. */
  message: string | null;
  /**
   * When the box worded `message` itself: its key (box.dispatch.*) and parameters, for a reader in
   * another language (message is their English). Absent or null for the field service's own words.
   */
  message_key?: string | null;
  text_params?: TextParams | null;
  correlation_id: string;
  at: string;
  /** Which setpoint keys were written, with the value sent. */
  written: { key: string; value: number; address: string; verified: boolean }[];
}

type Point = AdapterPoint;

/** The JSON-RPC request (the contract's shape) writing `values` through `adapter`, or the keys it lacks. */
export function rpcRequest(adapter: AdapterRow, values: Record<string, number>): { request: { jsonrpc: '2.0'; protocol: string; params: Record<string, unknown>[] }; keys: string[] } {
  const points = (adapter.points as Point[]).filter((p) => values[p.key] !== undefined);
  const keys = points.map((p) => p.key);
  if (adapter.transport === 'bacnet') {
    return {
      keys,
      request: {
        jsonrpc: '2.0', protocol: 'bacnet',
        params: points.map((p) => ({
          device_instance: adapter.device_instance, object_type: p.bacnet_object_type, object_instance: p.address,
          property: p.property ?? 85, priority: p.priority ?? 8, tag: p.tag ?? 4, value: (values[p.key]! - (p.offset ?? 0)) * (p.scale ?? 1), verify: true,
        })),
      },
    };
  }
  const common = (p: Point) => ({
    object_type: p.object_type ?? 'holding register', object_address: p.address,
    ...(p.object_type === 'coil' ? {} : { data_type: p.data_type ?? 'int16' }),
    ...(p.order ? { order: p.order } : {}), ...(p.scale !== undefined ? { scale: p.scale } : {}),
    // The field service multiplies by scale before encoding: (value - offset) * scale overall.
    value: p.object_type === 'coil' ? values[p.key] !== 0 : values[p.key]! - (p.offset ?? 0),
    ...(adapter.modbus_unit_id !== null ? { unit_id: adapter.modbus_unit_id } : {}),
    // Read back what was written: the dispatch status is the device-confirmed outcome.
    verify: true,
  });
  return {
    keys,
    request: adapter.transport === 'modbus-tcp'
      ? { jsonrpc: '2.0', protocol: 'modbus', params: points.map((p) => ({ device_ip: adapter.host, device_port: adapter.port ?? 502, ...common(p) })) }
      : { jsonrpc: '2.0', protocol: 'modbus-rtu', params: points.map((p) => ({ serial_port: adapter.serial_path, ...common(p) })) },
  };
}

/**
 * Writes `values` (setpoint key -> engineering value) to the controllers of `adapters` that hold
 * them, one field-write request per controller, in order; the first failed controller ends the
 * dispatch (the answer names it). Never throws for a device failure: the outcome is the status.
 */
export async function dispatchSetpoints(services: Services, input: {
  adapters: AdapterRow[];
  values: Record<string, number>;
  actor: { id: string; role: string; tenant_id?: string };
  correlation_id: string;
}): Promise<DispatchResult> {
  const at = new Date().toISOString();
  const base = { correlation_id: input.correlation_id, at };
  const targets = input.adapters
    .map((adapter) => ({ adapter, ...rpcRequest(adapter, input.values) }))
    .filter((t) => t.keys.length > 0);
  if (!targets.length) {
    return { ...base, adapter_profile_id: null, controller_id: null, transport: null, status: 'not_configured', ...dispatchText(services, 'box.dispatch.not_configured', { keys: Object.keys(input.values).join(', ') }), written: [] };
  }
  const field = services.field;
  const written: DispatchResult['written'] = [];
  let allVerified = true;
  const first = targets[0]!.adapter;
  for (const t of targets) {
    const out = await field.execute(t.request, input.actor, input.correlation_id);
    const results: ItemResult[] = out.results;
    results.forEach((r) => {
      const k = t.keys[r.index]!;
      written.push({ key: k, value: input.values[k]!, address: r.address, verified: r.verified });
      if (!r.verified) allVerified = false;
    });
    if (!out.ok) {
      return { ...base, adapter_profile_id: t.adapter.id, controller_id: t.adapter.controller_id, transport: t.adapter.transport as Transport, status: 'failed', message: out.messages.join('; '), written };
    }
  }
  return {
    ...base, adapter_profile_id: first.id, controller_id: targets.map((t) => t.adapter.controller_id).join(','), transport: first.transport as Transport,
    status: allVerified ? 'verified' : 'written', message: null, written,
  };
}
