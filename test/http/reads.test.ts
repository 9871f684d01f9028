// Reads that neither see uncommitted rows nor block the server: a list during another caller's
// open transaction (which then rolls back) never shows its rows; list totals stop counting at
// COUNT_CAP and say so; the KPI's point count comes from the roll-ups and stays exact after a
// purge; a long read leaves the event loop free for /live.
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { COUNT_CAP } from '../../src/db/store.js';

const HOUR = 3_600_000;

describe.each(DIALECTS)('reads (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let op: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20' });
    const master = await clientAs(env, server);
    op = await clientAs(env, server, { subject: 'op-r', role: 'operator', scope_type: 'tenant', tenant_id: 'tR' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const db = () => server.services.db;

  /** `n` points of one new series, one a second from `start` (epoch ms), with their roll-ups, in raw SQL. */
  async function seed(device: string, n: number, start: number): Promise<void> {
    await db().run(sql`insert into telemetry_series (tenant_id, site_id, device_id, metric, unit) values ('tR', 's1', ${device}, 'temperature', 'C')`);
    const [row] = await db().rows<{ id: number | string }>(sql`select id from telemetry_series where device_id = ${device}`);
    const id = Number(row!.id);
    const base = sql.raw(String(start));
    await db().run(sql`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at)
      with recursive k(i) as (select 0 union all select i + 1 from k where i < ${sql.raw(String(n - 1))})
      select ${sql.raw(String(id))}, ${base} + i * 1000, 20.5, 0, 5, ${base} + i * 1000 from k`);
    for (const [res, width] of [[60, 60_000], [3600, HOUR]] as const) {
      const w = sql.raw(String(width));
      await db().run(sql`insert into telemetry_rollups (series_id, resolution, bucket, count, value_count, sum, min, max, last, last_ts)
        select ${sql.raw(String(id))}, ${sql.raw(String(res))}, (ts / ${w}) * ${w}, count(*), count(value), sum(value), min(value), max(value), 20.5, max(ts)
        from telemetry_points where series_id = ${sql.raw(String(id))} group by (ts / ${w}) * ${w}`);
    }
  }

  it('a list during another caller\'s open transaction never returns its rows, before or after it rolls back', async () => {
    const before = (await op.get('/api/v1/devices/telemetry/list')).body.total as number;
    let inserted = false;
    const tx = db().transaction(async () => {
      await db().run(sql`insert into telemetry_series (tenant_id, site_id, device_id, metric, unit) values ('tR', 's1', 'ghost', 'temperature', 'C')`);
      await db().run(sql`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at)
        select id, ${Date.now()}, 99, 0, 1, ${Date.now()} from telemetry_series where device_id = 'ghost'`);
      inserted = true;
      await sleep(400); // I/O inside the transaction: other requests run meanwhile
      throw new Error('rolled back');
    });
    while (!inserted) await sleep(5);
    const during = await op.get('/api/v1/devices/telemetry/list?device_id=ghost');
    const all = await op.get('/api/v1/devices/telemetry/list');
    const kpi = await op.get('/api/v1/devices/telemetry/kpi?device_id=ghost');
    await expect(tx).rejects.toThrow('rolled back');
    expect(during.status).toBe(200);
    expect(during.body).toMatchObject({ items: [], total: 0 });
    expect(all.body.total).toBe(before);
    expect(kpi.body.item).toMatchObject({ devices: 0, total_points: 0 });
    expect((await op.get('/api/v1/devices/telemetry/list?device_id=ghost')).body.total).toBe(0);
  });

  it('counts a list total up to COUNT_CAP, then gives a lower bound flagged in meta, exact on the last page', async () => {
    const start = Date.UTC(2026, 0, 1);
    await seed('many', COUNT_CAP + 500, start);
    const first = await op.get('/api/v1/devices/telemetry/list?device_id=many&limit=100');
    expect(first.body.items).toHaveLength(100);
    expect(first.body.meta.total_estimated).toBe(true);
    expect(first.body.total).toBeGreaterThan(COUNT_CAP);
    expect(first.body.has_more).toBe(true);
    const last = await op.get(`/api/v1/devices/telemetry/list?device_id=many&limit=100&offset=${COUNT_CAP + 400}`);
    expect(last.body).toMatchObject({ total: COUNT_CAP + 500, has_more: false });
    expect(last.body.meta.total_estimated).toBeUndefined();
    const exact = await op.get(`/api/v1/devices/telemetry-rollups/list?resolution=minute&device_id=many`);
    expect(exact.body.total).toBe(Math.ceil((COUNT_CAP + 500) / 60));
    expect(exact.body.meta.total_estimated).toBeUndefined();
  });

  it('KPI total points come from the roll-ups and stay exact after a purge cut into an hour', async () => {
    const start = Date.UTC(2026, 1, 1);
    await seed('kpi', 3 * 3600, start); // three hours, a point a second
    const kpi = async () => (await op.get('/api/v1/devices/telemetry/kpi?device_id=kpi')).body.item;
    expect(await kpi()).toMatchObject({ devices: 1, online: 1, total_points: 3 * 3600 });
    // Retention removes every point before a cut-off (here 90 minutes in); the roll-ups stay.
    expect(await server.services.telemetry!.purge(new Date(start + 90 * 60_000))).toBeGreaterThan(90 * 60);
    expect(await kpi()).toMatchObject({ total_points: 3 * 3600 - 90 * 60 });
    expect((await op.get('/api/v1/devices/telemetry/kpi?device_id=kpi&status=online')).body.item.total_points).toBe(3 * 3600 - 90 * 60);
  });

  // PGlite runs PostgreSQL inside this process, on its main thread: a long query there holds the
  // loop by nature. The box's engines (SQLite, a PostgreSQL server) are what this is about.
  it.skipIf(dialect === 'postgres' && !process.env.CABINET_TEST_PG_URL)('a long read leaves the event loop free: /live answers while it runs', async () => {
    // A read that takes long on any engine: a million-row recursive count (same SQL on both).
    const long = sql`with recursive k(i) as (select 1 union all select i + 1 from k where i < 3000000) select count(*) as n from k`;
    const t0 = performance.now();
    let longDone = 0;
    const reading = db().read<{ n: number | string }>(long).then((rows) => { longDone = performance.now(); return rows; });
    await sleep(20);
    const res = await fetch(`${server.url}/live`);
    const liveDone = performance.now();
    expect(res.status).toBe(200);
    const [row] = await reading;
    expect(Number(row!.n)).toBe(3_000_000);
    // Relative, not absolute: /live came back before the long read did, and in a fraction of its time.
    expect(liveDone).toBeLessThan(longDone);
    expect(liveDone - t0).toBeLessThan((longDone - t0) / 2);
  });
});
