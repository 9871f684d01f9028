import { encodeCoils, encodeRegisters, EncodingError, REGISTER_COUNT, type ByteOrder, type RegisterDataType } from './encoding.js';
import type { ModbusWrite } from './modbus-bus.js';
import type { ModbusRtuItem, ModbusTcpItem } from './request.js';
import type { FieldConfig, SerialSettings } from './config.js';

// Turns a validated Modbus item into the exact registers/coils and function code to send, or a
// refusal. Nothing here touches a bus: a request with one bad item writes nothing.

const MAX_REGISTERS_FC16 = 123;
const MAX_COILS_FC15 = 1968;

export type ModbusBusSpec = { kind: 'tcp'; host: string; port: number } | { kind: 'rtu'; serial: SerialSettings };

export interface ModbusPlan {
  bus: ModbusBusSpec;
  /** Target part of messages, same as the bus reports. */
  target: string;
  write: ModbusWrite;
}

export type PlanResult = { ok: true; plan: ModbusPlan } | { ok: false; message: string };

export function planModbus(item: ModbusTcpItem | ModbusRtuItem, rtu: boolean, config: FieldConfig): PlanResult {
  const unitId = item.unit_id ?? config.modbus.unit_id;
  let bus: ModbusBusSpec;
  let target: string;
  if (rtu) {
    const r = item as ModbusRtuItem;
    const d = config.modbus.serial;
    const serial: SerialSettings = {
      path: r.serial_port ?? d.path,
      baud_rate: r.baud_rate ?? d.baud_rate,
      parity: r.parity ?? d.parity,
      stop_bits: r.stop_bits ?? d.stop_bits,
      data_bits: r.data_bits ?? d.data_bits,
    };
    bus = { kind: 'rtu', serial };
    target = `${serial.path} unit:${unitId}`;
  } else {
    const t = item as ModbusTcpItem;
    bus = { kind: 'tcp', host: t.device_ip, port: t.device_port ?? 502 };
    target = `${bus.host}:${bus.port}`;
  }
  const refuse = (why: string): PlanResult => ({ ok: false, message: `Invalid value ${target} addr:${item.object_address} ${why}` });

  // Unit 0 is broadcast on RTU: nobody answers, so the write could never be confirmed.
  if (rtu && (unitId < 1 || unitId > 247)) return refuse(`unit_id must be 1..247 on RTU, got ${unitId}`);

  const base = { unitId, address: item.object_address, verify: item.verify ?? false, ...(bus.kind === 'rtu' ? { serial: bus.serial } : {}) };
  const isArray = Array.isArray(item.value);
  try {
    if (item.object_type === 'coil') {
      if (item.data_type !== undefined && item.data_type !== 'bool') {
        return refuse(`a coil holds one bit: data_type must be bool or omitted, got ${item.data_type}`);
      }
      if (item.scale !== undefined && item.scale !== 1) return refuse('scale is not allowed on a coil');
      const coils = encodeCoils(item.value);
      if (coils.length > MAX_COILS_FC15) return refuse(`at most ${MAX_COILS_FC15} coils per write, got ${coils.length}`);
      if (item.object_address + coils.length > 65536) return refuse('coils run past address 65535');
      return { ok: true, plan: { bus, target, write: { ...base, objectType: 'coil', coils, functionCode: isArray ? 15 : 5 } } };
    }
    if (item.data_type === undefined) return refuse('data_type is required for a holding register');
    const dataType: RegisterDataType = item.data_type;
    const width = REGISTER_COUNT[dataType];
    // Word order of 32/64-bit values differs between devices; guessing it writes a wrong value silently.
    if (width > 1 && item.order === undefined) return refuse(`order (LE, BE, CDAB or BADC) is required for ${dataType}`);
    const order: ByteOrder = item.order ?? 'LE';
    const registers = encodeRegisters(dataType, order, item.value, item.scale ?? 1);
    if (registers.length > MAX_REGISTERS_FC16) return refuse(`at most ${MAX_REGISTERS_FC16} registers per write, got ${registers.length}`);
    if (item.object_address + registers.length > 65536) return refuse('registers run past address 65535');
    const functionCode = !isArray && width === 1 ? 6 : 16;
    return { ok: true, plan: { bus, target, write: { ...base, objectType: 'holding register', registers, functionCode } } };
  } catch (err) {
    if (err instanceof EncodingError) return refuse(err.message);
    throw err;
  }
}
