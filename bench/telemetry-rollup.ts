// Benchmark (not a test): a 42-day chart of one sensor in hourly buckets, from a year of data.
// Run with `npx tsx bench/telemetry-rollup.ts [sensors=12]`.
// Fill (SQLite): the last 30 days (the raw retention) as raw points, one per minute per sensor,
// written through the batch writer, which maintains the minute and hour roll-ups; before that,
// minute roll-ups back to 90 days and hour roll-ups back to 365 days, inserted directly (what the
// writer would have left after the retention purges). Then, timed in this run:
// - the chart through the HTTP API: GET /api/v1/devices/telemetry-rollups/list?resolution=hour
//   &device_id&metric&from&to (1008 buckets = 3 pages of 500; one page alone too);
// - the baseline: the same buckets by raw SQL on a second better-sqlite3 connection (prepared);
// - for scale: the same hourly aggregates computed from raw points (the 30 days still held).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
import type { TelemetryPoint } from '../src/realtime/bus.js';

const SENSORS = Number(process.argv[2] ?? 12);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;
const RUNS = 40;

const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-'));
const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, mqtt_broker: 'off', log_level: 'error', rpc_port: '0', telemetry_batch_max: '5000' }, {});
const server = await startServer(config, { log: createLogger('error') });
const { services } = server;
const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const now = Math.floor(Date.now() / HOUR) * HOUR;
const wave = (sensor: number, t: number) => 20 + sensor + 5 * Math.sin((t / DAY) * 2 * Math.PI);

// --- fill ------------------------------------------------------------------------------------
const tFill = performance.now();
const rawFrom = now - config.telemetry_retention_days * DAY;
const pending: Promise<void>[] = [];
let chunk: TelemetryPoint[] = [];
for (let t = rawFrom; t < now; t += MIN) {
  const at = new Date(t).toISOString();
  for (let s = 0; s < SENSORS; s++) {
    chunk.push({ tenant_id: 'bench', site_id: 'site-1', device_id: `sensor-${s}`, metric: 'temperature', value: Math.round(wave(s, t) * 100) / 100, unit: 'C', status: 'online', latency_ms: null, ts: at, received_at: at });
  }
  if (chunk.length >= 5000) {
    pending.push(services.telemetry!.ingest(chunk));
    chunk = [];
    if (pending.length >= 20) await Promise.all(pending.splice(0));
  }
}
pending.push(services.telemetry!.ingest(chunk));
await Promise.all(pending);
const rawPoints = (await services.db.rows<{ n: number }>((await import('drizzle-orm')).sql`select count(*) as n from telemetry_points`))[0]!.n;

const file = join(dir, 'cabinet.sqlite');
const db = new BetterSqlite3(file);
db.pragma('busy_timeout = 5000');
// Older roll-ups, as the writer would have made them from one point a minute (then purged to retention).
const older = db.transaction(() => {
  const series = db.prepare("select id, cast(substr(device_id, 8) as integer) as s from telemetry_series where tenant_id = 'bench'").all() as { id: number; s: number }[];
  const ins = db.prepare('insert into telemetry_rollups (series_id, resolution, bucket, count, value_count, sum, min, max, last, last_ts) values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)');
  for (const { id, s } of series) {
    for (let b = now - config.telemetry_minute_retention_days * DAY; b < rawFrom; b += MIN) {
      const v = Math.round(wave(s, b) * 100) / 100;
      ins.run(id, 60, b, 1, 1, v, v, v, v, b);
    }
    for (let b = now - 365 * DAY; b < rawFrom; b += HOUR) {
      const v = wave(s, b);
      ins.run(id, 3600, b, 60, 60, v * 60, v - 0.5, v + 0.5, v, b + HOUR - MIN);
    }
  }
});
older();
const count = (q: string) => (db.prepare(q).get() as { n: number }).n;
const minuteRows = count('select count(*) as n from telemetry_rollups where resolution = 60');
const hourRows = count('select count(*) as n from telemetry_rollups where resolution = 3600');
const fillMs = performance.now() - tFill;

