// The minute roll-up of a house's climate readings (GET poultry-climate-readings/minutely) on both
// dialects: what the house charts draw in a batch's first hours, when the hourly roll-up has one
// point. Its numbers against values computed by hand, its window limit (400, nothing changed),
// the tenant boundary. The hourly roll-up: test/http/poultry-readings.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

type Item = Record<string, unknown>;
const MIN = 60_000;
// The start of the UTC minute forty minutes ago: readings at fixed seconds after it.
const T = Math.floor((Date.now() - 40 * MIN) / MIN) * MIN;
const at = (s: number) => new Date(T + s * 1000).toISOString();
const minuteOf = (s: number) => new Date(T + Math.floor(s / 60) * MIN).toISOString();
const q = (from: string, to: string) => `from=${encodeURIComponent(from)}&to=${encodeURIComponent(to)}`;

describe.each(DIALECTS)('poultry climate minute roll-up (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let op: Client;
  let other: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    const admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    other = await clientAs(env, server, { subject: 'admin-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    const today = new Date().toISOString().slice(0, 10);
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { subtype: 'broiler', start_date: today, birds_placed: 20_000, house_id: 'H1', batch_id: 'B1', site_id: 's1' })).status).toBe(201);
    // three readings in the first minute, one in the third
    for (const [s, temp, co2] of [[5, 31, 900], [20, 32, 1100], [50, 33, 1000], [130, 30, 800]] as const) {
      const r = await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', ts: at(s), temp, co2 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
  }, 60_000);
  afterAll(async () => env.cleanup());

  it('rolls the readings up by minute, oldest first, inside the caller\'s tenant', async () => {
    const res = await op.get(`/api/v1/poultry-climate-readings/minutely?house_id=H1&batch_id=B1&${q(at(0), at(600))}`);
    expect(res.status).toBe(200);
    expect(res.body.item.items).toEqual([
      { minute: minuteOf(5), n: 3, temp_avg: 32, temp_min: 31, temp_max: 33, humidity_avg: null, co2_max: 1100, nh3_max: null, ventilation_avg: null },
      { minute: minuteOf(130), n: 1, temp_avg: 30, temp_min: 30, temp_max: 30, humidity_avg: null, co2_max: 800, nh3_max: null, ventilation_avg: null },
    ]);
    // the same readings are one hourly point or two: the reason the charts need the minutes
    const hours = (await op.get(`/api/v1/poultry-climate-readings/hourly?house_id=H1&${q(at(0), at(600))}`)).body.item.items as Item[];
    expect(hours.reduce((n, h) => n + Number(h.n), 0)).toBe(4);
    expect(hours.length).toBeLessThanOrEqual(2);
    expect((await other.get(`/api/v1/poultry-climate-readings/minutely?house_id=H1&${q(at(0), at(600))}`)).body.item.items).toEqual([]);
  });

  it('refuses a window over 24 hours with 400 validation_error', async () => {
    const res = await op.get(`/api/v1/poultry-climate-readings/minutely?house_id=H1&${q(new Date(T - 25 * 60 * MIN).toISOString(), at(0))}`);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.message).toContain('24 hours');
  });
});
