// Benchmark (not a test): what a whole poultry site hands to the box's storage in a day, before
// and after the flash-wear settings, in one run. Run:
// `npx tsx bench/flash-site.ts [houses] [seconds] [requests_per_s] [phases]` (defaults 10 60 2
// before,after; `after` alone skips the baseline).
// Each phase is a fresh server (SQLite file, embedded MQTT broker) with `houses` houses, each
// placed with a flock and polled every 10 s from the simulated house controller (`cabinet
// simulate`'s Modbus TCP server, its own adapter profile), while a tablet asks `requests_per_s`
// API reads a second (the readings list, as the house screen does). `before` runs the server with
// the settings that give the old write path (telemetry_hold_ms 0: roll-ups merged by every
// commit, polled values committed within telemetry_flush_ms; sqlite_page_size 4096;
// sqlite_wal_checkpoint_bytes 4M); `after` with the defaults.
// Measured over `seconds` after a warm-up, between a checkpoint at its start and one at its end
// (so the window pays for copying its own log into the database file): `write_bytes` from
// /proc/self/io, what the kernel sent (or will send) to the block device for the process, as
// bytes per second, a day and per reading; beside the readings' own bytes, the record payload the
// window added to the climate readings' and the telemetry points' tables (dbstat, no indexes; the
// recent tables with theirs, so a settle within the window moves bytes without adding any), and
// where the log's frames went (by table or index). The simulator runs in this process too, but
// writes nothing. Idle line, same run: the same box with its flocks, nothing polled, nobody reading.
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { createTestEnv } from '../test/helpers/server.js';
import { clientAs } from '../test/helpers/client.js';
import { adapterProfile } from '../src/simulate/profile.js';
import { startTcpServer } from '../src/simulate/server.js';
import { shmMount, shmUnmount } from '../src/runtime/shm-mount.js';
import { Simulation } from '../src/simulate/simulation.js';
import { groupCommits as groupCommitCount } from '../src/db/group-commit.js';
import { modelBytes, openWindow, walLine, type FlashWindow } from './lib/flash-window.js';
import { FLASH_BEFORE, WINDOW_WHOLE } from './lib/flash-settings.js';
import { buildHistory, hourClose, type HourClose } from './lib/flash-history.js';
import BetterSqlite3 from 'better-sqlite3';

const HOUSES = Number(process.argv[2] ?? 10);
const SECONDS = Number(process.argv[3] ?? 60);
const REQUESTS_PER_S = Number(process.argv[4] ?? 2);
// Hours of the site's rows made before the window (bench/lib/flash-history.ts): a box's database has history.
const HISTORY_H = Number(process.argv[6] ?? 0);
// A phase is `before` or `after`, optionally with settings of its own: `after+sqlite_page_size=4096`.
const PHASES = (process.argv[5] ?? 'before,after').split(',').map((spec) => {
  const [name, ...sets] = spec.split('+');
  return { name: name === 'before' ? 'before' : 'after', label: spec, settings: Object.fromEntries(sets.map((kv) => kv.split('=') as [string, string])) };
});
// Readings and points waiting to be settled (the *_recent tables) are their own bytes too.
const TABLES = ['poultry_climate_readings', 'poultry_climate_readings_recent', 'telemetry_points', 'telemetry_points_recent'] as const;
const line = (label: string, value: string) => console.log(`${label.padEnd(60)} ${value}`);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const kib = (bytes: number, s: number) => `${((bytes / s) / 1024).toFixed(2)} KiB/s`;
const perDay = (bytes: number, s: number) => (bytes / s) * 86_400;
const mib = (bytes: number) => `${(bytes / 1024 ** 2).toFixed(1)} MiB`;

interface PhaseResult {
  phase: string;
  idle: FlashWindow;
  site: FlashWindow;
  readings: number;
  points: number;
  commits: { group: number; telemetry: number };
  requests: number;
  /** The hour's close (roll-ups written, rows settled), measured apart; none on the old write path. */
  hour: HourClose | undefined;
  historyRows: number;
}

/** Climate readings stored or waiting (the API's total is capped). */
function readingCount(file: string): number {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return Number((db.prepare('select count(*) as n from poultry_climate_readings_all').get() as { n: number }).n);
  } finally {
    db.close();
  }
}

const sim = new Simulation({ houses: HOUSES, age_days: 12, birds: 20_000, speed: 1, seed: 7, noise: 1 });
const simServer = await startTcpServer(sim, '127.0.0.1', 0);

/**
 * `shm=tmpfs` (a phase setting of the benchmark): the product's `cabinet storage shm-mount`
 * (src/runtime/shm-mount.ts, what the unit runs before the service) bind-mounts a tmpfs file at
 * the log index's (`-shm`) path before the server opens the database, and `shm-unmount` takes it
 * away after the phase, so what the kernel writes back of the index leaves the count. Root only.
 */
