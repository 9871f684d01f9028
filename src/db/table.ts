// One schema source for both dialects: a table is declared once with neutral column kinds and
// yields a Drizzle table for SQLite and one for PostgreSQL. Timestamps are RFC 3339 UTC text in
// both engines, so ordering and comparison behave the same everywhere.
import * as pg from 'drizzle-orm/pg-core';
import * as lite from 'drizzle-orm/sqlite-core';
import type { Column } from 'drizzle-orm';

export type ColumnKind = 'text' | 'integer' | 'real' | 'boolean' | 'json' | 'timestamp' | 'blob';

export interface ColumnSpec {
  kind: ColumnKind;
  notNull?: boolean;
  primaryKey?: boolean;
  unique?: boolean;
  /** The column's default (a column added to a table with rows needs one when it is not null). */
  default?: string | number;
}

type ValueOf<K extends ColumnKind> = K extends 'text' | 'timestamp'
  ? string
  : K extends 'integer' | 'real'
    ? number
    : K extends 'boolean'
      ? boolean
      : K extends 'blob'
        ? Buffer
        : unknown;

/** The row type a neutral table reads back (nullable unless notNull or primary key). */
export type RowOf<C extends Record<string, ColumnSpec>> = {
  [K in keyof C]: C[K]['notNull'] extends true
    ? ValueOf<C[K]['kind']>
    : C[K]['primaryKey'] extends true
      ? ValueOf<C[K]['kind']>
      : ValueOf<C[K]['kind']> | null;
};

export interface IndexSpec {
  name: string;
  columns: string[];
  unique?: boolean;
  /**
   * Only in this engine's database: an index a box's flash would pay for on every row but that a
   * server with many tenants needs (the security log's tenant index on PostgreSQL).
   */
  only?: 'sqlite' | 'postgres';
}

export interface NeutralTable<C extends Record<string, ColumnSpec> = Record<string, ColumnSpec>> {
  name: string;
  columns: C;
  primaryKey: string[];
  indexes: IndexSpec[];
  sqlite: lite.SQLiteTable;
  pg: pg.PgTable;
}

export const col = {
  text: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'text', ...o }),
  id: (): { kind: 'text'; primaryKey: true; notNull: true } => ({ kind: 'text', primaryKey: true, notNull: true }),
  integer: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'integer', ...o }),
  real: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'real', ...o }),
  boolean: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'boolean', ...o }),
  json: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'json', ...o }),
  timestamp: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'timestamp', ...o }),
  /** Bytes (SQLite blob, PostgreSQL bytea): read back as a Buffer. */
  blob: (o: Omit<ColumnSpec, 'kind'> = {}): ColumnSpec => ({ kind: 'blob', ...o }),
} as const;

/** PostgreSQL bytea; node-postgres answers a Buffer, PGlite a Uint8Array (made a Buffer here). */
const pgBytea = pg.customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (v) => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength)),
});

function liteColumn(name: string, spec: ColumnSpec) {
  let c;
  switch (spec.kind) {
    case 'integer': c = lite.integer(name); break;
    case 'real': c = lite.real(name); break;
    case 'boolean': c = lite.integer(name, { mode: 'boolean' }); break;
    case 'json': c = lite.text(name, { mode: 'json' }); break;
    case 'blob': c = lite.blob(name, { mode: 'buffer' }); break;
    default: c = lite.text(name);
  }
  if (spec.primaryKey) c = c.primaryKey();
  if (spec.notNull) c = c.notNull();
  if (spec.unique) c = c.unique();
  if (spec.default !== undefined) c = c.default(spec.default as never);
  return c;
}

function pgColumn(name: string, spec: ColumnSpec) {
  let c;
  switch (spec.kind) {
    case 'integer': c = pg.bigint(name, { mode: 'number' }); break;
    case 'real': c = pg.doublePrecision(name); break;
    case 'boolean': c = pg.boolean(name); break;
    case 'json': c = pg.jsonb(name); break;
    case 'blob': c = pgBytea(name); break;
    default: c = pg.text(name);
  }
  if (spec.primaryKey) c = c.primaryKey();
  if (spec.notNull) c = c.notNull();
  if (spec.unique) c = c.unique();
  if (spec.default !== undefined) c = c.default(spec.default as never);
  return c;
}

