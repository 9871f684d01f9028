// Points that nobody waits for wait in telemetry_points_recent on SQLite and are settled into
// telemetry_points (src/modules/devices/recent.ts); a point somebody waits for (an HTTP push) is
// written in place, and PostgreSQL writes every point in place. Either way the list and the KPI
// answer the same before and after the settle, a point keeps its id, ids stay unique across both
// tables, and points a run left waiting are settled at the next start.
import { sql } from 'drizzle-orm';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import type { TelemetryPoint } from '../../src/realtime/bus.js';
import { setClock } from '../../src/kernel/clock.js';
import { RECENT_MAX } from '../../src/modules/devices/recent.js';

type Item = Record<string, unknown>;

const point = (device: string, status: TelemetryPoint['status'], at: number, value: number): TelemetryPoint => ({
  tenant_id: 'tQ', site_id: 's1', device_id: device, metric: 'temperature', value, unit: 'C',
  status, latency_ms: 5, ts: new Date(at).toISOString(), received_at: new Date().toISOString(),
});

describe.each(DIALECTS)('recent points and the settle (%s)', (dialect) => {
  let env: TestEnv;
  afterAll(async () => env?.cleanup());

  const count = async (server: RunningServer, table: string) =>
    Number((await server.services.db.rows<{ n: number | string }>(sql.raw(`select count(*) as n from ${table}`)))[0]!.n);

  it('lists and counts waiting points like settled ones, keeps their ids, and settles what a run left at the next start', { timeout: 120_000 }, async () => {
    env = await createTestEnv(dialect);
    let server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20' });
    const master = await clientAs(env, server);
    const op = await clientAs(env, server, { subject: 'op-q', role: 'operator', scope_type: 'tenant', tenant_id: 'tQ' }, master.contract);
    const t0 = Date.now() - 10 * 60_000;
    // Pushed through the API (its client waits): written in place.
    const pushed = await op.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: 'd-1', metric: 'temperature', value: 20, unit: 'C', ts: new Date(t0).toISOString() }] });
    expect(pushed.status).toBe(200);
    // Gathered (an MQTT trickle, a poll): on SQLite they wait in the recent table.
    await server.services.telemetry!.writer.enqueue([point('d-1', 'warn', t0 + 1000, 21), point('d-2', 'online', t0 + 2000, 22), point('d-2', 'error', t0 + 3000, 23)]);
    expect(await count(server, 'telemetry_points_recent')).toBe(dialect === 'sqlite' ? 3 : 0);
    expect(await count(server, 'telemetry_points')).toBe(dialect === 'sqlite' ? 1 : 4);

    const page = async (path: string) => {
      const { items, total } = (await op.get(path)).body;
      return { items, total };
    };
    const look = async () => {
      const list = await page('/api/v1/devices/telemetry/list?limit=10');
      const kpi = (await op.get('/api/v1/devices/telemetry/kpi')).body.item;
      const byDevice = await page('/api/v1/devices/telemetry/list?device_id=d-2&limit=10');
      const warn = (await op.get('/api/v1/devices/telemetry/kpi?status=warn')).body.item;
      return { list, kpi, byDevice, warn };
    };
    const before = await look();
    expect(before.list.total).toBe(4);
    expect(before.list.items.map((i: Item) => i.value)).toEqual([23, 22, 21, 20]);
    const ids = before.list.items.map((i: Item) => Number(i.id));
    expect(new Set(ids).size).toBe(4);
    // One sequence for both tables: the gathered points, written after the push, have larger ids.
    expect(Math.min(...ids.slice(0, 3))).toBeGreaterThan(ids[3]!);
    // The devices' last states are the waiting points: d-1 warn (its pushed point is older), d-2 error.
    expect(before.kpi).toMatchObject({ devices: 2, online: 0, warn: 1, error: 1, total_points: 4 });
    expect(before.byDevice.items.map((i: Item) => i.value)).toEqual([23, 22]);
    expect(before.warn).toMatchObject({ devices: 1, warn: 1, total_points: 1 });

    expect(await server.services.telemetry!.writer.settle()).toBe(dialect === 'sqlite' ? 3 : 0);
    expect(await count(server, 'telemetry_points_recent')).toBe(0);
    expect(await count(server, 'telemetry_points')).toBe(4);
    expect(await look()).toEqual(before);

    // A clean stop leaves waiting points where they are (stored); the next start settles them.
    await server.services.telemetry!.writer.enqueue([point('d-1', 'online', t0 + 4000, 24)]);
    const waiting = (await op.get('/api/v1/devices/telemetry/list?limit=1')).body.items[0] as Item;
    expect(waiting.value).toBe(24);
    await server.close();
    server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20' });
    expect(await count(server, 'telemetry_points_recent')).toBe(0);
    expect(await count(server, 'telemetry_points')).toBe(5);
    const again = await clientAs(env, server, { subject: 'op-q', role: 'operator', scope_type: 'tenant', tenant_id: 'tQ' });
    const after = (await again.get('/api/v1/devices/telemetry/list?limit=1')).body.items[0] as Item;
    expect(after).toEqual(waiting);
    await server.close();
  });
});

