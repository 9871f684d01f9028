import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ModbusRTU from 'modbus-serial';
import { readings, TAU_TEMP_S } from '../../src/simulate/model.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { REGISTER_MAP, registerCount, type MapEntry } from '../../src/simulate/register-map.js';
import { startTcpServer, type RunningServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { decode, WORDS } from './helpers.js';

// A frozen clock: the house does not move between the test's read and the model's value.
let now = Date.UTC(2026, 5, 1, 12);
const sim = new Simulation({ houses: 2, age_days: 10, birds: 20_000, speed: 1, seed: 3, noise: 1, clock: () => now });
let server: RunningServer;
const client = new ModbusRTU();

beforeAll(async () => {
  server = await startTcpServer(sim, '127.0.0.1', 0);
  await client.connectTCP('127.0.0.1', { port: server.where as number });
  client.setTimeout(3000);
});
afterAll(async () => {
  await new Promise<void>((r) => client.close(() => r()));
  await server.close();
});

async function raw(unit: number, e: Pick<MapEntry, 'table' | 'address'>, count: number): Promise<number[]> {
  client.setID(unit);
  if (e.table === 'coil') return (await client.readCoils(e.address, count)).data.slice(0, count).map(Number);
  const r = e.table === 'input register' ? await client.readInputRegisters(e.address, count) : await client.readHoldingRegisters(e.address, count);
  return r.data;
}

const modbusCode = async (p: Promise<unknown>): Promise<number | undefined> =>
  p.then(() => undefined, (err: { modbusCode?: number }) => err.modbusCode);

describe('simulator Modbus TCP server', () => {
  it('every register in the map decodes to the model value, for each house', async () => {
    for (const unit of [1, 2]) {
      const s = sim.state(unit)!;
      const r = readings(s);
      for (const e of REGISTER_MAP) {
        const value = decode(await raw(unit, e, registerCount(e)), e.data_type, e.order) / e.scale;
        const expected = e.table === 'holding register' ? s.setpoints[e.key] : Number(r[e.source]);
        const tolerance = e.data_type === 'float32' ? Math.abs(expected) * 1e-6 : 0.5 / e.scale + 1e-9;
        expect(Math.abs(value - expected), `${e.table} ${e.address} ${e.key}: ${value} vs ${expected}`).toBeLessThanOrEqual(tolerance);
      }
    }
    // The noise makes the two houses differ, so a unit id mix-up would show.
    expect(readings(sim.state(1)!).temp).not.toBe(readings(sim.state(2)!).temp);
  });

  it('one multi-register read returns the whole input block from one snapshot', async () => {
    const inputs = REGISTER_MAP.filter((e) => e.table === 'input register');
    const end = Math.max(...inputs.map((e) => e.address + registerCount(e)));
    const block = await raw(1, { table: 'input register', address: 0 }, end);
    const feed = inputs.find((e) => e.key === 'feed_kg')!;
    expect(decode(block.slice(feed.address, feed.address + 2), 'uint32', 'CDAB') / 10).toBeCloseTo(readings(sim.state(1)!).feed_kg, 1);
  });

  it('a write to target_temp_c is read back and moves the house temperature', async () => {
    now += 60_000;
    const before = sim.state(1)!.temp_c;
    client.setID(1);
    await client.writeRegister(0, 250); // FC 6: 25.0 °C at scale 10
    expect((await client.readHoldingRegisters(0, 1)).data).toEqual([250]);
    expect(sim.state(1)!.setpoints.target_temp_c).toBe(25);
    expect(sim.state(2)!.setpoints.target_temp_c).not.toBe(25);
    now += TAU_TEMP_S * 1000;
    const temp = decode((await client.readInputRegisters(0, 1)).data, 'int16') / 10;
    // One time constant: ~63 % of the way to the new target (sensor noise ±0.3 °C).
    expect(temp).toBeCloseTo(before + (25 - before) * (1 - Math.exp(-1)), 0);
  });

  it('FC 16 writes several setpoints; a refused value changes none of them', async () => {
    client.setID(2);
    await client.writeRegisters(2, [40, 75]);
    expect(sim.state(2)!.setpoints).toMatchObject({ humidity_min_pct: 40, humidity_max_pct: 75 });
    // co2_max_ppm 50 is below what the controller accepts (600): exception 03, humidity_max stays 75.
    expect(await modbusCode(client.writeRegisters(3, [80, 50]))).toBe(3);
    expect(sim.state(2)!.setpoints).toMatchObject({ humidity_max_pct: 75, co2_max_ppm: 3000 });
  });

  it('answers the mistakes a real controller answers: unmapped address, read-only coil, unknown unit', async () => {
    client.setID(1);
    expect(await modbusCode(client.readInputRegisters(14, 1))).toBe(2);
    expect(await modbusCode(client.readHoldingRegisters(6, 2))).toBe(2);
    expect(await modbusCode(client.writeRegister(20, 1))).toBe(2);
    expect(await modbusCode(client.writeCoil(0, true))).toBe(2);
    client.setID(9);
    expect(await modbusCode(client.readInputRegisters(0, 1))).toBe(0x0b);
    client.setID(1);
    expect((await client.readCoils(0, 2)).data.slice(0, 2)).toEqual([sim.state(1)!.heating_on, readings(sim.state(1)!).alarm]);
  });

  it('the adapter profile reads what the house holds: each reading and setpoint decoded per the profile', async () => {
    const { item } = adapterProfile({ house: 2, port: server.where as number });
    expect(item.readings.map((r) => r.key).sort()).toEqual(['co2', 'feed_kg', 'humidity', 'nh3', 'outside_temp', 'temp', 'ventilation', 'water_l']);
    const s = sim.state(2)!;
    const r = readings(s);
    for (const p of item.readings) {
      const value = decode(await raw(item.modbus_unit_id, { table: p.object_type as MapEntry['table'], address: p.address }, WORDS[p.data_type]), p.data_type, p.order) / p.scale;
      expect(Math.abs(value - Number(r[p.key as keyof typeof r])), p.key).toBeLessThanOrEqual(0.5 / p.scale + 1e-4);
    }
    for (const p of item.points) {
      const value = decode(await raw(item.modbus_unit_id, { table: p.object_type, address: p.address }, WORDS[p.data_type]), p.data_type) / p.scale;
      expect(value, p.key).toBe(s.setpoints[p.key as keyof typeof s.setpoints]);
    }
  });
});