export function defineTable<C extends Record<string, ColumnSpec>>(
  name: string,
  columns: C,
  options: { primaryKey?: (keyof C & string)[]; indexes?: IndexSpec[] } = {},
): NeutralTable<C> {
  const single = Object.entries(columns).filter(([, s]) => s.primaryKey).map(([n]) => n);
  const composite = options.primaryKey;
  const indexes = options.indexes ?? [];
  // Each dialect's Drizzle table is built on first use: a process runs one dialect, and building
  // both for every table of every module cost start time and memory for nothing.
  const buildSqlite = () => {
    const liteCols = Object.fromEntries(
      Object.entries(columns).map(([n, s]) => [n, liteColumn(n, composite ? { ...s, primaryKey: false } : s)]),
    );
    return lite.sqliteTable(name, liteCols, (t) => {
      const extra: (lite.IndexBuilder | lite.PrimaryKeyBuilder)[] = indexes.filter((ix) => ix.only !== 'postgres').map((ix) => {
        const cols = ix.columns.map((c) => t[c] as lite.SQLiteColumn) as [lite.SQLiteColumn, ...lite.SQLiteColumn[]];
        return (ix.unique ? lite.uniqueIndex(ix.name) : lite.index(ix.name)).on(...cols);
      });
      if (composite) {
        const cols = composite.map((c) => t[c] as lite.SQLiteColumn) as [lite.SQLiteColumn, ...lite.SQLiteColumn[]];
        extra.push(lite.primaryKey({ columns: cols }));
      }
      return extra;
    });
  };
  const buildPg = () => {
    const pgCols = Object.fromEntries(
      Object.entries(columns).map(([n, s]) => [n, pgColumn(n, composite ? { ...s, primaryKey: false } : s)]),
    );
    return pg.pgTable(name, pgCols, (t) => {
      const extra: (pg.IndexBuilder | pg.PrimaryKeyBuilder)[] = indexes.filter((ix) => ix.only !== 'sqlite').map((ix) => {
        const cols = ix.columns.map((c) => t[c] as pg.PgColumn) as [pg.PgColumn, ...pg.PgColumn[]];
        return (ix.unique ? pg.uniqueIndex(ix.name) : pg.index(ix.name)).on(...cols);
      });
      if (composite) {
        const cols = composite.map((c) => t[c] as pg.PgColumn) as [pg.PgColumn, ...pg.PgColumn[]];
        extra.push(pg.primaryKey({ columns: cols }));
      }
      return extra;
    });
  };
  let sqlite: lite.SQLiteTable | undefined;
  let pgTable: pg.PgTable | undefined;
  return {
    name,
    columns,
    primaryKey: composite ?? single,
    indexes,
    get sqlite() {
      return (sqlite ??= buildSqlite());
    },
    get pg() {
      return (pgTable ??= buildPg());
    },
  };
}

/** A column of the table for the active dialect, for building conditions with drizzle operators. */
export function columnOf(table: NeutralTable, dialect: 'sqlite' | 'postgres', name: string): Column {
  const t = (dialect === 'sqlite' ? table.sqlite : table.pg) as unknown as Record<string, Column | undefined>;
  const c = t[name];
  if (!c) throw new Error(`table ${table.name} has no column ${name}`);
  return c;
}

/**
 * The table for the active dialect, typed by its SQLite flavour: the query builders of both
 * dialects share one chain shape, so code written once runs on either.
 */
export function tableFor(table: NeutralTable, dialect: 'sqlite' | 'postgres'): lite.SQLiteTable {
  return (dialect === 'sqlite' ? table.sqlite : table.pg) as unknown as lite.SQLiteTable;
}
