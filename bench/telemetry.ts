// Benchmark (not a test): run with `npx tsx bench/telemetry.ts [points] [points_per_message,...] [--inline]`.
// 1. Telemetry points/s published by mqtt.js clients (QoS 1, in a child process unless --inline:
//    bench/telemetry-publisher.mjs) into the embedded broker and stored
//    in SQLite by the batch writer (points and their minute/hour roll-ups), once per message size
//    (default 1 and 10 points per message), beside raw better-sqlite3 batched inserts of the same
//    rows into a fresh file with the same schema and pragmas, in the same run (points alone, and
//    points with the same roll-up upserts).
// 2. Database bytes per point (SQLite dbstat: table and index pages) of the time-series layout
//    beside the previous layout (drizzle/sqlite/devices/0000_init.sql) holding the same rows.
// 3. Status-event fan-out latency to 200 WebSocket clients (store + bus + WebSocket send),
//    measured from just before publish() to each client's 'message' (same process, same clock).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import BetterSqlite3 from 'better-sqlite3';
import mqtt from 'mqtt';
import WebSocket from 'ws';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
import { rollup, rollupConflictClause, ROLLUP_COLUMNS } from '../src/modules/devices/rollups.js';
import { timeId } from '../src/kernel/ids.js';

const args = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const INLINE = process.argv.includes('--inline');
const TOTAL = Number(args[0] ?? 100_000);
const MODES = (args[1] ?? '1,10').split(',').map(Number);
const PUBLISHERS = 4;
const DEVICES = 500;
const WS_CLIENTS = 200;
const FANOUT_EVENTS = 50;

const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-'));
const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', log_level: 'error' }, {});
const server = await startServer(config, { log: createLogger('error') });
const { services } = server;
const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const url = `mqtt://127.0.0.1:${services.mqtt!.port}`;
const writer = services.telemetry!.writer;

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const line = (label: string, value: string) => console.log(`${label.padEnd(72)} ${value}`);
const rate = (points: number, ms: number) => points / (ms / 1000);
const value = (i: number) => 20 + (i % 100) / 10;

// --- 1a. MQTT -> batch writer -> SQLite, per message size ------------------------------------
// The publishers run in a child process (devices are not in the box's process); with --inline
// they run in this one, as earlier versions of this benchmark did.
interface MqttRun { perMessage: number; points: number; ms: number; batches: number }
async function mqttRun(perMessage: number): Promise<MqttRun> {
  const messages = Math.ceil(TOTAL / perMessage);
  const child = fork(fileURLToPath(new URL('./telemetry-publisher.mjs', import.meta.url)), [url, token, String(PUBLISHERS), String(messages), String(perMessage)], { execArgv: [] });
  const next = () => new Promise<void>((resolve, reject) => { child.once('message', () => resolve()); child.once('error', reject); });
  await next(); // connected
  const before = writer.stats.written;
  const batchesBefore = writer.stats.batches;
  const t0 = performance.now();
  const done = next();
  child.send('go');
  await done;
  const expected = before + messages * perMessage;
  while (writer.stats.written < expected) await new Promise((r) => setTimeout(r, 5));
  const ms = performance.now() - t0;
  child.kill();
  return { perMessage, points: messages * perMessage, ms, batches: writer.stats.batches - batchesBefore };
}
async function mqttRunInline(perMessage: number): Promise<MqttRun> {
  const payload = (i: number) => {
    const pts = Array.from({ length: perMessage }, (_, k) => ({ metric: 'temperature', value: value(i + k), latency_ms: (i + k) % 50 }));
    return JSON.stringify(perMessage === 1 ? pts[0] : pts);
  };
  const clients = await Promise.all(Array.from({ length: PUBLISHERS }, (_, p) => mqtt.connectAsync(url, { username: `dev-${p}`, password: token, reconnectPeriod: 0 })));
  const messages = Math.ceil(TOTAL / perMessage);
  const before = writer.stats.written;
  const batchesBefore = writer.stats.batches;
  const t0 = performance.now();
  await Promise.all(clients.map(async (c, p) => {
    const sends: Promise<unknown>[] = [];
    for (let i = p; i < messages; i += PUBLISHERS) {
      sends.push(c.publishAsync(`cabinet/bench/site-1/telemetry/dev-${i % DEVICES}`, payload(i), { qos: 1 }));
      if (sends.length >= 1000) await Promise.all(sends.splice(0));
    }
    await Promise.all(sends);
  }));
  const expected = before + messages * perMessage;
  while (writer.stats.written < expected) await new Promise((r) => setTimeout(r, 5));
  const ms = performance.now() - t0;
  await Promise.all(clients.map((c) => c.endAsync()));
  return { perMessage, points: messages * perMessage, ms, batches: writer.stats.batches - batchesBefore };
}
const runs: MqttRun[] = [];
for (const m of MODES) runs.push(await (INLINE ? mqttRunInline(m) : mqttRun(m)));
const stored = runs.reduce((n, r) => n + r.points, 0);

