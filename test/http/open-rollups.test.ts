// The open minute and hour roll-ups are kept in memory until their bucket closes
// (src/modules/devices/open-rollups.ts, telemetry_hold_ms): the roll-up list and the device KPI
// still answer with them, a chart's page gets the open bucket where it belongs (newest first or
// oldest first), a bucket with a stored row (a late point's) is added to that row, and a clean stop
// writes them.
import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';

type Item = Record<string, unknown>;

describe('open roll-ups (sqlite)', () => {
  let env: TestEnv;
  afterAll(async () => env?.cleanup());

  it('lists and counts the open buckets before they are written, and writes them at a clean stop', { timeout: 60_000 }, async () => {
    env = await createTestEnv('sqlite');
    const server = await env.start({ mqtt_broker: 'off' });
    const op = await clientAs(env, server, { subject: 'op', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    // Not in a minute's last seconds: the minute must stay open while the test reads it.
    if (Date.now() % 60_000 > 50_000) await new Promise((r) => setTimeout(r, 61_000 - (Date.now() % 60_000)));
    const now = Date.now();
    const minute = Math.floor(now / 60_000) * 60_000;
    const old = minute - 3 * 3_600_000; // a closed bucket: written with its points
    const points = [
      { device_id: 'th-1', metric: 'temp', value: 20, ts: new Date(minute).toISOString() },
      { device_id: 'th-1', metric: 'temp', value: 24, ts: new Date(minute + 1).toISOString() },
      { device_id: 'th-2', metric: 'temp', value: 30, ts: new Date(minute).toISOString() },
      { device_id: 'th-1', metric: 'temp', value: 10, ts: new Date(old).toISOString() },
    ];
    expect((await op.post('/api/v1/devices/telemetry/commands/ingest', { points })).status).toBe(200);
    const stored = async (bucket: number) => Number((await server.services.db.rows<{ n: number }>(sql`select count(*) as n from telemetry_rollups where bucket = ${bucket}`))[0]!.n);
    expect(await stored(minute)).toBe(0); // the current minute is in memory only
    expect(await stored(old)).toBe(1); // a closed minute is written with its points

    // Newest first: the open buckets lead; total counts them.
    const desc = (await op.get('/api/v1/devices/telemetry-rollups/list?resolution=minute&limit=2')).body;
    expect(desc.total).toBe(3);
    expect(desc.items.map((i: Item) => [i.device_id, i.bucket, i.count])).toEqual([
      ['th-2', new Date(minute).toISOString(), 1], ['th-1', new Date(minute).toISOString(), 2],
    ]);
    expect(desc.has_more).toBe(true);
    const second = (await op.get('/api/v1/devices/telemetry-rollups/list?resolution=minute&limit=2&offset=2')).body;
    expect(second.items.map((i: Item) => [i.device_id, i.bucket, i.count])).toEqual([['th-1', new Date(old).toISOString(), 1]]);
    // A chart: one series, oldest first from a time.
    const chart = (await op.get(`/api/v1/devices/telemetry-rollups/list?resolution=minute&device_id=th-1&from=${new Date(old - 60_000).toISOString()}`)).body;
    expect(chart.items).toEqual([
      expect.objectContaining({ bucket: new Date(old).toISOString(), count: 1, last: 10 }),
      expect.objectContaining({ bucket: new Date(minute).toISOString(), count: 2, sum: 44, avg: 22, min: 20, max: 24, last: 24, last_ts: new Date(minute + 1).toISOString() }),
    ]);
    // The KPI counts the open hour's points.
    expect((await op.get('/api/v1/devices/telemetry/kpi')).body.item.total_points).toBe(4);

    // A stored row for an open bucket (written at a flush) gets the later points added, not listed twice.
    await server.services.telemetry!.writer.flush();
    expect(await stored(minute)).toBe(2);
    expect((await op.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: 'th-1', metric: 'temp', value: 26, ts: new Date(minute + 2).toISOString() }] })).status).toBe(200);
    const merged = (await op.get(`/api/v1/devices/telemetry-rollups/list?resolution=minute&device_id=th-1&from=${new Date(minute).toISOString()}`)).body;
    expect(merged.total).toBe(1);
    expect(merged.items).toEqual([expect.objectContaining({ count: 3, sum: 70, max: 26, last: 26 })]);
    expect((await op.get('/api/v1/devices/telemetry/kpi')).body.item.total_points).toBe(5);

    // A clean stop writes what is open.
    await server.close();
    const again = await env.start({ mqtt_broker: 'off' });
    const rows = await again.services.db.rows<{ count: number }>(sql`select count from telemetry_rollups r join telemetry_series s on s.id = r.series_id where s.device_id = 'th-1' and r.resolution = 60 and r.bucket = ${minute}`);
    expect(rows.map((r) => Number(r.count))).toEqual([3]);
  });
});
