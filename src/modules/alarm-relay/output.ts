// One digital output as a field-service request: a Modbus coil (FC05, read back with FC01) on TCP
// or RTU, or a BACnet binary output's present value (ENUMERATED 1 active / 0 inactive at
// priority 8, read back). Pure: the runtime and the test command build their writes here.
import type { OutputRow } from './schema.js';

/** BACnet object type binary-output, property present-value, tag ENUMERATED. */
const BINARY_OUTPUT = 4;
const PRESENT_VALUE = 85;
const ENUMERATED = 9;
/** Manual operator: below life safety (1-2), above the usual automatic programs. */
export const BACNET_PRIORITY = 8;

export interface FieldRequest {
  jsonrpc: '2.0';
  protocol: 'modbus' | 'modbus-rtu' | 'bacnet';
  params: Record<string, unknown>[];
}

export function writeRequest(row: OutputRow, on: boolean): FieldRequest {
  const value = on ? 1 : 0;
  if (row.transport === 'bacnet') {
    return { jsonrpc: '2.0', protocol: 'bacnet', params: [{ device_instance: row.device_instance, object_type: BINARY_OUTPUT, object_instance: row.object_instance, property: PRESENT_VALUE, tag: ENUMERATED, value, priority: BACNET_PRIORITY, verify: true }] };
  }
  const coil = { object_type: 'coil', object_address: row.coil, value, unit_id: row.unit_id ?? 1, verify: true };
  if (row.transport === 'modbus-tcp') return { jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: row.host, device_port: row.port ?? 502, ...coil }] };
  return {
    jsonrpc: '2.0', protocol: 'modbus-rtu',
    params: [{ serial_port: row.serial_port, ...(row.baud_rate !== null ? { baud_rate: row.baud_rate } : {}), ...(row.parity !== null ? { parity: row.parity } : {}), ...coil }],
  };
}

/** Where the output is, as data for the box's texts (box.relay.failed.message words it as describeOutput does). */
export function outputParams(row: OutputRow): Record<string, string | number | null> {
  if (row.transport === 'bacnet') return { transport: 'bacnet', device: row.device_instance ?? null, object: row.object_instance ?? null };
  const at = row.transport === 'modbus-tcp' ? `${row.host}:${row.port ?? 502}` : `${row.serial_port}`;
  return { transport: row.transport, at, modbus_unit: row.unit_id ?? 1, coil: row.coil ?? null };
}

/** Where the output is, in the words of the commissioning sheet. */
export function describeOutput(row: OutputRow): string {
  if (row.transport === 'bacnet') return `BACnet device ${row.device_instance} binary output ${row.object_instance}`;
  const at = row.transport === 'modbus-tcp' ? `${row.host}:${row.port ?? 502}` : `${row.serial_port}`;
  return `Modbus ${at} unit ${row.unit_id ?? 1} coil ${row.coil}`;
}