// --- 1b. raw better-sqlite3, same rows, same schema, batched ---------------------------------
const freshFile = (name: string, migrations: string[]) => {
  const db = new BetterSqlite3(join(dir, name));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  for (const file of migrations) for (const stmt of readFileSync(`drizzle/sqlite/devices/${file}`, 'utf8').split('--> statement-breakpoint')) if (stmt.trim()) db.exec(stmt);
  return db;
};
const BATCH = config.telemetry_batch_max;
const N = TOTAL;
const nowMs = Date.now();
const place = (rows: number, cols: number) => Array.from({ length: rows }, () => `(${Array.from({ length: cols }, () => '?').join(',')})`).join(',');

function rawTimeSeries(withRollups: boolean) {
  const db = freshFile(withRollups ? 'raw-rollups.sqlite' : 'raw-points.sqlite', ['0000_init.sql', '0001_timeseries.sql']);
  const addSeries = db.prepare("insert into telemetry_series (tenant_id, site_id, device_id, metric, unit) values ('bench', 'site-1', ?, 'temperature', '')");
  for (let d = 0; d < DEVICES; d++) addSeries.run(`dev-${d}`);
  const PER = 128;
  const cols = 6;
  const full = db.prepare(`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at) values ${place(PER, cols)}`);
  const one = db.prepare(`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at) values ${place(1, cols)}`);
  const rollFull = db.prepare(`insert into telemetry_rollups (${ROLLUP_COLUMNS.map((c) => `"${c}"`).join(',')}) values ${place(1, ROLLUP_COLUMNS.length)} ${rollupConflictClause('sqlite')}`);
  const flat = new Array<number>(N * cols);
  for (let i = 0; i < N; i++) {
    const o = i * cols;
    flat[o] = (i % DEVICES) + 1; flat[o + 1] = nowMs; flat[o + 2] = value(i); flat[o + 3] = 0; flat[o + 4] = i % 50; flat[o + 5] = nowMs;
  }
  const write = db.transaction((from: number, to: number) => {
    let i = from;
    for (; i + PER <= to; i += PER) full.run(...flat.slice(i * cols, (i + PER) * cols));
    for (; i < to; i++) one.run(...flat.slice(i * cols, (i + 1) * cols));
    if (withRollups) {
      const inputs = [];
      for (let i = from; i < to; i++) inputs.push({ series_id: (i % DEVICES) + 1, ts: nowMs, value: value(i) });
      for (const g of rollup(inputs)) rollFull.run(...ROLLUP_COLUMNS.map((c) => g[c]));
    }
  });
  const t = performance.now();
  for (let i = 0; i < N; i += BATCH) write(i, Math.min(N, i + BATCH));
  const ms = performance.now() - t;
  return { db, ms };
}
const rawPoints = rawTimeSeries(false);
const rawRollups = rawTimeSeries(true);

// The previous layout, same rows (text ids and timestamps, three indexes), as 0000_init.sql made it.
const oldDb = freshFile('raw-old.sqlite', ['0000_init.sql']);
const oldCols = 11;
const oldPer = Math.floor(30_000 / oldCols);
const oldInsert = (n: number) => oldDb.prepare(`insert into device_telemetry (id, tenant_id, site_id, device_id, metric, value, unit, status, latency_ms, ts, received_at) values ${place(n, oldCols)}`);
const oldFull = oldInsert(oldPer);
const nowIso = new Date(nowMs).toISOString();
// Time-ordered ids, as that layout's writer made them (timeId), so its primary key grew at the end.
const oldRows = Array.from({ length: N }, (_, i) => [timeId(nowMs), 'bench', 'site-1', `dev-${i % DEVICES}`, 'temperature', value(i), null, 'online', i % 50, nowIso, nowIso]);
const oldWrite = oldDb.transaction((batch: unknown[][]) => {
  for (let i = 0; i < batch.length; i += oldPer) {
    const chunk = batch.slice(i, i + oldPer);
    (chunk.length === oldPer ? oldFull : oldInsert(chunk.length)).run(...chunk.flat());
  }
});
const tOld = performance.now();
for (let i = 0; i < N; i += BATCH) oldWrite(oldRows.slice(i, i + BATCH));
const oldMs = performance.now() - tOld;

