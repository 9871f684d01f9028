// Benchmark (not a test): bytes the box hands to its storage per telemetry point, at a site's
// steady rate. Run: `npx tsx bench/flash-writes.ts [series] [period_s] [seconds] [telemetry_flush_ms] [requests_per_s]`
// (defaults 100 10 60, the server's default flush, 2: a tablet on a screen that refreshes). A box's eMMC lives by its bytes written; a
// point that costs a few pages of WAL and checkpoint is thousands of times its own size.
//
// The real server (SQLite file in a temp dir, embedded MQTT broker) ingests `series` series, each
// publishing one point every `period_s` seconds over MQTT (QoS 1, one point a message, spread
// evenly), for `seconds`, while an HTTP client asks `requests_per_s` API reads a second (each
// allowed request is an entry of the security log). Measured from /proc/self/io over that window: `wchar` (bytes passed to
// write(2) by every thread of the process: the WAL, the checkpoints into the database file, the
// log), beside `write_bytes` (what the kernel sent to the block device on the process's behalf,
// where the file system reports it). Baseline, same run, same machine, measured after the server's
// window with the server idle: better-sqlite3 alone writing the same points (same columns, the same
// (series, time) index, WAL, synchronous NORMAL, a checkpoint each 1000 pages), one transaction per
// flush interval, without roll-ups.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import mqtt from 'mqtt';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
import { procIo as io } from './lib/proc-io.js';

const [seriesArg, periodArg, secondsArg, flushArg] = process.argv.slice(2);
const SERIES = Number(seriesArg ?? 100);
const PERIOD_S = Number(periodArg ?? 10);
const SECONDS = Number(secondsArg ?? 60);
const REQUESTS_PER_S = Number(process.argv[6] ?? 2);
const line = (label: string, value: string) => console.log(`${label.padEnd(62)} ${value}`);

const dir = mkdtempSync(join(tmpdir(), 'cabinet-flash-'));
const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: join(dir, 'box'), mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', log_level: 'error', https_port: 'off', rpc_port: 'off', ...(flushArg ? { telemetry_flush_ms: flushArg } : {}) }, {});
const server = await startServer(config, { log: createLogger('error') });
const { services } = server;
const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${services.mqtt!.port}`, { username: 'flash-bench', password: token, reconnectPeriod: 0 });
const writer = services.telemetry!.writer;

// Warm: every series exists (its first point creates it), then the window starts on a quiet box.
await Promise.all(Array.from({ length: SERIES }, (_, s) => client.publishAsync(`cabinet/bench/site-1/telemetry/dev-${s}`, JSON.stringify({ metric: 'temperature', value: 20 }), { qos: 1 })));
await writer.flush();
await new Promise((resolve) => setTimeout(resolve, 1500));

const gapMs = (PERIOD_S * 1000) / SERIES;
const total = Math.floor((SECONDS * 1000) / gapMs);
const before = io();
const written0 = writer.stats.written;
const batches0 = writer.stats.batches;
const t0 = performance.now();
const sends: Promise<unknown>[] = [];
let requests = 0;
const tablet = REQUESTS_PER_S > 0 ? setInterval(() => {
  requests++;
  void fetch(`${server.url}/api/v1/devices/telemetry/kpi`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
}, 1000 / REQUESTS_PER_S) : undefined;
for (let i = 0; i < total; i++) {
  const due = t0 + i * gapMs;
  const wait = due - performance.now();
  if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
  sends.push(client.publishAsync(`cabinet/bench/site-1/telemetry/dev-${i % SERIES}`, JSON.stringify({ metric: 'temperature', value: 20 + (i % 100) / 10 }), { qos: 1 }));
}
await Promise.all(sends);
clearInterval(tablet);
await writer.flush();
// The checkpoints that the window's log calls for run within a second (src/db/wal-checkpoint.ts).
await new Promise((resolve) => setTimeout(resolve, 1500));
const after = io();
const points = writer.stats.written - written0;
const commits = writer.stats.batches - batches0;
const windowS = (performance.now() - t0) / 1000;
await client.endAsync();
await server.close();

// Baseline: the same points by better-sqlite3 alone, one transaction per flush interval.
const flushMs = config.telemetry_flush_ms;
const raw = new BetterSqlite3(join(dir, 'raw.sqlite'));
raw.pragma('journal_mode = WAL');
raw.pragma('synchronous = NORMAL');
raw.exec('create table points (id integer primary key, series_id integer not null, ts integer not null, value real not null, status integer not null, latency_ms integer, received_at integer not null)');
raw.exec('create index points_series_ts on points (series_id, ts)');
const insert = raw.prepare('insert into points (series_id, ts, value, status, latency_ms, received_at) values (?, ?, ?, 0, 0, ?)');
const perCommit = Math.max(1, Math.round(flushMs / gapMs));
const rawBefore = io();
const start = Date.now();
for (let i = 0; i < points; ) {
  raw.exec('begin');
  for (let k = 0; k < perCommit && i < points; k++, i++) insert.run((i % SERIES) + 1, start + i * gapMs, 20, start + i * gapMs);
  raw.exec('commit');
}
raw.pragma('wal_checkpoint(PASSIVE)');
const rawAfter = io();
raw.close();
rmSync(dir, { recursive: true, force: true });

const perPoint = (bytes: number) => `${(bytes / points / 1024).toFixed(1)} KiB`;
const perDay = (bytes: number) => `${((bytes / windowS) * 86_400 / 1024 ** 3).toFixed(2)} GiB/day`;
const wchar = after.wchar - before.wchar;
const rawWchar = rawAfter.wchar - rawBefore.wchar;
line('site', `${SERIES} series, a point every ${PERIOD_S} s each (${(SERIES / PERIOD_S).toFixed(1)} points/s), ${windowS.toFixed(0)} s`);
line('telemetry_flush_ms', String(flushMs));
line('API reads during the window (security log entries)', `${requests} (${REQUESTS_PER_S}/s)`);
line('points stored, commits', `${points}, ${commits} (${(points / Math.max(1, commits)).toFixed(1)} points a commit)`);
line('box: bytes written (wchar) per point, per day at this rate', `${perPoint(wchar)}, ${perDay(wchar)}`);
line('box: bytes to the block device (write_bytes) per point', Number.isFinite(after.writeBytes) ? perPoint(after.writeBytes - before.writeBytes) : 'not reported');
line(`baseline: raw INSERT, ${perCommit} points a commit, no roll-ups (wchar)`, `${perPoint(rawWchar)}, ${perDay(rawWchar)} at the same rate`);
line('ratio box / baseline', `${(wchar / rawWchar).toFixed(2)}x`);
process.exit(0);