describe('when the settle runs (sqlite)', () => {
  const envs: TestEnv[] = [];
  afterEach(() => setClock());
  afterAll(async () => { for (const e of envs) await e.cleanup(); });
  const waitingIn = async (server: RunningServer) =>
    Number((await server.services.db.rows<{ n: number }>(sql`select count(*) as n from telemetry_points_recent`))[0]!.n);

  it('on the first tick of the next hour, not when the points are written', { timeout: 120_000 }, async () => {
    // The box's clock in an hour's last minutes while the server starts, then a few seconds before that hour ends.
    const HOUR = 3_600_000;
    const end = (Math.floor(Date.now() / HOUR) + 1) * HOUR;
    let offset = end - 120_000 - Date.now();
    setClock({ wall: () => Date.now() + offset, mono: () => performance.now() });
    const env = await createTestEnv('sqlite');
    envs.push(env);
    const server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20' });
    offset = end - 4_000 - Date.now();
    const at = Date.now() + offset;
    await server.services.telemetry!.writer.enqueue([point('d-1', 'online', at, 1), point('d-2', 'online', at, 2)]);
    expect(await waitingIn(server)).toBe(2);
    await expect.poll(() => waitingIn(server), { timeout: 30_000 }).toBe(0);
    expect(Date.now() + offset).toBeGreaterThanOrEqual((Math.floor(at / HOUR) + 1) * HOUR);
    await server.close();
  });

  it('moves a point whose id was taken meanwhile under the next free one, and loses none', { timeout: 120_000 }, async () => {
    const env = await createTestEnv('sqlite');
    envs.push(env);
    const server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20' });
    const { db } = server.services;
    await server.services.telemetry!.writer.enqueue([point('d-1', 'online', Date.now() - 2000, 1), point('d-1', 'online', Date.now() - 1000, 2)]);
    const [first] = await db.rows<{ id: number; series_id: number }>(sql`select min(id) as id, min(series_id) as series_id from telemetry_points_recent`);
    // A row written into telemetry_points by hand, under the id of a waiting point.
    await db.run(sql`insert into telemetry_points (id, series_id, ts, value, status, latency_ms, received_at) values (${Number(first!.id)}, ${Number(first!.series_id)}, 0, 99, 0, null, 0)`);
    expect(await server.services.telemetry!.writer.settle()).toBe(2);
    expect(await waitingIn(server)).toBe(0);
    const rows = await db.rows<{ id: number; value: number }>(sql`select id, value from telemetry_points order by value`);
    expect(rows.map((r) => Number(r.value))).toEqual([1, 2, 99]);
    expect(new Set(rows.map((r) => Number(r.id))).size).toBe(3);
    await server.close();
  });

  it(`at once when ${RECENT_MAX} points wait`, { timeout: 120_000 }, async () => {
    const env = await createTestEnv('sqlite');
    envs.push(env);
    const server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20' });
    const t = Date.now() - 3_600_000;
    const many = Array.from({ length: RECENT_MAX }, (_, i) => point(`d-${i % 30}`, 'online', t + i * 100, i));
    // One short of the bound: they wait.
    await server.services.telemetry!.writer.enqueue(many.slice(0, -1));
    expect(await waitingIn(server)).toBe(RECENT_MAX - 1);
    await server.services.telemetry!.writer.enqueue(many.slice(-1));
    await expect.poll(() => waitingIn(server), { timeout: 60_000 }).toBe(0);
    const [row] = await server.services.db.rows<{ n: number; lo: number; hi: number }>(sql`select count(*) as n, min(value) as lo, max(value) as hi from telemetry_points`);
    expect([Number(row!.n), Number(row!.lo), Number(row!.hi)]).toEqual([RECENT_MAX, 0, RECENT_MAX - 1]);
    await server.close();
  });
});
