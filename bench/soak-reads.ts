// Benchmark (not a test): run with `npx tsx bench/soak-reads.ts [series] [days] [rounds] [points/s] [telemetry_batch_max]`
// (points/s 0: full rate; telemetry_batch_max: the server's setting, its default when left out;
// SOAK_SETTINGS='{"sqlite_checkpoint_bytes":"16M"}' in the environment: more of the server's settings).
// Builds a soak-sized SQLite database in a temp dir (default 100 series x 30 days of a point a
// minute = 4.32 M raw points, their minute roll-ups and 42 days of hour roll-ups, generated in
// bulk with raw SQL), starts the real server (embedded MQTT broker on a free port), then measures
// p50/p99 of three reads, first on the idle server (the baseline, same run), then while mqtt.js
// clients in a child process (bench/telemetry-publisher.mjs, QoS 1) publish telemetry at full rate
// (or at `points/s`, paced, when given):
//   - GET /api/v1/auth/me (a small read);
//   - a list page: GET /api/v1/devices/telemetry/list?limit=50 (newest first, with its total);
//   - the 42-day chart: the hour roll-ups of one series over 42 days (1008 buckets in one page of
//     up to 2,000, as a chart asks for them; and, for comparison, in 3 pages of 500);
//   - the KPI: GET /api/v1/devices/telemetry/kpi.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';

const [seriesArg, daysArg, roundsArg, rateArg, batchArg] = process.argv.slice(2);
const RATE = Number(rateArg ?? 0);
const SERIES = Number(seriesArg ?? 100);
const DAYS = Number(daysArg ?? 30);
const ROUNDS = Number(roundsArg ?? 60);
const CHART_DAYS = 42;
const MIN = 60_000;
const HOUR = 3_600_000;

const dir = mkdtempSync(join(tmpdir(), 'cabinet-soak-'));
const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', log_level: 'error', ...(batchArg ? { telemetry_batch_max: batchArg } : {}), ...(process.env.SOAK_SETTINGS ? (JSON.parse(process.env.SOAK_SETTINGS) as Record<string, string>) : {}) }, {});
const server = await startServer(config, { log: createLogger('error') });
const { services } = server;
const { db } = services;
const line = (label: string, value: string) => console.log(`${label.padEnd(58)} ${value}`);

// --- 1. the soak database, in bulk ------------------------------------------------------------
const now = Math.floor(Date.now() / HOUR) * HOUR;
const start = now - DAYS * 24 * HOUR;
const minutes = DAYS * 24 * 60;
const points = SERIES * minutes;
let t0 = performance.now();
// Series as MQTT intake names them (tenant of the token, site of the topic, no unit), so the
// ingest during the measurement appends to the same series.
await db.exec(`insert into telemetry_series (tenant_id, site_id, device_id, metric, unit)
  with recursive k(i) as (select 0 union all select i + 1 from k where i < ${SERIES - 1})
  select 'bench', 'site-1', 'dev-' || i, 'temperature', '' from k`);
const seq = (n: number) => `with recursive k(i) as (select 0 union all select i + 1 from k where i < ${n - 1})`;
// Time order, series interleaved, as a site writes them; a warn every 97th point.
await db.exec(`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at)
  ${seq(points)}
  select (i % ${SERIES}) + 1, ${start} + (i / ${SERIES}) * ${MIN} + (i % ${SERIES}) * 100, 20 + (i % 100) / 10.0,
    case when i % 97 = 0 then 1 else 0 end, i % 50, ${start} + (i / ${SERIES}) * ${MIN} + (i % ${SERIES}) * 100 + 200 from k`);
const pointsMs = performance.now() - t0;
t0 = performance.now();
// One point a minute: a minute bucket per point.
await db.exec(`insert into telemetry_rollups (series_id, resolution, bucket, count, value_count, sum, min, max, last, last_ts)
  select series_id, 60, (ts / ${MIN}) * ${MIN}, 1, 1, value, value, value, value, ts from telemetry_points`);
// Hour buckets over the chart's 42 days: raw points are kept 30, hour roll-ups far longer.
const hours = CHART_DAYS * 24;
await db.exec(`insert into telemetry_rollups (series_id, resolution, bucket, count, value_count, sum, min, max, last, last_ts)
  ${seq(SERIES * hours)}
  select (i % ${SERIES}) + 1, 3600, ${now - hours * HOUR} + (i / ${SERIES}) * ${HOUR}, 60, 60, 60 * 24.95, 20, 29.9, 25, ${now - hours * HOUR} + (i / ${SERIES}) * ${HOUR} + ${HOUR - MIN} from k`);
const rollupMs = performance.now() - t0;
await db.exec('pragma wal_checkpoint(truncate)');
const size = statSync(join(dir, 'cabinet.sqlite')).size;
line('soak database', `${points.toLocaleString('en-US')} points, ${SERIES} series, ${(size / 2 ** 20).toFixed(0)} MiB (points ${(pointsMs / 1000).toFixed(1)} s, roll-ups ${(rollupMs / 1000).toFixed(1)} s)`);

