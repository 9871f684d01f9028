// Small helpers for modules that write with the query builder directly (batch inserts,
// conditional updates): the dialect's table and columns of a neutral table.
import { sql } from 'drizzle-orm';
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './client.js';
import { columnOf, tableFor, type NeutralTable } from './table.js';

/** The table for the database's dialect, typed by the SQLite flavour (the builders share one chain shape). */
export const tableOf = (table: NeutralTable, db: Database): SQLiteTable => tableFor(table, db.dialect);

export const colOf = (table: NeutralTable, db: Database, name: string): SQLiteColumn => columnOf(table, db.dialect, name) as unknown as SQLiteColumn;

/** Rows per INSERT statement: SQLite binds at most 32766 variables per statement. */
export const rowsPerInsert = (columns: number) => Math.max(1, Math.floor(30_000 / columns));


/**
 * Inside a transaction: waits until no other process holds `name` in its transaction, and holds
 * it until this one ends. Several master processes on one PostgreSQL server start at the same
 * moment (replicas); their start-up writes (migrations, seeds) take turns. SQLite and PGlite have
 * one process, whose transactions already run one at a time.
 */
export async function crossProcessLock(db: Database, name: string): Promise<void> {
  if (db.engine === 'postgresql') await db.rows(sql`select pg_advisory_xact_lock(hashtext(${name}))`);
}
