// A simulated week on one field, through the API only: daily weather, two irrigations and probe
// readings give the water balance worked by hand below; a dry spell raises water_deficit; a
// station outage switches the balance to the weather service and degrades C to the configured
// fallback mode; recovery returns C; a heavy drip irrigation raises overwatering, which a probe
// reading at field capacity clears. Alerts go through the industry alarm service (status, audit).
//
// Field "east": 10 ha, field capacity 32 %, wilting point 17 %, roots 0.5 m:
//   TAW = 1000 × 0.15 × 0.5 = 75 mm, p = 0.5 → RAW = 37.5 mm; Kc = 1.0; depletion at start 20 mm.
// Day  weather (source)          water in                         by hand
// D1   ET0 6.0 (station)          -                                20 + 6 = 26
// D2   ET0 7.0 (station)          -                                26 + 7 = 33
// D3   ET0 6.5 (station)          -                                33 + 6.5 = 39.5 ≥ 37.5: water_deficit
// D4   ET0 6.0 (service: the      pivot 50 mm over 8 ha = 40 mm    Ks = (75 - 39.5)/(75 - 37.5) = 0.94667,
//      station is stuck)          over the field (4000 m3)         ETc = 5.68; 39.5 - 40 + 5.68 = 5.18: cleared
// D5   ET0 5.0 (service)          drip 600 m3 = 6 mm               5.18 - 6 + 5 = 4.18
// D6   ET0 5.5, rain 0.8 (station, rain < 0.2 × ET0: lost)         4.18 + 5.5 = 9.68; probe 29 %: (32 - 29) × 5 = 15
// D7   ET0 4.5 (station)          drip 30 mm                       15 - 30 + 4.5 = -10.5: 10.5 mm drains: overwatering;
//                                                                  probe 31 %: 5 mm depletion, 0 above capacity: cleared
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { todayAt } from '../helpers/site-day.js';

const day = (n: number) => new Date(Date.now() - (7 - n) * 86_400_000).toISOString().slice(0, 10); // D7 = today
const noon = (n: number) => `${day(n)}T12:00:00.000Z`;
const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();

