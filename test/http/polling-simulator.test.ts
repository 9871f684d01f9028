// The whole reading loop on a real server: the simulated house controller's own adapter profile
// (readings and setpoints read back) POSTed to poultry-adapters; the poller reads it over Modbus
// TCP; its readings enter the poultry pipeline with source `device`, judged and stored, with their
// age; the controller stopped gives one comm_loss P1 for the house, the device's link `lost` and,
// past stale_after_s, stale readings; the controller back clears the alarm and readings resume,
// with no restart.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
type Item = Record<string, unknown>;

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 20_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('the box reads a simulated house', () => {
  const sim = new Simulation({ houses: 1, age_days: 12, birds: 20_000, speed: 1, seed: 7, noise: 0.2 });
  let simServer: SimServer;
  let port = 0;
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;

  beforeAll(async () => {
    simServer = await startTcpServer(sim, '127.0.0.1', 0);
    port = simServer.where as number;
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', stale_after_s: '4', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'barn-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'house-1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(12), birds_placed: 20_000 })).status).toBe(201);
  });
  afterAll(async () => {
    await env.cleanup();
    await simServer.close().catch(() => {});
  });

  const deviceReadings = async () => (await admin.get('/api/v1/poultry-climate-readings/list?house_id=house-1&limit=5')).body.items as Item[];
  const commLoss = async () => ((await admin.get('/api/v1/industry-alarms/list?unit_id=house-1&rule_id=comm_loss:sim-house-1')).body.items as Item[]);
  const link = async () => ((await admin.get('/api/v1/device-polling/list')).body.items as Item[]).find((d) => String(d.device_id).includes(':'));

  it('polls the house through its own profile: readings with source device, judged, with their age', async () => {
    const profile = adapterProfile({ house: 1, port, unit_id: 'house-1', poll_period_s: 1 });
    const created = await admin.post('/api/v1/poultry-adapters', profile);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const readings = await until('a polled reading', async () => {
      const items = await deviceReadings();
      return items.some((r) => r.source === 'device') ? items : undefined;
    });
    const latest = readings.find((r) => r.source === 'device')!;
    // What the simulated house holds, through the codec (int16 scale 10, CO2 uint16, ...).
    const house = sim.readings(1)!;
    expect(latest.temp as number).toBeGreaterThan(15);
    expect(latest.temp as number).toBeLessThan(40);
    expect(Math.abs((latest.temp as number) - house.temp)).toBeLessThan(1.5);
    expect(latest.co2 as number).toBeGreaterThan(300);
    expect(['ok', 'warn', 'alarm']).toContain(latest.status);
    expect(latest.age_s as number).toBeLessThan(5);
    expect(latest.stale).toBe(false);
    expect(await link()).toMatchObject({ state: 'ok', misses: 0 });
  });

  it('a controller that stops answering is one comm_loss P1, its link lost, its readings stale; its return clears it', async () => {
    await simServer.close();
    const raised = await until('comm_loss', async () => {
      const open = (await commLoss()).filter((a) => a.status === 'active');
      return open.length ? open : undefined;
    });
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ priority: 'P1', unit_id: 'house-1', industry_code: 'poultry', metric: 'comm_loss' });
    expect(raised[0]!.title).toMatch(/not answering/);
    // Farm words on the screens; what the bus said is kept for the installer.
    expect(raised[0]!.message).toBe('The box could not read controller sim-house-1 3 times in a row — check its power and its cable');
    expect((raised[0]!.details as Item).last_message).toMatch(/^Connection refused 127\.0\.0\.1:\d+ addr:0$/);
    expect(await link()).toMatchObject({ state: 'lost' });
    const stale = await until('stale readings', async () => {
      const items = await deviceReadings();
      return items[0]?.stale === true ? items[0] : undefined;
    });
    expect(stale.age_s as number).toBeGreaterThan(4);
    // Still one alarm after more missed polls.
    await new Promise((r) => setTimeout(r, 1500));
    expect((await commLoss()).filter((a) => a.status === 'active')).toHaveLength(1);

    simServer = await startTcpServer(sim, '127.0.0.1', port);
    await until('comm_loss cleared', async () => ((await commLoss()).every((a) => a.status !== 'active') ? true : undefined));
    const fresh = await until('a fresh reading', async () => {
      const items = await deviceReadings();
      return items[0]?.stale === false && items[0]?.source === 'device' ? items[0] : undefined;
    });
    expect(fresh.age_s as number).toBeLessThan(5);
    expect(await link()).toMatchObject({ state: 'ok' });
  });
});
