// Rows appended to a table of their own (no key, no index: a "recent" table) and moved into their
// indexed table later, in order, a slice a transaction (copied and deleted together, so a settle
// stopped by a stop or a crash goes on at the next one). SQLite only: by rowid, the order rows
// were appended in.
//
// Why (a box's flash): an index keyed by something other than time (a house, a series) takes
// each minute's few rows at as many places as there are houses or series, and once a table
// holds hours every place is a leaf of its own; the minute's commit rewrote one page per house
// and index for a few rows each (bench/flash-site.ts with a day's history). Appended to a table
// without an index, the minute writes about its rows' own pages; moved an hour at a time, a
// house's hour of entries fills its leaves together.
import { sql } from 'drizzle-orm';
import type { Database } from './client.js';

/** Rows moved a transaction: a settle holds the writer a few milliseconds at a time. */
export const SETTLE_SLICE = 5_000;

export interface SettleTables {
  /** The table rows wait in (appended, no index). */
  from: string;
  /** Their indexed table. */
  into: string;
  columns: readonly string[];
}

/**
 * Whether the slice up to `upTo` is the whole of `table`: then its rows are deleted by a DELETE
 * without a WHERE, which SQLite carries out by freeing the table's pages (its truncate
 * optimisation); a DELETE by a range of keys removes each row from its leaf, and every leaf
 * emptied that way was written to the log before it was freed (a settled hour of this site's
 * readings: about 250 frames of 1 KiB, and their checkpoint; bench/flash-site.ts).
 */
export async function settledAll(db: Database, table: string, key: string, upTo: number): Promise<boolean> {
  const [rest] = await db.rows<{ more: number | boolean }>(sql.raw(`select exists (select 1 from ${table} where ${key} > ${upTo}) as more`));
  return !Number(rest?.more);
}

/** Moves the oldest slice of `from` into `into`; a row whose key is already there is dropped (the same row). */
async function settleSlice(db: Database, t: SettleTables, slice: number): Promise<number> {
  return db.transaction(async () => {
    const [edge] = await db.rows<{ r: number | null }>(sql.raw(`select max(rowid) as r from (select rowid from ${t.from} order by rowid limit ${slice})`));
    if (edge?.r === null || edge?.r === undefined) return 0;
    const upTo = Number(edge.r);
    const cols = t.columns.map((c) => `"${c}"`).join(', ');
    await db.run(sql.raw(`insert or ignore into ${t.into} (${cols}) select ${cols} from ${t.from} where rowid <= ${upTo} order by rowid`));
    const [gone] = await db.rows<{ n: number }>(sql.raw(`select count(*) as n from ${t.from} where rowid <= ${upTo}`));
    await db.run(sql.raw(await settledAll(db, t.from, 'rowid', upTo) ? `delete from ${t.from}` : `delete from ${t.from} where rowid <= ${upTo}`));
    return Number(gone?.n ?? 0);
  });
}

/**
 * Moves every row waiting in `t.from` into `t.into`, a slice a transaction with a turn of the
 * event loop between slices; `stopped` ends it between slices. Resolves with how many it moved.
 * Nothing to do on PostgreSQL (a server's database, not a box's flash: written in place).
 */
export async function settleRows(db: Database, t: SettleTables, opts: { slice?: number; stopped?: () => boolean } = {}): Promise<number> {
  if (db.dialect !== 'sqlite') return 0;
  let moved = 0;
  for (;;) {
    if (opts.stopped?.()) return moved;
    const n = await settleSlice(db, t, opts.slice ?? SETTLE_SLICE);
    moved += n;
    if (n === 0) return moved;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** How many rows wait in `table`. */
export async function waitingRows(db: Database, table: string): Promise<number> {
  const [row] = await db.rows<{ n: number | string }>(sql.raw(`select count(*) as n from ${table}`));
  return Number(row?.n ?? 0);
}
