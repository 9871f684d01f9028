// Benchmark (not a test): hours of a 10-house site's storage at once, offline, with the server's
// checkpoint policy, on a database with history. Run:
// `npx tsx bench/flash-hours.ts [houses] [history_hours] [hours] [modes]` (defaults 10 24 6
// hourly-4M,16M; env FLASH_START: the making server's settings, e.g. its page size; FLASH_ROW: a
// reading's columns overridden, bench/lib/flash-history.ts). Mode `close`: one hour's close alone, between two checkpoints (its log frames by
// table or index, distinct pages and 4 KiB blocks). Mode `convert`: what the one-time conversion
// at start (src/modules/storage/space.ts, convertToNoVacuum) costs on the history's file made
// incremental first, as an older box's is: its time and write_bytes. A mode is a checkpoint threshold (sqlite_checkpoint_bytes), with `hourly-` for a
// checkpoint after every hour as well (the storage run's, which the code before this change made).
// The site is made as bench/flash-site.ts makes it (a server polling the simulated house
// controllers for 15 s: its series, houses and readings), then `history_hours` of its rows
// (bench/lib/flash-history.ts); then, on a copy per mode, `hours` hours: each hour's rows appended
// in a commit a minute (points, then readings, as the held minute's commits), the hour's close
// (roll-ups written, rows settled, the storage run's give-back) and the checkpoints the policy
// makes. What it leaves out: the security log (a tablet's reads), the log index (-shm) and what
// the kernel writes again when a commit dirties a block it has written back (bench/flash-site.ts's
// windows measure those in real time). Printed: the log's frames and the checkpoints' distinct
// 4 KiB blocks (a kernel with 4 KiB page-cache pages, the box's) and write_bytes (this kernel),
// an hour and a day, beside the rows' own bytes.
import { cpSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makePolledSite } from './lib/flash-made-site.js';
import { buildHistory, hourClose, runHours } from './lib/flash-history.js';
import { modelBytes } from './lib/flash-window.js';
import { procIo } from './lib/proc-io.js';
import BetterSqlite3 from 'better-sqlite3';
import { openDatabase } from '../src/db/client.js';
import * as space from '../src/modules/storage/space.js';
import * as recent from '../src/modules/devices/recent.js';
import { SETTLE_SLICE as READINGS_SLICE } from '../src/db/settle.js';

const HOUSES = Number(process.argv[2] ?? 10);
const HISTORY_H = Number(process.argv[3] ?? 24);
const HOURS = Number(process.argv[4] ?? 6);
const MODES = (process.argv[5] ?? 'hourly-4M,16M').split(',');
const mib = (b: number) => `${(b / 2 ** 20).toFixed(1)} MiB`;
const bytesOf = (t: string) => Number(t.replace(/[KMG]$/, '')) * 1024 ** (' KMG'.indexOf(t.slice(-1)) > 0 ? ' KMG'.indexOf(t.slice(-1)) : 0);

