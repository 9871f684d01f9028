// The reading half of the field loop, as its parts see each other (issue 21):
//
//   adapter profile (industry data)  --toPolledDevices-->  PolledDevice[]
//   poller (src/field/poller.ts)      reads them on the field service's buses (the write queue, writes first)
//   bus events (src/realtime/bus.ts)  device_readings, device_link, bus_link
//   consumers                         reading pipeline (source 'device'), comm_loss alarms, stale marks,
//                                     curve following (the controller's held setpoints)
//
// One codec both ways: a point's engineering value is `raw / scale + offset`; a write sends
// `(value - offset) * scale` (the write contract's "scale multiplies before encoding", offset 0).

export type ModbusTable = 'holding register' | 'input register' | 'coil' | 'discrete input';
export type ModbusDataType = 'int16' | 'uint16' | 'bool' | 'int32' | 'uint32' | 'float32' | 'float64';
export type WordOrder = 'LE' | 'BE' | 'CDAB' | 'BADC';

/** One value the poller reads: a reading (temp, humidity, ...) or a setpoint read back. */
export interface PollPoint {
  /** The industry's name: a reading key (temp, humidity, co2, nh3, ventilation, ...) or a setpoint key. */
  key: string;
  kind: 'reading' | 'setpoint';
  /** Modbus: the table and 0-based address; BACnet: address is the object instance. */
  object_type?: ModbusTable;
  address: number;
  data_type?: ModbusDataType;
  order?: WordOrder;
  /** raw / scale + offset = engineering value (default 1 and 0). */
  scale?: number;
  offset?: number;
  /** BACnet object type (0 analog-input, 1 analog-output, 2 analog-value, ...) and property (85 present-value). */
  bacnet_object_type?: number;
  property?: number;
  /** Poll period of this point in ms; default the device's. BACnet: 'cov' subscribes instead of polling. */
  period_ms?: number;
  cov?: boolean;
}

/** A device the poller reads: one adapter profile row of an industry. */
export interface PolledDevice {
  /** The adapter profile id (unique across industries: `<industry>:<id>`). */
  id: string;
  industry: 'poultry' | 'swine' | 'melioration';
  tenant_id: string;
  site_id: string | null;
  /** The house, room or field the device belongs to. */
  unit_id: string;
  controller_id: string;
  transport: 'modbus-tcp' | 'modbus-rtu' | 'bacnet';
  host?: string;
  port?: number;
  serial_path?: string;
  modbus_unit_id?: number;
  device_instance?: number;
  period_ms: number;
  /** Consecutive missed polls that make a communication loss. */
  loss_after_misses: number;
  points: PollPoint[];
}

/** Which device an event is about: the adapter profile's device, its unit and its tenant. */
export type DeviceRef = Pick<PolledDevice, 'industry' | 'tenant_id' | 'site_id' | 'unit_id' | 'controller_id'> & { device_id: string };

/** One poll of a device that answered: every point read in this cycle, engineering values. */
export interface DeviceReadingEvent extends DeviceRef {
  /** When the answer arrived (RFC 3339). */
  at: string;
  /** Reading keys -> values (kind 'reading'). */
  values: Record<string, number>;
  /** Setpoint keys -> the value the controller holds now (kind 'setpoint'). */
  setpoints: Record<string, number>;
  source: 'device';
}

/** A device's link changed: lost after loss_after_misses missed polls, ok at the first good answer. */
export interface DeviceLinkEvent extends DeviceRef {
  state: 'lost' | 'ok';
  /** Consecutive missed polls when lost; 0 when ok. */
  misses: number;
  /** The last failure's message ("Timeout 127.0.0.1:5020 addr:0"), null when ok. */
  message: string | null;
  /** The bus the device is on ("tcp:127.0.0.1:5020", "rtu:/dev/serial/by-id/...", "bacnet:<address>"). */
  bus: string;
  at: string;
}

/** A serial bus (an RS-485 adapter) went away or came back: one event for all its devices. */
export interface BusLinkEvent {
  bus: string;
  state: 'lost' | 'ok';
  message: string | null;
  /** The devices on the bus (their own device_link events are not sent while the bus is lost). */
  device_ids: string[];
  at: string;
}

/** What the API shows of a polled device (GET .../devices status, house cards). */
export interface DeviceState {
  device_id: string;
  bus: string;
  state: 'unknown' | 'ok' | 'lost';
  misses: number;
  last_ok_at: string | null;
  last_message: string | null;
}

/** The poller as its users see it (built by the composition root on the field service's buses). */
export interface Poller {
  /** Replaces the set of polled devices (an adapter profile created or deleted); keeps the state of devices that stay. */
  set(devices: readonly PolledDevice[]): void;
  /** Every polled device's link state now. */
  snapshot(): DeviceState[];
  /** Resolves when the polls under way now have answered (or failed) and said so on the bus. */
  idle(): Promise<void>;
  close(): Promise<void>;
}
