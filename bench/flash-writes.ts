// Benchmark (not a test): bytes the box hands to its storage per telemetry point at a site's
// steady MQTT rate, before and after the flash-wear settings, in one run. Run:
// `npx tsx bench/flash-writes.ts [series] [period_s] [seconds] [requests_per_s] [phases]`
// (defaults 100 10 60 2 before,after; a phase may carry settings of its own:
// `after+sqlite_page_size=4096`). A box's eMMC lives by its bytes written; a point that costs a few
// pages of WAL and checkpoint is hundreds of times its own size.
//
// Each phase is a fresh server (SQLite file in a temp dir, embedded MQTT broker) that ingests
// `series` series, each publishing one point every `period_s` seconds over MQTT (QoS 1, one point
// a message, spread evenly), for `seconds`, while an HTTP client asks `requests_per_s` API reads a
// second (the device KPI; each allowed request is an entry of the security log). `before` runs the
// server with the settings of the old write path (bench/lib/flash-settings.ts), `after` with the
// defaults. MQTT points are acknowledged once stored, so they are committed within
// telemetry_flush_ms in both phases; what changes for them is the roll-ups (written once, when
// their minute or hour closes), the page size and the checkpoint.
// Measured between a checkpoint at the window's start and one at its end (bench/lib/flash-window.ts):
// `write_bytes` from /proc/self/io, per point and a day; the points' own bytes (the record payload
// the window added to telemetry_points, no index); where the log's frames went.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
import { openWindow, walLine, type FlashWindow } from './lib/flash-window.js';
import { FLASH_BEFORE, WINDOW_WHOLE } from './lib/flash-settings.js';

const [seriesArg, periodArg, secondsArg, requestsArg, phasesArg] = process.argv.slice(2);
const SERIES = Number(seriesArg ?? 100);
const PERIOD_S = Number(periodArg ?? 10);
const SECONDS = Number(secondsArg ?? 60);
const REQUESTS_PER_S = Number(requestsArg ?? 2);
const PHASES = (phasesArg ?? 'before,after').split(',').map((spec) => {
  const [name, ...sets] = spec.split('+');
  return { label: spec, settings: { ...(name === 'before' ? FLASH_BEFORE : {}), ...Object.fromEntries(sets.map((kv) => kv.split('=') as [string, string])) } };
});
const line = (label: string, value: string) => console.log(`${label.padEnd(62)} ${value}`);
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

interface PhaseResult { label: string; w: FlashWindow; points: number; commits: number; windowS: number; requests: number; flushMs: number }

async function runPhase(phase: (typeof PHASES)[number]): Promise<PhaseResult> {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-flash-'));
  const config = loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: join(dir, 'box'), mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', log_level: 'error', https_port: 'off', mqtt_tls_port: 'off', rpc_port: 'off', ...phase.settings, ...WINDOW_WHOLE }, {});
  const server = await startServer(config, { log: createLogger('error') });
  const file = join(config.data_dir, 'cabinet.sqlite');
  const { services } = server;
  const token = (await services.sessions.issue({ subject: 'bench', role: 'operator', scope_type: 'tenant', tenant_id: 'bench' })).token;
  const client = await mqtt.connectAsync(`mqtt://127.0.0.1:${services.mqtt!.port}`, { username: 'flash-bench', password: token, reconnectPeriod: 0 });
  const writer = services.telemetry!.writer;

  const started = Date.now();
  // Warm: every series exists (its first point creates it), then the window starts on a quiet box.
  await Promise.all(Array.from({ length: SERIES }, (_, s) => client.publishAsync(`cabinet/bench/site-1/telemetry/dev-${s}`, JSON.stringify({ metric: 'temperature', value: 20 }), { qos: 1 })));
  await writer.flush();
  // After the storage module's first run (a minute after start, then hourly), whose checkpoint
  // would start the log again within the window.
  await new Promise((resolve) => setTimeout(resolve, Math.max(1500, started + 63_000 - Date.now())));

  const gapMs = (PERIOD_S * 1000) / SERIES;
  const total = Math.floor((SECONDS * 1000) / gapMs);
  // Points waiting to be settled (telemetry_points_recent) are the points' own bytes too.
  const w = openWindow(file, ['telemetry_points', 'telemetry_points_recent']);
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
  // The window's points and its roll-ups are stored before it closes (the open ones too: a window
  // shorter than an hour would otherwise leave the hour's row out of its bytes).
  await writer.flush();
  const result = w.end();
  const windowS = (performance.now() - t0) / 1000;
  const points = writer.stats.written - written0;
  const commits = writer.stats.batches - batches0;
  await client.endAsync();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
  return { label: phase.label, w: result, points, commits, windowS, requests, flushMs: config.telemetry_flush_ms };
}

const results: PhaseResult[] = [];
for (const p of PHASES) results.push(await runPhase(p));

line('site', `${SERIES} series, a point every ${PERIOD_S} s each (${(SERIES / PERIOD_S).toFixed(1)} points/s) over MQTT, a tablet at ${REQUESTS_PER_S} reads/s, ${SECONDS} s a phase`);
for (const r of results) {
  const day = (bytes: number) => (bytes / r.windowS) * 86_400;
  console.log(`-- ${r.label}`);
  line('points stored, commits', `${r.points}, ${r.commits} (${(r.points / Math.max(1, r.commits)).toFixed(1)} points a commit; telemetry_flush_ms ${r.flushMs})`);
  line('API reads during the window (security log entries)', String(r.requests));
  line('to storage (write_bytes): per point, a day', `${(r.w.disk / r.points / 1024).toFixed(2)} KiB, ${mib(day(r.w.disk))}`);
  line('of which the end checkpoint (the window\'s pages into the file)', mib(day(r.w.checkpointDisk)) + ' a day');
  line('the points\' own bytes (record payload, no index): per point, a day', `${(r.w.own / r.points).toFixed(0)} B, ${mib(day(r.w.own))}`);
  line('written / own bytes', `${(r.w.disk / Math.max(1, r.w.own)).toFixed(1)}x`);
  line('log frames by table/index', walLine(r.w.wal, 8));
}
const [b, a] = [results.find((r) => r.label === 'before'), results.find((r) => r.label === 'after')];
if (b && a) line('after / before, bytes to storage per point', `${((a.w.disk / a.points) / (b.w.disk / b.points)).toFixed(3)}x`);
process.exit(0);
