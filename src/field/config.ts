import * as v from 'valibot';

// Field-write settings. Every key is optional so an empty object yields a working loopback-only
// service; the integrator merges this schema into the main config and maps CABINET_* env vars.

const port = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(65535));
const positiveMs = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(600_000));

export const serialDefaultsSchema = v.object({
  path: v.optional(v.pipe(v.string(), v.minLength(1)), '/dev/ttyUSB0'),
  baud_rate: v.optional(v.pipe(v.number(), v.integer(), v.minValue(300), v.maxValue(4_000_000)), 9600),
  parity: v.optional(v.picklist(['none', 'even', 'odd']), 'none'),
  stop_bits: v.optional(v.picklist([1, 2]), 1),
  data_bits: v.optional(v.picklist([7, 8]), 8),
});

export const bacnetConfigSchema = v.object({
  /** Local UDP port. 47808 is needed to hear I-Am broadcasts from ordinary devices. */
  port: v.optional(port, 47808),
  /** Local interface to bind; 0.0.0.0 for all. */
  interface: v.optional(v.string(), '0.0.0.0'),
  /** Who-Is destination; may carry a port ("10.0.0.255:47808"). */
  broadcast_address: v.optional(v.string(), '255.255.255.255'),
  /** device_instance -> "ip" or "ip:port"; consulted before Who-Is. */
  devices: v.optional(v.record(v.pipe(v.string(), v.regex(/^\d+$/)), v.pipe(v.string(), v.minLength(1))), {}),
  who_is_timeout_ms: v.optional(positiveMs, 3000),
  cache_ttl_ms: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0)), 600_000),
});

export const fieldConfigSchema = v.object({
  rpc_port: v.optional(port, 8081),
  /** Loopback unless an operator deliberately opens it to the site LAN. */
  rpc_host: v.optional(v.string(), '127.0.0.1'),
  /** Per request on the wire (one Modbus transaction, one BACnet confirmed request). */
  request_timeout_ms: v.optional(positiveMs, 1000),
  /** Extra attempts after a timeout / lost link; total attempts = retries + 1. */
  retries: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(5)), 2),
  /** Jobs waiting per bus (the one on the wire is not counted). */
  queue_max_length: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000)), 32),
  /** Largest params[] accepted in one request. */
  max_items: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)), 100),
  /** Consecutive missed polls that make a device's communication loss, for devices that do not say. */
  loss_after_misses: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(1000)), 3),
  modbus: v.optional(
    v.object({
      unit_id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(255)), 1),
      serial: v.optional(serialDefaultsSchema, {}),
    }),
    {},
  ),
  bacnet: v.optional(bacnetConfigSchema, {}),
});

export type FieldConfig = v.InferOutput<typeof fieldConfigSchema>;
export type FieldConfigInput = v.InferInput<typeof fieldConfigSchema>;
export type SerialSettings = v.InferOutput<typeof serialDefaultsSchema>;

/** Parses partial settings (e.g. `{}` in tests) into a complete config; throws on invalid input. */
export function fieldConfig(input: FieldConfigInput = {}): FieldConfig {
  return v.parse(fieldConfigSchema, input);
}