async function shmOnTmpfs(dataDir: string): Promise<() => Promise<void>> {
  const o = { dataDir, databaseUrl: '', runDir: join('/dev/shm', `cabinet-bench-${process.pid}`) };
  const r = await shmMount(o);
  if (r.outcome !== 'mounted') throw new Error(`shm=tmpfs: ${r.message}`);
  return async () => {
    const u = await shmUnmount({ ...o, waitMs: 10_000 });
    if (u.outcome !== 'unmounted') throw new Error(`shm=tmpfs: ${u.message}`);
    rmSync(o.runDir, { recursive: true, force: true });
  };
}

async function runPhase(phase: (typeof PHASES)[number]): Promise<PhaseResult> {
  const env = await createTestEnv('sqlite');
  const { shm, ...serverSettings } = phase.settings;
  const unmount = shm === 'tmpfs' ? await shmOnTmpfs(env.dataDir) : undefined;
  const settings = { mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', rpc_port: 'off', log_level: 'error', ...(phase.name === 'before' ? FLASH_BEFORE : {}), ...WINDOW_WHOLE, ...serverSettings };
  let server = await env.start(settings);
  let started = Date.now();
  const file = join(env.dataDir, 'cabinet.sqlite');
  const master = await clientAs(env, server);
  let admin = await clientAs(env, server, { subject: 'site-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
  const start = new Date(Date.now() - 12 * 86_400_000).toISOString().slice(0, 10);
  for (let h = 1; h <= HOUSES; h++) {
    const placed = await admin.post('/api/v1/poultry-flock/commands/place', { house_id: `house-${h}`, batch_id: `B${h}`, subtype: 'broiler', start_date: start, birds_placed: 20_000 });
    if (placed.status !== 201) throw new Error(`place house-${h}: ${placed.status} ${JSON.stringify(placed.body)}`);
  }
  await sleep(2000);
  let w = openWindow(file, TABLES);
  await sleep(Math.min(SECONDS, 30) * 1000);
  const idle = w.end();
  const idleSeconds = Math.min(SECONDS, 30);

  for (let h = 1; h <= HOUSES; h++) {
    const created = await admin.post('/api/v1/poultry-adapters', adapterProfile({ house: h, port: simServer.where as number, unit_id: `house-${h}`, poll_period_s: 10 }));
    if (created.status !== 201) throw new Error(`adapter house-${h}: ${created.status} ${JSON.stringify(created.body)}`);
  }
  let historyRows = 0;
  if (HISTORY_H > 0) {
    // Every house polled once (the series, the houses' readings), then the history made while the
    // server is stopped, and the server started again on it.
    await sleep(15_000);
    await server.close();
    const made = await buildHistory(env.dataDir, HISTORY_H, Date.now());
    historyRows = made.rows;
    console.log(`history: ${HISTORY_H} h, ${made.rows} rows in ${(made.ms / 1000).toFixed(1)} s`);
    server = await env.start(settings);
    started = Date.now();
    admin = await clientAs(env, server, { subject: 'site-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tS', site_id: 'farm-s' }, master.contract);
  }
  let requests = 0;
  const tablet = REQUESTS_PER_S > 0 ? setInterval(() => {
    requests++;
    // A read still on its way when the phase's server stops is not an error of the benchmark.
    admin.get('/api/v1/poultry-climate-readings/list?limit=20').catch(() => undefined);
  }, 1000 / REQUESTS_PER_S) : undefined;
  await sleep(12_000); // every house polled at least once, the first series and states created
  // After the storage module's first run (a minute after start, then hourly), whose checkpoint
  // would start the log again within the window.
  // On a database with history that run takes a few seconds more (its give-back, its checkpoint).
  await sleep(Math.max(0, started + (HISTORY_H > 0 ? 100_000 : 63_000) - Date.now()));
  const writer = server.services.telemetry!.writer;
  const c0 = { group: groupCommitCount(server.services.db), telemetry: writer.stats.batches };
  const readings0 = readingCount(file);
  const points0 = writer.stats.received;
  requests = 0;
  w = openWindow(file, TABLES);
  await sleep(SECONDS * 1000);
  // A window of whole minutes holds as many of the minute's commits wherever it starts; the open
  // roll-ups are not flushed at its end (a running box writes them when their hour closes, which
  // the hour's close below measures).
  const site = w.end();
  const readings = readingCount(file) - readings0;
  const points = writer.stats.received - points0;
  const commits = { group: groupCommitCount(server.services.db) - c0.group, telemetry: writer.stats.batches - c0.telemetry };
  clearInterval(tablet);
  await server.close();
  // The old write path settles nothing and writes its roll-ups with every commit: no hour's close.
  const hour = phase.name === 'before' ? undefined : await hourClose(env.dataDir, (Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000, TABLES);
  await unmount?.();
  await env.cleanup();
  return { phase: phase.label, idle: { ...idle, disk: (idle.disk / idleSeconds) * SECONDS, all: (idle.all / idleSeconds) * SECONDS }, site, readings, points, commits, requests, hour, historyRows };
}

const results: PhaseResult[] = [];
for (const p of PHASES) results.push(await runPhase(p));
await simServer.close();

line('site', `${HOUSES} houses polled every 10 s, a tablet at ${REQUESTS_PER_S} reads/s, ${SECONDS} s a phase, ${HISTORY_H} h of history`);
const dayOf = (r: PhaseResult) => perDay(r.site.disk, SECONDS) + (r.hour ? 24 * r.hour.w.disk : 0);
const ownDayOf = (r: PhaseResult) => perDay(r.site.own, SECONDS);
// The same on a kernel writing back 4 KiB page-cache pages: the log's frames and the checkpoint's distinct 4 KiB blocks.
const modelDayOf = (r: PhaseResult) => perDay(modelBytes(r.site.wal), SECONDS) + (r.hour ? 24 * modelBytes(r.hour.w.wal) : 0);
for (const r of results) {
  const n = r.readings + r.points;
  console.log(`-- ${r.phase}`);
  line('A DAY (the window a day, plus 24 hours\' closes)', `${mib(dayOf(r))} written; readings' own bytes ${mib(ownDayOf(r))}; ${(dayOf(r) / Math.max(1, ownDayOf(r))).toFixed(1)}x`);
  line('A DAY, the log\'s frames and the checkpoint\'s 4 KiB blocks (model)', `${mib(modelDayOf(r))}; ${(modelDayOf(r) / Math.max(1, ownDayOf(r))).toFixed(1)}x`);
  line('a day, per reading (climate reading or telemetry point)', `${(dayOf(r) / Math.max(1, (n / SECONDS) * 86_400)).toFixed(0)} B written, ${(r.site.own / Math.max(1, n)).toFixed(0)} B own`);
  if (r.hour) {
    line('the hour\'s close (roll-ups written, rows settled), an hour', `${mib(r.hour.w.disk)} written (${mib(r.hour.w.checkpointDisk)} its end checkpoint; model ${mib(modelBytes(r.hour.w.wal))}), ${r.hour.rows} rows, ${mib(r.hour.own)} own bytes; ${mib(24 * r.hour.w.disk)} a day`);
    line('the hour\'s close: log frames by table/index', walLine(r.hour.w.wal, 10));
  }
  line('climate readings; telemetry points; tablet reads', `${r.readings}; ${r.points}; ${r.requests}`);
  line('readings group commits; telemetry commits', `${r.commits.group}; ${r.commits.telemetry}`);
  line('to storage (write_bytes), a checkpoint at each end', `${kib(r.site.disk, SECONDS)}, ${mib(perDay(r.site.disk, SECONDS))} a day`);
  line('of which the end checkpoint (the window\'s pages into the file)', `${kib(r.site.checkpointDisk, SECONDS)}`);
  const logBytes = r.site.wal ? r.site.wal.frames * (r.site.wal.pageSize + 24) : 0;
  line('of which the log\'s frames (page + 24 B header each)', `${kib(logBytes, SECONDS)}`);
  line('of which the rest (the log index -shm, partly written pages)', `${kib(r.site.disk - r.site.checkpointDisk - logBytes, SECONDS)}`);
  line('readings\' own bytes (record payload, no index)', `${kib(r.site.own, SECONDS)}, ${mib(perDay(r.site.own, SECONDS))} a day`);
  line('written / own bytes', `${(r.site.disk / Math.max(1, r.site.own)).toFixed(1)}x`);
  line('per reading (climate reading or telemetry point)', `${(r.site.disk / Math.max(1, n)).toFixed(0)} B written, ${(r.site.own / Math.max(1, n)).toFixed(0)} B own`);
  line('every write(2), sockets included (wchar)', `${kib(r.site.all, SECONDS)}`);
  line('log frames by table/index', walLine(r.site.wal, 24));
  line('idle box (flocks placed, nothing polled), same phase', `${kib(r.idle.disk, SECONDS)} to storage`);
}
const [b, a] = [results.find((r) => r.phase === 'before'), results.find((r) => r.phase === 'after')];
if (b && a) line('after / before, bytes to storage a day', `${(dayOf(a) / dayOf(b)).toFixed(3)}x (${mib(dayOf(a))} against ${mib(dayOf(b))}; model ${mib(modelDayOf(a))} against ${mib(modelDayOf(b))})`);
process.exit(0);