// --- the 42-day chart --------------------------------------------------------------------------
const from = now - 42 * DAY;
const to = now;
const url = (offset: number) => `${server.url}/api/v1/devices/telemetry-rollups/list?resolution=hour&device_id=sensor-0&metric=temperature&from=${new Date(from).toISOString()}&to=${new Date(to).toISOString()}&sort=bucket&order=asc&limit=500&offset=${offset}`;
const headers = { authorization: `Bearer ${token}` };
async function chart(): Promise<number> {
  let buckets = 0;
  for (let offset = 0; ; offset += 500) {
    const res = await fetch(url(offset), { headers });
    if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
    const body = (await res.json()) as { items: unknown[]; total: number };
    buckets += body.items.length;
    if (offset + 500 >= body.total) return buckets;
  }
}
async function onePage(): Promise<void> {
  const res = await fetch(url(0), { headers });
  await res.json();
}
const seriesId = (db.prepare("select id from telemetry_series where tenant_id = 'bench' and device_id = 'sensor-0' and metric = 'temperature'").get() as { id: number }).id;
const rawChart = db.prepare('select bucket, count, value_count, sum, min, max, last, last_ts from telemetry_rollups where series_id = ? and resolution = 3600 and bucket >= ? and bucket < ? order by bucket');
const fromPoints = db.prepare('select (ts / 3600000) * 3600000 as bucket, count(*) as count, count(value) as value_count, sum(value) as sum, min(value) as min, max(value) as max from telemetry_points where series_id = ? and ts >= ? and ts < ? group by 1 order by 1');

// The newest-first page of raw points (what the telemetry block shows first) and the KPI, over
// the 30 days of raw points, beside the page's two statements run raw.
const listPage = async () => { const r = await fetch(`${server.url}/api/v1/devices/telemetry/list`, { headers }); await r.json(); };
const kpi = async () => { const r = await fetch(`${server.url}/api/v1/devices/telemetry/kpi`, { headers }); await r.json(); };
const rawPage = db.prepare("select * from device_telemetry where tenant_id = 'bench' order by ts desc, id desc limit 50");
const rawCount = db.prepare("select count(*) from device_telemetry where tenant_id = 'bench'");
const time = async (fn: () => unknown): Promise<{ p50: number; p95: number }> => {
  for (let i = 0; i < 5; i++) await fn();
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const t = performance.now();
    await fn();
    ms.push(performance.now() - t);
  }
  ms.sort((a, b) => a - b);
  return { p50: ms[Math.floor(RUNS / 2)]!, p95: ms[Math.floor(RUNS * 0.95)]! };
};
const buckets = await chart();
const rawBuckets = (rawChart.all(seriesId, from, to) as unknown[]).length;
const api = await time(chart);
const page = await time(onePage);
const sqlChart = await time(() => rawChart.all(seriesId, from, to));
const pointsChart = await time(() => fromPoints.all(seriesId, from, to));
const listTimes = await time(listPage);
const rawListTimes = await time(() => { rawPage.all(); rawCount.get(); });
const kpiTimes = await time(kpi);
const pointBuckets = (fromPoints.all(seriesId, from, to) as unknown[]).length;
const bytes = (name: string) => (db.prepare('select sum(pgsize) as b from dbstat where name in (select name from sqlite_schema where tbl_name = ?)').get(name) as { b: number }).b;
const sizes = { points: bytes('telemetry_points'), rollups: bytes('telemetry_rollups') };
db.close();
await server.close();
rmSync(dir, { recursive: true, force: true });

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const line = (label: string, value: string) => console.log(`${label.padEnd(86)} ${value}`);
const ms = (r: { p50: number; p95: number }) => `p50 ${r.p50.toFixed(2)} ms, p95 ${r.p95.toFixed(2)} ms`;
console.log(`cabinet telemetry roll-up benchmark (node ${process.version}, ${process.platform}-${process.arch}, loadavg ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
line(`data: ${SENSORS} sensors; raw points (${config.telemetry_retention_days} days, 1/min)`, `${fmt(rawPoints)} (${fmt(sizes.points / rawPoints)} B each)`);
line(`minute roll-ups (${config.telemetry_minute_retention_days} days), hour roll-ups (365 days)`, `${fmt(minuteRows)}, ${fmt(hourRows)} (${fmt(sizes.rollups / (minuteRows + hourRows))} B each); fill ${fmt(fillMs)} ms`);
line(`42-day hourly chart of one sensor through the HTTP API (${buckets} buckets, 3 pages of <= 500)`, ms(api));
line('  one page of 500 buckets through the HTTP API', ms(page));
line(`  baseline: the same ${rawBuckets} buckets by raw SQL (better-sqlite3, prepared)`, ms(sqlChart));
line(`  for scale: hourly aggregates computed from raw points (${pointBuckets} buckets: raw holds ${config.telemetry_retention_days} days)`, ms(pointsChart));
line(`newest-first page of raw points through the HTTP API (50 of ${fmt(rawPoints)}, with the total)`, ms(listTimes));
line('  baseline: the same page and count by raw SQL on the view (better-sqlite3, prepared)', ms(rawListTimes));
line('devices/telemetry/kpi over every raw point (last state of each device)', ms(kpiTimes));
process.exit(0);
