// Poultry climate telemetry benchmark: `npx tsx bench/poultry-telemetry.ts [points] [houses] [concurrency]`.
// Not a test: prints figures only. A real server (SQLite, or PostgreSQL with CABINET_TEST_PG_URL)
// holds `houses` broiler flocks on the default curve; `points` readings go through
// POST poultry-climate/commands/telemetry (auth, validation, flock and phase lookup, judgement,
// the reading's INSERT, the rules in force and the rule engine: one SELECT of the house's rule
// states, a write only when a rule changes state), every 50th reading out of norm so rules go
// pending, raise and clear. Then, in the same run, the raw INSERT of the same number of reading
// rows, one statement per row, through the same database handle: the floor a reading costs.
import { randomUUID } from 'node:crypto';
import { createTestEnv } from '../test/helpers/server.js';
import { tableOf } from '../src/db/sql.js';
import { readingRecord, type ReadingRow } from '../src/modules/poultry/climate-schema.js';

const POINTS = Number(process.argv[2] ?? 5000);
const HOUSES = Number(process.argv[3] ?? 8);
const CONCURRENCY = Number(process.argv[4] ?? 8);
const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';

function stats(lat: number[]) {
  const s = [...lat].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return `p50 ${q(0.5).toFixed(2)} ms, p99 ${q(0.99).toFixed(2)} ms`;
}

async function main() {
  const env = await createTestEnv(dialect);
  const server = await env.start({ mqtt_broker: 'off', log_level: 'warn', alarm_escalation_interval_ms: '3600000' });
  const token = await env.token(server, { subject: 'bench', role: 'admin', scope_type: 'tenant', tenant_id: 't1', site_id: 's1' });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(`${server.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { item: { status: string; alarms: { action: string }[] } };
  };
  try {
    const start = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    for (let h = 0; h < HOUSES; h++) await post('/api/v1/poultry-flock/commands/place', { house_id: `H${h}`, batch_id: 'B1', subtype: 'broiler', start_date: start });
    const t0 = Date.now() - POINTS * 1000;
    const lat: number[] = [];
    let next = 0;
    let alarms = 0;
    let outOfNorm = 0;
    const began = performance.now();
    await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
      for (let i = next++; i < POINTS; i = next++) {
        const hot = i % 50 < 3; // short excursions: pending, raised after the hold, cleared
        const body = { house_id: `H${i % HOUSES}`, ts: new Date(t0 + i * 1000).toISOString(), temp: hot ? 33 : 28 + (i % 7) / 10, humidity: 62, co2: 1500 + (i % 300), nh3: 8, ventilation: 30 };
        const s = performance.now();
        const r = await post('/api/v1/poultry-climate/commands/telemetry', body);
        lat.push(performance.now() - s);
        if (r.item.status !== 'ok') outOfNorm++;
        alarms += r.item.alarms.length;
      }
    }));
    const apiS = (performance.now() - began) / 1000;

    const db = server.services.db;
    const rows: ReadingRow[] = Array.from({ length: POINTS }, (_, i) => ({
      id: randomUUID(), tenant_id: 't1', site_id: 's1', house_id: `H${i % HOUSES}`, batch_id: 'B1', ts: new Date(t0 + i * 1000).toISOString(),
      age_days: 10, age_phase_id: 'd08-14', profile_id: null, temp: 28, humidity: 62, co2: 1500, nh3: 8, ventilation: 30, status: 'ok', out_of_norm_flags: [], source: 'bench',
    }));
    const rawLat: number[] = [];
    const rawBegan = performance.now();
    for (const row of rows) {
      const s = performance.now();
      await db.transaction(async () => db.orm.insert(tableOf(readingRecord.table, db)).values(row as never));
      rawLat.push(performance.now() - s);
    }
    const rawS = (performance.now() - rawBegan) / 1000;
    console.log(`poultry telemetry on ${dialect}${dialect === 'postgres' ? '' : ' (file)'}; ${POINTS} readings over ${HOUSES} houses, ${CONCURRENCY} concurrent clients, Node ${process.version}`);
    console.log(`  commands/telemetry + rule engine: ${(POINTS / apiS).toFixed(0)} points/s (${stats(lat)}); ${outOfNorm} out of norm, ${alarms} rule actions (pending/raised/cleared)`);
    console.log(`  raw INSERT of the same rows, one per transaction: ${(POINTS / rawS).toFixed(0)} rows/s (${stats(rawLat)})`);
  } finally {
    await env.cleanup();
  }
}

await main();
