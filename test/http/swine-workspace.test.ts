// The swine workspace over HTTP: climate readings judged by weight/age phase (defaults and a
// published room profile), sensors normalised, feeding against the feed curve, water leak and
// blockage against the pen's baseline, production KPIs worked by hand, biosecurity ingest and
// ack; alarms through the one industry alarm service, bridged to status; tenant and site
// isolation over every swine resource; bad input changes nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const RESOURCES = ['swine-climate', 'swine-feeding', 'swine-water', 'swine-production', 'swine-biosecurity'];

describe.each(DIALECTS)('swine workspace (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let adminA: Client;
  let opA: Client;
  let secA: Client;
  let siteA2: Client;
  let opB: Client;
  /** Readings come from devices and integrations (an admin-role token bound to farm-1), not operators. */
  let devA: Client;
  let devB: Client;
  let n = 0;
  /** A request id that becomes the correlation id of what the request raises. */
  const rid = () => ({ 'x-request-id': `swine-${dialect}-${++n}` });

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    // The rule pass an hour apart: a breach sent from 150 s ago is due at once, and a pass between
    // two readings would raise it before the reading that should (the pass has its own test).
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    master = await clientAs(env, server);
    const tenant = (subject: string, role: string, tenant_id: string, site_id?: string) => clientAs(env, server, { subject, role, scope_type: 'tenant', tenant_id, ...(site_id ? { site_id } : {}) }, master.contract);
    adminA = await tenant('admin-a', 'admin', 'tA');
    opA = await tenant('op-a', 'operator', 'tA', 'farm-1');
    devA = await tenant('dev-a', 'admin', 'tA', 'farm-1');
    devB = await tenant('dev-b', 'admin', 'tB', 'farm-1');
    secA = await tenant('sec-a', 'security', 'tA');
    siteA2 = await tenant('op-a2', 'operator', 'tA', 'farm-2');
    opB = await tenant('op-b', 'operator', 'tB', 'farm-1');
  });
  afterAll(async () => env.cleanup());

  const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();
  const alarm = async (corr: string) => (await adminA.get(`/api/v1/industry-alarms/list?correlation_id=${corr}`)).body.items;

  it('describes every swine resource for the shell, with units', async () => {
    for (const r of RESOURCES) {
      const s = (await opA.get(`/api/v1/${r}/scheme`)).body.item;
      expect(s.resource).toBe(r);
      expect(s.fields.every((f: { label: string }) => f.label.length > 0)).toBe(true);
      expect(s.filters.map((f: { name: string }) => f.name)).toEqual(expect.arrayContaining(['tenant_id', 'site_id']));
    }
    const climate = (await opA.get('/api/v1/swine-climate/scheme')).body.item.fields;
    expect(climate.find((f: { name: string }) => f.name === 'temp_c')).toMatchObject({ unit: '°C' });
    expect(climate.find((f: { name: string }) => f.name === 'nh3_ppm')).toMatchObject({ unit: 'ppm' });
  });

  it('judges climate by weight, age or named phase; P1 findings raise, repeat and clear one alarm bridged to status', async () => {
    const ok = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 27, humidity_pct: 60, nh3_ppm: 8, co2_ppm: 1800 }, rid());
    expect(ok.status).toBe(201);
    expect(ok.body.item).toMatchObject({ status: 'ok', out_of_norm_flags: [], alarms: [] });
    expect(ok.body.item.reading).toMatchObject({ phase_id: 'weaner-early', site_id: 'farm-1', targets: { temp_min_c: 26, temp_max_c: 28 }, targets_source: 'default' });

    // A breach is held 120 s before it raises (one hot reading is not a P1), measured in the
    // readings' own time: the first hot reading is from 150 s ago, so the next one raises.
    const hot = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 31.5, humidity_pct: 80, ts: secondsAgo(150) }, rid());
    expect(hot.body.item).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high', 'humidity_high'], alarms: [] });
    expect(await alarm(`swine-${dialect}-${n}`)).toEqual([]);
    const held = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 31.8 }, rid());
    // The alarm carries the request that raised it as its correlation id.
    const corr = `swine-${dialect}-${n}`;
    expect(held.body.item.alarms).toEqual([expect.objectContaining({ rule_id: 'swine-climate:temp_high', severity: 'high', priority: 'P1', correlation_id: corr })]);
    const [event] = await alarm(corr);
    expect(event).toMatchObject({ industry_code: 'swine', unit_id: 'room-1', site_id: 'farm-1', status: 'active', metric: 'temp_c', value: 31.8, sla_target_sec: 900, bridged_to_status: true });
    // alarm_changed is published on its own turn after the reading's answer.
    await expect.poll(async () => (await opA.get(`/api/v1/status/list?correlation_id=${corr}`)).body.total).toBe(2);
    const events = (await opA.get(`/api/v1/status/list?correlation_id=${corr}`)).body.items as { event: string }[];
    // The contract's bridge, and the alarm view's event of the same raise.
    expect(events.filter((e) => e.event !== 'alarm_changed')).toEqual([expect.objectContaining({ status: 'error', event: 'alarm_raised', source: 'swine-alarms' })]);
    expect(events.filter((e) => e.event === 'alarm_changed')).toEqual([expect.objectContaining({ status: 'error', details: expect.objectContaining({ kind: 'raised' }) })]);

    // Still hot: the same alarm, not a second one.
    const still = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 32 }, rid());
    expect(still.body.item.alarms[0].id).toBe(event.id);
    // Humidity alone (P2) is a warning and leaves the temperature alarm as it is (still listed as open).
    const humid = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, humidity_pct: 85 }, rid());
    expect(humid.body.item).toMatchObject({ status: 'warn', out_of_norm_flags: ['humidity_high'] });
    expect(humid.body.item.alarms.map((a: { id: string }) => a.id)).toEqual([event.id]);
    // Hysteresis: 30.5 C is under the alarm threshold (28 + 3) but not by the rule's 1 C, so the alarm stays.
    const hovering = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 30.5 }, rid());
    expect(hovering.body.item).toMatchObject({ status: 'warn', out_of_norm_flags: ['temp_high'] });
    expect((await alarm(corr))[0].status).toBe('active');
    // Back in the band: cleared.
    await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 27.5 }, rid());
    expect((await alarm(corr))[0].status).toBe('cleared');

    const byAge = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-2', age_days: 50, temp_c: 24, nh3_ppm: 26 }, rid());
    expect(byAge.body.item.reading.phase_id).toBe('weaner-late');
    expect(byAge.body.item).toMatchObject({ status: 'alarm', out_of_norm_flags: ['nh3_high'] });
    const named = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-3', phase_id: 'finisher', temp_c: 18, co2_ppm: 3500 }, rid());
    expect(named.body.item).toMatchObject({ status: 'warn', out_of_norm_flags: ['co2_high'], alarms: [] });
    const cold = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-3', phase_id: 'finisher', temp_c: 14 }, rid());
    expect(cold.body.item).toMatchObject({ status: 'warn', out_of_norm_flags: ['temp_low'] });

    const list = await opA.get('/api/v1/swine-climate/list?room_id=room-1&status=alarm');
    expect(list.body.total).toBe(3); // the held reading, the one that raised, and the one still hot
    expect((await opA.get('/api/v1/swine-climate/list?phase_id=finisher')).body.total).toBe(2);
  });

  it('raises a held breach when its hold has passed with no further reading (a controller gone quiet)', async () => {
    // A box of its own whose rule pass runs every 300 ms.
    const quietEnv = await createTestEnv(dialect);
    try {
      const quiet = await quietEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off', alarm_escalation_interval_ms: '300' });
      const quietMaster = await clientAs(quietEnv, quiet, undefined, master.contract);
      const dev = await clientAs(quietEnv, quiet, { subject: 'dev-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, quietMaster.contract);
      const admin = await clientAs(quietEnv, quiet, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, quietMaster.contract);
      const alarmOf = async (corr: string) => (await admin.get(`/api/v1/industry-alarms/list?correlation_id=${corr}`)).body.items;
      // Hot from 119 s ago: pending for about another second, then the rule scheduler raises it.
      const hot = await dev.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-7', avg_weight_kg: 8, temp_c: 33, ts: secondsAgo(119) }, rid());
      const corr = `swine-${dialect}-${n}`;
      expect(hot.body.item.alarms).toEqual([]);
      expect(await alarmOf(corr)).toEqual([]);
      await expect.poll(async () => (await alarmOf(corr))[0]?.status).toBe('active');
      expect((await alarmOf(corr))[0]).toMatchObject({ rule_id: 'swine-climate:temp_high', unit_id: 'room-7', value: 33, priority: 'P1' });
      // Back in the band clears it as a raise by a reading would be cleared.
      await dev.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-7', avg_weight_kg: 8, temp_c: 27 }, rid());
      expect((await alarmOf(corr))[0].status).toBe('cleared');
    } finally {
      await quietEnv.cleanup();
    }
  });

  it('refuses climate input it cannot judge, storing nothing', async () => {
    const before = (await adminA.get('/api/v1/swine-climate/list')).body.total;
    const bad = [
      { room_id: 'room-1', temp_c: 20 },
      { room_id: 'room-1', avg_weight_kg: 8 },
      { room_id: 'room-1', phase_id: 'nursery-x', temp_c: 20 },
      { room_id: 'room-1', avg_weight_kg: 300, temp_c: 20 },
      { room_id: 'room-1', avg_weight_kg: 8, temp_c: 200 },
      { room_id: 'room-1', avg_weight_kg: 8, temp_c: '20' },
      { avg_weight_kg: 8, temp_c: 20 },
      { room_id: 'room-1', avg_weight_kg: 8, temp_c: 20, ts: 'yesterday' },
    ];
    for (const body of bad) {
      const r = await devA.post('/api/v1/swine-climate/commands/telemetry', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    expect((await adminA.get('/api/v1/swine-climate/list')).body.total).toBe(before);
  });

  it('judges by the room profile a site publishes, and refuses an invalid one', async () => {
    const profile = (phases: unknown) => stringify({ schema_version: 'v1', industry_code: 'swine', equipment_profile: 'swine-room-climate', name: 'room-9', content: { phases } });
    const invalid = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: profile([{ phase_id: 'x', temp_min_c: 30, temp_max_c: 20, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 }]), site_id: 'farm-1' });
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.details[0].field).toMatch(/^content/);
    const imported = await adminA.post('/api/v1/industry-profiles/commands/import', { yaml: profile([{ phase_id: 'boar-pen', min_weight_kg: 100, max_weight_kg: 400, temp_min_c: 14, temp_max_c: 18, humidity_min_pct: 40, humidity_max_pct: 80, nh3_max_ppm: 15, co2_max_ppm: 2500 }]), site_id: 'farm-1', publish: true });
    expect(imported.status).toBe(201);
    const r = await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-9', avg_weight_kg: 250, temp_c: 17, nh3_ppm: 17 }, rid());
    expect(r.body.item.reading).toMatchObject({ phase_id: 'boar-pen', targets_source: `profile ${imported.body.item.id} v1`, targets: { nh3_max_ppm: 15 } });
    expect(r.body.item.out_of_norm_flags).toEqual(['nh3_high']);
    // Other rooms keep the defaults.
    expect((await devA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-8', avg_weight_kg: 80, temp_c: 17 })).body.item.reading.targets_source).toBe('default');
  });

  it('normalises sensor units before judging', async () => {
    const r = await devA.post('/api/v1/swine-climate/sensors/commands/ingest', {
      room_id: 'room-4', avg_weight_kg: 45,
      readings: [{ kind: 'temperature', value: 68, unit: 'F' }, { kind: 'humidity', value: 0.65, unit: 'ratio' }, { kind: 'nh3', value: 14.17, unit: 'mg/m3' }, { kind: 'co2', value: 0.25, unit: '%' }],
    }, rid());
    expect(r.status).toBe(201);
    // 68 F = 20 C; 0.65 = 65 %; 14.17 mg/m3 x 24.04 / 17.031 = 20.002 ppm; 0.25 % = 2,500 ppm.
    expect(r.body.item.reading).toMatchObject({ source: 'api', phase_id: 'grower', temp_c: 20, humidity_pct: 65, nh3_ppm: 20.002, co2_ppm: 2500 });
    expect(r.body.item.out_of_norm_flags).toEqual(['nh3_high']);
    const kelvin = await devA.post('/api/v1/swine-climate/sensors/commands/ingest', { room_id: 'room-4', avg_weight_kg: 45, readings: [{ kind: 'temperature', value: 293.15, unit: 'K' }, { kind: 'co2', value: 3600, unit: 'mg/m3' }] });
    expect(kelvin.body.item.reading).toMatchObject({ temp_c: 20, co2_ppm: 1966.462 });
    for (const readings of [[{ kind: 'temperature', value: 20, unit: 'kelvins' }], [{ kind: 'co2', value: 1, unit: 'ppm' }, { kind: 'co2', value: 2, unit: 'ppm' }], [{ kind: 'pressure', value: 1, unit: 'bar' }], [], [{ kind: 'humidity', value: 3, unit: 'ratio' }]]) {
      const bad = await devA.post('/api/v1/swine-climate/sensors/commands/ingest', { room_id: 'room-4', avg_weight_kg: 45, readings });
      expect(bad.status, JSON.stringify(readings)).toBe(400);
    }
  });

  it('judges feeding per head and day against the feed curve', async () => {
    // 100 kg finisher: 10447 x (1 - e^-2.04) / 3400 = 2.673 kg/head/day.
    const ok = await devA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'room-5', pen_id: 'p1', category: 'finisher', head_count: 50, avg_weight_kg: 100, feed_kg: 133.6 }, rid());
    expect(ok.status).toBe(201);
    expect(ok.body.item.record).toMatchObject({ feed_per_head_kg_day: 2.672, expected_kg_day: 2.673, deviation_pct: 0, status: 'ok' });
    const warn = await devA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'room-5', pen_id: 'p1', category: 'finisher', head_count: 50, avg_weight_kg: 100, feed_kg: 110 });
    expect(warn.body.item).toMatchObject({ status: 'warn', anomaly_flags: [] });
    expect(warn.body.item.record.deviation_pct).toBe(-17.7);
    const low = await devA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'room-5', valve_id: 'v7', category: 'finisher', head_count: 50, avg_weight_kg: 100, feed_kg: 40, period_hours: 12 }, rid());
    // 40 kg / 50 head over 12 h = 1.6 kg/head/day: -40.1 %.
    expect(low.body.item).toMatchObject({ status: 'alarm', anomaly_flags: ['feed_low'] });
    expect(low.body.item.record.feed_per_head_kg_day).toBe(1.6);
    expect(low.body.item.alarms[0]).toMatchObject({ rule_id: 'swine-feeding:feed_low', severity: 'high' });
    expect((await alarm(`swine-${dialect}-${n}`))[0]).toMatchObject({ unit_id: 'room-5/v7', status: 'active' });
    const sow = await devA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'farrowing-1', category: 'sow', sow_phase: 'lactating', head_count: 10, feed_kg: 65 });
    expect(sow.body.item.record).toMatchObject({ expected_kg_day: 6.5, status: 'ok' });
    expect((await devA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'room-5', category: 'grower', head_count: 50, feed_kg: 40 })).status).toBe(400);
    expect((await devA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'room-5', category: 'grower', head_count: 0, avg_weight_kg: 40, feed_kg: 40 })).status).toBe(400);
    expect((await opA.get('/api/v1/swine-feeding/list?status=alarm')).body.total).toBe(1);
    expect((await opA.get('/api/v1/swine-feeding/list?valve_id=v7')).body.total).toBe(1);
  });

  it('tells a water leak and a blocked line from the pen baseline, and clears them', async () => {
    const water = (water_l: number, ts: string) => devA.post('/api/v1/swine-water/commands/ingest', { room_id: 'room-6', pen_id: 'p2', category: 'finisher', head_count: 50, avg_weight_kg: 100, water_l, ts }, rid());
    // Curve first: 2.5 x 2.673 = 6.683 l/head/day.
    const first = await water(330, '2026-03-01T06:00:00Z');
    expect(first.body.item.record).toMatchObject({ per_head_l_day: 6.6, baseline_source: 'curve', baseline_l_day: 6.683, status: 'ok' });
    await water(340, '2026-03-02T06:00:00Z');
    await water(320, '2026-03-03T06:00:00Z');
    // Baseline from the pen's own history: (6.6 + 6.8 + 6.4) / 3 = 6.6; 10 l/head is +51.5 %.
    const leak = await water(500, '2026-03-04T06:00:00Z');
    expect(leak.body.item.record).toMatchObject({ baseline_source: 'history', baseline_l_day: 6.6, deviation_pct: 51.5, status: 'alarm', anomaly_flags: ['leak'] });
    expect(leak.body.item.alarms[0]).toMatchObject({ rule_id: 'swine-water:leak', severity: 'medium', priority: 'P2' });
    // The leak is not part of the baseline: 3 l/head against 6.6 is -54.5 %, a blockage (P1, bridged).
    const blocked = await water(150, '2026-03-05T06:00:00Z');
    expect(blocked.body.item.record).toMatchObject({ baseline_l_day: 6.6, deviation_pct: -54.5, anomaly_flags: ['blockage'] });
    const corr = `swine-${dialect}-${n}`;
    expect((await opA.get(`/api/v1/status/list?correlation_id=${corr}`)).body.items.find((e: { event: string }) => e.event === 'alarm_raised')).toMatchObject({ status: 'error' });
    const leakAlarm = (await adminA.get('/api/v1/industry-alarms/list?rule_id=swine-water:leak')).body.items[0];
    expect(leakAlarm.status).toBe('cleared');
    const dry = await water(0, '2026-03-05T18:00:00Z');
    expect(dry.body.item.anomaly_flags).toEqual(['blockage', 'no_flow']);
    expect(dry.body.item.alarms[0].correlation_id).toBe(corr);
    await water(335, '2026-03-06T06:00:00Z');
    expect((await adminA.get('/api/v1/industry-alarms/list?rule_id=swine-water:blockage')).body.items[0].status).toBe('cleared');
    expect((await opA.get('/api/v1/swine-water/list?room_id=room-6&status=alarm')).body.total).toBe(3);
    expect((await devA.post('/api/v1/swine-water/commands/ingest', { room_id: 'room-6', category: 'finisher', head_count: 50, avg_weight_kg: 100, water_l: -1 })).status).toBe(400);
  });

  it('stores daily production and computes the KPIs worked by hand', async () => {
    const ingest = (body: Record<string, unknown>) => opA.post('/api/v1/swine-production/commands/ingest', { batch_id: 'B1', room_id: 'room-7', ...body });
    expect((await ingest({ pen_id: 'A', category: 'finisher', metric_date: '2026-03-01', head_count: 100, avg_weight_kg: 30 })).status).toBe(201);
    const mid = await ingest({ pen_id: 'A', category: 'finisher', metric_date: '2026-03-15', head_count: 99, deaths: 1, feed_kg: 2400 });
    expect(mid.body.item.out_of_norm_flags).toEqual(['mortality_high']);
    await ingest({ pen_id: 'A', category: 'finisher', metric_date: '2026-03-31', head_count: 98, deaths: 1, avg_weight_kg: 55, feed_kg: 2600 });
    await ingest({ batch_id: 'S', room_id: 'sows', category: 'sow', metric_date: '2026-03-10', head_count: 200, sows_present: 200, litters_weaned: 20, piglets_weaned: 245 });
    const low = await ingest({ batch_id: 'S', room_id: 'sows', category: 'sow', metric_date: '2026-03-24', head_count: 202, sows_present: 202, litters_weaned: 20, piglets_weaned: 190 });
    expect(low.body.item.out_of_norm_flags).toEqual(['weaned_per_litter_low']);

    const kpi = (await opA.get('/api/v1/swine-production/kpi?window_days=31&end_date=2026-03-31')).body.item;
    expect(kpi).toMatchObject({ window_days: 31, from_date: '2026-03-01', to_date: '2026-03-31', records: 5 });
    // Growing: mortality 2 / 100 = 2 %; ADG (55 - 30) / 30 days = 833.333 g; gain 98 x 55 - 100 x 30 = 2,390 kg;
    // feed after the first weighing 2,400 + 2,600 = 5,000 kg; FCR 5,000 / 2,390 = 2.092.
    expect(kpi.growing).toMatchObject({ head_start: 100, head_end: 98, deaths: 2, mortality_pct: 2, avg_weight_start_kg: 30, avg_weight_end_kg: 55, adg_g: 833.333, weight_gain_kg: 2390, feed_kg: 5000, fcr: 2.092 });
    // Sows: 435 weaned / 201 sows on average x 365 / 31 = 158,775 / 6,231 = 25.481 per sow and year; 435 / 40 = 10.875 per litter.
    expect(kpi.sows).toMatchObject({ sows_avg: 201, litters_weaned: 40, piglets_weaned: 435, piglets_weaned_per_sow_year: 25.481, piglets_per_litter: 10.875 });
    const latest = (await opA.get('/api/v1/swine-production/kpi?window_days=17&category=finisher')).body.item;
    expect(latest).toMatchObject({ from_date: '2026-03-15', to_date: '2026-03-31', records: 2, sows: null });
    expect(latest.growing).toMatchObject({ head_start: 99, deaths: 2, adg_g: null, fcr: null });
    expect((await opA.get('/api/v1/swine-production/kpi?batch_id=none')).body.item).toMatchObject({ records: 0, growing: null, sows: null });

    const dup = await ingest({ pen_id: 'A', category: 'finisher', metric_date: '2026-03-31', head_count: 98 });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('already_exists');
    expect((await ingest({ pen_id: 'A', category: 'finisher', metric_date: '2026-04-01', head_count: 5, deaths: 6 })).status).toBe(400);
    expect((await ingest({ pen_id: 'A', category: 'finisher', metric_date: '2026-02-30', head_count: 5 })).status).toBe(400);
    expect((await opA.get('/api/v1/swine-production/kpi?window_days=0')).status).toBe(400);
    expect((await opA.get('/api/v1/swine-production/kpi?end_date=31.03.2026')).status).toBe(400);
    expect((await opA.get('/api/v1/swine-production/list?batch_id=B1&sort=metric_date&order=asc')).body.items.map((r: { metric_date: string }) => r.metric_date)).toEqual(['2026-03-01', '2026-03-15', '2026-03-31']);
  });

  it('records biosecurity events, raises a violation, and takes one review', async () => {
    const fine = await opA.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'entry', person: 'Vet Jansen', company: 'Vet practice', downtime_hours: 72, shower_in: true, room_id: 'room-1' });
    expect(fine.body.item).toMatchObject({ status: 'ok', flags: [], required_downtime_hours: 48, alarm_id: null, acked: false });
    const short = await opA.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'visitor', person: 'Feed rep', downtime_hours: 20, shower_in: false }, rid());
    expect(short.body.item).toMatchObject({ status: 'violation', flags: ['downtime_short', 'no_shower_in'] });
    const [raised] = await alarm(`swine-${dialect}-${n}`);
    expect(raised).toMatchObject({ id: short.body.item.alarm_id, unit_id: 'site-gate', severity: 'high', status: 'active' });
    const unknown = await opA.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'entry', person: 'New worker' });
    expect(unknown.body.item).toMatchObject({ status: 'review', flags: ['downtime_unknown'], alarm_id: null });
    expect((await opA.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'vehicle', person: 'Driver' })).status).toBe(400);
    expect((await opA.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'delivery', vehicle_id: 'AB-123-C' })).body.item.status).toBe('ok');
    expect((await opA.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'teleport', person: 'x' })).status).toBe(400);

    const ack = await opA.post('/api/v1/swine-biosecurity/commands/ack', { id: short.body.item.id, comment: 'sent home, returns after 48 h' });
    expect(ack.status).toBe(200);
    expect(ack.body.item).toMatchObject({ acked: true, acked_by: 'op-a', ack_comment: 'sent home, returns after 48 h' });
    expect((await alarm(`swine-${dialect}-${n}`))[0]).toMatchObject({ status: 'acked', assignee: 'op-a' });
    const again = await adminA.post('/api/v1/swine-biosecurity/commands/ack', { id: short.body.item.id });
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain('op-a');
    expect((await opA.post('/api/v1/swine-biosecurity/commands/ack', { id: 'nope' })).status).toBe(404);
    expect((await opA.get('/api/v1/swine-biosecurity/list?status=violation&acked=true')).body.total).toBe(1);
    expect((await opA.get('/api/v1/swine-biosecurity/list?q=feed rep')).body.total).toBe(1);
    const trail = (await master.get('/api/v1/audit/list?resource=swine-biosecurity')).body.items;
    expect(trail.map((a: { action: string }) => a.action)).toContain('biosecurity.ack');
  });

  it('keeps tenants and sites apart on every swine resource, and enforces scope and roles', async () => {
    for (const r of RESOURCES) {
      const mine = (await adminA.get(`/api/v1/${r}/list`)).body;
      expect(mine.total, r).toBeGreaterThan(0);
      expect((await opB.get(`/api/v1/${r}/list`)).body.total, r).toBe(0);
      expect((await opB.get(`/api/v1/${r}/${mine.items[0].id}`)).status, r).toBe(404);
      expect((await opB.get(`/api/v1/${r}/list?tenant_id=tA`)).body.error.code).toBe('tenant_boundary_denied');
      expect((await siteA2.get(`/api/v1/${r}/list`)).body.total, r).toBe(0);
      expect((await siteA2.get(`/api/v1/${r}/list?site_id=farm-1`)).body.total, r).toBe(0);
      expect((await siteA2.get(`/api/v1/${r}/${mine.items[0].id}`)).status, r).toBe(404);
      expect((await master.get(`/api/v1/${r}/list`)).body.error.code).toBe('scope_boundary_denied');
    }
    expect((await opB.get('/api/v1/swine-production/kpi?window_days=365')).body.item.records).toBe(0);
    expect((await siteA2.get('/api/v1/swine-production/kpi?window_days=365')).body.item.records).toBe(0);
    const foreign = (await adminA.get('/api/v1/swine-biosecurity/list?status=review')).body.items[0];
    expect((await opB.post('/api/v1/swine-biosecurity/commands/ack', { id: foreign.id })).status).toBe(404);
    expect((await devB.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'r', avg_weight_kg: 8, temp_c: 27, tenant_id: 'tA' })).body.error.code).toBe('tenant_boundary_denied');
    expect((await devA.post('/api/v1/swine-water/commands/ingest', { room_id: 'r', category: 'sow', head_count: 1, water_l: 15, site_id: 'farm-2' })).body.error.code).toBe('tenant_boundary_denied');
    expect((await secA.post('/api/v1/swine-feeding/commands/ingest', { room_id: 'r', category: 'sow', head_count: 1, feed_kg: 3 })).body.error.code).toBe('rbac_forbidden');
    expect((await secA.get('/api/v1/swine-feeding/list')).status).toBe(200);
    // Readings are for devices, integrations and admins (docs/alarms.md): an operator is refused.
    expect((await opA.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 20 })).body.error.code).toBe('rbac_forbidden');
    // B's rows of the same room names are its own.
    const b = await devB.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-1', avg_weight_kg: 8, temp_c: 35 });
    expect(b.body.item.reading.tenant_id).toBe('tB');
    expect((await opA.get('/api/v1/swine-climate/list?room_id=room-1&status=alarm')).body.total).toBe(3);
  });

  it('answers module_not_installed when the swine module is uninstalled', async () => {
    expect((await master.post('/api/v1/modules/commands/uninstall', { id: 'swine' })).status).toBe(200);
    for (const r of RESOURCES) expect((await opA.get(`/api/v1/${r}/list`)).body.error.code).toBe('module_not_installed');
    expect((await devA.post('/api/v1/swine-climate/sensors/commands/ingest', {})).body.error.code).toBe('module_not_installed');
    expect((await master.post('/api/v1/modules/commands/install', { id: 'swine' })).status).toBe(200);
    expect((await opA.get('/api/v1/swine-climate/list')).status).toBe(200);
  });
});
