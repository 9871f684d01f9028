// Melioration season benchmark: `npx tsx bench/melioration-season.ts [days] [fields]`. Not a test:
// prints figures only. A real server (SQLite, or PostgreSQL with CABINET_TEST_PG_URL) holds one
// site with `fields` fields and `days` days of station weather, two irrigations a week and a
// probe reading a day per field; then it times what grows with the season: an ingest (which
// recomputes the field's balance from balance_start and evaluates the alerts) and GET
// {id}/balance over the whole season.
import { createTestEnv } from '../test/helpers/server.js';
import { runBalance, type DayInput } from '../src/modules/melioration/balance.js';

const DAYS = Number(process.argv[2] ?? 180);
const FIELDS = Number(process.argv[3] ?? 5);
const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';

const day = (n: number) => new Date(Date.now() - (DAYS - 1 - n) * 86_400_000).toISOString().slice(0, 10);

function stats(lat: number[]) {
  const s = [...lat].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return `p50 ${q(0.5).toFixed(1)} ms, p99 ${q(0.99).toFixed(1)} ms, n=${s.length}`;
}

async function main() {
  const env = await createTestEnv(dialect);
  const server = await env.start({ industry: 'melioration', mqtt_broker: 'off', log_level: 'warn' });
  const token = await env.token(server, { subject: 'bench', role: 'admin', scope_type: 'tenant', tenant_id: 't1', site_id: 's1' });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
  };
  try {
    for (let f = 0; f < FIELDS; f++) {
      await post('/api/v1/melioration-field', { item: { id: `f${f}`, name: `Field ${f}`, crop: 'maize', area_ha: 20, field_capacity_pct: 32, wilting_point_pct: 17, root_depth_m: 0.8, balance_start: day(0) } });
    }
    const weatherLat: number[] = [];
    const fieldLat: number[] = [];
    const t0 = performance.now();
    for (let d = 0; d < DAYS; d++) {
      let s = performance.now();
      await post('/api/v1/melioration-weather/commands/ingest', { item: { source: 'station', station_id: 'ws', day: day(d), latitude_deg: 45, elevation_m: 120, t_min_c: 12 + (d % 7), t_max_c: 26 + (d % 5), rh_mean_pct: 55, wind_ms: 2, solar_mj_m2: 20, rain_mm: d % 9 === 0 ? 12 : 0 } });
      weatherLat.push(performance.now() - s);
      for (let f = 0; f < FIELDS; f++) {
        s = performance.now();
        await post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: `f${f}`, probe_id: 'p1', depth_cm: 30, vwc_pct: 24 + (d % 4), observed_at: `${day(d)}T06:00:00.000Z` } });
        fieldLat.push(performance.now() - s);
        if (d % 7 === 2 || d % 7 === 5) await post('/api/v1/melioration-irrigation-machine/commands/ingest', { item: { field_id: `f${f}`, equipment_id: 'pivot', observed_at: `${day(d)}T10:00:00.000Z`, depth_mm: 25, covered_area_ha: 10 } });
      }
    }
    const loadS = (performance.now() - t0) / 1000;
    const balanceLat: number[] = [];
    for (let i = 0; i < 20; i++) {
      const s = performance.now();
      const res = await fetch(`${server.url}/api/v1/melioration-field/f0/balance?from=${day(0)}&to=${day(DAYS - 1)}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await res.json()) as { item: { days: unknown[] } };
      if (body.item.days.length !== DAYS) throw new Error('balance length');
      balanceLat.push(performance.now() - s);
    }
    // Baseline: the bucket alone over the same season, in process (no database, no HTTP).
    const input: DayInput[] = Array.from({ length: DAYS }, (_, d) => ({ day: day(d), et0_mm: 5, weather_source: 'station', rain_mm: d % 9 === 0 ? 12 : 0, irrigation_machine_mm: d % 7 === 2 ? 12.5 : 0, irrigation_drip_mm: 0, measured_depletion_mm: 20, measured_surplus_mm: 0 }));
    const runs = 2000;
    const b0 = performance.now();
    for (let i = 0; i < runs; i++) runBalance({ taw_mm: 120, depletion_fraction: 0.5, kc: 1 }, 0, input);
    const bucketMs = (performance.now() - b0) / runs;
    console.log(`melioration season (${dialect}): ${DAYS} days, ${FIELDS} fields, loaded in ${loadS.toFixed(1)} s`);
    console.log(`  weather ingest (re-evaluates ${FIELDS} fields): ${stats(weatherLat)}; first 10 days ${stats(weatherLat.slice(0, 10))}, last 10 days ${stats(weatherLat.slice(-10))}`);
    console.log(`  probe ingest (re-evaluates 1 field): ${stats(fieldLat)}; first 10 days ${stats(fieldLat.slice(0, 10 * FIELDS))}, last 10 days ${stats(fieldLat.slice(-10 * FIELDS))}`);
    const p50 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`  last 10 days' p50 / first 10 days' p50 (target <= 1.2x): weather ${(p50(weatherLat.slice(-10)) / p50(weatherLat.slice(0, 10))).toFixed(2)}x, probe ${(p50(fieldLat.slice(-10 * FIELDS)) / p50(fieldLat.slice(0, 10 * FIELDS))).toFixed(2)}x`);
    console.log(`  GET {id}/balance over ${DAYS} days: ${stats(balanceLat)}`);
    console.log(`  baseline: the bucket alone over ${DAYS} days in process: ${bucketMs.toFixed(3)} ms`);
  } finally {
    await env.cleanup();
  }
}

await main();
