import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ModbusRTU from 'modbus-serial';
import { startPtyPair, stopAll, removeDir, type PtyPair } from '../field/helpers.js';
import { readings } from '../../src/simulate/model.js';
import { startSerialServer, type RunningServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { decode } from './helpers.js';

// Modbus RTU over a socat pty pair: the simulator on one end, a modbus-serial master on the other
// (what the box's RS-485 adapter would be).
let now = Date.UTC(2026, 5, 1, 8);
const sim = new Simulation({ houses: 2, age_days: 5, birds: 20_000, speed: 1, seed: 9, noise: 1, clock: () => now });
let pair: PtyPair;
let server: RunningServer;
const client = new ModbusRTU();

beforeAll(async () => {
  pair = await startPtyPair();
  server = await startSerialServer(sim, pair.b, 19200);
  await client.connectRTUBuffered(pair.a, { baudRate: 19200 });
  client.setTimeout(3000);
});
afterAll(async () => {
  await new Promise<void>((r) => client.close(() => r()));
  await server.close();
  await stopAll();
  removeDir(pair.dir);
});

describe('simulator over Modbus RTU (pty pair)', () => {
  it('house 2 at unit id 2: reads decode to the model, a setpoint write is taken and read back', async () => {
    client.setID(2);
    const block = (await client.readInputRegisters(0, 11)).data;
    const r = readings(sim.state(2)!);
    expect(decode(block.slice(0, 1), 'int16') / 10).toBeCloseTo(r.temp, 1);
    expect(decode(block.slice(2, 3), 'uint16')).toBeCloseTo(r.co2, -1);
    expect(decode(block.slice(5, 7), 'float32', 'LE')).toBeCloseTo(r.outside_temp, 4);
    await client.writeRegister(6, 350); // min_ventilation_pct 35.0 %
    expect((await client.readHoldingRegisters(6, 1)).data).toEqual([350]);
    expect(sim.state(2)!.setpoints.min_ventilation_pct).toBe(35);
    expect(sim.state(1)!.setpoints.min_ventilation_pct).not.toBe(35);
    now += 60_000;
    expect(decode((await client.readInputRegisters(4, 1)).data, 'uint16') / 10).toBeGreaterThanOrEqual(35);
  });

  it('a refused write is an exception frame on the line, and the line keeps working', async () => {
    client.setID(1);
    const err = await client.writeRegister(0, 999).then(() => undefined, (e: { modbusCode?: number }) => e);
    expect(err?.modbusCode).toBe(3); // 99.9 °C is outside 5..40
    expect((await client.readHoldingRegisters(0, 1)).data[0]).toBe(Math.round(sim.state(1)!.setpoints.target_temp_c * 10));
  });
});
