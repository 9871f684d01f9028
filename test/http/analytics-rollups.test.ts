// The fleet analytics read the roll-ups the sync keeps on ingest; their answers must equal the
// per-read computation from the raw rows (src/modules/analytics/compute.ts). Three sites of two
// tenants push eight days of heartbeats, telemetry aggregates (some minutes in two pushes) and
// alarms (some acknowledged) through the real push route; the master's own alarm counts too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { loadFacts, metricRows, summary } from '../../src/modules/analytics/compute.js';
import { figureMetricRows, figureSummary, loadFigures } from '../../src/modules/analytics/rollups.js';

const DAY = 86_400_000;
const SITES = [
  { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' },
  { tenant_id: 'farm-a', site_id: 'site-2', industry_code: 'swine' },
  { tenant_id: 'farm-b', site_id: 'site-3', industry_code: 'poultry' },
];

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function rng(seed: number) {
  let s = seed;
  return () => ((s = (s * 1103515245 + 12345) % 2147483648) / 2147483648);
}

type Event = { seq: number; kind: string; created_at: string; payload: Record<string, unknown> };

function eventsOf(index: number, end: number): Event[] {
  const rand = rng(index + 7);
  const out: Omit<Event, 'seq'>[] = [];
  const iso = (ms: number) => new Date(ms).toISOString();
  // A heartbeat about every 40 minutes over 8 days, with gaps (a site down for a while).
  for (let t = end - 8 * DAY + rand() * 60_000; t < end; t += 2_400_000 + rand() * 60_000) {
    if (rand() < 0.1) continue;
    out.push({ kind: 'heartbeat', created_at: iso(t), payload: { at: iso(t), interval_ms: 2_400_000, rtt_ms: rand() < 0.2 ? null : Math.round(rand() * 40_000) / 100 } });
  }
  // Telemetry minutes of two devices; a third of them arrive again in a later event and merge.
  for (let t = Math.floor((end - 8 * DAY) / 60_000) * 60_000; t < end; t += 60_000 * Math.ceil(1 + rand() * 150)) {
    const aggregates = ['fan-1', 'fan-2'].map((device_id) => ({ device_id, metric: 'temp', bucket: iso(t), points: 1 + Math.floor(rand() * 6), sum: 100, min: 10, max: 30, last_status: 'online' }));
    out.push({ kind: 'telemetry', created_at: iso(t), payload: { aggregates } });
    if (rand() < 0.33) out.push({ kind: 'telemetry', created_at: iso(t + 30_000), payload: { aggregates: aggregates.slice(0, 1) } });
  }
  for (let i = 0; i < 30; i++) {
    const at = end - rand() * 9 * DAY;
    const id = `al-${index}-${i}`;
    out.push({ kind: 'alarm', created_at: iso(at), payload: { kind: 'raised', alarm: { id, site_id: SITES[index]!.site_id, severity: i % 4 === 0 ? 'critical' : 'low', state: 'open', title: `alarm ${i}`, correlation_id: id, raised_at: iso(at) } } });
    if (i % 3 === 0) out.push({ kind: 'alarm', created_at: iso(at + 1000), payload: { kind: 'acknowledged', alarm: { id, acknowledged_by: 'op' } } });
  }
  return out.map((e, i) => ({ seq: i + 1, ...e }));
}

/**
 * Equal, except that a mean (round trip, uptime) may differ by one in its last digit (a hundredth):
 * the roll-ups add floats in another order than the raw rows, and a mean that falls on .xx5 rounds
 * either way.
 */
function expectSame(got: Record<string, unknown>, want: Record<string, unknown>): void {
  const means = ['average_latency_ms', 'average_uptime_percent', 'uptime_percent'];
  const isMean = (r: Record<string, unknown>, k: string) => means.includes(k) || (k === 'value' && means.includes(r.metric as string));
  const strip = (r: Record<string, unknown>) => Object.fromEntries(Object.entries(r).filter(([k]) => !isMean(r, k)));
  expect(strip(got)).toEqual(strip(want));
  for (const k of Object.keys(want).filter((k) => isMean(want, k))) {
    if (want[k] === null) expect(got[k]).toBeNull();
    else expect(Math.abs((got[k] as number) - (want[k] as number))).toBeLessThan(0.0101);
  }
}
const expectSameRows = (got: Record<string, unknown>[], want: Record<string, unknown>[]) => {
  expect(got.map((r) => r.id)).toEqual(want.map((r) => r.id));
  got.forEach((r, i) => expectSame(r, want[i]!));
};

describe.each(DIALECTS)('analytics roll-ups (master on %s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let fleet: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    fleet = await clientAs(env, master);
    expect((await fleet.post('/api/v1/alarms/commands/raise', { severity: 'high', source: 'rules', title: 'master alarm' })).status).toBe(201);
    const end = Date.now();
    for (const [i, s] of SITES.entries()) {
      const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', s);
      expect(reg.status).toBe(201);
      const site = await siteClient(master.url, reg.body.item.credential as string, fleet.contract);
      const events = eventsOf(i, end);
      for (let k = 0; k < events.length; k += 1500) {
        const res = await site.post('/api/v1/site-sync/commands/push', { events: events.slice(k, k + 1500), remaining: 0 });
        expect(res.status).toBe(200);
      }
    }
  }, 60_000);
  afterAll(async () => { await env.cleanup(); });

  it('the roll-ups hold every heartbeat and telemetry row the master stored', async () => {
    const db = master.services.db;
    const [raw] = await db.read<{ hb: unknown; tr: unknown; tp: unknown }>(sql`select (select count(*) from sync_heartbeats) as hb, (select count(*) from sync_telemetry) as tr, (select sum(points) from sync_telemetry) as tp`);
    const [day] = await db.read<{ hb: unknown; tr: unknown; tp: unknown }>(sql`select sum(heartbeats) as hb, sum(telemetry_rows) as tr, sum(telemetry_points) as tp from sync_rollups where grain = 'day'`);
    expect(Number(raw!.hb)).toBeGreaterThan(600);
    expect([Number(day!.hb), Number(day!.tr), Number(day!.tp)]).toEqual([Number(raw!.hb), Number(raw!.tr), Number(raw!.tp)]);
  });

  it('analytics/summary and analytics/metrics answer what the per-read computation of the raw rows gives', async () => {
    const config = master.services.config;
    const sum = await fleet.get('/api/v1/analytics/summary');
    expect(sum.status).toBe(200);
    const at = Date.parse(sum.body.item.computed_at);
    expectSame(sum.body.item, summary(await loadFacts(master.services.db, undefined, at), config, at));
    expect(sum.body.item).toMatchObject({ tenants_count: 2, sites_reporting: 3, open_alarms_total: expect.any(Number) });
    const list = await fleet.get('/api/v1/analytics/metrics/list?limit=500');
    expect(list.status).toBe(200);
    const items = list.body.items as { computed_at: string; id: string }[];
    const listAt = Date.parse(items[0]!.computed_at);
    const expected = metricRows(await loadFacts(master.services.db, undefined, listAt), config, listAt);
    expect(items.length).toBe(expected.length);
    const byId = new Map(expected.map((r) => [r.id, r]));
    for (const item of items) expectSame(item, byId.get(item.id)!);
    const points = items.find((r) => r.id === 'farm-a:poultry:telemetry_points:7d') as unknown as { value: number; samples: number };
    expect(points.value).toBeGreaterThan(0);
  });

  it('every cut of a window (raw seconds, minute, hour and day roll-ups) gives the same figures at any moment', async () => {
    const db = master.services.db;
    const config = master.services.config;
    const beats = await db.read<{ at: string }>(sql`select at from sync_heartbeats order by at limit 400`);
    // Moments whose windows start a few seconds before or after a stored heartbeat or minute.
    const moments = [Date.now(), Date.now() - 3 * 3_600_000 - 17_000];
    for (const b of beats.filter((_, i) => i % 97 === 0)) {
      const t = Date.parse(b.at);
      moments.push(t + 7 * DAY - 5_000, t + DAY + 1, t + 3_600_000 + 30_000, Math.ceil(t / 60_000) * 60_000 + 7 * DAY);
    }
    for (const now of moments) {
      const facts = await loadFacts(db, undefined, now);
      const figures = await loadFigures(db, undefined, now);
      expectSameRows(figureMetricRows(figures, config), metricRows(facts, config, now));
      expectSame(figureSummary(figures, config), summary(facts, config, now));
      const tenantFacts = await loadFacts(db, 'farm-b', now);
      expectSameRows(figureMetricRows(await loadFigures(db, 'farm-b', now), config), metricRows(tenantFacts, config, now));
    }
  }, 30_000);
});
