// How much room the database takes, and giving freed room back to the file system.
// SQLite: the file (and its WAL) on disk, the pages in use, and the free pages that
// `auto_vacuum = INCREMENTAL` lets `incremental_vacuum` cut off the file's end in small steps.
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
  /** SQLite free pages inside the file, which the incremental vacuum gives back. */
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
 * SQLite only, at start before the box is ready: a database made without incremental
 * auto-vacuum is converted once (`auto_vacuum = INCREMENTAL` then VACUUM, which rewrites the file
 * and needs room for a copy). Refused, with the reason, when the file is larger than
 * CONVERT_MAX_BYTES or the file system has less free room than the file; thinning still works
 * then, and freed pages are reused by new data instead of returned.
 */
export async function convertToIncremental(db: Database): Promise<{ converted: boolean; reason?: string; ms?: number }> {
  if (!db.prepareSqlite || autoVacuum(db) === 'incremental') return { converted: false };
  const bytes = size(db.location);
  if (bytes > CONVERT_MAX_BYTES) return { converted: false, reason: `the file is ${bytes} bytes, more than ${CONVERT_MAX_BYTES} converted at start` };
  const fs = statfsSync(dirname(db.location));
  const room = fs.bavail * fs.bsize;
  if (room < bytes * 1.2) return { converted: false, reason: `${room} bytes free on the file system, the rewrite needs ${Math.ceil(bytes * 1.2)}` };
  const t0 = performance.now();
  await db.exec('pragma auto_vacuum = INCREMENTAL');
  await db.exec('vacuum');
  return { converted: autoVacuum(db) === 'incremental', ms: Math.round(performance.now() - t0) };
}

/** Pages per incremental-vacuum step: 256 pages (1 MiB of 4 KiB pages) hold the writer a few ms. */
export const VACUUM_STEP_PAGES = 256;

/**
 * SQLite with incremental auto-vacuum: gives free pages back in steps, each its own short turn of
 * the writer, yielding to the event loop between steps; then a WAL checkpoint so the file
 * shrinks on disk now. Resolves with the bytes the file got smaller by.
 */
export async function giveBack(db: Database): Promise<number> {
  if (!db.prepareSqlite || autoVacuum(db) !== 'incremental') return 0;
  const before = size(db.location);
  // Bounded: as many steps as the free pages need, and a few more.
  for (let steps = Math.ceil(pragma(db, 'freelist_count') / VACUUM_STEP_PAGES) + 4; steps > 0 && pragma(db, 'freelist_count') > 0; steps--) {
    await db.transaction(() => db.exec(`pragma incremental_vacuum(${VACUUM_STEP_PAGES})`));
    await new Promise((resolve) => setImmediate(resolve));
  }
  await db.exec('pragma wal_checkpoint(TRUNCATE)');
  return Math.max(0, before - size(db.location));
}
