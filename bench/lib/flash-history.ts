// A site's history for the flash benchmarks, and the hour's close measured on it. A box's database
// holds days of rows, and what a commit rewrites depends on it: an index keyed by series or house
// takes each hour's rows at as many places as there are series and houses, each on a leaf of its
// own once the table holds more than a few minutes. A window on a new database does not see that;
// nor does a window without an hour's end see the hour's close (the closed roll-ups written, the
// waiting rows settled into their indexed tables), which happens 24 times a day.
//
// buildHistory: `hours` of the site's rows made the way the server makes them, an hour at a time
// through the real code (the climate readings and points appended to the recent tables, the settle
// of src/db/settle.ts and src/modules/devices/recent.ts, the hour's roll-ups through
// recoverRollups), on the database of a server that has polled the site (its series, houses and a
// reading of each as templates), while that server is stopped.
// hourClose: one hour of the site's rows waiting in the recent tables (as the minute commits left
// them: not counted here, the windows count those), then, between two checkpoints, what the
// server does after the hour: the hour's roll-ups written, the points and the readings settled.
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase, type Database } from '../../src/db/client.js';
import { settleRows } from '../../src/db/settle.js';
import { settleRecent } from '../../src/modules/devices/recent.js';
import { recoverRollups } from '../../src/modules/devices/storage.js';
import { readingRecord, recentReadingTable } from '../../src/modules/poultry/climate-schema.js';
import { timeId } from '../../src/kernel/ids.js';
import * as space from '../../src/modules/storage/space.js';
import { modelBytes, openWindow, payload, type FlashWindow } from './flash-window.js';

const HOUR_MS = 3_600_000;
const READINGS = { from: recentReadingTable.name, into: readingRecord.table.name, columns: Object.keys(readingRecord.table.columns) };

export interface Site {
  series: number[];
  /** One stored reading per house, the template of its hours. */
  houses: Record<string, unknown>[];
  /** Seconds between two readings of a house and two points of a series. */
  periodS: number;
}

async function siteOf(db: Database, periodS: number): Promise<Site> {
  const series = (await db.rows<{ id: number }>(sql`select id from telemetry_series order by id`)).map((r) => Number(r.id));
  const houses = await db.rows<Record<string, unknown>>(sql`select * from poultry_climate_readings_all where id in (select max(id) from poultry_climate_readings_all group by tenant_id, house_id)`);
  if (!series.length || !houses.length) throw new Error(`no site to copy: ${series.length} series, ${houses.length} houses`);
  // FLASH_ROW (JSON): columns of every house's template overridden, to size what a more compact
  // stored reading would write (e.g. '{"profile_id":"p"}'); not a row the server makes.
  const over = JSON.parse(process.env.FLASH_ROW ?? '{}') as Record<string, unknown>;
  return { series, houses: houses.map((h) => ({ ...h, ...over })), periodS };
}

/**
 * Appends the hour from `from` to the recent tables, in time order across series and houses, in
 * one transaction, or with `minute` in a transaction a minute for the points and one for the
 * readings, as the held minute's commits do (`onCommit` after each minute).
 */
async function appendHour(db: Database, site: Site, from: number, minute?: { onCommit: () => Promise<void> }): Promise<number> {
  if (minute) {
    let rows = 0;
    for (let m = 0; m < 60; m++) {
      rows += await appendSpan(db, site, from + m * 60_000, 60_000);
      await minute.onCommit();
    }
    return rows;
  }
  return appendSpan(db, site, from, HOUR_MS);
}

async function appendSpan(db: Database, site: Site, from: number, span: number): Promise<number> {
  const [edge] = await db.rows<{ id: number | null }>(sql`select max(m) as id from (select max(id) as m from telemetry_points union all select max(id) from telemetry_points_recent)`);
  let id = Number(edge?.id ?? 0);
  const step = site.periodS * 1000;
  const cols = READINGS.columns;
  let rows = 0;
  await db.transaction(async () => {
    for (let t = from; t < from + span; t += step) {
      for (const s of site.series) {
        const v = 20 + ((t / step + s) % 50) / 10;
        await db.run(sql`insert into telemetry_points_recent (id, series_id, ts, value, status, latency_ms, received_at) values (${++id}, ${s}, ${t + (s % 7) * 13}, ${v}, 0, ${4.5}, ${t + 40})`);
        rows++;
      }
    }
  });
  await db.transaction(async () => {
    for (let t = from; t < from + span; t += step) {
      for (const h of site.houses) {
        const row: Record<string, unknown> = { ...h, id: timeId(t), ts: new Date(t).toISOString(), temp: 24 + ((t / step) % 30) / 10 };
        await db.run(sql.raw(`insert into ${READINGS.from} (${cols.map((c) => `"${c}"`).join(', ')}) values (${cols.map((c) => literal(row[c])).join(', ')})`));
        rows++;
      }
    }
  });
  return rows;
}

