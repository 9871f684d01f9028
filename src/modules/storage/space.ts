// How much room the database takes, and what becomes of freed room.
// SQLite: the file (and its WAL) on disk, the pages in use, and the free pages. A box's file has
// no auto-vacuum (`auto_vacuum = NONE`): freed pages stay in the file and the next rows take them,
// so the file stays at its high-water mark, which the budget (on the pages in use) bounds. A file
// that still has incremental auto-vacuum (converted at start when it can be, convertToNoVacuum)
// gives free pages back by `incremental_vacuum` in small steps, as before.
// Why no auto-vacuum: its pointer map records the parent of every page, and every page the hour's
// settle allocated or freed rewrote a pointer-map page (about 370 of the close's 3,700 log frames,
// a 10-house site with a day of history, bench/flash-hours.ts), and the moves the give-back made
// wrote the pages again.
// PostgreSQL: pg_database_size; the server reuses freed room itself (autovacuum) and gives it
// back to the file system only on VACUUM FULL, which is the operator's.
import { existsSync, statSync, statfsSync } from 'node:fs';
import { dirname } from 'node:path';
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';

export interface Space {
  /** Bytes on disk: the SQLite file and its WAL, or the PostgreSQL database. */
  used_bytes: number;
  /** Bytes in use by data: SQLite's pages minus its free pages; PostgreSQL: as used_bytes. */
  live_bytes: number;
  /** SQLite free pages inside the file, which the next rows take (a file with incremental auto-vacuum: which it gives back). */
  free_bytes: number;
  wal_bytes: number;
}

const size = (file: string) => (existsSync(file) ? statSync(file).size : 0);

function pragma(db: Database, name: string): number {
  const row = db.prepareSqlite!(`pragma ${name}`).get() as Record<string, number> | undefined;
  return Number(row ? Object.values(row)[0] : 0);
}

export async function measure(db: Database): Promise<Space> {
  if (db.prepareSqlite) {
    const page = pragma(db, 'page_size');
    const pages = pragma(db, 'page_count');
    const free = pragma(db, 'freelist_count');
    const wal = size(`${db.location}-wal`);
    return { used_bytes: size(db.location) + wal, live_bytes: (pages - free) * page, free_bytes: free * page, wal_bytes: wal };
  }
  const [row] = await db.rows<{ n: string | number }>(sql`select pg_database_size(current_database()) as n`);
  const n = Number(row?.n ?? 0);
  return { used_bytes: n, live_bytes: n, free_bytes: 0, wal_bytes: 0 };
}

/** PostgreSQL: the bytes a row of the table takes with its indexes, on average (for the thinning estimate). */
export async function bytesPerRow(db: Database, table: string): Promise<number> {
  const [row] = await db.rows<{ bytes: string | number; tuples: string | number }>(
    sql`select pg_total_relation_size(c.oid) as bytes, c.reltuples as tuples from pg_class c where c.relname = ${table} and c.relkind = 'r'`);
  let tuples = Number(row?.tuples ?? 0);
  if (tuples <= 0) {
    const [c] = await db.rows<{ n: string | number }>(sql.raw(`select count(*) as n from ${table}`));
    tuples = Number(c?.n ?? 0);
  }
  return tuples > 0 ? Number(row?.bytes ?? 0) / tuples : 0;
}

export type AutoVacuum = 'incremental' | 'full' | 'none' | 'server';

export function autoVacuum(db: Database): AutoVacuum {
  if (!db.prepareSqlite) return 'server';
  return (['none', 'full', 'incremental'] as const)[pragma(db, 'auto_vacuum')] ?? 'none';
}

/** Largest SQLite file converted at start: VACUUM rewrites it whole (about 10-30 s per GiB on eMMC) before the box is ready. */
export const CONVERT_MAX_BYTES = 2 ** 30;

/**
 * SQLite only, at start before the box is ready: a database made with auto-vacuum (incremental,
 * the versions from the storage budget until this one; or full) is converted once to none
 * (`auto_vacuum = NONE` then VACUUM, which rewrites the file and needs room for a copy: a write
 * of about twice the file, once, against the pointer map's writes every hour). Refused, with the
 * reason, when the file is larger than CONVERT_MAX_BYTES or the file system has less free room
 * than the file; the file then keeps giving free pages back (giveBack) and is tried again at the
 * next start.
 */
