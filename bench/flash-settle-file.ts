// Benchmark (not a test; nothing here is built into the product): would settling the hour's rows
// into a second database file for the settled history, in rollback-journal mode, write less to a
// box's flash than today's settle into the WAL main file and its checkpoint? Run:
// `npx tsx bench/flash-settle-file.ts [houses] [history_hours] [rounds] [span_hours] [read_hours] [every]`
// (defaults 10 24 2 6 1 1; every: a list, e.g. 1,2,8, the span's settle every so many hours).
//
// The site is made as bench/flash-hours.ts makes it (a server polling the simulated house
// controllers for 15 s), then `history_hours` of its rows (bench/lib/flash-history.ts). From that
// file, a history file per page size (4 and 1 KiB) holding copies of the main tables' schema
// (telemetry_points and the climate readings with the same indexes) and the same rows, inserted
// in id order as the hourly settles would have. Then, each round, on fresh copies, one hour of the
// site's rows appended to the recent tables, and the same hour settled by:
// (a) today's path: settleRecent and settleRows (src/modules/devices/recent.ts, src/db/settle.ts)
//     in the WAL main file, between two checkpoints (the window's end is the checkpoint);
// (b) one transaction on a connection to the main file with the history file attached:
//     INSERT ... SELECT of the recent tables' rows into the history file's tables, and the recent
//     tables emptied (a DELETE without WHERE, as the last slice does) in the main file; the
//     history file in journal_mode TRUNCATE or PERSIST, synchronous NORMAL (the box's), cache 16 MiB.
// Counted, per variant: by the flash benchmarks' model (a kernel writing back 4 KiB pages): the
// main file's log frames and its checkpoint's distinct 4 KiB blocks (modelBytes), plus for (b)
// the rollback journal (written sequentially: its 4 KiB blocks, and one more for its header at
// the commit) and the history file's distinct 4 KiB blocks that changed (both files copied before
// and compared block by block after); and write_bytes (this process, this kernel), the whole
// window. The journal's size: pages of the file as it was that changed (SQLite journals exactly
// those; pages appended past the old end are not), each page + 8 B, after a header of a sector;
// with PERSIST the journal left on disk is measured as well.
// Then the same again with a reader: a worker thread with a read-only connection to the file the
// settled rows live in (a: the main file; b: the history file), busy_timeout 0, reading the
// `read_hours` before the settled hour for each series over and over during the settle; a read
// that gets SQLITE_BUSY is retried after 1 ms: printed, the busy answers and the longest span from
// a first busy answer to the read that succeeded (what a read with a busy timeout would have waited).
// Last, `span_hours` hours one after the other on one copy per variant (each hour appended, settled
// every `every` hours), the main file checkpointed once at the end: what the day pays when the
// checkpoint copies a leaf rewritten every hour once, and the history file writes it every commit.
// The product would settle in two commits (history first, then the delete: with the main file in
// WAL a transaction over two files is not atomic); the bench's one transaction writes the same pages.
import { copyFileSync, cpSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { makePolledSite } from './lib/flash-made-site.js';
import { openDatabase } from '../src/db/client.js';
import { settleRows } from '../src/db/settle.js';
import { settleRecent } from '../src/modules/devices/recent.js';
import { readingRecord, recentReadingTable } from '../src/modules/poultry/climate-schema.js';
import { appendOneHour, appendSiteHour, buildHistory } from './lib/flash-history.js';
import { modelBytes, openWindow, type FlashWindow } from './lib/flash-window.js';

const HOUSES = Number(process.argv[2] ?? 10);
const HISTORY_H = Number(process.argv[3] ?? 24);
const ROUNDS = Number(process.argv[4] ?? 2);
const SPAN_H = Number(process.argv[5] ?? 6);
const READ_H = Number(process.argv[6] ?? 1);
// Settle every this many hours in the span (a list): 1 is today's; more leaves more rows waiting in the recent tables (past RECENT_MAX the server settles at once).
const SPAN_EVERY = (process.argv[7] ?? '1').split(',').map(Number);
const HOUR_MS = 3_600_000;
const READINGS = { from: recentReadingTable.name, into: readingRecord.table.name, columns: Object.keys(readingRecord.table.columns) };
const POINT_COLS = ['id', 'series_id', 'ts', 'value', 'status', 'latency_ms', 'received_at'];
const MOVED = ['telemetry_points', READINGS.into];
const mib = (b: number) => `${(b / 2 ** 20).toFixed(2)} MiB`;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');

// The site, as bench/flash-hours.ts makes it (bench/lib/flash-made-site.ts).
const { env, simServer } = await makePolledSite(HOUSES);
const now = Math.floor(Date.now() / HOUR_MS) * HOUR_MS;
const made = await buildHistory(env.dataDir, HISTORY_H, now);
const mainName = 'cabinet.sqlite';
const mainPage = (() => { const raw = new BetterSqlite3(join(env.dataDir, mainName), { readonly: true }); try { return Number(raw.pragma('page_size', { simple: true })); } finally { raw.close(); } })();

/** A history file of `pageSize` beside the main file: the moved tables' schema and rows. */
function makeHistoryFile(dir: string, pageSize: number): string {
  const file = join(dir, `history-${pageSize}.sqlite`);
  const raw = new BetterSqlite3(join(dir, mainName));
  try {
    raw.pragma('foreign_keys = OFF');
    raw.prepare('attach database ? as hist').run(file);
    raw.exec(`pragma hist.page_size = ${pageSize}; pragma hist.auto_vacuum = NONE; pragma hist.journal_mode = TRUNCATE`);
    const defs = raw.prepare(`select type, name, tbl_name, sql from main.sqlite_master where tbl_name in (${MOVED.map(() => '?').join(', ')}) and sql is not null order by type desc`).all(...MOVED) as { type: string; name: string; sql: string }[];
    raw.exec('begin');
    for (const d of defs) {
      // CREATE TABLE "x" / CREATE [UNIQUE] INDEX "x" ON ...: the object made in the history file.
      const stmt = d.sql.replace(/^(CREATE (?:UNIQUE )?(?:TABLE|INDEX) (?:IF NOT EXISTS )?)("?)/i, '$1hist.$2');
      raw.exec(stmt);
    }
    raw.exec(`insert into hist.telemetry_points select * from main.telemetry_points order by id`);
    raw.exec(`insert into hist."${READINGS.into}" select * from main."${READINGS.into}" order by rowid`);
    raw.exec('commit');
    return file;
  } finally {
    raw.close();
  }
}

const histDir = mkdtempSync(join(tmpdir(), 'cabinet-settle-file-'));
const histFiles = new Map<number, string>();
for (const p of [4096, 1024]) histFiles.set(p, makeHistoryFile(env.dataDir, p));
for (const [p, f] of histFiles) { copyFileSync(f, join(histDir, `history-${p}.sqlite`)); rmSync(f); histFiles.set(p, join(histDir, `history-${p}.sqlite`)); }
const histRows = (() => { const raw = new BetterSqlite3(histFiles.get(4096)!, { readonly: true }); try { return MOVED.map((t) => Number((raw.prepare(`select count(*) as n from "${t}"`).get() as { n: number }).n)); } finally { raw.close(); } })();
const series = (() => { const raw = new BetterSqlite3(join(env.dataDir, mainName), { readonly: true }); try { return (raw.prepare('select id from telemetry_series order by id').all() as { id: number }[]).map((r) => Number(r.id)); } finally { raw.close(); } })();
console.log(`site: ${HOUSES} houses polled every 10 s, ${series.length} series; main file pages of ${mainPage} B; history ${HISTORY_H} h (${made.rows} rows, ${(made.ms / 1000).toFixed(1)} s); history files: ${histRows[0]} points, ${histRows[1]} readings, ${[...histFiles].map(([p, f]) => `${p} B pages ${mib(statSync(f).size)}`).join(', ')}; load ${load()}`);

/** 4 KiB blocks of `after` that differ from `before` (a block past the old end counts). */
function blocksChanged(before: Buffer, after: Buffer): number {
  let n = 0;
  for (let at = 0; at < after.length; at += 4096) {
    const end = Math.min(at + 4096, after.length);
    if (end > before.length || before.compare(after, at, end, at, end) !== 0) n++;
  }
  return n;
}

/** Pages of the file as it was (`before`) that differ after: what a rollback journal holds. */
function pagesJournaled(before: Buffer, after: Buffer, pageSize: number): number {
  let n = 0;
  for (let at = 0; at < before.length; at += pageSize) if (before.compare(after, at, at + pageSize, at, at + pageSize) !== 0) n++;
  return n;
}

interface ReaderResult { reads: number; busy: number; longestBusyMs: number; longestReadMs: number }

/**
 * A reader in a worker thread on `file`, read-only, busy_timeout 0: the hour before `from` for
 * each series, again and again, until stopped. Started and ready before the settle begins.
 */
async function startReader(file: string, from: number, seriesIds: number[]): Promise<{ stop: () => Promise<ReaderResult> }> {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const code = `
    const { workerData, parentPort } = require('node:worker_threads');
    const Database = require(workerData.driver);
    const flag = workerData.flag;
    const db = new Database(workerData.file, { readonly: true });
    db.pragma('busy_timeout = 0');
    const q = db.prepare('select ts, value from telemetry_points where series_id = ? and ts >= ? and ts < ? order by ts');
    const sleeper = new Int32Array(new SharedArrayBuffer(4));
    let reads = 0, busy = 0, longestBusyMs = 0, longestReadMs = 0, i = 0;
    parentPort.postMessage('ready');
    while (Atomics.load(flag, 0) === 0) {
      const s = workerData.series[i++ % workerData.series.length];
      const t0 = performance.now();
      let firstBusy;
      for (;;) {
        try { q.all(s, workerData.from - workerData.readMs, workerData.from); break; }
        catch (e) {
          if (e.code !== 'SQLITE_BUSY') throw e;
          busy++;
          if (firstBusy === undefined) firstBusy = performance.now();
          Atomics.wait(sleeper, 0, 0, 1);
        }
      }
      const t1 = performance.now();
      if (firstBusy !== undefined) longestBusyMs = Math.max(longestBusyMs, t1 - firstBusy);
      longestReadMs = Math.max(longestReadMs, t1 - t0);
      reads++;
    }
    db.close();
    parentPort.postMessage({ reads, busy, longestBusyMs, longestReadMs });
  `;
  const driver = (await import('node:module')).createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(code, { eval: true, workerData: { file, from, readMs: READ_H * HOUR_MS, series: seriesIds, flag, driver } });
  await new Promise<void>((resolve, reject) => { worker.once('message', () => resolve()); worker.once('error', reject); });
  // Let it read a little before the settle starts.
  await new Promise((resolve) => setTimeout(resolve, 200));
  return {
    stop: () => new Promise<ReaderResult>((resolve, reject) => {
      worker.once('message', (m: ReaderResult) => { void worker.terminate(); resolve(m); });
      worker.once('error', reject);
      Atomics.store(flag, 0, 1);
    }),
  };
}

interface Outcome { model: number; disk: number; ms: number; commitMs?: number; frames: number; ckBlocks: number; journal: number; journalPages: number; persisted?: number; histBlocks: number; reader?: ReaderResult; busyCommit?: number }

/** Copies of the made files, the hour appended: a directory holding cabinet.sqlite and the history files. */
async function prepared(from: number): Promise<{ dir: string; rows: number; own: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-settle-file-'));
  cpSync(env.dataDir, dir, { recursive: true });
  for (const [p, f] of histFiles) copyFileSync(f, join(dir, `history-${p}.sqlite`));
  const { rows, own } = await appendOneHour(dir, from);
  return { dir, rows, own };
}

/** (a) today's settle in the WAL main file, between two checkpoints. */
async function today(dir: string, from: number, withReader: boolean): Promise<Outcome> {
  const file = join(dir, mainName);
  const db = await openDatabase({ dataDir: dir, sqlite: { checkpointBytes: 2 ** 40 } });
  const timer = setInterval(() => undefined, 1000);
  try {
    const w = openWindow(file, []);
    const reader = withReader ? await startReader(file, from, series) : undefined;
    const t0 = performance.now();
    await settleRecent(db);
    await settleRows(db, READINGS);
    const ms = performance.now() - t0;
    const r = await reader?.stop();
    const end: FlashWindow = w.end();
    return { model: modelBytes(end.wal), disk: end.disk, ms, frames: end.wal?.frames ?? 0, ckBlocks: end.wal?.blocks ?? 0, journal: 0, journalPages: 0, histBlocks: 0, ...(r ? { reader: r } : {}) };
  } finally {
    clearInterval(timer);
    await db.close();
  }
}

/** The main file's connection with the history file attached, as the box's settings. */
function attached(file: string, hist: string, mode: 'TRUNCATE' | 'PERSIST'): BetterSqlite3.Database {
  const raw = new BetterSqlite3(file);
  raw.pragma('journal_mode = WAL');
  raw.pragma('synchronous = NORMAL');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('cache_size = -16384');
  raw.pragma('foreign_keys = OFF');
  raw.pragma('wal_autocheckpoint = 0');
  raw.prepare('attach database ? as hist').run(hist);
  raw.pragma(`hist.journal_mode = ${mode}`);
  raw.pragma('hist.synchronous = NORMAL');
  raw.pragma('hist.cache_size = -16384');
  // The schema read and the file's pages in the cache, as a long-running server's connection has them.
  raw.prepare('select count(*) from hist.telemetry_points').get();
  return raw;
}

/** The settle of (b): one transaction; resolves with its ms, of which the commit's, and the busy answers to the commit. */
function settleIntoHistory(raw: BetterSqlite3.Database): { ms: number; commitMs: number; busyCommit: number } {
  const cols = READINGS.columns.map((c) => `"${c}"`).join(', ');
  const t0 = performance.now();
  let busyCommit = 0;
  raw.exec('begin immediate');
  raw.exec(`insert or ignore into hist.telemetry_points (${POINT_COLS.join(', ')}) select ${POINT_COLS.join(', ')} from main.telemetry_points_recent order by id`);
  raw.exec(`insert or ignore into hist."${READINGS.into}" (${cols}) select ${cols} from main."${READINGS.from}" order by rowid`);
  raw.exec('delete from main.telemetry_points_recent');
  raw.exec(`delete from main."${READINGS.from}"`);
  const t1 = performance.now();
  // The commit takes the history file's EXCLUSIVE lock: it waits (busy_timeout) for readers.
  for (;;) {
    try { raw.exec('commit'); break; } catch (e) { if ((e as { code?: string }).code !== 'SQLITE_BUSY') throw e; busyCommit++; }
  }
  const t2 = performance.now();
  return { ms: t2 - t0, commitMs: t2 - t1, busyCommit };
}

/** A history file's write for one commit by the model: its journal (sequential, and its header again at the commit) and its changed 4 KiB blocks. */
function historyWrite(before: Buffer, after: Buffer, pageSize: number): { model: number; journal: number; journalPages: number; histBlocks: number } {
  const journalPages = pagesJournaled(before, after, pageSize);
  // A journal header of a sector (4096 B on this unix build), then each page with its number and checksum.
  const journal = journalPages ? 4096 + journalPages * (pageSize + 8) : 0;
  const journalModel = journal ? Math.ceil(journal / 4096) * 4096 + 4096 : 0;
  const histBlocks = blocksChanged(before, after);
  return { model: journalModel + histBlocks * 4096, journal, journalPages, histBlocks };
}

/** (b) the hour's rows into the attached history file (rollback journal), the recent tables emptied. */
async function intoHistory(dir: string, from: number, pageSize: number, mode: 'TRUNCATE' | 'PERSIST', withReader: boolean): Promise<Outcome> {
  const file = join(dir, mainName);
  const hist = join(dir, `history-${pageSize}.sqlite`);
  const raw = attached(file, hist, mode);
  try {
    const jfile = `${hist}-journal`;
    if (existsSync(jfile)) rmSync(jfile);
    const before = readFileSync(hist);
    const w = openWindow(file, []);
    const reader = withReader ? await startReader(hist, from, series) : undefined;
    const { ms, commitMs, busyCommit } = settleIntoHistory(raw);
    const r = await reader?.stop();
    const persisted = mode === 'PERSIST' && existsSync(jfile) ? statSync(jfile).size : undefined;
    const h = historyWrite(before, readFileSync(hist), pageSize);
    const end = w.end();
    return {
      model: modelBytes(end.wal) + h.model, disk: end.disk, ms, commitMs, frames: end.wal?.frames ?? 0, ckBlocks: end.wal?.blocks ?? 0,
      journal: h.journal, journalPages: h.journalPages, histBlocks: h.histBlocks, busyCommit, ...(persisted !== undefined ? { persisted } : {}), ...(r ? { reader: r } : {}),
    };
  } finally {
    raw.close();
  }
}

/**
 * SPAN_H hours one after the other on one copy: each hour appended to the recent tables (one
 * transaction) and settled, by (a) or (b); the main file checkpointed once at the end (32 MiB of
 * log, the box's threshold, is about 7-8 hours of this site), so a leaf that every hour's settle
 * rewrites is copied once, as in the day that bench/flash-hours.ts counts. The history file's
 * commits write in place each settle: counted each time. `every`: a settle every so many hours.
 */
async function span(v: { page?: number; mode?: 'TRUNCATE' | 'PERSIST' }, from: number, every: number): Promise<{ model: number; disk: number; frames: number; ckBlocks: number; hist: number; ms: number[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-settle-file-'));
  cpSync(env.dataDir, dir, { recursive: true });
  for (const [p, f] of histFiles) copyFileSync(f, join(dir, `history-${p}.sqlite`));
  const file = join(dir, mainName);
  const db = await openDatabase({ dataDir: dir, sqlite: { checkpointBytes: 2 ** 40 } });
  const timer = setInterval(() => undefined, 1000);
  const hist = v.page ? join(dir, `history-${v.page}.sqlite`) : '';
  const raw = v.page ? attached(file, hist, v.mode!) : undefined;
  let histModel = 0;
  const ms: number[] = [];
  try {
    await settleRecent(db);
    await settleRows(db, READINGS);
    const count = () => MOVED.reduce((n, t) => n + Number((raw!.prepare(`select count(*) as n from hist."${t}"`).get() as { n: number }).n), 0);
    const count0 = raw ? count() : 0;
    let appended = 0;
    const w = openWindow(file, []);
    for (let h = 0; h < SPAN_H; h++) {
      // The bench's appender numbers points after the main file's highest id; with (b) the settled
      // points are in the history file, so a copy of its last point stands in the main file while
      // the hour is appended (a few frames an hour, counted against (b)).
      const last = raw?.prepare('select max(id) as id from hist.telemetry_points').get() as { id: number } | undefined;
      if (raw && last) raw.prepare('insert or ignore into main.telemetry_points select * from hist.telemetry_points where id = ?').run(last.id);
      appended += await appendSiteHour(db, from + h * HOUR_MS);
      if (raw && last) raw.prepare('delete from main.telemetry_points where id = ?').run(last.id);
      if ((h + 1) % every !== 0 && h + 1 < SPAN_H) continue;
      if (raw) {
        const before = readFileSync(hist);
        ms.push(settleIntoHistory(raw).ms);
        histModel += historyWrite(before, readFileSync(hist), v.page!).model;
      } else {
        const t0 = performance.now();
        await settleRecent(db);
        await settleRows(db, READINGS);
        ms.push(performance.now() - t0);
      }
    }
    const end = w.end();
    if (raw && count() - count0 !== appended) throw new Error(`the history file took ${count() - count0} of ${appended} rows`);
    if (end.wal?.restarted) throw new Error('the log restarted within the span: frames undercounted');
    return { model: modelBytes(end.wal) + histModel, disk: end.disk, frames: end.wal?.frames ?? 0, ckBlocks: end.wal?.blocks ?? 0, hist: histModel, ms };
  } finally {
    clearInterval(timer);
    raw?.close();
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Whether the moved rows all arrived (a check that the variant did what it says). */
function landed(dir: string, pageSize: number | undefined, rows: number): boolean {
  const raw = new BetterSqlite3(pageSize ? join(dir, `history-${pageSize}.sqlite`) : join(dir, mainName), { readonly: true });
  try {
    const n = MOVED.reduce((s, t) => s + Number((raw.prepare(`select count(*) as n from "${t}"`).get() as { n: number }).n), 0);
    const base = pageSize ? histRows[0]! + histRows[1]! : -1;
    return pageSize ? n - base === rows : n > 0;
  } finally {
    raw.close();
  }
}

const variants: { name: string; page?: number; mode?: 'TRUNCATE' | 'PERSIST' }[] = [
  { name: '(a) WAL main file + checkpoint' },
  { name: '(b) history file, 4 KiB, TRUNCATE', page: 4096, mode: 'TRUNCATE' },
  { name: '(b) history file, 4 KiB, PERSIST', page: 4096, mode: 'PERSIST' },
  { name: '(b) history file, 1 KiB, TRUNCATE', page: 1024, mode: 'TRUNCATE' },
  { name: '(b) history file, 1 KiB, PERSIST', page: 1024, mode: 'PERSIST' },
];
const from = now;
for (let round = 1; round <= ROUNDS; round++) {
  for (const withReader of [false, true]) {
    const out: { name: string; o: Outcome; rows: number; own: number; ok: boolean }[] = [];
    for (const v of variants) {
      const p = await prepared(from);
      const o = v.page ? await intoHistory(p.dir, from, v.page, v.mode!, withReader) : await today(p.dir, from, withReader);
      out.push({ name: v.name, o, rows: p.rows, own: p.own, ok: landed(p.dir, v.page, p.rows) });
      rmSync(p.dir, { recursive: true, force: true });
    }
    const base = out[0]!.o;
    console.log(`-- round ${round}${withReader ? `, a reader on the settled rows' file meanwhile (a series' last ${READ_H} h a read)` : ''}: ${out[0]!.rows} rows waiting (own ${mib(out[0]!.own)}); load ${load()}`);
    console.log('| variant | model an hour | x24 a day | vs (a) | write_bytes | x24 | vs (a) | main log frames / ckpt blocks | journal (pages) | history blocks | settle ms | reader |');
    console.log('|---|---|---|---|---|---|---|---|---|---|---|---|');
    for (const { name, o, ok } of out) {
      const reader = o.reader ? `${o.reader.reads} reads, ${o.reader.busy} busy, longest busy ${o.reader.longestBusyMs.toFixed(0)} ms, longest read ${o.reader.longestReadMs.toFixed(0)} ms${o.busyCommit ? `, commit busy ${o.busyCommit}` : ''}` : '';
      const journal = o.journalPages ? `${mib(o.journal)} (${o.journalPages})${o.persisted !== undefined ? `, left ${mib(o.persisted)}` : ''}` : '';
      console.log(`| ${name}${ok ? '' : ' (ROWS MISSING)'} | ${mib(o.model)} | ${mib(o.model * 24)} | ${(o.model / base.model).toFixed(2)}x | ${mib(o.disk)} | ${mib(o.disk * 24)} | ${(o.disk / base.disk).toFixed(2)}x | ${o.frames} / ${o.ckBlocks} | ${journal} | ${o.histBlocks || ''} | ${o.ms.toFixed(0)}${o.commitMs !== undefined ? ` (commit ${o.commitMs.toFixed(0)})` : ''} | ${reader} |`);
    }
  }
}
if (SPAN_H > 0) {
  for (let round = 1; round <= ROUNDS; round++) {
    for (const every of SPAN_EVERY) {
      console.log(`-- ${SPAN_H} hours one after the other (each appended, settled every ${every} h), one checkpoint of the main file at the end; round ${round}; load ${load()}`);
      console.log('| variant | model, the span | a day (x24/span) | vs (a) | of which history file (journal + blocks) | main log frames / ckpt blocks | write_bytes a day | vs (a) | settle ms (min-max) |');
      console.log('|---|---|---|---|---|---|---|---|---|');
      let base: { model: number; disk: number } | undefined;
      // Past an hour a settle, TRUNCATE and PERSIST write the same by the model: one of them.
      for (const v of variants.filter((x) => every === 1 || x.mode !== 'PERSIST')) {
        const r = await span(v, now, every);
        base ??= r;
        const day = (b: number) => (b * 24) / SPAN_H;
        console.log(`| ${v.name}${every > 1 ? `, every ${every} h` : ''} | ${mib(r.model)} | ${mib(day(r.model))} | ${(r.model / base.model).toFixed(2)}x | ${r.hist ? mib(r.hist) : ''} | ${r.frames} / ${r.ckBlocks} | ${mib(day(r.disk))} | ${(r.disk / base.disk).toFixed(2)}x | ${Math.min(...r.ms).toFixed(0)}-${Math.max(...r.ms).toFixed(0)} |`);
      }
    }
  }
}
rmSync(histDir, { recursive: true, force: true });
await env.cleanup();
await simServer.close();
process.exit(0);