function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'number') return String(v);
  return `'${String(v).replaceAll("'", "''")}'`;
}

/**
 * The storage run's give-back (hourly), as src/modules/storage/space.ts does it on a run that does
 * not thin (a file in incremental auto-vacuum; none on a file without), without its closing checkpoint (the window's end stands for it, so the log's frames are
 * counted): incremental vacuum steps down to the free pages that version keeps.
 */
async function giveBackLikeTheRun(db: Database): Promise<void> {
  const get = (name: string) => Number(Object.values(db.prepareSqlite!(`pragma ${name}`).get() as Record<string, number>)[0]);
  // A file without auto-vacuum (a new one since auto_vacuum = NONE) gives nothing back: the run does nothing.
  if (get('auto_vacuum') !== 2) return;
  const keepBytes = (space as { FREE_KEEP_BYTES?: number }).FREE_KEEP_BYTES ?? 0;
  const keepShare = (space as { FREE_KEEP_SHARE?: number }).FREE_KEEP_SHARE ?? 0;
  const keep = Math.floor(Math.min(keepBytes / get('page_size'), get('page_count') * keepShare));
  for (let steps = 1000; steps > 0 && get('freelist_count') > keep; steps--) {
    const pages = Math.min(space.VACUUM_STEP_PAGES, get('freelist_count') - keep);
    await db.transaction(() => db.exec(`pragma incremental_vacuum(${pages})`));
  }
}

/** The server's work after an hour: its roll-ups written, its points and readings settled, then the storage run's give-back. */
async function closeHour(db: Database, end: number): Promise<{ settleMs: { points: number; readings: number } }> {
  // recoverRollups upserts the minute and hour roll-ups of the last two hours from the stored
  // points: the previous hour's rows are unchanged (not rewritten), the hour's are the rows the
  // writer writes when the hour closes. The points are settled first so that it sees them.
  let t = performance.now();
  await settleRecent(db);
  const points = performance.now() - t;
  await db.transaction(() => recoverRollups(db, end));
  t = performance.now();
  await settleRows(db, READINGS);
  const readings = performance.now() - t;
  await giveBackLikeTheRun(db);
  return { settleMs: { points, readings } };
}

function openDb(dataDir: string): Promise<Database> {
  return openDatabase({ dataDir });
}

/** Keeps the process alive meanwhile: a transaction may wait on the checkpoint thread, which does not. */
async function alive<T>(fn: () => Promise<T>): Promise<T> {
  const timer = setInterval(() => undefined, 1000);
  try {
    return await fn();
  } finally {
    clearInterval(timer);
  }
}

/** `hours` of the site's rows before `before` (ms), an hour at a time through the real settle. */
export function buildHistory(dataDir: string, hours: number, before: number, periodS = 10): Promise<{ rows: number; ms: number }> {
  return alive(() => makeHistory(dataDir, hours, before, periodS));
}

async function makeHistory(dataDir: string, hours: number, before: number, periodS: number): Promise<{ rows: number; ms: number }> {
  const t0 = performance.now();
  const db = await openDb(dataDir);
  let rows = 0;
  try {
    const site = await siteOf(db, periodS);
    const first = (Math.floor(before / HOUR_MS) - hours) * HOUR_MS;
    // Whatever the server left waiting goes first (its ids are the lowest).
    await settleRecent(db);
    await settleRows(db, READINGS);
    for (let h = 0; h < hours; h++) {
      const from = first + h * HOUR_MS;
      rows += await appendHour(db, site, from);
      await closeHour(db, from + HOUR_MS);
    }
    await db.run(sql`pragma wal_checkpoint(truncate)`);
  } finally {
    await db.close();
  }
  return { rows, ms: performance.now() - t0 };
}

export interface HourClose {
  w: FlashWindow;
  /** Rows of the hour (points and readings). */
  rows: number;
  /** Their own bytes (record payload in the recent tables, as appended). */
  own: number;
  /** The settles' time (all their slices: the event loop waits a slice at a time). */
  settleMs: { points: number; readings: number };
}

/** One hour of the site's rows waiting from `from`, then the hour's close measured between two checkpoints. */
export function hourClose(dataDir: string, from: number, tables: readonly string[], periodS = 10): Promise<HourClose> {
  return alive(() => measureClose(dataDir, from, tables, periodS));
}

