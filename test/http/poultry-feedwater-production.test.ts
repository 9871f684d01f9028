// poultry-feedwater and poultry-production over HTTP on both dialects: counters (reset, going
// backwards refused), consumption judged against the age, anomaly alarms raised and cleared
// through the industry alarm service, versioned thresholds, day history; production records
// with out_of_norm_flags, corrections and the KPIs worked by hand in test/unit/poultry-kpi.test.ts;
// tenant isolation and tenant scope.
// Readings and thresholds are sent by devices, integrations and admins (docs/alarms.md): the
// clients here are admin-role sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const T0 = Date.parse('2026-05-10T00:00:00Z');
const at = (hours: number) => new Date(T0 + hours * 3_600_000).toISOString();
type Item = Record<string, unknown>;

describe.each(DIALECTS)('poultry feed/water and production (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let opA: Client;
  let opB: Client;
  const fw = (c: Client, body: Item) => c.post('/api/v1/poultry-feedwater/commands/ingest', { house_id: 'house-1', batch_id: 'b1', ...body });

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-a' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  it('starts a line at its first reading and judges the day pro rata against the age curve', async () => {
    const first = await fw(opA, { ts: at(0), water_counter_l: 1000, feed_counter_kg: 500, pressure_bar: 2.5, birds: 10_000, age_days: 14 });
    expect(first.status).toBe(200);
    expect(first.body.item).toMatchObject({ version_id: 1, state: 'published', status: 'ok', tenant_id: 'tA', site_id: 'farm-a', last_counter_event: 'first', water_today_l: 0, water_deviation_pct: null });
    // 12 h later: 0.135 L × 10,000 × 0.5 = 675 L and 0.075 kg × 10,000 × 0.5 = 375 kg expected
    const noon = await fw(opA, { ts: at(12), water_counter_l: 1675, feed_counter_kg: 875 });
    expect(noon.body.item).toMatchObject({ status: 'ok', water_today_l: 675, feed_today_kg: 375, expected_water_today_l: 675, water_deviation_pct: 0, feed_deviation_pct: 0, water_feed_ratio: 1.8, anomaly_flags: [] });
  });

  it('takes a new meter\'s first reading in the afternoon as its baseline: status ok, no alarm, and judges from there', async () => {
    // The reading the issue reported: a flock's first feed/water reading raised water_drop P1 and feed_drop P2.
    // A tenant of its own, so the other cases' lines and alarms stay as they count them.
    const opC = await clientAs(env, server, { subject: 'op-c', role: 'admin', scope_type: 'tenant', tenant_id: 'tC', site_id: 'farm-c' }, master.contract);
    const fwB = (body: Item) => opC.post('/api/v1/poultry-feedwater/commands/ingest', { house_id: 'house-new', batch_id: 'b7', birds: 10_000, age_days: 14, ...body });
    const first = await fwB({ ts: at(14.4), water_counter_l: 9500, feed_counter_kg: 4800 });
    expect(first.status).toBe(200);
    expect(first.body.item).toMatchObject({ status: 'ok', anomaly_flags: [], counter_events: { water: 'first', feed: 'first' }, water_today_l: 0, expected_water_today_l: null, water_baseline_at: at(14.4), feed_baseline_at: at(14.4) });
    const open = async () => server.services.industryAlarms!.open({ tenant_id: 'tC', industry_code: 'poultry' });
    expect(await open()).toEqual([]);
    // 6 h on: 0.25 of a day since the baseline, 337.5 L and 187.5 kg expected, and that is what was used.
    const later = await fwB({ ts: at(20.4), water_counter_l: 9837.5, feed_counter_kg: 4987.5 });
    expect(later.body.item).toMatchObject({ status: 'ok', water_today_l: 337.5, expected_water_today_l: 337.5, water_deviation_pct: 0, feed_deviation_pct: 0 });
    expect(await open()).toEqual([]);
  });

  it('raises a leak and low pressure as alarms through the industry alarm service', async () => {
    // 13 h: expected 0.135 × 10,000 × 13/24 = 731.25 L; 1,075 L is +47 %
    const r = await fw(opA, { ts: at(13), water_counter_l: 2075, feed_counter_kg: 900, pressure_bar: 1.2 });
    expect(r.body.item).toMatchObject({ status: 'alarm', operational_status: 'alarm', water_today_l: 1075, water_deviation_pct: 47 });
    // and 1,075 L on 400 kg of feed is 2.69 L/kg, above 2.5
    expect(r.body.item.anomaly_flags).toEqual(['water_spike', 'low_pressure', 'water_feed_ratio']);
    const open = await server.services.industryAlarms!.open({ tenant_id: 'tA', industry_code: 'poultry' });
    expect(open.map((e) => [e.rule_id, e.priority, e.severity, e.unit_id]).sort()).toEqual([['feedwater:low_pressure', 'P1', 'high', 'house-1'], ['feedwater:water_spike', 'P2', 'high', 'house-1']]);
    expect(open.every((e) => e.correlation_id === r.headers.get('x-request-id'))).toBe(true);
    expect(open.every((e) => e.title.startsWith('House house-1: '))).toBe(true);
    const bridged = (await opA.get(`/api/v1/status/list?correlation_id=${open[0]!.correlation_id}`)).body.items;
    expect(bridged.length).toBeGreaterThanOrEqual(1);
    expect(bridged[0]).toMatchObject({ status: 'error', event: 'alarm_raised' });
  });

  it('refuses readings going backwards, from the future or older than the last, and changes nothing', async () => {
    const before = (await opA.get('/api/v1/poultry-feedwater/list?house_id=house-1&state=published')).body.items[0];
    const back = await fw(opA, { ts: at(14), water_counter_l: 1500 });
    expect(back.status).toBe(400);
    expect(back.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'water_counter_l', reason: 'counter_backwards' }] });
    expect((await fw(opA, { ts: new Date(Date.now() + 3_600_000).toISOString(), pressure_bar: 2 })).body.error.details).toEqual([{ field: 'ts', reason: 'in_future' }]);
    expect((await fw(opA, { ts: at(1), pressure_bar: 2 })).body.error.details).toEqual([{ field: 'ts', reason: 'before_last_reading' }]);
    expect((await fw(opA, { ts: at(14) })).status).toBe(400);
    expect((await fw(opA, { ts: at(14), water_counter_l: -1 })).status).toBe(400);
    const after = (await opA.get('/api/v1/poultry-feedwater/list?house_id=house-1&state=published')).body.items[0];
    expect(after).toEqual(before);
  });

  it('takes a meter reset, versions thresholds keeping the line state, and clears an alarm whose condition ended', async () => {
    const reset = await fw(opA, { ts: at(14), water_counter_l: 3, pressure_bar: 2.4 });
    expect(reset.body.item).toMatchObject({ last_counter_event: 'reset', water_today_l: 1078, last_water_counter_l: 3 });
    const open = await server.services.industryAlarms!.open({ tenant_id: 'tA', industry_code: 'poultry' });
    expect(open.map((e) => e.rule_id)).toEqual(['feedwater:water_spike']);
    const bad = await opA.post('/api/v1/poultry-feedwater/commands/set-thresholds', { house_id: 'house-1', batch_id: 'b1', water_warn_pct: 70, water_alarm_pct: 60 });
    expect(bad.status).toBe(400);
    const v2 = await opA.post('/api/v1/poultry-feedwater/commands/set-thresholds', { house_id: 'house-1', batch_id: 'b1', water_warn_pct: 50, water_alarm_pct: 80, change_note: 'new drinkers' });
    expect(v2.body.item).toMatchObject({ version_id: 2, state: 'published', water_alarm_pct: 80, change_note: 'new drinkers', last_water_counter_l: 3, water_today_l: 1078 });
    const versions = (await opA.get('/api/v1/poultry-feedwater/list?house_id=house-1&sort=version_id&order=asc')).body.items;
    expect(versions.map((v: Item) => [v.version_id, v.state])).toEqual([[1, 'archived'], [2, 'published']]);
    // 15 h: 1,078 + 2 L against 0.135 × 10,000 × 15/24 = 843.75 L is +28 %: below the new warning, so the leak alarm clears
    // feed 469 kg against 0.075 × 10,000 × 15/24 = 468.75 kg; ratio 1,080 / 469 = 2.30
    const later = await fw(opA, { ts: at(15), water_counter_l: 5, feed_counter_kg: 969 });
    expect(later.body.item).toMatchObject({ status: 'ok', water_deviation_pct: 28, feed_deviation_pct: 0.1, water_feed_ratio: 2.3, version_id: 2 });
    expect(await server.services.industryAlarms!.open({ tenant_id: 'tA', industry_code: 'poultry' })).toEqual([]);
    const days = (await opA.get('/api/v1/poultry-feedwater-days/list?house_id=house-1')).body.items;
    expect(days).toHaveLength(1);
    expect(days[0]).toMatchObject({ local_date: '2026-05-10', status: 'alarm', water_l: 1080, expected_water_l: 1350, min_pressure_bar: 1.2 });
    expect(days[0].anomaly_flags).toEqual(expect.arrayContaining(['water_spike', 'low_pressure']));
  });

  it('keeps tenants apart and refuses master tokens on tenant routes', async () => {
    expect((await opB.get('/api/v1/poultry-feedwater/list')).body.total).toBe(0);
    const b = await fw(opB, { ts: at(16), water_counter_l: 10 });
    expect(b.body.item).toMatchObject({ tenant_id: 'tB', version_id: 1, last_counter_event: 'first' });
    expect((await opA.get('/api/v1/poultry-feedwater/list?state=published')).body.items.map((i: Item) => i.last_water_counter_l)).toEqual([5]);
    expect((await fw(opA, { ts: at(17), tenant_id: 'tB', pressure_bar: 2 })).body.error.code).toBe('tenant_boundary_denied');
    expect((await master.get('/api/v1/poultry-feedwater/list')).body.error.code).toBe('scope_boundary_denied');
    expect((await opB.get('/api/v1/poultry-feedwater-days/list')).body.items.map((d: Item) => d.tenant_id)).toEqual(['tB']);
  });

  it('keeps a site-bound session to its own site within the tenant', async () => {
    const other = await clientAs(env, server, { subject: 'op-z', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-z' }, master.contract);
    expect((await other.get('/api/v1/poultry-feedwater/list')).body.total).toBe(0);
    expect((await other.get('/api/v1/poultry-feedwater/list?site_id=farm-a')).body.total).toBe(0);
    const id = (await opA.get('/api/v1/poultry-feedwater/list?state=published')).body.items[0].id;
    expect((await other.get(`/api/v1/poultry-feedwater/${id}`)).status).toBe(404);
    expect((await other.post('/api/v1/poultry-production/commands/ingest', { house_id: 'h9', batch_id: 'b9', metric_date: '2026-01-01', site_id: 'farm-a' })).body.error.code).toBe('tenant_boundary_denied');
    expect((await opA.get(`/api/v1/poultry-feedwater/${id}`)).status).toBe(200);
  });

  const record = (c: Client, body: Item) => c.post('/api/v1/poultry-production/commands/ingest', { house_id: 'house-1', batch_id: 'b1', ...body });

  it('records production days with out_of_norm_flags and computes the broiler KPIs', async () => {
    const d0 = await record(opA, { metric_date: '2026-01-01', age_days: 0, birds_placed: 1000, mortality: 5, avg_weight_g: 42, feed_used_kg: 10 });
    expect(d0.status).toBe(200);
    expect(d0.body.item).toMatchObject({ id: 'house-1:b1:2026-01-01', birds_alive: 995, out_of_norm_flags: ['mortality_high'], subtype: 'broiler' });
    await record(opA, { metric_date: '2026-01-15', age_days: 14, mortality: 10, culls: 5, avg_weight_g: 450, feed_used_kg: 600 });
    await record(opA, { metric_date: '2026-01-29', age_days: 28, mortality: 10, avg_weight_g: 1500, feed_used_kg: 1400 });
    const light = await record(opA, { metric_date: '2026-02-05', age_days: 35, mortality: 10, avg_weight_g: 1900, feed_used_kg: 1490 });
    // 10 dead of 970 that morning is 1.03 % (> 0.2 %); 1,900 g is under 90 % of the 2,200 g target
    expect(light.body.item.out_of_norm_flags).toEqual(['mortality_high', 'weight_low']);
    const fixed = await record(opA, { metric_date: '2026-02-05', age_days: 35, mortality: 10, avg_weight_g: 2200, feed_used_kg: 1490, notes: 'reweighed' });
    expect(fixed.body.item).toMatchObject({ out_of_norm_flags: ['mortality_high'], birds_alive: 960, notes: 'reweighed' });
    expect((await opA.get('/api/v1/poultry-production/list?house_id=house-1')).body.total).toBe(4);
    const audit = (await master.get('/api/v1/audit/list?resource=poultry-production&action=production.correct')).body.items;
    expect(audit).toHaveLength(1);
    const kpi = await opA.get('/api/v1/poultry-production/kpi?house_id=house-1&batch_id=b1&window_days=42');
    expect(kpi.status).toBe(200);
    expect(kpi.body.item).toMatchObject({ kind: 'broiler', records: 4, livability_pct: 96, fcr: 1.657, epef: 364, birds_alive: 960 });
    expect((await opA.get('/api/v1/poultry-production/kpi?house_id=house-1&batch_id=b1&window_days=8')).body.item.average_daily_gain_g).toBe(100);
  });

  it('computes layer KPIs and flags a poor laying day', async () => {
    await record(opA, { house_id: 'layer-1', batch_id: 'L1', subtype: 'layer', metric_date: '2026-03-01', birds_placed: 100, mortality: 1, eggs: 90, egg_weight_g: 60, feed_used_kg: 11 });
    await record(opA, { house_id: 'layer-1', batch_id: 'L1', subtype: 'layer', metric_date: '2026-03-02', eggs: 92, egg_weight_g: 61, feed_used_kg: 11 });
    const poor = await record(opA, { house_id: 'layer-1', batch_id: 'L1', subtype: 'layer', metric_date: '2026-03-03', mortality: 1, eggs: 70, egg_weight_g: 62, feed_used_kg: 10.5 });
    // 70 eggs from 99 hens is 70.7 % (< 75 %); 1 dead of 99 is 1 % (> 0.05 %)
    expect(poor.body.item.out_of_norm_flags).toEqual(['mortality_high', 'eggs_low']);
    const kpi = (await opA.get('/api/v1/poultry-production/kpi?house_id=layer-1&batch_id=L1&window_days=3')).body.item;
    // hen-days 298; eggs 252 -> 84.56 %
    expect(kpi).toMatchObject({ kind: 'layer', hen_days: 298, eggs: 252, hen_day_production_pct: 84.56, mortality_pct: 2 });
  });

  it('refuses bad production input and keeps tenants apart', async () => {
    expect((await record(opA, { metric_date: '2026-02-30' })).status).toBe(400);
    const tooMany = await record(opA, { metric_date: '2026-02-06', mortality: 2000 });
    expect(tooMany.body.error.details).toEqual([{ field: 'mortality', reason: 'exceeds_birds_alive' }]);
    expect((await opA.get('/api/v1/poultry-production/kpi?batch_id=b1')).status).toBe(400);
    expect((await opA.get('/api/v1/poultry-production/kpi?house_id=house-1&batch_id=b1&window_days=0')).status).toBe(400);
    expect((await opA.get('/api/v1/poultry-production/list?house_id=house-1')).body.total).toBe(4);
    expect((await opB.get('/api/v1/poultry-production/list')).body.total).toBe(0);
    expect((await opB.get('/api/v1/poultry-production/kpi?house_id=house-1&batch_id=b1')).body.item).toMatchObject({ records: 0, birds_placed: null, fcr: null });
    expect((await master.get('/api/v1/poultry-production/kpi?house_id=house-1&batch_id=b1')).body.error.code).toBe('scope_boundary_denied');
  });
});
