// poultry-flock, poultry-climate (list by age, setpoint drafts, telemetry, sensors), poultry-alarms
// and poultry-adapters over HTTP on both dialects: bad input gives the contract's errors and
// changes nothing (overlapping age phases, unknown house, inverted ranges, unknown units), rules
// hold and clear with hysteresis, a published poultry profile's climate_phases and alarm_rules
// are used at placement, and every poultry resource keeps other tenants' rows out.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();

const PROFILE_YAML = `schema_version: v1
kind: industry-profile
industry_code: poultry
equipment_profile: tunnel-house
name: Site curve
content:
  climate_phases:
    - { age_phase_id: early, day_from: 0, day_to: 9, target_temp_c: 31, humidity_min_pct: 55, humidity_max_pct: 70, co2_max_ppm: 2500, nh3_max_ppm: 15, min_ventilation_pct: 12 }
    - { age_phase_id: late, day_from: 10, day_to: 49, target_temp_c: 22, humidity_min_pct: 50, humidity_max_pct: 70, co2_max_ppm: 2500, nh3_max_ppm: 15, min_ventilation_pct: 30 }
  alarm_rules:
    - { id: "climate:co2_high", metric: co2, comparator: gt, threshold: co2_max_ppm, hysteresis: 300, hold_sec: 0, severity: high, priority: P1, sla_target_sec: 1200, title: CO2 above the site maximum }
`;