// --- 2. bytes per point (dbstat: every page of the named tables and their indexes) ------------
const bytes = (db: BetterSqlite3.Database, tables: string[]) => {
  const marks = tables.map(() => '?').join(',');
  const row = db.prepare(`select sum(pgsize) as b from dbstat where name in (select name from sqlite_schema where tbl_name in (${marks}))`).get(...tables) as { b: number };
  return row.b;
};
const appDb = new BetterSqlite3(join(dir, 'cabinet.sqlite'), { readonly: true });
const appPoints = (appDb.prepare('select count(*) as n from telemetry_points').get() as { n: number }).n;
const appRaw = bytes(appDb, ['telemetry_points', 'telemetry_series']) / appPoints;
const appRoll = bytes(appDb, ['telemetry_rollups']);
const oldPerPoint = bytes(oldDb, ['device_telemetry']) / N;
const rawPerPoint = bytes(rawPoints.db, ['telemetry_points', 'telemetry_series']) / N;
appDb.close();
rawPoints.db.close();
rawRollups.db.close();
oldDb.close();

// --- 3. status fan-out to 200 WebSocket clients -------------------------------------------------
const wsToken = (await services.sessions.issue({ subject: 'bench-ws', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const sent = new Map<number, number>();
const latencies: number[] = [];
let received = 0;
const sockets = await Promise.all(Array.from({ length: WS_CLIENTS }, () => new Promise<WebSocket>((resolve, reject) => {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/v1/status/stream?access_token=${wsToken}`);
  ws.on('message', (data) => {
    const msg = JSON.parse(String(data)) as { type: string; data?: { id: number } };
    if (msg.type === 'ready') resolve(ws);
    if (msg.type === 'event') {
      const at = sent.get(msg.data!.id);
      if (at !== undefined) latencies.push(performance.now() - at);
      received++;
    }
  });
  ws.on('error', reject);
})));
for (let i = 0; i < FANOUT_EVENTS; i++) {
  const start = performance.now();
  const target = received + WS_CLIENTS;
  const ev = await services.status!.publish({ tenant_id: 'bench', site_id: 'site-1', source: 'bench', event: `e${i}`, status: 'ok' });
  sent.set(ev.id, start);
  while (received < target) await new Promise((r) => setImmediate(r));
}
for (const ws of sockets) ws.close();
latencies.sort((a, b) => a - b);
const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor((p / 100) * latencies.length))] ?? NaN;

await server.close();
rmSync(dir, { recursive: true, force: true });

console.log(`cabinet telemetry benchmark (node ${process.version}, ${process.platform}-${process.arch}, loadavg ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})`);
for (const r of runs) {
  line(`MQTT -> batch writer -> SQLite + roll-ups (${fmt(r.points)} points, ${r.perMessage}/message, ${PUBLISHERS} clients${INLINE ? ' in-process' : ''}, QoS 1)`, `${fmt(rate(r.points, r.ms))} points/s  (${fmt(r.ms)} ms, ${r.batches} transactions)`);
}
line(`raw better-sqlite3, same rows, points only (${BATCH}/transaction, ${fmt(N)} points)`, `${fmt(rate(N, rawPoints.ms))} points/s  (${fmt(rawPoints.ms)} ms)`);
line('raw better-sqlite3, same rows, points + minute/hour roll-up upserts', `${fmt(rate(N, rawRollups.ms))} points/s  (${fmt(rawRollups.ms)} ms)`);
line('raw better-sqlite3, same rows, previous layout (text, 3 indexes)', `${fmt(rate(N, oldMs))} points/s  (${fmt(oldMs)} ms)`);
for (const r of runs) line(`MQTT ${r.perMessage}/message vs raw points + roll-ups`, `${(rate(N, rawRollups.ms) / rate(r.points, r.ms)).toFixed(2)}x slower`);
line(`database bytes per point, time-series layout (app, ${fmt(appPoints)} points, table + indexes + series)`, `${appRaw.toFixed(1)} B  (+ roll-ups ${fmt(appRoll)} B in all)`);
line('database bytes per point, time-series layout (raw inserts, same rows)', `${rawPerPoint.toFixed(1)} B`);
line('database bytes per point, previous layout (same rows, table + 3 indexes)', `${oldPerPoint.toFixed(1)} B`);
line(`status fan-out to ${WS_CLIENTS} WebSocket clients (${FANOUT_EVENTS} events, ${latencies.length} deliveries)`, `p50 ${pct(50).toFixed(2)} ms, p95 ${pct(95).toFixed(2)} ms, max ${pct(100).toFixed(2)} ms`);
if (stored !== appPoints) console.log(`note: ${fmt(stored)} points published, ${fmt(appPoints)} stored`);
process.exit(0);
