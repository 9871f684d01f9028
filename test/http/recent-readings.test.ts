// Climate readings wait in poultry_climate_readings_recent on SQLite and are settled into
// poultry_climate_readings (src/modules/poultry/recent-readings.ts, src/db/settle.ts); PostgreSQL
// writes them in place. Either way the list, a reading by id and the hourly and minute roll-ups
// answer the same before and after the settle, and what a run left waiting is settled at the next
// start; the settle runs after each hour and when too many readings wait.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { setClock } from '../../src/kernel/clock.js';
import { readingSettleOf, RECENT_READINGS_MAX } from '../../src/modules/poultry/recent-readings.js';

const HOUR = 3_600_000;
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const count = async (server: RunningServer, table: string) =>
  Number((await server.services.db.rows<{ n: number | string }>(sql.raw(`select count(*) as n from ${table}`)))[0]!.n);

async function placed(env: TestEnv, server: RunningServer): Promise<Client> {
  const master = await clientAs(env, server);
  const admin = await clientAs(env, server, { subject: 'admin-w', role: 'admin', scope_type: 'tenant', tenant_id: 'tW' }, master.contract);
  for (const house of ['W1', 'W2']) expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: house, batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(3) })).status).toBe(201);
  return admin;
}

describe.each(DIALECTS)('recent climate readings and the settle (%s)', (dialect) => {
  let env: TestEnv;
  afterAll(async () => env?.cleanup());

  it('lists, finds and rolls up waiting readings like settled ones, and settles what a run left at the next start', { timeout: 120_000 }, async () => {
    env = await createTestEnv(dialect);
    let server = await env.start({ mqtt_broker: 'off' });
    const admin = await placed(env, server);
    const t0 = Date.now() - 30 * 60_000;
    for (const [i, house] of ['W1', 'W1', 'W2'].entries()) {
      expect((await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: house, temp: 20 + i, humidity: 60, ts: new Date(t0 + i * 60_000).toISOString() })).status).toBe(200);
    }
    expect(await count(server, 'poultry_climate_readings_recent')).toBe(dialect === 'sqlite' ? 3 : 0);
    expect(await count(server, 'poultry_climate_readings')).toBe(dialect === 'sqlite' ? 0 : 3);

    const look = async (client: Client) => {
      const page = async (path: string) => {
        const { items, total } = (await client.get(path)).body;
        return { items: (items as Record<string, unknown>[]).map(({ age_s: _age, stale: _stale, ...rest }) => rest), total };
      };
      const all = await page('/api/v1/poultry-climate-readings/list');
      const house = await page('/api/v1/poultry-climate-readings/list?house_id=W1');
      const one = (await client.get(`/api/v1/poultry-climate-readings/${String(house.items[0]!.id)}`)).body.item as Record<string, unknown>;
      const hourly = (await client.get('/api/v1/poultry-climate-readings/hourly?house_id=W1')).body.item.items;
      const minutely = (await client.get('/api/v1/poultry-climate-readings/minutely?house_id=W1')).body.item.items;
      return { all, house, one: { id: one.id, temp: one.temp }, hourly, minutely };
    };
    const before = await look(admin);
    expect(before.all.total).toBe(3);
    expect(before.house.items.map((i) => i.temp)).toEqual([21, 20]);
    expect(before.one).toEqual({ id: before.house.items[0]!.id, temp: 21 });
    expect(before.minutely.map((i: { n: number }) => i.n)).toEqual([1, 1]);

    expect(await readingSettleOf(server.services.db)!.settle()).toBe(dialect === 'sqlite' ? 3 : 0);
    expect(await count(server, 'poultry_climate_readings_recent')).toBe(0);
    expect(await count(server, 'poultry_climate_readings')).toBe(3);
    expect(await look(admin)).toEqual(before);

    // A clean stop leaves a waiting reading where it is (stored); the next start settles it.
    expect((await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'W2', temp: 25, ts: new Date(t0 + 5 * 60_000).toISOString() })).status).toBe(200);
    const waiting = (await admin.get('/api/v1/poultry-climate-readings/list?house_id=W2&limit=1')).body.items[0] as Record<string, unknown>;
    expect(waiting.temp).toBe(25);
    await server.close();
    server = await env.start({ mqtt_broker: 'off' });
    expect(await count(server, 'poultry_climate_readings_recent')).toBe(0);
    expect(await count(server, 'poultry_climate_readings')).toBe(4);
    const again = await clientAs(env, server, { subject: 'admin-w', role: 'admin', scope_type: 'tenant', tenant_id: 'tW' });
    expect(((await again.get('/api/v1/poultry-climate-readings/list?house_id=W2&limit=1')).body.items[0] as Record<string, unknown>).id).toBe(waiting.id);
    await server.close();
  });
});

describe('when the readings settle runs (sqlite)', () => {
  const envs: TestEnv[] = [];
  afterEach(() => setClock());
  afterAll(async () => { for (const e of envs) await e.cleanup(); });

  it('within a minute after the hour, not when the readings are written', { timeout: 180_000 }, async () => {
    // The box's clock in an hour's last minutes while the server starts, then seconds before that hour ends.
    const end = (Math.floor(Date.now() / HOUR) + 1) * HOUR;
    let offset = end - 120_000 - Date.now();
    setClock({ wall: () => Date.now() + offset, mono: () => performance.now() });
    const env = await createTestEnv('sqlite');
    envs.push(env);
    const server = await env.start({ mqtt_broker: 'off' });
    const admin = await placed(env, server);
    offset = end - 2_000 - Date.now();
    expect((await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'W1', temp: 20 })).status).toBe(200);
    expect(await count(server, 'poultry_climate_readings_recent')).toBe(1);
    await expect.poll(() => count(server, 'poultry_climate_readings_recent'), { timeout: 90_000, interval: 500 }).toBe(0);
    expect(Date.now() + offset).toBeGreaterThanOrEqual(end);
    expect(await count(server, 'poultry_climate_readings')).toBe(1);
    await server.close();
  });

  it(`at once when ${RECENT_READINGS_MAX} readings wait`, { timeout: 120_000 }, async () => {
    const env = await createTestEnv('sqlite');
    envs.push(env);
    const server = await env.start({ mqtt_broker: 'off' });
    const admin = await placed(env, server);
    expect((await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'W1', temp: 20 })).status).toBe(200);
    const settle = readingSettleOf(server.services.db)!;
    // One short of the bound (counted as if that many had been written): they wait.
    settle.appended(RECENT_READINGS_MAX - 2);
    expect(await count(server, 'poultry_climate_readings_recent')).toBe(1);
    settle.appended(1);
    await expect.poll(() => count(server, 'poultry_climate_readings_recent'), { timeout: 30_000 }).toBe(0);
    await server.close();
  });
});