// --- 2. the reads -----------------------------------------------------------------------------
const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const headers = { authorization: `Bearer ${token}` };
async function get(path: string, retry = true): Promise<{ total?: number; total_estimated?: boolean; items?: unknown[] }> {
  let res: Response;
  try {
    res = await fetch(`${server.url}${path}`, { headers });
  } catch (err) {
    // A kept-alive connection the server closed meanwhile: once more on a new one, and say so.
    if (!retry) throw new Error(`${path}: ${(err as Error).message}`, { cause: err });
    console.log(`note: ${path} failed (${String((err as Error & { cause?: unknown }).cause ?? err)}), retried once`);
    return get(path, false);
  }
  const body = (await res.json()) as { total?: number; items?: unknown[]; meta?: { total_estimated?: boolean } };
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return { total: body.total, items: body.items, total_estimated: body.meta?.total_estimated };
}
const chartFrom = new Date(now - CHART_DAYS * 24 * HOUR).toISOString();
const chartTo = new Date(now).toISOString();
const READS: Record<string, () => Promise<unknown>> = {
  'auth/me': () => get('/api/v1/auth/me'),
  'list page (telemetry, newest 50 + total)': () => get('/api/v1/devices/telemetry/list?limit=50'),
  '42-day chart (1008 hour buckets, one page)': async () => {
    const page = await get(`/api/v1/devices/telemetry-rollups/list?resolution=hour&device_id=dev-7&from=${chartFrom}&to=${chartTo}&limit=2000`);
    if (page.items!.length !== CHART_DAYS * 24) throw new Error(`chart: ${page.items!.length} buckets`);
  },
  '42-day chart in 3 pages of 500 (the page size of lists)': async () => {
    let n = 0;
    for (let offset = 0; ; offset += 500) {
      const page = await get(`/api/v1/devices/telemetry-rollups/list?resolution=hour&device_id=dev-7&from=${chartFrom}&to=${chartTo}&limit=500&offset=${offset}`);
      n += page.items!.length;
      if (page.items!.length < 500) break;
    }
    if (n !== CHART_DAYS * 24) throw new Error(`chart: ${n} buckets`);
  },
  'KPI (devices/telemetry/kpi)': () => get('/api/v1/devices/telemetry/kpi'),
};

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]!;
};
/** Each read ROUNDS times, interleaved, one at a time (a client waiting for each answer). */
async function measure(): Promise<Record<string, number[]>> {
  const out: Record<string, number[]> = Object.fromEntries(Object.keys(READS).map((k) => [k, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, read] of Object.entries(READS)) {
      const t = performance.now();
      await read();
      out[name]!.push(performance.now() - t);
    }
  }
  return out;
}

for (const read of Object.values(READS)) await read(); // warm: statements prepared, worker started
const loop = monitorEventLoopDelay({ resolution: 5 });
loop.enable();
const idle = await measure();
const idleLoop = loop.percentile(99) / 1e6;
loop.reset();

// The baseline a page used to pay: the exact count of every point, same run, idle server.
t0 = performance.now();
const [exact] = await db.read<{ n: number }>(sql`select count(*) as n from device_telemetry`);
const exactMs = performance.now() - t0;

const writer = services.telemetry!.writer;
const child = fork(fileURLToPath(new URL('./telemetry-publisher.mjs', import.meta.url)), [`mqtt://127.0.0.1:${services.mqtt!.port}`, token, '4', String(50_000_000), '10', String(RATE / 10)], { execArgv: [] });
await new Promise((resolve) => child.once('message', resolve)); // connected
const writtenBefore = writer.stats.written;
child.send('go');
await new Promise((resolve) => setTimeout(resolve, 2000)); // ingest at full rate before measuring
const loadStart = performance.now();
const written0 = writer.stats.written;
loop.reset();
const loaded = await measure();
const loadLoop = loop.percentile(99) / 1e6;
loop.disable();
const ingestRate = (writer.stats.written - written0) / ((performance.now() - loadStart) / 1000);
child.kill();

const first = await get('/api/v1/devices/telemetry/list?limit=50');
const ms = (x: number) => `${x.toFixed(1)} ms`.padStart(10);
console.log(`\n${'read'.padEnd(56)} ${'idle p50'.padStart(10)} ${'idle p99'.padStart(10)} ${'ingest p50'.padStart(10)} ${'ingest p99'.padStart(10)}`);
for (const name of Object.keys(READS)) {
  console.log(`${name.padEnd(56)} ${ms(pct(idle[name]!, 50))} ${ms(pct(idle[name]!, 99))} ${ms(pct(loaded[name]!, 50))} ${ms(pct(loaded[name]!, 99))}`);
}
console.log('');
line(`ingest during the measurement (MQTT QoS 1, 10 points/message, ${RATE ? `paced at ${RATE}/s` : 'full rate'})`, `${Math.round(ingestRate).toLocaleString('en-US')} points/s (${(writer.stats.written - writtenBefore).toLocaleString('en-US')} points in all)`);
line('event-loop delay p99 (idle / ingest)', `${idleLoop.toFixed(1)} ms / ${loadLoop.toFixed(1)} ms`);
line('exact count of every point (what each page paid before)', `${exactMs.toFixed(0)} ms (${Number(exact!.n).toLocaleString('en-US')})`);
line('list total', `${first.total!.toLocaleString('en-US')}${first.total_estimated ? ' (estimated: a lower bound)' : ''}`);
line('rounds per read', String(ROUNDS));

await server.close();
rmSync(dir, { recursive: true, force: true });
process.exit(0);
