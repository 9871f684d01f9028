// The season's balance continues from daily checkpoints (melioration_balance_days): an ingest
// resumes the bucket from the stored end of the day before the day it changed, so day 40 costs
// what day 1 does, and a late or corrected reading recomputes from its own day only. The
// incremental state must equal the full run from balance_start, whatever the order of arrival.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { and, eq } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { colOf, tableOf } from '../../src/db/sql.js';
import { balanceDays } from '../../src/modules/melioration/schema.js';

const SEASON = 40;
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const noonOf = (day: string) => `${day}T12:00:00.000Z`;

describe.each(DIALECTS)('melioration balance checkpoints (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let op: Client;
  let admin: Client;
  const loam = { crop: 'maize', field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.6, depletion_fraction: 0.5, kc: 1.1 };
  const weather = (day: string, over: Record<string, unknown> = {}) =>
    admin.post('/api/v1/melioration-weather/commands/ingest', { item: { site_id: 's1', source: 'service', day, latitude_deg: 45, t_max_c: 27, t_min_c: 14, rain_mm: 0, ...over } });
  const stored = async () => {
    const db = server.services.db;
    const c = (n: string) => colOf(balanceDays, db, n);
    return (await db.orm.select().from(tableOf(balanceDays, db)).where(and(eq(c('tenant_id'), 'tA'), eq(c('field_id'), 'east')))) as { day: string; depletion_end_mm: number }[];
  };
  /** The field's state against the full run from balance_start (GET {id}/balance recomputes the whole season). */
  const agree = async () => {
    const field = (await op.get('/api/v1/melioration-field/east')).body.item as { depletion_mm: number; balance_day: string };
    const full = (await op.get(`/api/v1/melioration-field/east/balance?from=${field.balance_day}&to=${field.balance_day}`)).body.item;
    const last = (full.days as { day: string; depletion_end: number }[]).at(-1)!;
    expect(last.day).toBe(field.balance_day);
    // The balance answer rounds to 0.001 mm.
    expect(Math.abs(field.depletion_mm - last.depletion_end)).toBeLessThanOrEqual(0.0005);
    return field;
  };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ industry: 'melioration', mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'anna', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'oleg', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    const created = await admin.post('/api/v1/melioration-field', { item: { id: 'east', site_id: 's1', name: 'East', area_ha: 20, balance_start: daysAgo(SEASON), initial_depletion_mm: 10, ...loam } });
    expect(created.status).toBe(201);
  });
  afterAll(async () => env.cleanup());

  it('stores one end of day per computed day and keeps the state equal to the full run as the season goes', async () => {
    for (let n = SEASON; n >= 1; n--) {
      expect((await weather(daysAgo(n), { rain_mm: n % 9 === 0 ? 18 : 0 })).status).toBe(201);
      if (n % 7 === 0) {
        const r = await admin.post('/api/v1/melioration-irrigation-machine/commands/ingest', { item: { field_id: 'east', equipment_id: 'pivot-1', observed_at: noonOf(daysAgo(n)), depth_mm: 25 } });
        expect(r.status).toBe(201);
      }
    }
    const field = await agree();
    expect(field.balance_day).toBe(daysAgo(1));
    const days = await stored();
    expect(days.map((d) => d.day).sort()).toEqual(Array.from({ length: SEASON }, (_, i) => daysAgo(SEASON - i)));
  });

  it('recomputes from a late or corrected day only, and ends where the full run ends', async () => {
    const before = await stored();
    const untouched = before.filter((d) => d.day < daysAgo(25));
    // A corrected day 25 days back (a storm the service missed), then a probe reading 12 days back.
    expect((await weather(daysAgo(25), { rain_mm: 40 })).status).toBe(201);
    const probe = await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'east', probe_id: 'p1', depth_cm: 30, vwc_pct: 25, observed_at: noonOf(daysAgo(12)) } });
    expect(probe.status).toBe(201);
    await agree();
    const after = await stored();
    // The days before the correction are the same rows with the same ends.
    for (const d of untouched) expect(after.find((a) => a.day === d.day)?.depletion_end_mm).toBe(d.depletion_end_mm);
    expect(after.length).toBe(SEASON);
  });

  it('resumes from the stored end of the day before (a checkpoint really is read), and a parameter change runs the season again', async () => {
    // Tamper with the checkpoint of two days ago: an ingest for yesterday must continue from it.
    const db = server.services.db;
    const c = (n: string) => colOf(balanceDays, db, n);
    await db.orm.update(tableOf(balanceDays, db)).set({ depletion_end_mm: 0 } as never).where(and(eq(c('tenant_id'), 'tA'), eq(c('field_id'), 'east'), eq(c('day'), daysAgo(2))));
    expect((await weather(daysAgo(1), { t_max_c: 28 })).status).toBe(201);
    const resumed = (await op.get('/api/v1/melioration-field/east')).body.item as { depletion_mm: number };
    const full = (await op.get(`/api/v1/melioration-field/east/balance?from=${daysAgo(1)}&to=${daysAgo(1)}`)).body.item.days.at(-1) as { depletion_end: number; etc: number; depletion_start: number };
    // From 0 at the end of day 2 the bucket holds only yesterday's ETc, not what the full run holds.
    expect(full.depletion_start).toBeGreaterThan(1);
    expect(resumed.depletion_mm).toBeCloseTo(full.etc, 2);
    expect(Math.abs(resumed.depletion_mm - full.depletion_end)).toBeGreaterThan(1);
    // A parameter change is a full run: the tampered day is computed again and the state agrees.
    expect((await admin.patch('/api/v1/melioration-field/east', { item: { kc: 1.1 } })).status).toBe(200);
    await agree();
    expect((await stored()).find((d) => d.day === daysAgo(2))?.depletion_end_mm).not.toBe(0);
  });
});

describe('melioration days follow the site\'s time zone', () => {
  let env: TestEnv;
  let server: RunningServer;
  const zone = 'Pacific/Auckland';
  const localDay = (at: Date) => new Intl.DateTimeFormat('en-CA', { timeZone: zone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(at);
  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ industry: 'melioration', mqtt_broker: 'off', site_timezone: zone });
  });
  afterAll(async () => env.cleanup());

  it('counts an irrigation for the local day it ended on, and starts a new field today at the site', async () => {
    const master = await clientAs(env, server);
    const admin = await clientAs(env, server, { subject: 'anna', role: 'admin', scope_type: 'tenant', tenant_id: 'tZ' }, master.contract);
    const field = (await admin.post('/api/v1/melioration-field', { item: { id: 'kiwi', site_id: 's1', name: 'Kiwi block', area_ha: 5, crop: 'kiwifruit', field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.6 } })).body.item;
    expect(field.balance_start).toBe(localDay(new Date()));
    // 22:00 UTC yesterday is the next morning in Auckland: the balance day is Auckland's.
    const ended = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) - 2 * 3_600_000);
    const r = await admin.post('/api/v1/melioration-irrigation-drip/commands/ingest', { item: { field_id: 'kiwi', equipment_id: 'line-1', observed_at: ended.toISOString(), depth_mm: 6 } });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.item.day).toBe(localDay(ended));
    expect(r.body.item.day).not.toBe(ended.toISOString().slice(0, 10));
  });
});