describe.each(DIALECTS)('a week on a melioration field (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let op: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ industry: 'melioration', mqtt_broker: 'off' });
    admin = await clientAs(env, server, { subject: 'agronomist', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1', site_id: 'valley' });
    op = await clientAs(env, server, { subject: 'operator', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1', site_id: 'valley' }, admin.contract);
  });
  afterAll(async () => env.cleanup());

  const station = (n: number, et0: number, extra: Record<string, unknown> = {}) => admin.post('/api/v1/melioration-weather/commands/ingest', { item: { source: 'station', station_id: 'ws-valley', day: day(n), t_min_c: 14, t_max_c: 29 + n / 10, rh_mean_pct: 50 + n, et0_mm: et0, rain_mm: 0, ...extra } });
  const service = (n: number, et0: number) => admin.post('/api/v1/melioration-weather/commands/ingest', { item: { source: 'service', day: day(n), t_min_c: 15, t_max_c: 30, et0_mm: et0, rain_mm: 0 } });
  const frame = (m: number, temp: number, extra: Record<string, unknown> = {}) => admin.post('/api/v1/melioration-weather/commands/telemetry', { item: { station_id: 'ws-valley', observed_at: minutesAgo(m), air_temp_c: temp, rh_pct: 48, wind_ms: 2.4, solar_w_m2: 640, ...extra } });
  const field = async () => (await op.get('/api/v1/melioration-field/east')).body.item;
  const mode = async () => (await op.get('/api/v1/melioration-control-mode/east')).body.item;
  const alerts = async (kind: string) => (await op.get(`/api/v1/melioration-alerts/list?field_id=east&kind=${kind}`)).body.items;

  it('runs the week', async () => {
    const created = await admin.post('/api/v1/melioration-field', { item: { id: 'east', name: 'East pivot', crop: 'maize', area_ha: 10, field_capacity_pct: 32, wilting_point_pct: 17, root_depth_m: 0.5, depletion_fraction: 0.5, kc: 1, balance_start: day(1), initial_depletion_mm: 20, fallback_mode: 'B' } });
    expect(created.status).toBe(201);
    expect(created.body.item).toMatchObject({ taw_mm: 75, raw_mm: 37.5, site_id: 'valley' });

    // The station is healthy: automatic mode.
    expect((await frame(3, 21.0)).body.item.healthy).toBe(true);
    expect((await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: 'east', control_mode: 'C' })).body.item.control_mode).toBe('C');

    // D1-D3: a dry spell.
    await station(1, 6);
    await station(2, 7);
    expect(await alerts('water_deficit')).toHaveLength(0);
    expect((await field()).depletion_mm).toBeCloseTo(33, 9);
    await station(3, 6.5);
    expect((await field()).depletion_mm).toBeCloseTo(39.5, 9);
    const [deficit] = await alerts('water_deficit');
    expect(deficit).toMatchObject({ kind: 'water_deficit', field_id: 'east', status: 'active', severity: 'high', site_id: 'valley' });
    expect(deficit.value).toBeCloseTo(39.5, 9);
    // The contract's bridge; the alarm view's alarm_changed of the same raise is beside it.
    const bridged = (await op.get(`/api/v1/status/list?correlation_id=${deficit.correlation_id}`)).body.items as { event: string; status: string }[];
    expect(bridged.filter((s) => s.event !== 'alarm_changed').map((s) => [s.event, s.status])).toEqual([['alarm_raised', 'error']]);

    // D4: the station sticks. Its frames repeat; C degrades to the fallback B; its daily record is not used.
    for (const m of [2.5, 2, 1.5]) await frame(m, 22.2);
    const stuck = await frame(1, 22.2);
    expect(stuck.body.item).toMatchObject({ healthy: false, health_reasons: ['stuck'], fallback_mode: 'B' });
    expect(await mode()).toMatchObject({ control_mode: 'B', auto_degraded: true, fallback_mode: 'B' });
    const copy = await station(4, 6.5, { t_max_c: 29.3, rh_mean_pct: 53 }); // D3's readings again
    expect(copy.body.item).toMatchObject({ healthy: false, health_reasons: ['stuck', 'station_unhealthy'] });
    await service(4, 6);
    const pass = await admin.post('/api/v1/melioration-irrigation-machine/commands/ingest', { item: { field_id: 'east', equipment_id: 'pivot-east', observed_at: noon(4), depth_mm: 50, covered_area_ha: 8 } });
    expect(pass.body.item).toMatchObject({ volume_m3: 4000, field_depth_mm: 40 });
    expect((await field()).depletion_mm).toBeCloseTo(5.18, 9);
    expect((await alerts('water_deficit'))[0]).toMatchObject({ status: 'cleared' });

    // D5: still on the service; a drip irrigation by flow meter.
    await service(5, 5);
    expect((await admin.post('/api/v1/melioration-irrigation-drip/commands/ingest', { item: { field_id: 'east', equipment_id: 'drip-east', observed_at: noon(5), volume_m3: 600 } })).body.item.field_depth_mm).toBe(6);

    // The station is back: C again.
    const back = await frame(0.5, 22.9);
    expect(back.body.item).toMatchObject({ healthy: true, fields: [{ field_id: 'east', control_mode: 'C', fallback_mode: 'B', auto_degraded: false }] });
    expect(await mode()).toMatchObject({ control_mode: 'C', auto_degraded: false, station_healthy: true });

    // D6: a drizzle too small to count; a probe reading ends the day.
    await station(6, 5.5, { rain_mm: 0.8 });
    await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'east', probe_id: 'probe-1', depth_cm: 25, vwc_pct: 29, observed_at: noon(6) } });
    expect((await field()).depletion_mm).toBeCloseTo(15, 9);

    // D7 (today): too much drip water, then a probe at field capacity (both today whatever the time:
    // minutesAgo(2) is yesterday, D6, just after midnight).
    await station(7, 4.5);
    await admin.post('/api/v1/melioration-irrigation-drip/commands/ingest', { item: { field_id: 'east', equipment_id: 'drip-east', observed_at: todayAt(server.services.config, 1, 4), depth_mm: 30 } });
    expect((await field())).toMatchObject({ depletion_mm: 0, balance_day: day(7), weather_source: 'station' });
    expect((await field()).surplus_mm).toBeCloseTo(10.5, 9);
    const [over] = await alerts('overwatering');
    expect(over).toMatchObject({ status: 'active', severity: 'medium' });
    expect((await op.get(`/api/v1/status/list?correlation_id=${over.correlation_id}`)).body.items[0]).toMatchObject({ event: 'alarm_raised', status: 'warn' });
    await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'east', probe_id: 'probe-1', depth_cm: 25, vwc_pct: 31, observed_at: todayAt(server.services.config, 3, 4) } });
    expect(await field()).toMatchObject({ depletion_mm: 5, surplus_mm: 0 });
    expect((await alerts('overwatering'))[0]).toMatchObject({ status: 'cleared' });

    // The week's balance, day by day and by source, as worked by hand.
    const week = (await op.get(`/api/v1/melioration-field/east/balance?from=${day(1)}&to=${day(7)}`)).body.item;
    expect(week.days.map((d: { day: string }) => d.day)).toEqual([1, 2, 3, 4, 5, 6, 7].map(day));
    expect(week.days.map((d: { weather_source: string }) => d.weather_source)).toEqual(['station', 'station', 'station', 'service', 'service', 'station', 'station']);
    expect(week.days.map((d: { depletion_end: number }) => d.depletion_end)).toEqual([26, 33, 39.5, 5.18, 4.18, 15, 5]);
    expect(week.days.map((d: { etc: number }) => d.etc)).toEqual([6, 7, 6.5, 5.68, 5, 5.5, 4.5]);
    expect(week.days[3].ks).toBeCloseTo(0.947, 3);
    expect(week.days[5]).toMatchObject({ rain: 0.8, effective_rain: 0, measured: true });
    expect(week.days[6]).toMatchObject({ deep_percolation: 10.5, measured: true });
    expect(week.sources_used).toEqual({ station: 5, service: 2, none: 0 });
    const bySource = Object.fromEntries(week.by_source.map((s: { source: string; amount: number }) => [s.source, s.amount]));
    expect(bySource).toEqual({ rain: 0.8, irrigation_machine: 40, irrigation_drip: 36, crop_evapotranspiration: 40.18, deep_percolation: 10.5 });
    expect(week.totals).toMatchObject({ et0: 40.5, etc: 40.18, effective_rain: 0 });

    // The same in m3: 1 mm on 10 ha = 100 m3.
    const m3 = (await op.get(`/api/v1/melioration-field/east/balance?from=${day(1)}&to=${day(7)}&unit=m3`)).body.item;
    expect(Object.fromEntries(m3.by_source.map((s: { source: string; amount: number }) => [s.source, s.amount]))).toEqual({ rain: 80, irrigation_machine: 4000, irrigation_drip: 3600, crop_evapotranspiration: 4018, deep_percolation: 1050 });
    expect(m3.days[2].depletion_end).toBe(3950);

    // Every alert went through the one alarm service: audited raise and clear.
    const trail = (await admin.get('/api/v1/audit/list?resource=melioration-alarms&limit=50')).body.items.map((a: { action: string }) => a.action);
    expect(trail.filter((a: string) => a === 'alarm.raise')).toHaveLength(2);
    expect(trail.filter((a: string) => a === 'alarm.clear')).toHaveLength(2);
  });
});
