// The adapter profile that lets the box read and write a simulated house: the poultry-adapters
// create body ({item}), built from the register map so the two cannot disagree.
import type { ModbusDataType, ModbusTable, WordOrder } from '../field/poll-types.js';
import { readingEntries, setpointEntries } from './register-map.js';

export interface ProfilePoint {
  key: string;
  address: number;
  object_type: 'holding register';
  data_type: ModbusDataType;
  scale: number;
  read_back: boolean;
}
export interface ProfileReading {
  key: string;
  object_type: ModbusTable;
  address: number;
  data_type: ModbusDataType;
  order?: WordOrder;
  scale: number;
}
export interface AdapterProfileItem {
  unit_id: string;
  controller_id: string;
  transport: 'modbus-tcp' | 'modbus-rtu';
  host?: string;
  port?: number;
  serial_path?: string;
  modbus_unit_id: number;
  poll_period_s: number;
  loss_after_misses: number;
  comm_loss_priority: 'P1' | 'P2';
  points: ProfilePoint[];
  readings: ProfileReading[];
}

export interface ProfileOptions {
  /** The house (1-based): its Modbus unit id. */
  house: number;
  host?: string;
  port?: number;
  /** Modbus RTU instead of TCP: the box's end of the serial line. */
  serial_path?: string;
  /** The box's house id (default `<k>`: the card reads "House 1"). */
  unit_id?: string;
  poll_period_s?: number;
}

export function adapterProfile(o: ProfileOptions): { item: AdapterProfileItem } {
  const link = o.serial_path !== undefined
    ? { transport: 'modbus-rtu' as const, serial_path: o.serial_path }
    : { transport: 'modbus-tcp' as const, host: o.host ?? '127.0.0.1', port: o.port ?? 5020 };
  return {
    item: {
      unit_id: o.unit_id ?? String(o.house),
      controller_id: `sim-house-${o.house}`,
      ...link,
      modbus_unit_id: o.house,
      poll_period_s: o.poll_period_s ?? 10,
      loss_after_misses: 3,
      comm_loss_priority: 'P1',
      points: setpointEntries().map((e) => ({ key: e.key, address: e.address, object_type: e.table, data_type: e.data_type, scale: e.scale, read_back: true })),
      readings: readingEntries()
        .filter((e) => e.polled)
        .map((e) => ({
          key: e.key, object_type: e.table, address: e.address, data_type: e.data_type,
          ...(e.order ? { order: e.order } : {}), scale: e.scale,
        })),
    },
  };
}
