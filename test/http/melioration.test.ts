// The melioration workspace over HTTP on both dialects: every melioration-* route (scheme, list,
// {id}, commands), units and conversions, station health and control modes, the balance, bad
// input refused with nothing stored, and the module gate.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { need } from '../../src/kernel/context.js';
import { todayAt } from '../helpers/site-day.js';

const RESOURCES = ['melioration-field', 'melioration-alerts', 'melioration-irrigation-machine', 'melioration-irrigation-drip', 'melioration-soil-moisture', 'melioration-weather', 'melioration-control-mode'];
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const expectError = (res: { status: number; body: { error?: { code: string; details?: { field: string; reason: string }[] } } }, status: number, code: string, reason?: string) => {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
  if (reason) expect(res.body.error?.details?.map((d) => d.reason)).toContain(reason);
};

describe.each(DIALECTS)('melioration workspace (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client; // tenant tA, admin
  let op: Client; // tenant tA, operator
  let siteOp: Client; // tenant tA, operator bound to site s2
  let siteDev: Client; // tenant tA, a device/integration (admin-role) bound to site s2: readings are theirs
  let other: Client; // tenant tB, admin
  let master: Client;
  const loam = { crop: 'maize', field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.6, depletion_fraction: 0.5, kc: 1 };
  let north: { id: string };
  let noArea: { id: string };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ industry: 'melioration', mqtt_broker: 'off' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'anna', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'oleg', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    siteOp = await clientAs(env, server, { subject: 'sofia', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 's2' }, master.contract);
    siteDev = await clientAs(env, server, { subject: 'station-s2', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 's2' }, master.contract);
    other = await clientAs(env, server, { subject: 'boris', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    const created = await admin.post('/api/v1/melioration-field', { item: { id: 'north', site_id: 's1', name: 'North pivot', area_ha: 50, balance_start: daysAgo(3), ...loam } });
    expect(created.status).toBe(201);
    north = created.body.item;
    noArea = (await admin.post('/api/v1/melioration-field', { item: { site_id: 's1', name: 'Orchard strip', crop: 'apple', available_water_mm_per_m: 150, root_depth_m: 0.8, balance_start: daysAgo(3) } })).body.item;
  });
  afterAll(async () => env.cleanup());

  it('serves scheme and list for every melioration resource, with UI metadata and units', async () => {
    for (const r of RESOURCES) {
      const scheme = await op.get(`/api/v1/${r}/scheme`);
      expect(scheme.status, r).toBe(200);
      expect(scheme.body.item.fields.length, r).toBeGreaterThan(3);
      for (const f of scheme.body.item.fields) expect(f.label, `${r}.${f.name}`).toBeTruthy();
      expect(scheme.body.item.filters.map((f: { name: string }) => f.name), r).toContain('site_id');
      const list = await op.get(`/api/v1/${r}/list`);
      expect(list.status, r).toBe(200);
    }
    const field = (await op.get('/api/v1/melioration-field/scheme')).body.item;
    expect(field.fields.find((f: { name: string }) => f.name === 'area_ha')).toMatchObject({ unit: 'ha', nullable: true });
    expect(field.fields.find((f: { name: string }) => f.name === 'depletion_mm')).toMatchObject({ unit: 'mm', read_only: true });
    const weather = (await op.get('/api/v1/melioration-weather/scheme')).body.item;
    expect(weather.commands.map((c: { name: string }) => c.name).sort()).toEqual(['ingest', 'telemetry']);
    expect((await op.get('/api/v1/melioration-control-mode/scheme')).body.item.commands.map((c: { name: string }) => c.name).sort()).toEqual(['degrade', 'set']);
    expect((await op.get('/api/v1/melioration-alerts/scheme')).body.item.fields.find((f: { name: string }) => f.name === 'kind').enum).toEqual(['water_deficit', 'overwatering']);
  });

  it('creates fields with TAW and RAW, a manual control mode, filters and search; refuses a soil without size', async () => {
    expect(north).toMatchObject({ id: 'north', tenant_id: 'tA', site_id: 's1', taw_mm: 90, raw_mm: 45, area_ha: 50 });
    expect(noArea).toMatchObject({ area_ha: null, taw_mm: 120, raw_mm: 60 });
    const mode = await op.get('/api/v1/melioration-control-mode/north');
    expect(mode.body.item).toMatchObject({ field_id: 'north', control_mode: 'A', fallback_mode: 'B', auto_degraded: false, site_id: 's1' });
    expect((await op.get('/api/v1/melioration-field/list?crop=apple')).body.items.map((f: { id: string }) => f.id)).toEqual([noArea.id]);
    expect((await op.get('/api/v1/melioration-field/list?q=PIVOT')).body.total).toBe(1);
    expect((await op.get('/api/v1/melioration-field/list?sort=name&order=desc')).body.items.map((f: { id: string }) => f.id)).toEqual([noArea.id, 'north']);
    expectError(await admin.post('/api/v1/melioration-field', { item: { name: 'x', site_id: 's1', crop: 'x', root_depth_m: 0.5 } }), 400, 'validation_error', 'required');
    expectError(await admin.post('/api/v1/melioration-field', { item: { name: 'x', site_id: 's1', ...loam, wilting_point_pct: 35 } }), 400, 'validation_error', 'not_above_wilting_point');
    expectError(await admin.post('/api/v1/melioration-field', { item: { name: 'x', site_id: 's1', ...loam, area_ha: -3 } }), 400, 'validation_error', 'out_of_range');
    expectError(await admin.post('/api/v1/melioration-field', { item: { name: 'x', ...loam } }), 400, 'validation_error', 'required');
    expectError(await admin.post('/api/v1/melioration-field', { item: { name: 'x', site_id: 's1', ...loam, balance_start: daysAgo(-400) } }), 400, 'validation_error', 'too_far_ahead');
    expectError(await op.post('/api/v1/melioration-field', { item: { name: 'x', site_id: 's1', ...loam } }), 403, 'rbac_forbidden');
    expectError(await admin.post('/api/v1/melioration-field', { item: { id: 'north', name: 'x', site_id: 's1', ...loam } }), 409, 'already_exists');
    expect((await op.get('/api/v1/melioration-field/list')).body.total).toBe(2);
    const patched = await admin.patch('/api/v1/melioration-field/north', { item: { kc: 1.15 } });
    expect(patched.status).toBe(200);
    expect(patched.body.item.kc).toBe(1.15);
    expectError(await admin.patch('/api/v1/melioration-field/north', { item: { field_capacity_pct: 10 } }), 400, 'validation_error', 'not_above_wilting_point');
    expect((await op.get('/api/v1/melioration-field/north')).body.item.field_capacity_pct).toBe(30);
  });

  it('ingests irrigation in mm and m3; a machine pass over part of the field counts for that part', async () => {
    const pass = await admin.post('/api/v1/melioration-irrigation-machine/commands/ingest', { item: { field_id: 'north', equipment_id: 'pivot-1', started_at: minutesAgo(300), observed_at: minutesAgo(60), depth_mm: 20, covered_area_ha: 12.5 } });
    expect(pass.status).toBe(201);
    expect(pass.body.item).toMatchObject({ kind: 'machine', depth_mm: 20, volume_m3: 2500, covered_fraction: 0.25, field_depth_mm: 5, entered_as: 'mm', site_id: 's1', day: minutesAgo(60).slice(0, 10) });
    const drip = await admin.post('/api/v1/melioration-irrigation-drip/commands/ingest', { item: { field_id: 'north', equipment_id: 'line-7', observed_at: minutesAgo(30), volume_m3: 1500 } });
    expect(drip.body.item).toMatchObject({ kind: 'drip', depth_mm: 3, volume_m3: 1500, covered_area_ha: 50, field_depth_mm: 3, entered_as: 'm3' });
    const both = await admin.post('/api/v1/melioration-irrigation-drip/commands/ingest', { item: { field_id: noArea.id, equipment_id: 'line-1', observed_at: minutesAgo(20), depth_mm: 4, covered_fraction: 0.5 } });
    expect(both.body.item).toMatchObject({ volume_m3: null, field_depth_mm: 2 });
    expect((await op.get('/api/v1/melioration-irrigation-machine/list')).body.items.map((e: { equipment_id: string }) => e.equipment_id)).toEqual(['pivot-1']);
    expect((await op.get('/api/v1/melioration-irrigation-drip/list?field_id=north')).body.total).toBe(1);
    expect((await op.get(`/api/v1/melioration-irrigation-drip/${drip.body.item.id}`)).body.item.volume_m3).toBe(1500);
    expect((await op.get(`/api/v1/melioration-irrigation-machine/${drip.body.item.id}`)).status).toBe(404);
  });

  it('refuses negative mm, m3 on a field without area, readings from the future and mismatches, storing nothing', async () => {
    const count = async () => (await op.get('/api/v1/melioration-irrigation-machine/list')).body.total + (await op.get('/api/v1/melioration-irrigation-drip/list')).body.total;
    const before = await count();
    const ingest = (item: Record<string, unknown>) => admin.post('/api/v1/melioration-irrigation-machine/commands/ingest', { item: { field_id: 'north', equipment_id: 'pivot-1', observed_at: minutesAgo(5), ...item } });
    expectError(await ingest({ depth_mm: -5 }), 400, 'validation_error', 'out_of_range');
    expectError(await ingest({ volume_m3: -1 }), 400, 'validation_error', 'out_of_range');
    expectError(await ingest({ depth_mm: 5, observed_at: minutesAgo(-30) }), 400, 'validation_error', 'in_future');
    expectError(await ingest({ depth_mm: 5, started_at: minutesAgo(1), observed_at: minutesAgo(10) }), 400, 'validation_error', 'after_observed_at');
    expectError(await ingest({ depth_mm: 20, volume_m3: 999, covered_area_ha: 12.5 }), 400, 'validation_error', 'inconsistent_with_depth_mm');
    expectError(await ingest({}), 400, 'validation_error', 'required');
    expectError(await ingest({ field_id: noArea.id, volume_m3: 100 }), 400, 'validation_error', 'field_has_no_area');
    expectError(await ingest({ field_id: 'nowhere', depth_mm: 5 }), 404, 'not_found');
    expectError(await ingest({ depth_mm: '5' }), 400, 'validation_error', 'invalid_type');
    expectError(await admin.post('/api/v1/melioration-irrigation-machine/commands/ingest', { field_id: 'north', depth_mm: 5 }), 400, 'validation_error');
    expect(await count()).toBe(before);
    expectError(await op.get(`/api/v1/melioration-field/${noArea.id}/balance?unit=m3`), 400, 'validation_error', 'field_has_no_area');
  });

  it('turns probe readings into depletion; refuses them without field capacity or from the future', async () => {
    const r = await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p1', depth_cm: 30, vwc_pct: 24, observed_at: todayAt(server.services.config, 1, 8) } });
    expect(r.status).toBe(201);
    expect(r.body.item.depletion_mm).toBeCloseTo(36, 10); // (30 - 24) % × 0.6 m = 36 mm
    expect(r.body.item.surplus_mm).toBe(0);
    const wet = await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p1', depth_cm: 60, vwc_pct: 32, observed_at: todayAt(server.services.config, 2, 8) } });
    expect(wet.body.item).toMatchObject({ depletion_mm: 0 });
    expect(wet.body.item.surplus_mm).toBeCloseTo(12, 10);
    expectError(await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: noArea.id, probe_id: 'p9', depth_cm: 30, vwc_pct: 20, observed_at: minutesAgo(1) } }), 400, 'validation_error', 'field_capacity_unknown');
    expectError(await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p1', depth_cm: 30, vwc_pct: 20, observed_at: minutesAgo(-10) } }), 400, 'validation_error', 'in_future');
    expectError(await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p1', depth_cm: 30, vwc_pct: 120, observed_at: minutesAgo(1) } }), 400, 'validation_error', 'out_of_range');
    expect((await op.get('/api/v1/melioration-soil-moisture/list?field_id=north&depth_cm=30')).body.total).toBe(1);
    expect((await op.get('/api/v1/melioration-soil-moisture/list')).body.total).toBe(2);
  });

  it('ingests daily weather with FAO-56 ET0 and refuses bad weather', async () => {
    // FAO-56 Example 18's inputs (Brussels, 6 July) sent as a day's record: ET0 = 3.88 mm.
    const brussels = { site_id: 's9', source: 'service', day: '2026-07-06', latitude_deg: 50.8, elevation_m: 100, t_max_c: 21.5, t_min_c: 12.3, rh_max_pct: 84, rh_min_pct: 63, wind_ms: 10 / 3.6, wind_height_m: 10, sunshine_h: 9.25, rain_mm: 0 };
    const r = await admin.post('/api/v1/melioration-weather/commands/ingest', { item: brussels });
    expect(r.status).toBe(201);
    expect(r.body.item).toMatchObject({ kind: 'daily', source: 'service', et0_method: 'penman_monteith', healthy: true, telemetry_healthy: true });
    expect(r.body.item.et0_mm).toBeCloseTo(3.88, 2);
    const hg = await admin.post('/api/v1/melioration-weather/commands/ingest', { item: { site_id: 's9', source: 'service', day: '2026-09-03', latitude_deg: -20, t_max_c: 30, t_min_c: 20 } });
    expect(hg.body.item.et0_method).toBe('hargreaves');
    expect(hg.body.item.et0_mm).toBeCloseTo(4.09, 1);
    const before = (await op.get('/api/v1/melioration-weather/list?site_id=s9')).body.total;
    const bad = (item: Record<string, unknown>) => admin.post('/api/v1/melioration-weather/commands/ingest', { item: { ...brussels, ...item } });
    expectError(await bad({ rain_mm: -2 }), 400, 'validation_error', 'out_of_range');
    expectError(await bad({ day: daysAgo(-2) }), 400, 'validation_error', 'in_future');
    expectError(await bad({ observed_at: minutesAgo(-60), day: today() }), 400, 'validation_error', 'in_future');
    expectError(await bad({ t_min_c: 25 }), 400, 'validation_error', 'above_t_max_c');
    expectError(await bad({ source: 'station' }), 400, 'validation_error', 'required');
    expectError(await bad({ latitude_deg: null }), 400, 'validation_error', 'required');
    expectError(await bad({ day: '2026-02-30' }), 400, 'validation_error');
    expectError(await bad({ source: 'satellite' }), 400, 'validation_error', 'unsupported_value');
    expectError(await admin.post('/api/v1/melioration-weather/commands/telemetry', { item: { site_id: 's9', station_id: 'ws', observed_at: minutesAgo(-5), air_temp_c: 20 } }), 400, 'validation_error', 'in_future');
    expect((await op.get('/api/v1/melioration-weather/list?site_id=s9')).body.total).toBe(before);
  });

  it('station health drives control modes: C needs a healthy station, stuck frames degrade to the fallback, a healthy frame returns C', async () => {
    const frame = (m: number, over: Record<string, unknown> = {}) => admin.post('/api/v1/melioration-weather/commands/telemetry', { item: { site_id: 's1', station_id: 'ws-1', observed_at: minutesAgo(m), air_temp_c: 20 + m / 10, rh_pct: 55, wind_ms: 2.1, solar_w_m2: 500, ...over } });
    expectError(await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: 'north', control_mode: 'C' }), 409, 'lifecycle_conflict', 'station_unhealthy');
    const first = await frame(40);
    expect(first.status).toBe(201);
    expect(first.body.item).toMatchObject({ kind: 'telemetry', telemetry_healthy: false, healthy: false, health_reasons: ['stale'] });
    const fresh = await frame(4);
    expect(fresh.body.item).toMatchObject({ telemetry_healthy: true, healthy: true, health_reasons: [] });
    const set = await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: 'north', control_mode: 'C' });
    expect(set.status).toBe(200);
    expect(set.body.item).toMatchObject({ control_mode: 'C', auto_degraded: false, station_healthy: true, changed_by: 'oleg' });
    await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: noArea.id, control_mode: 'C', fallback_mode: 'A' });
    // Four identical frames: stuck.
    await frame(3, { air_temp_c: 21 });
    await frame(2, { air_temp_c: 21 });
    await frame(1, { air_temp_c: 21 });
    const stuck = await frame(0, { air_temp_c: 21 });
    expect(stuck.body.item).toMatchObject({ telemetry_healthy: false, healthy: false, health_reasons: ['stuck'], fallback_mode: null }); // the two fields fell back to different modes
    expect(stuck.body.item.fields).toEqual(expect.arrayContaining([
      { field_id: 'north', control_mode: 'B', fallback_mode: 'B', auto_degraded: true },
      { field_id: noArea.id, control_mode: 'A', fallback_mode: 'A', auto_degraded: true },
    ]));
    expect((await op.get('/api/v1/melioration-control-mode/list?auto_degraded=true')).body.total).toBe(2);
    expectError(await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: 'north', control_mode: 'C' }), 409, 'lifecycle_conflict', 'station_unhealthy');
    const statuses = (await op.get('/api/v1/status/list?source=melioration-control-mode')).body.items.map((s: { event: string }) => s.event);
    expect(statuses).toContain('control_mode_degraded');
    const back = await frame(0, { air_temp_c: 21.4 });
    expect(back.body.item.healthy).toBe(true);
    expect(back.body.item.fields).toEqual(expect.arrayContaining([
      { field_id: 'north', control_mode: 'C', fallback_mode: 'B', auto_degraded: false },
      { field_id: noArea.id, control_mode: 'C', fallback_mode: 'A', auto_degraded: false },
    ]));
    // The station's own flag, with a fallback named by the frame.
    const reported = await frame(0, { air_temp_c: 21.5, healthy: false, fallback_mode: 'A' });
    expect(reported.body.item).toMatchObject({ telemetry_healthy: true, healthy: false, health_reasons: ['reported_unhealthy'], fallback_mode: 'A' });
    expect((await op.get('/api/v1/melioration-control-mode/north')).body.item).toMatchObject({ control_mode: 'A', auto_degraded: true });
    await frame(0, { air_temp_c: 21.6 });
    // A person's choice is not auto-degraded and does not return to C by itself.
    await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: noArea.id, control_mode: 'B' });
    await frame(0, { air_temp_c: 21.7, healthy: false });
    await frame(0, { air_temp_c: 21.8 });
    expect((await op.get(`/api/v1/melioration-control-mode/${noArea.id}`)).body.item).toMatchObject({ control_mode: 'B', auto_degraded: false });
    const audit = (await admin.get('/api/v1/audit/list?resource=melioration-control-mode')).body.items.map((a: { action: string }) => a.action);
    expect(audit).toEqual(expect.arrayContaining(['control_mode.set', 'control_mode.degrade', 'control_mode.restore']));
  });

  it('degrade command: C to the fallback with auto_degraded; 409 when not in C; unknown mode refused', async () => {
    expect((await op.get('/api/v1/melioration-control-mode/north')).body.item.control_mode).toBe('C');
    const d = await op.post('/api/v1/melioration-control-mode/commands/degrade', { field_id: 'north', reason: 'station mast hit by a tractor' });
    expect(d.status).toBe(200);
    expect(d.body.item).toMatchObject({ control_mode: 'B', auto_degraded: true, reason: 'station mast hit by a tractor' });
    expectError(await op.post('/api/v1/melioration-control-mode/commands/degrade', { field_id: 'north' }), 409, 'lifecycle_conflict', 'control_mode_B');
    expectError(await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: 'north', control_mode: 'D' }), 400, 'validation_error', 'unsupported_value');
    expectError(await op.post('/api/v1/melioration-control-mode/commands/degrade', { field_id: 'nowhere' }), 404, 'not_found');
    // Healthy telemetry returns it.
    await admin.post('/api/v1/melioration-weather/commands/telemetry', { item: { site_id: 's1', station_id: 'ws-1', observed_at: minutesAgo(0), air_temp_c: 22, rh_pct: 50, wind_ms: 2, solar_w_m2: 510 } });
    expect((await op.get('/api/v1/melioration-control-mode/north')).body.item).toMatchObject({ control_mode: 'C', auto_degraded: false });
  });

  it('a station that falls silent is marked missing by the health check, degrading C; nothing is marked twice', async () => {
    const melioration = need(server.services, 'melioration');
    expect(await melioration.sweepMissingStations(new Date(Date.now() + 5 * 60_000))).toBe(0);
    expect(await melioration.sweepMissingStations(new Date(Date.now() + 16 * 60_000))).toBe(1);
    expect(await melioration.sweepMissingStations(new Date(Date.now() + 17 * 60_000))).toBe(0);
    const missing = (await op.get('/api/v1/melioration-weather/list?site_id=s1&kind=telemetry&sort=observed_at&order=desc&limit=1')).body.items[0];
    expect(missing).toMatchObject({ healthy: false, health_reasons: ['missing'], station_id: 'ws-1' });
    expect((await op.get('/api/v1/melioration-control-mode/north')).body.item).toMatchObject({ control_mode: 'B', auto_degraded: true });
    await admin.post('/api/v1/melioration-weather/commands/telemetry', { item: { site_id: 's1', station_id: 'ws-1', observed_at: new Date(Date.now() + 30_000).toISOString(), air_temp_c: 22.3, rh_pct: 50, wind_ms: 2, solar_w_m2: 515 } });
    expect((await op.get('/api/v1/melioration-control-mode/north')).body.item.control_mode).toBe('B'); // the missing mark (16 min ahead) is newer
  });

  it('answers the balance by source in mm and m3 (1 mm on 1 ha = 10 m3)', async () => {
    const mm = await op.get('/api/v1/melioration-field/north/balance');
    expect(mm.status).toBe(200);
    const b = mm.body.item;
    expect(b).toMatchObject({ field_id: 'north', unit: 'mm', to: today(), from: daysAgo(3), taw: 90, raw: 45 });
    expect(b.days.at(-1).day).toBe(today());
    const src = Object.fromEntries(b.by_source.map((s: { source: string; amount: number }) => [s.source, s.amount]));
    expect(src.irrigation_machine).toBe(5);
    expect(src.irrigation_drip).toBe(3);
    const m3 = (await op.get(`/api/v1/melioration-field/north/balance?unit=m3&from=${daysAgo(1)}`)).body.item;
    const src3 = Object.fromEntries(m3.by_source.map((s: { source: string; amount: number }) => [s.source, s.amount]));
    expect(src3.irrigation_machine).toBe(2500);
    expect(src3.irrigation_drip).toBe(1500);
    expect(m3.taw).toBe(45000);
    expect(m3.days).toHaveLength(2);
    expectError(await op.get('/api/v1/melioration-field/north/balance?from=yesterday'), 400, 'validation_error', 'invalid_format');
    expectError(await op.get(`/api/v1/melioration-field/north/balance?from=${today()}&to=${daysAgo(2)}`), 400, 'validation_error', 'after_to');
    expectError(await op.get('/api/v1/melioration-field/north/balance?unit=l'), 400, 'validation_error', 'unsupported_value');
    expectError(await op.get('/api/v1/melioration-field/nowhere/balance'), 404, 'not_found');
  });

  it('raises water_deficit from dry probes through the alarm service; every {id} route answers the listed item', async () => {
    await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p1', depth_cm: 30, vwc_pct: 18, observed_at: todayAt(server.services.config, 5, 8) } }); // 72 mm
    await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p1', depth_cm: 60, vwc_pct: 20, observed_at: todayAt(server.services.config, 6, 8) } }); // 60 mm
    expect((await op.get('/api/v1/melioration-field/north')).body.item).toMatchObject({ depletion_mm: 66, balance_day: today() });
    const alerts = (await op.get('/api/v1/melioration-alerts/list?kind=water_deficit&status=active')).body.items;
    expect(alerts).toHaveLength(1);
    expect(alerts[0]).toMatchObject({ field_id: 'north', kind: 'water_deficit', severity: 'high', value: 66, site_id: 's1' });
    expect((await op.get('/api/v1/melioration-alerts/list?kind=overwatering')).body.total).toBe(0);
    expect((await op.get('/api/v1/melioration-alerts/list?field_id=north&q=deficit')).body.total).toBe(1);
    expectError(await op.get('/api/v1/melioration-alerts/list?kind=drought'), 400, 'validation_error', 'unsupported_value');
    // Acknowledged once, by the tenant's own operator at the alert's site.
    expectError(await other.post('/api/v1/melioration-alerts/commands/ack', { id: alerts[0].id }), 404, 'alarm_not_found');
    expectError(await siteOp.post('/api/v1/melioration-alerts/commands/ack', { id: alerts[0].id }), 404, 'alarm_not_found');
    expectError(await op.post('/api/v1/melioration-alerts/commands/ack', { id: 'no-such-alert' }), 404, 'alarm_not_found');
    const ack = await op.post('/api/v1/melioration-alerts/commands/ack', { id: alerts[0].id, assignee: 'irrigation crew' });
    expect(ack.status).toBe(200);
    expect(ack.body.item).toMatchObject({ id: alerts[0].id, status: 'acked', acked_by: 'oleg', assignee: 'irrigation crew', kind: 'water_deficit' });
    const again = await admin.post('/api/v1/melioration-alerts/commands/ack', { id: alerts[0].id });
    expectError(again, 409, 'alarm_already_acknowledged');
    expect(again.body.error.message).toContain('oleg');
    expect((await op.get('/api/v1/melioration-alerts/list?assignee=irrigation%20crew')).body.total).toBe(1);
    const shared = await op.get(`/api/v1/industry-alarms/list?industry_code=melioration`);
    expect(shared.status).toBe(200); // the same event, seen through the generic industry view
    expect(shared.body.items.map((a: { id: string }) => a.id)).toContain(alerts[0].id);
    for (const r of RESOURCES) {
      const [first] = (await op.get(`/api/v1/${r}/list?limit=1`)).body.items;
      expect(first, r).toBeDefined();
      const key = r === 'melioration-control-mode' ? first.field_id : first.id;
      const one = await op.get(`/api/v1/${r}/${key}`);
      expect(one.status, r).toBe(200);
      expect(one.body.item, r).toEqual(first);
    }
    expectError(await op.get('/api/v1/melioration-alerts/no-such-alert'), 404, 'not_found');
    expectError(await op.get('/api/v1/melioration-weather/no-such-record'), 404, 'not_found');
  });

  it('isolates tenants and sites on every resource', async () => {
    for (const r of RESOURCES) {
      expect((await other.get(`/api/v1/${r}/list`)).body.total, r).toBe(0);
      expect((await other.get(`/api/v1/${r}/list?tenant_id=tA`)).status, r).toBe(403);
      expectError(await master.get(`/api/v1/${r}/list`), 403, 'scope_boundary_denied');
    }
    expectError(await other.get('/api/v1/melioration-field/north'), 404, 'not_found');
    expectError(await other.get('/api/v1/melioration-control-mode/north'), 404, 'not_found');
    expectError(await other.get('/api/v1/melioration-field/north/balance'), 404, 'not_found');
    expectError(await other.patch('/api/v1/melioration-field/north', { item: { kc: 0.3 } }), 404, 'not_found');
    expectError(await other.post('/api/v1/melioration-irrigation-drip/commands/ingest', { item: { field_id: 'north', equipment_id: 'x', observed_at: minutesAgo(1), depth_mm: 50 } }), 404, 'not_found');
    expectError(await other.post('/api/v1/melioration-control-mode/commands/degrade', { field_id: 'north' }), 404, 'not_found');
    expectError(await other.post('/api/v1/melioration-field', { item: { tenant_id: 'tA', name: 'x', site_id: 's1', ...loam } }), 403, 'tenant_boundary_denied');
    expect((await op.get('/api/v1/melioration-field/north')).body.item.kc).toBe(1.15);
    // A session bound to site s2 sees nothing of site s1 and cannot write there.
    for (const r of RESOURCES) expect((await siteOp.get(`/api/v1/${r}/list`)).body.total, r).toBe(0);
    expect((await siteOp.get('/api/v1/melioration-field/list?site_id=s1')).body.total).toBe(0);
    expectError(await siteOp.get('/api/v1/melioration-field/north'), 404, 'not_found');
    expectError(await siteDev.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'north', probe_id: 'p', depth_cm: 10, vwc_pct: 20, observed_at: minutesAgo(1) } }), 404, 'not_found');
    expectError(await siteDev.post('/api/v1/melioration-weather/commands/telemetry', { item: { site_id: 's1', station_id: 'ws-1', observed_at: minutesAgo(1), air_temp_c: 1 } }), 403, 'tenant_boundary_denied', 'other_site');
    const own = await siteDev.post('/api/v1/melioration-weather/commands/telemetry', { item: { station_id: 'ws-2', observed_at: minutesAgo(1), air_temp_c: 1 } });
    expect(own.body.item.site_id).toBe('s2');
    expect((await siteOp.get('/api/v1/melioration-weather/list')).body.total).toBe(1);
  });

  it('answers module_not_installed on every route when the module is uninstalled', async () => {
    expect((await master.post('/api/v1/modules/commands/uninstall', { id: 'melioration' })).status).toBe(200);
    for (const r of RESOURCES) expectError(await op.get(`/api/v1/${r}/list`), 404, 'module_not_installed');
    expectError(await op.get('/api/v1/melioration-field/north/balance'), 404, 'module_not_installed');
    expectError(await admin.post('/api/v1/melioration-weather/commands/ingest', { item: {} }), 404, 'module_not_installed');
    expect((await master.post('/api/v1/modules/commands/install', { id: 'melioration' })).status).toBe(200);
    expect((await op.get('/api/v1/melioration-field/north')).status).toBe(200);
  });
});
