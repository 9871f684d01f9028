// Telemetry as a time series: minute and hour roll-ups maintained with the points (merged across
// batches, across minute and hour boundaries), the roll-up list, the API's item shape over the
// integer storage, retention of raw points versus roll-ups, and the migration of rows stored by
// the previous (text timestamp) layout.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { openDatabase } from '../../src/db/client.js';
import { migrate, moduleMigrations } from '../../src/db/migrate.js';
import { PURGE_CHUNK } from '../../src/modules/devices/service.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const iso = (ms: number) => new Date(ms).toISOString();

describe.each(DIALECTS)('telemetry roll-ups and time-series storage (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let opA: Client;
  let opB: Client;
  // An hour two days back: every point of the roll-up test lies within the raw retention.
  const H = Math.floor((Date.now() - 2 * DAY) / HOUR) * HOUR;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '10' });
    master = await clientAs(env, server);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const ingest = async (points: Record<string, unknown>[]) => {
    const res = await opA.post('/api/v1/devices/telemetry/commands/ingest', { site_id: 'farm-1', points });
    expect(res.status).toBe(200);
  };
  const rollups = async (query: string) => {
    const res = await opA.get(`/api/v1/devices/telemetry-rollups/list?${query}`);
    expect(res.status).toBe(200);
    return res.body.items as Record<string, unknown>[];
  };

  it('keeps count, sum, avg, min, max and last per minute and per hour, merged across batches and boundaries', async () => {
    const p = (offsetMs: number, value: number | null) => ({ device_id: 'th-1', metric: 'temperature', unit: 'C', value, ts: iso(H + offsetMs) });
    // Two batches (each request is answered once stored): the second merges into the first's buckets.
    await ingest([p(-30_000, 10), p(0, 20), p(59_999, 5), p(60_000, 7), p(30_000, null)]);
    await ingest([p(10_000, 40), p(20_000, 1), p(HOUR - 1, 3)]);
    // An earlier point arriving later does not replace the bucket's last value.
    await ingest([p(15_000, 99)]);

    const minutes = await rollups(`resolution=minute&device_id=th-1&from=${iso(H - HOUR)}&to=${iso(H + HOUR)}`);
    expect(minutes.map((m) => m.bucket)).toEqual([iso(H - 60_000), iso(H), iso(H + 60_000), iso(H + 59 * 60_000)]);
    expect(minutes[0]).toMatchObject({ count: 1, value_count: 1, sum: 10, avg: 10, min: 10, max: 10, last: 10, last_ts: iso(H - 30_000) });
    expect(minutes[1]).toEqual({
      tenant_id: 'tA', site_id: 'farm-1', device_id: 'th-1', metric: 'temperature', unit: 'C', resolution: 'minute', bucket: iso(H),
      count: 6, value_count: 5, sum: 165, avg: 33, min: 1, max: 99, last: 5, last_ts: iso(H + 59_999),
    });
    expect(minutes[2]).toMatchObject({ count: 1, sum: 7, min: 7, max: 7, last: 7 });
    expect(minutes[3]).toMatchObject({ count: 1, sum: 3, last: 3, last_ts: iso(H + HOUR - 1) });

    const hours = await rollups(`resolution=hour&device_id=th-1&metric=temperature&from=${iso(H - HOUR)}&to=${iso(H + HOUR)}`);
    expect(hours.map((h) => [h.bucket, h.resolution])).toEqual([[iso(H - HOUR), 'hour'], [iso(H), 'hour']]);
    expect(hours[0]).toMatchObject({ count: 1, value_count: 1, sum: 10, min: 10, max: 10, last: 10 });
    expect(hours[1]).toMatchObject({ count: 8, value_count: 7, sum: 175, avg: 25, min: 1, max: 99, last: 3, last_ts: iso(H + HOUR - 1) });

    // Newest first without from; one resolution per request; the tenant boundary holds.
    expect((await rollups('resolution=hour&device_id=th-1'))[0]!.bucket).toBe(iso(H));
    expect((await opA.get('/api/v1/devices/telemetry-rollups/list?device_id=th-1')).body.error.details).toContainEqual({ field: 'resolution', reason: 'required' });
    expect((await opA.get('/api/v1/devices/telemetry-rollups/list?resolution=day')).status).toBe(400);
    expect((await opA.get('/api/v1/devices/telemetry-rollups/list?resolution=hour&from=yesterday')).status).toBe(400);
    expect((await opB.get('/api/v1/devices/telemetry-rollups/list?resolution=minute')).body.total).toBe(0);
    expect((await master.get('/api/v1/devices/telemetry-rollups/list?resolution=hour&tenant_id=tA&device_id=th-1')).body.total).toBe(2);
    expect((await opA.get('/api/v1/devices/telemetry-rollups/scheme')).body.item.filters.map((f: { name: string }) => f.name))
      .toEqual(['resolution', 'device_id', 'metric', 'site_id', 'tenant_id', 'from', 'to']);
  });

  it('serves a chart in one page: up to 2,000 buckets, said in the scheme; other lists stay at 500', async () => {
    expect((await opA.get('/api/v1/devices/telemetry-rollups/scheme')).body.item.page).toEqual({ default_limit: 50, max_limit: 2000 });
    const page = await opA.get('/api/v1/devices/telemetry-rollups/list?resolution=minute&limit=2000');
    expect(page.status).toBe(200);
    expect(page.body.limit).toBe(2000);
    const over = await opA.get('/api/v1/devices/telemetry-rollups/list?resolution=minute&limit=2001');
    expect(over.status).toBe(400);
    expect(over.body.error.details).toContainEqual(expect.objectContaining({ field: 'limit' }));
    expect((await opA.get('/api/v1/devices/telemetry/list?limit=501')).status).toBe(400);
    expect((await opA.get('/api/v1/devices/telemetry/scheme')).body.item.page.max_limit).toBe(500);
  });

  it('answers points in the same shape as before: string id, RFC 3339 times, null site and unit when absent', async () => {
    const ts = iso(H + 5 * 60_000 + 123);
    const res = await opA.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: 'shape-1', metric: 'co2', value: 812.5, status: 'warn', latency_ms: 12, ts }] });
    expect(res.status).toBe(200);
    const [item] = (await opA.get('/api/v1/devices/telemetry/list?device_id=shape-1')).body.items;
    expect(Object.keys(item).sort()).toEqual(['device_id', 'id', 'latency_ms', 'metric', 'received_at', 'site_id', 'status', 'tenant_id', 'ts', 'unit', 'value']);
    expect(item).toMatchObject({ tenant_id: 'tA', site_id: null, device_id: 'shape-1', metric: 'co2', value: 812.5, unit: null, status: 'warn', latency_ms: 12, ts });
    expect(typeof item.id).toBe('string');
    expect(item.received_at).toMatch(ISO);
    expect(Date.parse(item.received_at)).toBeGreaterThan(Date.now() - 60_000);
    // Sorting by the integer time keeps the order the text timestamps had.
    const asc = (await opA.get('/api/v1/devices/telemetry/list?device_id=th-1&sort=ts&order=asc&limit=500')).body.items.map((i: { ts: string }) => i.ts);
    expect(asc).toEqual([...asc].sort());
    expect(asc[0]).toBe(iso(H - 30_000));
  });

  it('purges raw points by their retention and keeps the roll-ups for theirs, in bounded slices', async () => {
    const now = Date.now();
    const telemetry = server.services.telemetry!;
    const cfg = server.services.config;
    const at = (daysAgo: number) => iso(now - daysAgo * DAY);
    await ingest([
      { device_id: 'ret-1', metric: 'm', value: 1, ts: at(40) },
      { device_id: 'ret-1', metric: 'm', value: 2, ts: at(100) },
      { device_id: 'ret-1', metric: 'm', value: 3, ts: at(6 * 365) },
    ]);
    // More old points than one purge slice holds.
    const bulk = PURGE_CHUNK + 2500;
    for (let i = 0; i < bulk; i += 5000) {
      await ingest(Array.from({ length: Math.min(5000, bulk - i) }, (_, k) => ({ device_id: `bulk-${k % 7}`, metric: 'm', value: k, ts: iso(now - 35 * DAY - (i + k) * 1000) })));
    }
    const raw = async (device: string) => (await opA.get(`/api/v1/devices/telemetry/list?device_id=${device}&limit=1`)).body.total as number;
    const roll = async (resolution: string) => (await opA.get(`/api/v1/devices/telemetry-rollups/list?resolution=${resolution}&device_id=ret-1`)).body.total as number;
    expect([await raw('ret-1'), await roll('minute'), await roll('hour')]).toEqual([3, 3, 3]);

    const cut = (days: number) => new Date(now - days * DAY);
    expect(await telemetry.purge(cut(cfg.telemetry_retention_days))).toBe(3 + bulk);
    expect(await raw('ret-1')).toBe(0);
    expect(await raw('bulk-0')).toBe(0);
    expect(await raw('th-1')).toBe(9);
    expect([await roll('minute'), await roll('hour')]).toEqual([3, 3]);

    expect(await telemetry.purgeRollups('minute', cut(cfg.telemetry_minute_retention_days))).toBe(2);
    expect([await roll('minute'), await roll('hour')]).toEqual([1, 3]);
    expect(await telemetry.purgeRollups('hour', cut(cfg.telemetry_hour_retention_days))).toBe(1);
    expect([await roll('minute'), await roll('hour')]).toEqual([1, 2]);
    // Recent roll-ups are untouched.
    expect((await rollups(`resolution=minute&device_id=th-1`)).length).toBe(4);
  });
});

