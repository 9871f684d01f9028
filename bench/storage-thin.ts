// Benchmark (not a test): `npx tsx bench/storage-thin.ts [series] [days]` (defaults 100 40).
// Thinning throughput of the storage budget beside a raw DELETE of the same rows, same run.
// 1. The real server (SQLite) stores `series` x `days` of a point every 5 minutes through the
//    telemetry writer (points with their minute and hour roll-ups), then stops.
// 2. Two copies of that file:
//    a. baseline: better-sqlite3 alone, one `DELETE FROM telemetry_points WHERE ts < ?` (what a
//       purge costs at its fastest, holding the writer and the event loop for its whole length);
//    b. the storage budget's delete of the same rows (the raw-readings target's purge, as a
//       thinning run calls it: slices of THIN_CHUNK rows, a yield between), on the server started
//       on the copy, with a client calling auth/me all along; then the incremental vacuum that
//       gives the room back. The event loop's delay during the delete is printed with it.
import { copyFileSync, mkdtempSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import BetterSqlite3 from 'better-sqlite3';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
import { setClock } from '../src/kernel/clock.js';
import type { TelemetryPoint } from '../src/realtime/bus.js';
import { THIN_CHUNK } from '../src/modules/storage/budget.js';
import { TARGETS } from '../src/modules/storage/targets.js';
import { giveBack } from '../src/modules/storage/space.js';

const SERIES = Number(process.argv[2] ?? 100);
const DAYS = Number(process.argv[3] ?? 40);
const STEP = 5 * 60_000;
const DAY = 86_400_000;
const START = Date.parse('2026-01-01T00:00:00.000Z');
const END = START + DAYS * DAY;

const root = mkdtempSync(join(tmpdir(), 'cabinet-bench-thin-'));
const dirOf = (name: string) => { const d = join(root, name); mkdirSync(d); return d; };
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');
const line = (label: string, value: string) => console.log(`${label.padEnd(64)} ${value}`);
const config = (dir: string, extra: Record<string, string> = {}) =>
  loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, mqtt_broker: 'off', rpc_port: 'off', log_level: 'error', storage_budget_bytes: '1T', telemetry_retention_days: '3650', telemetry_minute_retention_days: '3650', ...extra }, {});

// 1. Build.
const src = dirOf('src');
let wall = START;
let mono = 0;
setClock({ wall: () => wall, mono: () => mono });
{
  const server = await startServer(config(src), { log: createLogger('error') });
  for (let d = 0; d < DAYS; d++) {
    const points: TelemetryPoint[] = [];
    for (let ts = START + d * DAY; ts < START + (d + 1) * DAY; ts += STEP) {
      const iso = new Date(ts).toISOString();
      for (let s = 0; s < SERIES; s++) points.push({ tenant_id: 'bench', site_id: 'farm', device_id: `dev-${s}`, metric: 'temperature', unit: 'C', value: 20 + (ts % 13), status: 'online', latency_ms: 3, ts: iso, received_at: iso });
    }
    await server.services.telemetry!.ingest(points);
  }
  await server.close();
}
const file = join(src, 'cabinet.sqlite');
const points = SERIES * DAYS * (DAY / STEP);
line(`database: ${SERIES} series x ${DAYS} days, a point every 5 min`, `${fmt(points)} points, ${(statSync(file).size / 2 ** 20).toFixed(1)} MiB`);

// The cutoffs the thinning reaches: raw readings to 2 days (their floor).
const rawCut = END - 2 * DAY;

// 2a. Baseline: one DELETE per table on a copy, better-sqlite3 alone.
const base = dirOf('base');
copyFileSync(file, join(base, 'cabinet.sqlite'));
{
  const db = new BetterSqlite3(join(base, 'cabinet.sqlite'));
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  const t0 = performance.now();
  const raw = db.prepare('delete from telemetry_points where ts < ?').run(rawCut).changes;
  const ms = performance.now() - t0;
  line('baseline: one DELETE of raw points (blocks for all of it)', `${fmt(raw)} rows in ${fmt(ms)} ms = ${fmt(raw / (ms / 1000))} rows/s`);
  db.close();
}

// 2b. The storage budget on another copy, under the injected clock at the end of the data.
const thin = dirOf('thin');
copyFileSync(file, join(thin, 'cabinet.sqlite'));
wall = END;
mono += 1_000;
{
  const server = await startServer(config(thin), { log: createLogger('error') });
  const { db } = server.services;
  await server.services.storage!.settled();
  const loop = monitorEventLoopDelay({ resolution: 1 });
  // Requests of a client during the thinning: how long auth/me waits.
  const token = (await server.services.sessions.issue({ subject: 'bench', role: 'admin', scope_type: 'master' })).token;
  const waits: number[] = [];
  let done = false;
  const client = (async () => {
    while (!done) {
      const t = performance.now();
      await fetch(`${server.url}/api/v1/auth/me`, { headers: { authorization: `Bearer ${token}` } }).then((r) => r.arrayBuffer());
      waits.push(performance.now() - t);
    }
  })();
  loop.enable();
  const t0 = performance.now();
  const raw = await TARGETS[0]!.purge(db, rawCut, THIN_CHUNK);
  const ms = performance.now() - t0;
  loop.disable();
  done = true;
  await client;
  waits.sort((a, b) => a - b);
  line(`storage budget: the same DELETE in slices of ${THIN_CHUNK} rows with yields`, `${fmt(raw)} rows in ${fmt(ms)} ms = ${fmt(raw / (ms / 1000))} rows/s`);
  line('  event loop delay during it: p99 / max', `${(loop.percentile(99) / 1e6).toFixed(1)} ms / ${(loop.max / 1e6).toFixed(1)} ms`);
  line('  auth/me answered during it: count, p50 / p99', `${waits.length}, ${waits[Math.floor(waits.length / 2)]?.toFixed(1)} ms / ${waits[Math.floor(waits.length * 0.99)]?.toFixed(1)} ms`);
  const sizeBefore = statSync(join(thin, 'cabinet.sqlite')).size;
  const v0 = performance.now();
  const returned = await giveBack(db);
  line('  incremental vacuum (256-page steps) and checkpoint', `${(returned / 2 ** 20).toFixed(1)} MiB given back in ${fmt(performance.now() - v0)} ms (file ${(sizeBefore / 2 ** 20).toFixed(1)} -> ${(statSync(join(thin, 'cabinet.sqlite')).size / 2 ** 20).toFixed(1)} MiB)`);
  await server.close();
}
setClock();
rmSync(root, { recursive: true, force: true });