// FLASH_START (JSON): settings for the server that makes the database, e.g. '{"sqlite_page_size":"4096"}' (fixed when the file is made).
const START = JSON.parse(process.env.FLASH_START ?? '{}') as Record<string, string>;
const { env, simServer } = await makePolledSite(HOUSES, START);
const now = Math.floor(Date.now() / 3_600_000) * 3_600_000;
const made = await buildHistory(env.dataDir, HISTORY_H, now);
const pageSize = (() => { const raw = new BetterSqlite3(join(env.dataDir, 'cabinet.sqlite'), { readonly: true }); try { return Number(raw.pragma('page_size', { simple: true })); } finally { raw.close(); } })();
console.log(`site: ${HOUSES} houses${Object.keys(START).length ? ` (${JSON.stringify(START)})` : ''} polled every 10 s; pages of ${pageSize} B; history ${HISTORY_H} h (${made.rows} rows, ${(made.ms / 1000).toFixed(1)} s); ${HOURS} h a mode; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
const trees = (t: [string, number][], n: number) => t.slice(0, n).map(([name, c]) => `${name} ${c}`).join(', ');
for (const mode of MODES) {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-flash-hours-'));
  cpSync(env.dataDir, dir, { recursive: true });
  if (mode === 'convert') {
    const file = join(dir, 'cabinet.sqlite');
    const raw = new BetterSqlite3(file);
    if (Number(raw.pragma('auto_vacuum', { simple: true })) === 0) raw.exec('pragma auto_vacuum = INCREMENTAL; vacuum; pragma wal_checkpoint(truncate)');
    raw.close();
    const convert = (space as { convertToNoVacuum?: (db: unknown) => Promise<{ converted: boolean; reason?: string; ms?: number }> }).convertToNoVacuum;
    if (!convert) { console.log('-- convert: this code has no conversion to auto_vacuum = NONE'); continue; }
    const db = await openDatabase({ dataDir: dir });
    const size = statSync(file).size;
    const io0 = procIo();
    const c = await convert(db);
    const io1 = procIo();
    await db.close();
    console.log(`-- convert: the file (${mib(size)}, incremental) to auto_vacuum = NONE: ${c.converted ? 'done' : `not: ${c.reason}`} in ${c.ms} ms, write_bytes ${mib(io1.writeBytes - io0.writeBytes)}, the file after ${mib(statSync(file).size)}; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
    rmSync(dir, { recursive: true, force: true });
    continue;
  }
  if (mode === 'close') {
    const c = await hourClose(dir, now + 3_600_000, []);
    const w = c.w.wal;
    console.log(`-- close: one hour's close (${c.rows} rows waiting), between two checkpoints`);
    console.log(`   model ${mib(modelBytes(w))}, write_bytes ${mib(c.w.disk)}; ${w?.frames ?? 0} log frames of ${w?.pages ?? 0} distinct pages in ${w?.blocks ?? 0} 4 KiB blocks`);
    console.log(`   frames by table/index: ${trees(w?.byTree ?? [], 14)}`);
    const whole = (recent as { SETTLE_WHOLE_MAX?: number }).SETTLE_WHOLE_MAX;
    console.log(`   the settles took ${c.settleMs.points.toFixed(0)} ms (points, ${whole ? `one transaction up to ${whole}, else ` : ''}slices of ${recent.SETTLE_SLICE}) and ${c.settleMs.readings.toFixed(0)} ms (readings, slices of ${READINGS_SLICE})`);
    rmSync(dir, { recursive: true, force: true });
    continue;
  }
  const hourly = mode.startsWith('hourly-');
  const r = await runHours(dir, now + 3_600_000, HOURS, { checkpointBytes: bytesOf(mode.replace('hourly-', '')), hourly });
  const day = (b: number) => (b / HOURS) * 24;
  console.log(`-- ${mode}: checkpoint past ${mode.replace('hourly-', '')} of log${hourly ? ' and after every hour' : ''}`);
  console.log(`   a day (model: log frames + checkpoints' 4 KiB blocks): ${mib(day(r.model))}, ${(r.model / Math.max(1, r.own)).toFixed(1)}x the rows' own ${mib(day(r.own))}; an hour ${mib(r.model / HOURS)}`);
  console.log(`   a day (write_bytes, this kernel): ${mib(day(r.disk))}; per row ${(r.model / Math.max(1, r.rows)).toFixed(0)} B (model), own ${(r.own / Math.max(1, r.rows)).toFixed(0)} B`);
  console.log(`   ${r.frames} log frames, ${r.checkpoints} checkpoints in ${HOURS} h; load ${readFileSync('/proc/loadavg', 'utf8').trim()}`);
  console.log(`   frames by table/index in ${HOURS} h: ${trees(r.byTree, 14)}`);
  rmSync(dir, { recursive: true, force: true });
}
await env.cleanup();
await simServer.close();
process.exit(0);
