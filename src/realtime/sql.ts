// Small helpers for modules that write with the query builder directly (batch inserts,
// conditional updates): the dialect's table and columns of a neutral table.
import type { SQLiteColumn, SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from '../db/client.js';
import type { ErrorCode } from '../kernel/errors.js';
import { columnOf, type NeutralTable } from '../db/table.js';

/** The table for the database's dialect, typed by the SQLite flavour (the builders share one chain shape). */
export const tableOf = (table: NeutralTable, db: Database): SQLiteTable =>
  (db.dialect === 'sqlite' ? table.sqlite : table.pg) as unknown as SQLiteTable;

export const colOf = (table: NeutralTable, db: Database, name: string): SQLiteColumn => columnOf(table, db.dialect, name) as unknown as SQLiteColumn;

/** Rows per INSERT statement: SQLite binds at most 32766 variables per statement. */
export const rowsPerInsert = (columns: number) => Math.max(1, Math.floor(30_000 / columns));

/**
 * The access guard refuses a tenant caller naming another tenant (403 tenant_boundary_denied)
 * on every protected route, but the OpenAPI builder documents it only for routes with a fixed
 * scope; routes of 'any' scope that take tenant_id declare it here.
 */
export const documentTenantBoundary = <R extends { access: object; errors?: ErrorCode[] }>(routes: R[]): R[] =>
  routes.map((r) => ('public' in r.access ? r : { ...r, errors: [...new Set([...(r.errors ?? []), 'tenant_boundary_denied' as const])] }));
