// The simulator's Modbus slave: modbus-serial's own ServerTCP / ServerSerial (the protocol is
// theirs), answering from the register map (register-map.ts) and the houses (simulation.ts).
// House k answers at unit id k on the one port or serial line; any other unit id gets exception
// 0B (gateway target failed to respond), as a TCP gateway in front of an RS-485 bus would say.
import type net from 'node:net';
import { ServerSerial, ServerTCP, type IServiceVector } from 'modbus-serial';
import { encodeValue } from '../field/encoding.js';
import type { HouseState, Readings } from './model.js';
import { readings } from './model.js';
import { REGISTER_MAP, type MapEntry, type SetpointEntry, type Table } from './register-map.js';
import type { Simulation } from './simulation.js';

/** A Modbus exception: modbus-serial answers with this code (its servers read modbusErrorCode). */
export class ModbusException extends Error {
  constructor(
    readonly modbusErrorCode: number,
    message: string,
  ) {
    super(message);
  }
}
const ILLEGAL_ADDRESS = 0x02;
const ILLEGAL_VALUE = 0x03;
const GATEWAY_TARGET = 0x0b;

const engineering = (e: MapEntry, s: HouseState, r: Readings): number | boolean =>
  e.table === 'holding register' ? s.setpoints[e.key] : r[e.source];

/** Every word (or bit) of one table for one house, from one consistent snapshot. */
export function tableImage(table: Table, s: HouseState): Map<number, number> {
  const r = readings(s);
  const image = new Map<number, number>();
  for (const e of REGISTER_MAP) {
    if (e.table !== table) continue;
    const value = engineering(e, s, r);
    if (e.table === 'coil') {
      image.set(e.address, value ? 1 : 0);
      continue;
    }
    const regs = encodeValue(e.data_type, e.order ?? 'LE', clampToType(e, value as number), e.scale);
    regs.forEach((w, i) => image.set(e.address + i, w));
  }
  return image;
}

// A sensor at the end of its range shows the range's end (an NH3 reading never goes below 0 ppm).
function clampToType(e: MapEntry, value: number): number {
  const raw = value * e.scale;
  if (e.data_type === 'uint16') return Math.min(65535, Math.max(0, raw)) / e.scale;
  if (e.data_type === 'int16') return Math.min(32767, Math.max(-32768, raw)) / e.scale;
  if (e.data_type === 'uint32') return Math.min(4294967295, Math.max(0, raw)) / e.scale;
  return value;
}

function words(sim: Simulation, table: Table, addr: number, length: number, unit: number): number[] {
  const s = sim.state(unit);
  if (!s) throw new ModbusException(GATEWAY_TARGET, `no house at unit id ${unit}`);
  const image = tableImage(table, s);
  const out: number[] = [];
  for (let a = addr; a < addr + length; a++) {
    const w = image.get(a);
    if (w === undefined) throw new ModbusException(ILLEGAL_ADDRESS, `${table} ${a} is not in the map`);
    out.push(w);
  }
  return out;
}

const SETPOINT_AT = new Map<number, SetpointEntry>(
  REGISTER_MAP.filter((e): e is SetpointEntry => e.table === 'holding register').map((e) => [e.address, e]),
);

/** Writes whole setpoints: every word is checked before any is taken, so a refused write changes nothing. */
function writeSetpoints(sim: Simulation, addr: number, raw: readonly number[], unit: number): void {
  if (!sim.state(unit)) throw new ModbusException(GATEWAY_TARGET, `no house at unit id ${unit}`);
  const changes = raw.map((w, i) => {
    const e = SETPOINT_AT.get(addr + i);
    if (!e) throw new ModbusException(ILLEGAL_ADDRESS, `holding register ${addr + i} is not a setpoint`);
    const signed = e.data_type === 'int16' && w > 0x7fff ? w - 0x10000 : w;
    const value = signed / e.scale;
    if (value < e.min || value > e.max) throw new ModbusException(ILLEGAL_VALUE, `${e.key} ${value} is outside ${e.min}..${e.max}`);
    return { key: e.key, value };
  });
  for (const c of changes) sim.setSetpoint(unit, c.key, c.value);
}

// Plain functions that return values: modbus-serial tells them from callback-style handlers by
// their arity, so none of these may take a callback parameter.
export function serviceVector(sim: Simulation): IServiceVector {
  const one = (table: Table) => (addr: number, unit: number): number => words(sim, table, addr, 1, unit)[0]!;
  return {
    getInputRegister: one('input register'),
    getHoldingRegister: one('holding register'),
    getMultipleInputRegisters: (addr: number, length: number, unit: number) => words(sim, 'input register', addr, length, unit),
    getMultipleHoldingRegisters: (addr: number, length: number, unit: number) => words(sim, 'holding register', addr, length, unit),
    getCoil: (addr: number, unit: number) => words(sim, 'coil', addr, 1, unit)[0] === 1,
    setCoil: (addr: number): void => {
      throw new ModbusException(ILLEGAL_ADDRESS, `coil ${addr} is read only`);
    },
    setRegister: (addr: number, value: number, unit: number) => writeSetpoints(sim, addr, [value], unit),
    setRegisterArray: (addr: number, values: number[], unit: number) => writeSetpoints(sim, addr, values, unit),
  };
}

export interface RunningServer {
  /** The TCP port listened on, or the serial path. */
  where: number | string;
  close(): Promise<void>;
}

export async function startTcpServer(sim: Simulation, host: string, port: number): Promise<RunningServer> {
  // modbus-serial listens on `options.port || 502`: the number 0 would mean 502, the string "0"
  // reaches net.Server.listen, which takes it as "any free port".
  const server = new ServerTCP(serviceVector(sim), { host, port: (port === 0 ? '0' : port) as number });
  await new Promise<void>((resolve, reject) => {
    server.once('initialized', () => resolve());
    server.once('serverError', reject);
  });
  // The port actually bound: modbus-serial keeps its net.Server in the undeclared `_server`.
  const bound = (server as unknown as { _server: net.Server })._server.address() as net.AddressInfo;
  server.on('socketError', () => {}); // a client that hangs up mid-request is its business
  return { where: bound.port, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

export async function startSerialServer(sim: Simulation, path: string, baudRate: number): Promise<RunningServer> {
  // modbus-serial leaves ServerSerial out when the serialport addon cannot load.
  if (typeof ServerSerial !== 'function') throw new Error('Modbus RTU is not available here: the serialport addon did not load');
  let server: ServerSerial | undefined;
  await new Promise<void>((resolve, reject) => {
    server = new ServerSerial(serviceVector(sim), {
      path, baudRate, dataBits: 8, stopBits: 1, parity: 'none',
      openCallback: (err: Error | null) => (err ? reject(err) : resolve()),
    });
    server.once('error', reject);
  });
  const s = server!;
  s.on('error', () => {});
  return { where: path, close: () => new Promise((resolve) => s.close(() => resolve())) };
}
