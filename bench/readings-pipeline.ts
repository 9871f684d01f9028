// Reading pipeline benchmark: `npx tsx bench/readings-pipeline.ts [points] [units] [concurrency]`.
// Not a test: prints figures only. A real server (SQLite file, or PostgreSQL with
// CABINET_TEST_PG_URL; cloud-multi, so both industries are served) holds `units` broiler flocks and `units` swine rooms; `points` readings of
// each industry go through HTTP (poultry-climate/commands/telemetry, swine-climate/commands/
// telemetry: auth, validation, what is in force, judgement by band and rules, the rule engine,
// the INSERT), every 50th reading out of norm so rules go pending/raised and clear. Then, in the
// same run, the raw INSERT of the same number of rows of each table, one per transaction,
// through the same database handle: the floor a reading costs. The ratio is the figure. And the
// poultry pipeline called in process, one reading at a time, to tell its cost from the HTTP kit's.
import { randomUUID } from 'node:crypto';
import { createTestEnv } from '../test/helpers/server.js';
import { tableOf } from '../src/db/sql.js';
import { readingRecord, type ReadingRow } from '../src/modules/poultry/climate-schema.js';
import { ingestClimate } from '../src/modules/poultry/climate.js';
import { climateRecord as swineRecord, type ClimateRow as SwineRow } from '../src/modules/swine/climate.js';

const POINTS = Number(process.argv[2] ?? 3000);
const UNITS = Number(process.argv[3] ?? 8);
const CONCURRENCY = Number(process.argv[4] ?? 8);
const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';

const perSec = (n: number, ms: number) => (n / (ms / 1000)).toFixed(0);

async function main() {
  const env = await createTestEnv(dialect);
  const server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', log_level: 'warn', alarm_escalation_interval_ms: '3600000' });
  const token = await env.token(server, { subject: 'bench', role: 'admin', scope_type: 'tenant', tenant_id: 't1', site_id: 's1' });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { item: { status: string } };
  };
  /** `POINTS` requests from `CONCURRENCY` clients; answers elapsed ms and how many were not ok. */
  const drive = async (make: (i: number) => [string, unknown]) => {
    let next = 0;
    let notOk = 0;
    const began = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < POINTS; i = next++) {
        const [path, body] = make(i);
        if ((await post(path, body)).item.status !== 'ok') notOk++;
      }
    }));
    return { ms: performance.now() - began, notOk };
  };
  const db = server.services.db;
  const raw = async <R>(table: Parameters<typeof tableOf>[0], rows: R[]) => {
    const began = performance.now();
    for (const row of rows) await db.transaction(async () => db.orm.insert(tableOf(table, db)).values(row as never));
    return performance.now() - began;
  };
  try {
    const start = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    for (let h = 0; h < UNITS; h++) await post('/api/v1/poultry-flock/commands/place', { house_id: `H${h}`, batch_id: 'B1', subtype: 'broiler', start_date: start });
    const t0 = Date.now() - POINTS * 1000;
    const ts = (i: number) => new Date(t0 + i * 1000).toISOString();
    const hot = (i: number) => i % 50 < 3;

    const poultry = await drive((i) => ['/api/v1/poultry-climate/commands/telemetry', { house_id: `H${i % UNITS}`, ts: ts(i), temp: hot(i) ? 33 : 28 + (i % 7) / 10, humidity: 62, co2: 1500 + (i % 300), nh3: 8, ventilation: 30 }]);
    const poultryRaw = await raw(readingRecord.table, Array.from({ length: POINTS }, (_, i): ReadingRow => ({
      id: randomUUID(), tenant_id: 't1', site_id: 's1', house_id: `H${i % UNITS}`, batch_id: 'B1', ts: ts(i),
      age_days: 10, age_phase_id: 'd08-14', profile_id: null, temp: 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30, status: 'ok', out_of_norm_flags: [], source: 'bench',
    })));

    const swine = await drive((i) => ['/api/v1/swine-climate/commands/telemetry', { room_id: `R${i % UNITS}`, avg_weight_kg: 8, ts: ts(i), temp_c: hot(i) ? 32 : 27, humidity_pct: 60, nh3_ppm: 8, co2_ppm: 1800 }]);
    const now = new Date().toISOString();
    const swineRaw = await raw(swineRecord.table, Array.from({ length: POINTS }, (_, i): SwineRow => ({
      id: randomUUID(), tenant_id: 't1', site_id: 's1', room_id: `R${i % UNITS}`, pen_id: null, batch_id: null, category: null, phase_id: 'weaner-early',
      avg_weight_kg: 8, age_days: null, temp_c: 27, humidity_pct: 60, nh3_ppm: 8, co2_ppm: 1800, ventilation_pct: null,
      targets: { temp_min_c: 26, temp_max_c: 28 }, targets_source: 'default', status: 'ok', out_of_norm_flags: [], alarm_ids: [], source: 'api', ts: ts(i), received_at: now,
    })));

    // The pipeline alone, in process (no HTTP, auth or validation): what a reading costs in it.
    // Last, so that idle keep-alive connections of the HTTP phase are not reused after the server closed them.
    const who = { tenant: 't1', actor: 'bench', correlation_id: 'bench' };
    const inProcBegan = performance.now();
    for (let i = 0; i < POINTS; i++) await ingestClimate(server.services, who, { house_id: `H${i % UNITS}`, ts: ts(i), temp: hot(i) ? 33 : 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30 }, 'bench');
    const inProc = performance.now() - inProcBegan;

    console.log(`reading pipeline on ${dialect}${dialect === 'postgres' ? '' : ' (file)'}; ${POINTS} readings per industry over ${UNITS} units, ${CONCURRENCY} concurrent clients, Node ${process.version}`);
    console.log(`  poultry pipeline in process, one at a time (no HTTP): ${perSec(POINTS, inProc)} readings/s; ratio to the raw INSERT ${(poultryRaw / inProc).toFixed(2)}x`);
    for (const [name, api, rawMs] of [['poultry', poultry, poultryRaw], ['swine', swine, swineRaw]] as const) {
      console.log(`  ${name}: through HTTP ${perSec(POINTS, api.ms)} readings/s (${api.notOk} not ok); raw INSERT of the same rows ${perSec(POINTS, rawMs)} rows/s; ratio ${(rawMs / api.ms).toFixed(2)}x`);
    }
  } finally {
    await env.cleanup();
  }
}

await main();
