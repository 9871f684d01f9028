import * as v from 'valibot';
import { ORDERS } from './encoding.js';

// The wire shape of a request, validated with valibot before anything is planned or sent. Items
// are strict objects: a misspelt key ("scal") is refused rather than silently ignored.

const int = (min: number, max: number) => v.pipe(v.number(), v.integer(), v.minValue(min), v.maxValue(max));
const finite = v.pipe(v.number(), v.finite());
const scalar = v.union([finite, v.boolean()]);
const modbusValue = v.union([scalar, v.pipe(v.array(scalar), v.minLength(1, 'value array must not be empty'))]);

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

const modbusCommon = {
  object_type: v.picklist(['holding register', 'coil']),
  object_address: int(0, 65535),
  data_type: v.optional(v.picklist(['int16', 'uint16', 'bool', 'int32', 'uint32', 'float32', 'float64'])),
  // LE and BE are the contract's; CDAB and BADC are cabinet's addition (see encoding.ts).
  order: v.optional(v.picklist(ORDERS)),
  scale: v.optional(v.pipe(finite, v.check((s) => s !== 0, 'scale must not be 0'))),
  value: modbusValue,
  unit_id: v.optional(int(0, 255)),
  verify: v.optional(v.boolean()),
};

export const modbusTcpItemSchema = v.strictObject({
  device_ip: v.pipe(v.string(), v.regex(IPV4, 'device_ip must be a dotted IPv4 address')),
  device_port: v.optional(int(1, 65535)),
  ...modbusCommon,
});

export const modbusRtuItemSchema = v.strictObject({
  serial_port: v.optional(v.pipe(v.string(), v.minLength(1))),
  baud_rate: v.optional(int(300, 4_000_000)),
  parity: v.optional(v.picklist(['none', 'even', 'odd'])),
  stop_bits: v.optional(v.picklist([1, 2])),
  data_bits: v.optional(v.picklist([7, 8])),
  // Accepted for callers that send one item shape for both transports; not used on RTU.
  device_ip: v.optional(v.string()),
  device_port: v.optional(v.number()),
  ...modbusCommon,
});

/** Application tags whose value is a number (the contract's values are numbers). */
export const BACNET_TAGS = {
  NULL: 0,
  BOOLEAN: 1,
  UNSIGNED_INTEGER: 2,
  SIGNED_INTEGER: 3,
  REAL: 4,
  DOUBLE: 5,
  ENUMERATED: 9,
} as const;

const bacnetWriteFields = {
  object_type: int(0, 1023),
  object_instance: int(0, 4194303),
  property: int(0, 4194303),
  priority: v.optional(int(1, 16)),
  index: v.optional(v.union([v.literal(-1), int(0, 4294967294)])),
  tag: v.picklist(Object.values(BACNET_TAGS)),
  value: v.optional(v.nullable(v.union([finite, v.boolean()]))),
};

export const bacnetItemSchema = v.strictObject({
  device_instance: int(0, 4194302),
  ...bacnetWriteFields,
  verify: v.optional(v.boolean()),
});

export const bacnetMultipleItemSchema = v.strictObject({
  device_instance: int(0, 4194302),
  array: v.pipe(v.array(v.strictObject(bacnetWriteFields)), v.minLength(1, 'array must not be empty')),
  verify: v.optional(v.boolean()),
});

export const envelopeSchema = v.object({
  jsonrpc: v.literal('2.0', 'jsonrpc must be "2.0"'),
  protocol: v.picklist(['modbus', 'modbus-rtu', 'bacnet', 'bacnet_m'], 'protocol must be one of modbus, modbus-rtu, bacnet, bacnet_m'),
  params: v.pipe(v.array(v.unknown(), 'params must be an array'), v.minLength(1, 'params must not be empty')),
  // JSON-RPC's own members are tolerated so ordinary JSON-RPC clients can call the endpoint.
  id: v.optional(v.union([v.string(), v.number(), v.null()])),
  method: v.optional(v.string()),
});

export type ModbusTcpItem = v.InferOutput<typeof modbusTcpItemSchema>;
export type ModbusRtuItem = v.InferOutput<typeof modbusRtuItemSchema>;
export type BacnetItem = v.InferOutput<typeof bacnetItemSchema>;
export type BacnetMultipleItem = v.InferOutput<typeof bacnetMultipleItemSchema>;
export type BacnetWriteFields = v.InferOutput<v.ObjectSchema<typeof bacnetWriteFields, undefined>>;

/** "params[2].object_address: Invalid type: Expected number but received \"12\"" */
export function issueMessages(issues: readonly v.BaseIssue<unknown>[], prefix: string): string[] {
  return issues.map((issue) => {
    let path = prefix;
    for (const item of issue.path ?? []) {
      const key = (item as { key?: unknown }).key;
      path += typeof key === 'number' ? `[${key}]` : `${path ? '.' : ''}${String(key)}`;
    }
    return `Invalid request: ${path ? `${path}: ` : ''}${issue.message}`;
  });
}