export async function convertToNoVacuum(db: Database): Promise<{ converted: boolean; reason?: string; ms?: number }> {
  if (!db.prepareSqlite || autoVacuum(db) === 'none') return { converted: false };
  const bytes = size(db.location);
  if (bytes > CONVERT_MAX_BYTES) return { converted: false, reason: `the file is ${bytes} bytes, more than ${CONVERT_MAX_BYTES} converted at start` };
  const fs = statfsSync(dirname(db.location));
  const room = fs.bavail * fs.bsize;
  if (room < bytes * 1.2) return { converted: false, reason: `${room} bytes free on the file system, the rewrite needs ${Math.ceil(bytes * 1.2)}` };
  const t0 = performance.now();
  await db.exec('pragma auto_vacuum = NONE');
  await db.exec('vacuum');
  // The rewrite went through the log: copied into the file now, not left for the first checkpoint.
  await db.exec('pragma wal_checkpoint(TRUNCATE)');
  return { converted: autoVacuum(db) === 'none', ms: Math.round(performance.now() - t0) };
}

/** Pages per incremental-vacuum step: 256 pages (1 MiB of 4 KiB pages) hold the writer a few ms. */
export const VACUUM_STEP_PAGES = 256;

/**
 * Free pages an ordinary run keeps in the file (no thinning): at most this many bytes, and at most
 * FREE_KEEP_SHARE of the file. The points and readings waiting to be settled (the recent tables)
 * free their pages every hour and take as many again during the next one; given back, each hour's
 * were moved into by the newest pages from the file's end (each page moved is written to the log,
 * with its parent and its pointer-map page, and again by the checkpoint, wherever it lands): on a
 * 10-house site with a day of history about 730 pages, 3 MiB of log and checkpoint an hour
 * (bench/flash-site.ts), 70 MiB a day for room that was taken again within the hour.
 */
export const FREE_KEEP_BYTES = 8 * 2 ** 20;
export const FREE_KEEP_SHARE = 0.1;

/**
 * SQLite with incremental auto-vacuum (a file not yet converted to none): gives free pages back in steps, each its own short turn of
 * the writer, yielding to the event loop between steps; then a WAL checkpoint so the file
 * shrinks on disk now. With `keep`, the free pages up to FREE_KEEP_BYTES (and FREE_KEEP_SHARE of
 * the file) stay for new rows to take. Resolves with the bytes the file got smaller by.
 */
export async function giveBack(db: Database, opts: { keep?: boolean } = {}): Promise<number> {
  if (!db.prepareSqlite || autoVacuum(db) !== 'incremental') return 0;
  const before = size(db.location);
  const pagesBefore = pragma(db, 'page_count');
  const keep = opts.keep ? Math.floor(Math.min(FREE_KEEP_BYTES / pragma(db, 'page_size'), pragma(db, 'page_count') * FREE_KEEP_SHARE)) : 0;
  // Bounded: as many steps as the free pages need, and a few more.
  for (let steps = Math.ceil(pragma(db, 'freelist_count') / VACUUM_STEP_PAGES) + 4; steps > 0 && pragma(db, 'freelist_count') > keep; steps--) {
    const pages = Math.min(VACUUM_STEP_PAGES, pragma(db, 'freelist_count') - keep);
    await db.transaction(() => db.exec(`pragma incremental_vacuum(${pages})`));
    await new Promise((resolve) => setImmediate(resolve));
  }
  // The checkpoint makes the file smaller on disk now, when pages went back; otherwise the log is
  // left to sqlite_checkpoint_bytes (an hourly checkpoint copied each hour's pages on its own, where
  // one every few hours copies a page changed every hour once).
  const gave = pragma(db, 'page_count') < pagesBefore;
  if (gave) await db.exec('pragma wal_checkpoint(TRUNCATE)');
  return Math.max(0, before - size(db.location));
}