describe.each(DIALECTS)('poultry climate, flocks and alarms (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let adminA: Client;
  let opA: Client;
  let opB: Client;
  let secA: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    secA = await clientAs(env, server, { subject: 'sec-a', role: 'security', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    expect((await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(5), birds_placed: 20_000 })).status).toBe(201);
  });
  afterAll(async () => env.cleanup());

  it('computes the age from the start date and refuses a second active flock in a house, a batch placed twice and a closed flock closed again', async () => {
    const flock = (await opA.get('/api/v1/poultry-flock/list?house_id=H1')).body.items[0];
    expect(flock).toMatchObject({ batch_id: 'B1', status: 'active', current_age_days: 5, birds_placed: 20_000 });
    const busy = await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B2', subtype: 'broiler', start_date: daysAgo(1) });
    expect(busy.status).toBe(409);
    expect(busy.body.error).toMatchObject({ code: 'lifecycle_conflict', details: [{ field: 'house_id', reason: 'house_occupied' }] });
    expect((await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(1) })).body.error.code).toBe('already_exists');
    expect((await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H9', batch_id: 'B1', subtype: 'goose', start_date: daysAgo(1) })).status).toBe(400);
    expect((await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H9', batch_id: 'B1', subtype: 'broiler', start_date: '2026-13-40' })).status).toBe(400);
    expect((await opA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H9', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(1) })).body.error.code).toBe('rbac_forbidden');
    await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H8', batch_id: 'B0', subtype: 'layer', start_date: daysAgo(30) });
    const h8 = (await opA.get('/api/v1/poultry-flock/list?house_id=H8')).body.items[0];
    expect(h8.climate_source).toBe('none'); // no default curve for layers
    const closed = await opA.post('/api/v1/poultry-flock/commands/close', { id: h8.id, closed_date: daysAgo(2) });
    expect(closed.body.item).toMatchObject({ status: 'closed', closed_date: daysAgo(2), current_age_days: 28 });
    expect((await opA.post('/api/v1/poultry-flock/commands/close', { id: h8.id })).body.error.code).toBe('lifecycle_conflict');
    expect((await opA.get('/api/v1/poultry-flock/list?house_id=H9')).body.total).toBe(0);
  });

  it('refuses overlapping age phases, an unknown house and incomplete setpoints, changing nothing', async () => {
    const before = (await opA.get('/api/v1/poultry-climate/list?house_id=H1&limit=100')).body;
    const overlap = await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'd04-07', day_to: 9, target_temp_c: 30 });
    expect(overlap.status).toBe(400);
    expect(overlap.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'day_from', reason: 'overlapping_age_phase' }] });
    const newOverlap = await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'extra', day_from: 50, day_to: 60, target_temp_c: 19 });
    expect(newOverlap.body.error.details).toEqual([{ field: 'day_from', reason: 'overlapping_age_phase' }]);
    const inverted = await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'd04-07', humidity_min_pct: 80 });
    expect(inverted.body.error.details).toEqual([{ field: 'humidity_max_pct', reason: 'below_minimum' }]);
    const unknown = await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H404', batch_id: 'B1', age_phase_id: 'd04-07', target_temp_c: 30 });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', details: [{ field: 'house_id', reason: 'unknown_house' }] });
    const tele = await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H404', temp: 25 });
    expect(tele.body.error.details).toEqual([{ field: 'house_id', reason: 'unknown_house' }]);
    expect((await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'd04-07' })).body.error.code).toBe('validation_error');
    expect((await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'new', target_temp_c: 19 })).body.error.details).toEqual([{ field: 'age_phase_id', reason: 'new_phase_needs_days' }]);
    expect((await opA.post('/api/v1/poultry-climate/commands/setpoint', { profile_id: 'nope', target_temp_c: 19 })).status).toBe(404);
    expect((await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1' })).status).toBe(400);
    expect((await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', humidity: 140 })).status).toBe(400);
    expect((await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: 25, ts: new Date(Date.now() + 3_600_000).toISOString() })).body.error.details).toEqual([{ field: 'ts', reason: 'in_future' }]);
    expect((await opA.get('/api/v1/poultry-climate/list?age_mode=sometimes')).status).toBe(400);
    expect((await opA.get('/api/v1/poultry-climate/list?house_id=H1&limit=100')).body).toMatchObject({ total: before.total, items: before.items });
    expect((await opA.get('/api/v1/poultry-climate/list?state=draft')).body.total).toBe(0);
  });

  it('adds a non-overlapping phase as a draft and publishes it on ack without a write when it is not the active phase', async () => {
    const draft = await opA.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'd57-63', day_from: 57, day_to: 63, target_temp_c: 19 });
    expect(draft.status).toBe(201);
    expect(draft.body.item).toMatchObject({ state: 'draft', version_id: 1, adapter_dispatch: { status: 'not_configured' } });
    const ack = await adminA.post('/api/v1/poultry-climate/commands/ack', { id: draft.body.item.id });
    expect(ack.body.item).toMatchObject({ state: 'published', active_by_age: false, adapter_dispatch: { status: 'skipped' } });
    expect((await adminA.post('/api/v1/poultry-climate/commands/ack', { id: draft.body.item.id })).body.error.code).toBe('lifecycle_conflict');
  });

  it('normalises sensor readings (units) into climate telemetry judged against the active phase', async () => {
    // day 5 of the default curve: d04-07, 30.5 °C ± 1.5, 60-70 %RH, CO2 ≤ 3000, NH3 ≤ 20
    const r = await adminA.post('/api/v1/poultry-climate/sensors/commands/ingest', { house_id: 'H1', readings: [
      { kind: 'temperature', value: 86, unit: 'F' }, { kind: 'humidity', value: 0.65, unit: 'fraction' }, { kind: 'co2', value: 0.12, unit: 'percent' },
      { kind: 'nh3', value: 10, unit: 'mg/m3' }, { kind: 'pressure', value: 0.3, unit: 'hPa' },
    ] });
    expect(r.status).toBe(200);
    expect(r.body.item.normalised).toEqual({ temp: 30, humidity: 65, co2: 1200, nh3: 14.356 });
    expect(r.body.item).toMatchObject({ pressure_pa: 30, age_phase_id: 'd04-07', current_age_days: 5, status: 'ok', out_of_norm_flags: [] });
    const k = await adminA.post('/api/v1/poultry-climate/sensors/commands/ingest', { house_id: 'H1', readings: [{ kind: 'temperature', value: 300.65, unit: 'K' }, { kind: 'humidity', value: 80 }] });
    expect(k.body.item).toMatchObject({ temp: 27.5, status: 'warn', out_of_norm_flags: ['temp_low', 'humidity_high'] });
    const bad = await adminA.post('/api/v1/poultry-climate/sensors/commands/ingest', { house_id: 'H1', readings: [{ kind: 'temperature', value: 30, unit: 'R' }] });
    expect(bad.body.error.details).toEqual([{ field: 'readings.0.unit', reason: 'unsupported_value' }]);
    expect((await adminA.post('/api/v1/poultry-climate/sensors/commands/ingest', { house_id: 'H1', readings: [{ kind: 'pressure', value: 30 }] })).body.error.details).toEqual([{ field: 'readings', reason: 'no_climate_reading' }]);
    expect((await adminA.post('/api/v1/poultry-climate/sensors/commands/ingest', { house_id: 'H1', readings: [{ kind: 'radiation', value: 3 }] })).status).toBe(400);
  });

  it('holds a breach for its hold time, keeps it through the hysteresis band and clears it below', async () => {
    const tele = (body: Item) => adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', ...body });
    // NH3 rule: > 20 ppm, hysteresis 2, hold 300 s
    expect((await tele({ ts: secondsAgo(400), nh3: 24 })).body.item.alarms).toEqual([{ rule_id: 'climate:nh3_high', action: 'pending', alarm_id: null, correlation_id: null, priority: null }]);
    expect((await tele({ ts: secondsAgo(350), nh3: 19 })).body.item.alarms).toEqual([]); // in the band: still pending
    const raised = (await tele({ ts: secondsAgo(90), nh3: 23 })).body.item.alarms[0];
    expect(raised).toMatchObject({ rule_id: 'climate:nh3_high', action: 'raised', priority: 'P1' });
    expect((await tele({ ts: secondsAgo(80), nh3: 25 })).body.item.alarms).toEqual([]); // open already: not raised twice
    expect((await tele({ ts: secondsAgo(70), nh3: 18.5 })).body.item.alarms).toEqual([]); // 18.5 > 20 - 2: still raised
    expect((await opA.get(`/api/v1/poultry-alarms/${raised.alarm_id}`)).body.item.status).toBe('active');
    expect((await tele({ ts: secondsAgo(60), nh3: 17 })).body.item.alarms).toEqual([{ rule_id: 'climate:nh3_high', action: 'cleared', alarm_id: null, correlation_id: null, priority: null }]);
    expect((await opA.get(`/api/v1/poultry-alarms/${raised.alarm_id}`)).body.item.status).toBe('cleared');
  });

  it('evaluate runs the rules over the latest reading and the feed/water line; publish, ack and escalate follow the contract', async () => {
    // H7's only reading: CO2 breach (hold 300 s) from 1,000 s ago, never followed up: evaluate raises it now.
    await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H7', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(3) });
    expect((await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H7', ts: secondsAgo(1000), co2: 4000 })).body.item.alarms[0]).toMatchObject({ action: 'pending' });
    const ev = await adminA.post('/api/v1/poultry-alarms/commands/evaluate', { house_id: 'H7' });
    expect(ev.status).toBe(200);
    expect(ev.body.item.evaluated_houses).toBe(1);
    expect(ev.body.item.outcomes.find((o: Item) => o.rule_id === 'climate:co2_high')).toMatchObject({ house_id: 'H7', value: 4000, threshold: 3000, breached: true, state: 'raised', action: 'raised' });
    expect(ev.body.item.raised.map((o: Item) => o.rule_id)).toEqual(['climate:co2_high']);
    expect(ev.body.item.raised[0].alarm).toMatchObject({ house_id: 'H7', priority: 'P1', severity: 'high', status: 'active' });
    expect((await adminA.post('/api/v1/poultry-alarms/commands/evaluate', { house_id: 'H7' })).body.item.raised).toEqual([]);
    // the feed/water line of a house is judged by evaluate too: a water deviation beyond the line's alarm threshold
    await adminA.post('/api/v1/poultry-feedwater/commands/ingest', { house_id: 'H7', batch_id: 'B1', ts: secondsAgo(7200), water_counter_l: 100, birds: 10_000 });
    const line = await adminA.post('/api/v1/poultry-feedwater/commands/ingest', { house_id: 'H7', batch_id: 'B1', ts: secondsAgo(10), water_counter_l: 100.5, pressure_bar: 2.5 });
    expect(line.status).toBe(200);
    const all = (await adminA.post('/api/v1/poultry-alarms/commands/evaluate', {})).body.item;
    expect(all.evaluated_houses).toBeGreaterThanOrEqual(2);
    const water = all.outcomes.find((o: Item) => o.house_id === 'H7' && o.rule_id === 'feedwater:water_drop');
    expect(water).toMatchObject({ metric: 'water_deviation_pct', threshold: -line.body.item.water_alarm_pct });
    expect(water.value).toBe(line.body.item.water_deviation_pct);
    expect((await adminA.post('/api/v1/poultry-alarms/commands/evaluate', { house_id: 'H404' })).body.error.details).toEqual([{ field: 'house_id', reason: 'unknown_house' }]);

    const pub = await adminA.post('/api/v1/poultry-alarms/commands/publish', { house_id: 'H1', batch_id: 'B1', severity: 'high', priority: 'P2', title: 'Feeder motor noise', sla_target_sec: 60 });
    expect(pub.status).toBe(201);
    expect(pub.body.item).toMatchObject({ status: 'active', house_id: 'H1', priority: 'P2', bridged_to_status: true, escalation_level: 0, sla_breached: false });
    expect(pub.body.item.correlation_id).toMatch(/[0-9a-f-]{36}/);
    const low = await adminA.post('/api/v1/poultry-alarms/commands/publish', { house_id: 'H1', severity: 'low', title: 'Note', correlation_id: 'corr-low-1' });
    expect(low.body.item).toMatchObject({ bridged_to_status: false, correlation_id: 'corr-low-1' });
    // Not bridged (low); the alarm view's one event of the raise, every severity.
    // (published on its own turn after the command's answer)
    await expect.poll(async () => (await opA.get('/api/v1/status/list?correlation_id=corr-low-1')).body.items.map((e: { event: string }) => e.event)).toEqual(['alarm_changed']);
    const early = await adminA.post('/api/v1/poultry-alarms/commands/escalate', { id: pub.body.item.id });
    expect(early.body.error).toMatchObject({ code: 'lifecycle_conflict', details: [{ field: 'id', reason: 'sla_not_breached' }] });
    const forced = await adminA.post('/api/v1/poultry-alarms/commands/escalate', { id: pub.body.item.id, force: true });
    expect(forced.body.item).toMatchObject({ status: 'active', escalation_level: 1 });
    expect((await opA.post('/api/v1/poultry-alarms/commands/ack', { id: 'nope' })).body.error.code).toBe('alarm_not_found');
    expect((await adminA.post('/api/v1/poultry-alarms/commands/publish', { house_id: 'H1', severity: 'urgent', title: 'x' })).status).toBe(400);
    expect((await secA.post('/api/v1/poultry-alarms/commands/ack', { id: pub.body.item.id })).body.error.code).toBe('rbac_forbidden');
    const list = await opA.get('/api/v1/poultry-alarms/list?house_id=H1&priority=P2&severity=high');
    expect(list.body.items.map((i: Item) => i.id)).toEqual([pub.body.item.id]);
    expect((await opA.get(`/api/v1/poultry-alarms/list?correlation_id=${pub.body.item.correlation_id}`)).body.total).toBe(1);
  });

  it('places a flock from the published poultry profile: its climate phases and its alarm rules', async () => {
    const imp = await adminA.post('/api/v1/poultry-profiles/commands/import-yaml', { yaml: PROFILE_YAML, publish: true });
    expect(imp.status, JSON.stringify(imp.body)).toBeLessThan(300);
    const placed = await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H5', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(12) });
    expect(placed.body.item.climate_source).toMatch(/^profile:.+ v1$/);
    const active = (await opA.get('/api/v1/poultry-climate/list?house_id=H5&age_mode=active')).body.items;
    expect(active.map((i: Item) => [i.age_phase_id, i.target_temp_c, i.co2_max_ppm])).toEqual([['late', 22, 2500]]);
    // the profile's co2 rule has no hold time: raised at once at 2,600 ppm
    const r = await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H5', co2: 2600 });
    expect(r.body.item.alarms).toMatchObject([{ rule_id: 'climate:co2_high', action: 'raised' }]);
    const alarm = (await opA.get(`/api/v1/poultry-alarms/${r.body.item.alarms[0].alarm_id}`)).body.item;
    expect(alarm).toMatchObject({ sla_target_sec: 1200, title: 'House H5: CO2 above the site maximum' });
    const overlapping = PROFILE_YAML.replace('day_from: 10', 'day_from: 9').replace('name: Site curve', 'name: Bad curve');
    const bad = await adminA.post('/api/v1/poultry-profiles/commands/import-yaml', { yaml: overlapping, publish: true });
    expect(bad.status).toBeLessThan(300);
    const refused = await adminA.post('/api/v1/poultry-flock/commands/place', { house_id: 'H6', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(1), profile_id: bad.body.item.id });
    expect(refused.body.error.details).toEqual([{ field: 'day_from', reason: 'overlapping_age_phase' }]);
    expect((await opA.get('/api/v1/poultry-flock/list?house_id=H6')).body.total).toBe(0);
  });

  it('keeps every poultry resource of one tenant out of another tenant\'s reach', async () => {
    await opB.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(5) });
    const ad = await opB.post('/api/v1/poultry-adapters', { item: { unit_id: 'H1', controller_id: 'b-ctl', transport: 'modbus-rtu', serial_path: '/dev/ttyB', points: [{ key: 'target_temp_c', address: 1 }] } });
    expect(ad.status).toBe(201);
    const bTele = await opB.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', ventilation: 0, ts: secondsAgo(100) });
    expect(bTele.body.item.house_id).toBe('H1');
    const bAlarm = (await opB.post('/api/v1/poultry-alarms/commands/publish', { house_id: 'H1', severity: 'critical', title: 'B only' })).body.item;
    const bFlock = (await opB.get('/api/v1/poultry-flock/list')).body.items[0];
    const bPhase = (await opB.get('/api/v1/poultry-climate/list?age_mode=active')).body.items[0];
    for (const [path, id] of [['poultry-flock', bFlock.id], ['poultry-climate', bPhase.id], ['poultry-alarms', bAlarm.id], ['poultry-adapters', ad.body.item.id]] as const) {
      expect((await opA.get(`/api/v1/${path}/${id}`)).status, path).toBe(404);
      const mine = (await opA.get(`/api/v1/${path}/list?limit=500`)).body.items;
      expect(mine.every((i: Item) => i.tenant_id === 'tA'), path).toBe(true);
      expect((await opA.get(`/api/v1/${path}/list?tenant_id=tB`)).body.error.code, path).toBe('tenant_boundary_denied');
    }
    expect((await opA.post('/api/v1/poultry-alarms/commands/ack', { id: bAlarm.id })).body.error.code).toBe('alarm_not_found');
    expect((await opA.post('/api/v1/poultry-flock/commands/close', { id: bFlock.id })).status).toBe(404);
    expect((await opA.post('/api/v1/poultry-climate/commands/setpoint', { profile_id: bPhase.id, target_temp_c: 20 })).status).toBe(404);
    expect((await adminA.post('/api/v1/poultry-climate/commands/ack', { id: bPhase.id })).status).toBe(404);
    expect((await adminA.delete(`/api/v1/poultry-adapters/${ad.body.item.id}`)).status).toBe(404);
    expect((await adminA.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', tenant_id: 'tB', temp: 30 })).body.error.code).toBe('tenant_boundary_denied');
    // tenant A's H1 rule state is its own: B's ventilation breach did not touch it
    expect((await opA.get('/api/v1/poultry-alarms/list?house_id=H1')).body.items.some((i: Item) => i.rule_id === 'climate:ventilation_low')).toBe(false);
    expect((await opB.get(`/api/v1/poultry-alarms/${bAlarm.id}`)).status).toBe(200);
  });

  it('keeps a session bound to one site to that site\'s houses, in lists, by id and in writes', async () => {
    const master = await clientAs(env, server);
    const farm1 = await clientAs(env, server, { subject: 'admin-f1', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-1' }, master.contract);
    const farm2 = await clientAs(env, server, { subject: 'admin-f2', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-2' }, master.contract);
    const placed = await farm2.post('/api/v1/poultry-flock/commands/place', { house_id: 'F2-H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(3) });
    expect(placed.body.item).toMatchObject({ site_id: 'farm-2', current_age_days: 3 });
    const alarm = (await farm2.post('/api/v1/poultry-alarms/commands/publish', { house_id: 'F2-H1', severity: 'high', title: 'farm 2 only' })).body.item;
    const phase = (await farm2.get('/api/v1/poultry-climate/list?age_mode=active')).body.items[0];
    expect(phase.site_id).toBe('farm-2');
    for (const [path, id] of [['poultry-flock', placed.body.item.id], ['poultry-climate', phase.id], ['poultry-alarms', alarm.id]] as const) {
      expect((await farm1.get(`/api/v1/${path}/${id}`)).status, path).toBe(404);
      expect((await farm1.get(`/api/v1/${path}/list`)).body.total, path).toBe(0);
      expect((await farm1.get(`/api/v1/${path}/list?site_id=farm-2`)).body.total, path).toBe(0);
      expect((await farm2.get(`/api/v1/${path}/${id}`)).status, path).toBe(200);
    }
    // writes: naming the other site is refused, and the other site's house is unknown here
    const other = await farm1.post('/api/v1/poultry-flock/commands/place', { house_id: 'F1-H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(1), site_id: 'farm-2' });
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('tenant_boundary_denied');
    expect((await farm1.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'F2-H1', temp: 40 })).body.error.code).toBe('not_found');
    expect((await farm1.post('/api/v1/poultry-climate/commands/setpoint', { profile_id: phase.id, target_temp_c: 25 })).status).toBe(404);
    expect((await farm1.post('/api/v1/poultry-alarms/commands/ack', { id: alarm.id })).status).toBe(404);
    expect((await farm2.get(`/api/v1/poultry-alarms/${alarm.id}`)).body.item.status).toBe('active');
    expect((await farm1.get('/api/v1/poultry-flock/list?site_id=farm-1')).body.total).toBe(0);
  });

  it('answers module_not_installed on every poultry route once the module is uninstalled', async () => {
    const master = await clientAs(env, server);
    expect((await master.post('/api/v1/modules/commands/uninstall', { id: 'poultry' })).status).toBe(200);
    for (const path of ['/api/v1/poultry-flock/list', '/api/v1/poultry-climate/list', '/api/v1/poultry-alarms/list', '/api/v1/poultry-adapters/list']) {
      expect((await opA.get(path)).body.error.code, path).toBe('module_not_installed');
    }
    expect((await adminA.post('/api/v1/poultry-climate/sensors/commands/ingest', { house_id: 'H1', readings: [{ kind: 'co2', value: 1 }] })).body.error.code).toBe('module_not_installed');
    expect((await master.post('/api/v1/modules/commands/install', { id: 'poultry' })).status).toBe(200);
  });
});
