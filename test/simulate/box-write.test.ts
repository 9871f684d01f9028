// The box writing a simulated house: the simulator's adapter profile on the poultry-adapters API
// of a real server, and a confirmed setpoint going through the field-write service to the
// simulator, read back, and moving the house.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { TAU_TEMP_S } from '../../src/simulate/model.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

let now = Date.now();
const sim = new Simulation({ houses: 2, age_days: 10, birds: 20_000, speed: 1, seed: 4, noise: 0, clock: () => now });
let simServer: SimServer;
let env: TestEnv;
let server: RunningServer;
let admin: Client;
let op: Client;

beforeAll(async () => {
  simServer = await startTcpServer(sim, '127.0.0.1', 0);
  env = await createTestEnv('sqlite');
  server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 1000, retries: 0 }) });
  const master = await clientAs(env, server);
  admin = await clientAs(env, server, { subject: 'sim-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
  op = await clientAs(env, server, { subject: 'sim-op', role: 'operator', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
});
afterAll(async () => {
  await env.cleanup();
  await simServer.close();
});

describe('the box writes a simulated house', () => {
  it('a confirmed target temperature reaches house 2 through its profile, is verified, and moves the house', async () => {
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: '2', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(10) })).status).toBe(201);
    const { item } = adapterProfile({ house: 2, port: simServer.where as number });
    // The reading declaration (readings, poll settings, read_back) arrives with the industry
    // helper's schema; until then the profile's setpoint part is what the API takes.
    const { readings: _r, poll_period_s: _p, loss_after_misses: _l, comm_loss_priority: _c, ...setpointPart } = item;
    const created = await admin.post('/api/v1/poultry-adapters', { item: { ...setpointPart, points: item.points.map(({ read_back: _b, ...p }) => p) } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);

    const before = sim.state(2)!.temp_c;
    const proposed = await op.post('/api/v1/poultry-climate/commands/setpoint', { house_id: '2', batch_id: 'B1', age_phase_id: 'd08-14', target_temp_c: 24.5 });
    expect(proposed.status, JSON.stringify(proposed.body)).toBe(201);
    expect(sim.state(2)!.setpoints.target_temp_c).not.toBe(24.5); // nothing moves before the confirmation
    const ack = await admin.post('/api/v1/poultry-climate/commands/ack', { id: proposed.body.item.id });
    expect(ack.body.item.adapter_dispatch, JSON.stringify(ack.body)).toMatchObject({ status: 'verified', controller_id: 'sim-house-2', transport: 'modbus-tcp' });
    expect(ack.body.item.adapter_dispatch.written).toEqual([{ key: 'target_temp_c', value: 24.5, address: '0', verified: true }]);
    expect(sim.state(2)!.setpoints.target_temp_c).toBe(24.5);
    expect(sim.state(1)!.setpoints.target_temp_c).not.toBe(24.5);
    now += TAU_TEMP_S * 1000;
    expect(sim.state(2)!.temp_c).toBeCloseTo(before + (24.5 - before) * (1 - Math.exp(-1)), 1);
  });
});