async function measureClose(dataDir: string, from: number, tables: readonly string[], periodS: number): Promise<HourClose> {
  const db = await openDb(dataDir);
  try {
    const file = join(dataDir, 'cabinet.sqlite');
    const { rows, own } = await appendHourAlone(db, file, from, periodS);
    const w = openWindow(file, tables);
    const { settleMs } = await closeHour(db, from + HOUR_MS);
    return { w: w.end(), rows, own, settleMs };
  } finally {
    await db.close();
  }
}

export interface Hours {
  /** The log's frames and the checkpoints' distinct 4 KiB blocks (the model), and write_bytes. */
  model: number;
  disk: number;
  frames: number;
  checkpoints: number;
  rows: number;
  own: number;
  /** Log frames per table or index, summed over the windows, most first. */
  byTree: [string, number][];
}

/**
 * `hours` hours of the site on its database, offline and at once: each hour's rows appended in a
 * commit a minute (points, then readings), then the hour's close; the log checkpointed whenever it
 * has grown past `checkpointBytes` (the server's sqlite_checkpoint_bytes), and also after each
 * hour when `hourly` (the storage run's checkpoint, which the code before this change made every
 * hour). Every checkpoint is a window's end: its log's frames and distinct 4 KiB blocks counted.
 */
export function runHours(dataDir: string, from: number, hours: number, opts: { checkpointBytes: number; hourly: boolean }, periodS = 10): Promise<Hours> {
  return alive(async () => {
    const db = await openDatabase({ dataDir, sqlite: { checkpointBytes: 2 ** 40 } });
    const file = join(dataDir, 'cabinet.sqlite');
    const out: Hours = { model: 0, disk: 0, frames: 0, checkpoints: 0, rows: 0, own: 0, byTree: [] };
    const trees = new Map<string, number>();
    try {
      const site = await siteOf(db, periodS);
      await settleRecent(db);
      await settleRows(db, READINGS);
      let w = openWindow(file, []);
      const cut = () => {
        const r = w.end();
        out.model += modelBytes(r.wal);
        out.disk += r.disk;
        out.frames += r.wal?.frames ?? 0;
        for (const [name, n] of r.wal?.byTree ?? []) trees.set(name, (trees.get(name) ?? 0) + n);
        out.checkpoints++;
        w = openWindow(file, []);
      };
      const logBytes = () => { try { return statSync(`${file}-wal`).size; } catch { return 0; } };
      const recent = ['telemetry_points_recent', READINGS.from];
      for (let h = 0; h < hours; h++) {
        const own0 = payload(file, recent);
        out.rows += await appendHour(db, site, from + h * HOUR_MS, { onCommit: async () => { if (logBytes() > opts.checkpointBytes) cut(); } });
        out.own += payload(file, recent) - own0;
        await closeHour(db, from + (h + 1) * HOUR_MS);
        if (opts.hourly || logBytes() > opts.checkpointBytes) cut();
      }
      if (logBytes() > 0) cut();
      out.checkpoints--; // the last window's end is the run's, not the server's
      out.byTree = [...trees].sort((a, b) => b[1] - a[1]);
    } finally {
      await db.close();
    }
    return out;
  });
}

/**
 * One hour of the site's rows from `from` appended to the recent tables (whatever waited settled
 * first, so that they hold the hour alone), in one transaction, then the log checkpointed: the
 * hour that a settle then moves (bench/flash-settle-file.ts).
 */
export function appendOneHour(dataDir: string, from: number, periodS = 10): Promise<{ rows: number; own: number }> {
  return alive(async () => {
    const db = await openDb(dataDir);
    try {
      return await appendHourAlone(db, join(dataDir, 'cabinet.sqlite'), from, periodS);
    } finally {
      await db.close();
    }
  });
}

/**
 * Whatever waited in the recent tables settled, then one hour of the site's rows from `from`
 * appended between two checkpoints (the log empty before and after): the hour's rows and their
 * own bytes in the recent tables (hourClose's hour, and appendOneHour's).
 */
async function appendHourAlone(db: Database, file: string, from: number, periodS: number): Promise<{ rows: number; own: number }> {
  const site = await siteOf(db, periodS);
  await settleRecent(db);
  await settleRows(db, READINGS);
  const recent = ['telemetry_points_recent', READINGS.from];
  await db.run(sql`pragma wal_checkpoint(truncate)`);
  const own0 = payload(file, recent);
  const rows = await appendHour(db, site, from);
  await db.run(sql`pragma wal_checkpoint(truncate)`);
  return { rows, own: payload(file, recent) - own0 };
}

/** One hour of the site's rows from `from` appended to the recent tables on an open database, in one transaction (no checkpoint). */
export async function appendSiteHour(db: Database, from: number, periodS = 10): Promise<number> {
  return appendHour(db, await siteOf(db, periodS), from);
}