describe.each(DIALECTS)('telemetry migration of text-timestamp rows (%s)', (dialect) => {
  let env: TestEnv;
  afterAll(async () => env.cleanup());

  it('moves rows of the previous layout into series, integer points and roll-ups, and the API answers them as before', async () => {
    // A box of the previous release: only the devices module's first migration, with rows in it.
    env = await createTestEnv(dialect, { empty: true });
    const old = await openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
    await migrate(old, moduleMigrations(old.dialect, 'devices').slice(0, 1));
    const base = Math.floor((Date.now() - DAY) / HOUR) * HOUR;
    const rows = [
      { id: '01900000-0000-7000-8000-000000000001', site: 'farm-1', device: 'th-1', metric: 'temperature', value: 21.5, unit: 'C', status: 'online', latency: 10, ts: iso(base + 10_123) },
      { id: '01900000-0000-7000-8000-000000000002', site: 'farm-1', device: 'th-1', metric: 'temperature', value: 22, unit: 'C', status: 'warn', latency: 30, ts: iso(base + 40_000) },
      { id: '01900000-0000-7000-8000-000000000003', site: null, device: 'co2-1', metric: 'co2', value: null, unit: null, status: 'error', latency: null, ts: iso(base + HOUR + 1) },
    ];
    for (const r of rows) {
      await old.run(sql`insert into device_telemetry (id, tenant_id, site_id, device_id, metric, value, unit, status, latency_ms, ts, received_at)
        values (${r.id}, 'tA', ${r.site}, ${r.device}, ${r.metric}, ${r.value}, ${r.unit}, ${r.status}, ${r.latency}, ${r.ts}, ${r.ts})`);
    }
    await old.close();

    const server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '10' });
    const master = await clientAs(env, server);
    const op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    const list = (await op.get('/api/v1/devices/telemetry/list?sort=ts&order=asc')).body;
    expect(list.total).toBe(3);
    expect(list.items.map((i: Record<string, unknown>) => [i.device_id, i.site_id, i.metric, i.value, i.unit, i.status, i.latency_ms, i.ts, i.received_at]))
      .toEqual(rows.map((r) => [r.device, r.site, r.metric, r.value, r.unit, r.status, r.latency, r.ts, r.ts]));
    expect((await op.get('/api/v1/devices/telemetry/kpi')).body.item).toEqual({ devices: 2, online: 0, warn: 1, error: 1, total_points: 3, average_latency_ms: 30 });
    const minute = (await op.get(`/api/v1/devices/telemetry-rollups/list?resolution=minute&device_id=th-1`)).body.items;
    expect(minute).toEqual([expect.objectContaining({ bucket: iso(base), count: 2, value_count: 2, sum: 43.5, avg: 21.75, min: 21.5, max: 22, last: 22, last_ts: iso(base + 40_000), unit: 'C', site_id: 'farm-1' })]);
    const hour = (await op.get(`/api/v1/devices/telemetry-rollups/list?resolution=hour&device_id=co2-1`)).body.items;
    expect(hour).toEqual([expect.objectContaining({ bucket: iso(base + HOUR), count: 1, value_count: 0, sum: 0, avg: null, min: null, max: null, last: null, site_id: null, unit: null })]);

    // New points of a migrated series join it (no second series) and merge into its roll-up.
    await op.post('/api/v1/devices/telemetry/commands/ingest', { site_id: 'farm-1', points: [{ device_id: 'th-1', metric: 'temperature', unit: 'C', value: 30, ts: iso(base + 50_000) }] });
    const series = await server.services.db.rows<{ n: number | string }>(sql`select count(*) as n from telemetry_series`);
    expect(Number(series[0]!.n)).toBe(2);
    expect((await op.get(`/api/v1/devices/telemetry-rollups/list?resolution=minute&device_id=th-1`)).body.items[0]).toMatchObject({ count: 3, max: 30, last: 30 });
  });
});
