// Generic CRUD over a neutral table for the active dialect. Reads outside transactions are
// prepared once per shape (which filters, whether q is present, sort field and direction) and reused, because
// Drizzle otherwise rebuilds the SQL on every call. On SQLite those reads run the SQL Drizzle
// rendered as a better-sqlite3 statement and decode the rows here (JSON and boolean columns, as
// Drizzle would), which saves Drizzle's per-row mapping; a list page runs in the read worker (off
// the event loop), a key lookup on the main thread's read connection. Writes run inside db.transaction so that on
// SQLite no other request's statements can interleave with them.
import { createHash } from 'node:crypto';
import { and, asc, count, desc, eq, gt, gte, is, lt, lte, or, Placeholder, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database, SqliteStatement } from './client.js';
import { columnOf, tableFor, type NeutralTable } from './table.js';

export type Filter = Record<string, string | number | boolean>;

/** A range end on a column (column > value, ...), besides the equalities of `where`. */
export interface RangeCondition { column: string; op: 'gt' | 'gte' | 'lt' | 'lte'; value: string | number | boolean }

/**
 * Past this many matches a list's total is not counted on (a page's cost must not grow with the
 * rows stored: 4 M telemetry points cost 0.5 s to count).
 */
export const COUNT_CAP = 10_000;

/**
 * A table (or view) of at most this many rows is read on the main thread: any list page of it,
 * searched or sorted on a column without an index, and its total cost about a millisecond
 * (bench/list-route.ts), less than a round trip to the read worker. A larger table's lists go to
 * the worker, since their cost grows with the rows stored.
 */
export const SMALL_TABLE_ROWS = 1_000;

/** List totals a Store keeps (by filter values) before it forgets them all. */
const TOTALS_KEPT = 64;

/** How long a table's size class is trusted before it is counted again (a bounded count: at most SMALL_TABLE_ROWS + 1 rows). */
export const SIZE_CHECK_MS = 1_000;

export interface ListResult<Row> {
  rows: Row[];
  total: number;
  /** The total is a lower bound: more than COUNT_CAP rows match. */
  estimated: boolean;
}

export interface ListOptions {
  where: Filter;
  ranges?: readonly RangeCondition[];
  q?: { columns: readonly string[]; term: string };
  sort: { column: string; order: 'asc' | 'desc' };
  limit: number;
  offset: number;
}

interface Prepared {
  /** Rows (or a promise of them on PostgreSQL). */
  execute(params?: Record<string, unknown>): unknown;
}

/** A SQLite read that can run on either side: in the read worker, or on the main thread's read connection. */
interface SqliteRead {
  execute(params: Record<string, unknown>, inWorker: boolean): Promise<unknown[]>;
  /** On the main thread's connection, without a promise (a small table's page and count). */
  here(params: Record<string, unknown>): unknown[];
}

/** SQLite's prepare() takes no name; PostgreSQL's needs one per distinct statement. */
const prepare = (builder: unknown, name: string): Prepared =>
  (builder as { prepare(name: string): Prepared }).prepare(name);

/** The positional parameters of a rendered statement: placeholders filled from `params`, constants as rendered. */
function binder(rendered: unknown[]): (params: Record<string, unknown>) => unknown[] {
  const slots = rendered.map((p): { name: string } | { value: unknown } => (is(p, Placeholder) ? { name: p.name as string } : { value: p }));
  return (params) => slots.map((s) => {
    if ('value' in s) return s.value;
    if (!(s.name in params)) throw new Error(`No value for placeholder "${s.name}" was provided`);
    return params[s.name];
  });
}

type Decoder = (value: unknown) => unknown;
const JSON_DECODER: Decoder = (v) => JSON.parse(v as string);
const BOOLEAN_DECODER: Decoder = (v) => Number(v) === 1;

const RANGE_OPS = { gt, gte, lt, lte } as const;

const escapeLike = (term: string) => `%${term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

export class Store<Row extends Record<string, unknown>> {
  private readonly lists = new Map<string, { rows: Prepared; total: Prepared }>();
  private readonly sqliteLists = new Map<string, { rows: SqliteRead; total: SqliteRead; exact: SqliteRead }>();
  /** SQLite: the bounded count of the table's rows and until when its verdict holds. */
  private size: { probe: SqliteStatement; large: boolean; until: number } | undefined;
  private readonly byKey = new Map<string, Prepared>();
  /**
   * SQLite, tables whose lists run in the read worker: list totals by filter values, each under the
   * database's change mark when it was counted (Database.changeMark): a page read again with
   * nothing committed since takes its total from here instead of counting again (up to COUNT_CAP
   * rows stepped in the worker).
   */
  private readonly totals = new Map<string, { mark: number; n: number }>();
  private appendOne: SqliteStatement | undefined;
  /** Columns whose stored value Drizzle decodes (JSON text, 0/1 booleans); the others are read as stored. */
  private readonly decoders: [string, Decoder][];

  constructor(
    readonly db: Database,
    readonly table: NeutralTable,
  ) {
    this.decoders = Object.entries(table.columns).flatMap(([name, spec]): [string, Decoder][] =>
      spec.kind === 'json' ? [[name, JSON_DECODER]] : spec.kind === 'boolean' ? [[name, BOOLEAN_DECODER]] : []);
  }

  private get t(): SQLiteTable {
    return tableFor(this.table, this.db.dialect);
  }

  private col(name: string) {
    return columnOf(this.table, this.db.dialect, name);
  }

  private statementName(kind: string, shape: string): string {
    return `${this.table.name}_${kind}_${createHash('sha1').update(shape).digest('hex').slice(0, 12)}`;
  }

  private conditions(whereCols: string[], qCols: readonly string[] | undefined, ranges: readonly Omit<RangeCondition, 'value'>[] = []): SQL | undefined {
    const parts: SQL[] = whereCols.map((c) => eq(this.col(c), sql.placeholder(`w_${c}`)));
    ranges.forEach((r, i) => parts.push(RANGE_OPS[r.op](this.col(r.column), sql.placeholder(`r_${i}`))));
    if (qCols?.length) {
      const ors = qCols.map((c) =>
        this.db.dialect === 'sqlite'
          ? sql`${this.col(c)} like ${sql.placeholder('q')} escape '\\'`
          : sql`${this.col(c)}::text ilike ${sql.placeholder('q')} escape '\\'`,
      );
      parts.push(or(...ors) as SQL);
    }
    return parts.length ? and(...parts) : undefined;
  }

  private listBuilders(opts: ListOptions, whereCols: string[], ranges: Omit<RangeCondition, 'value'>[]) {
    const cond = this.conditions(whereCols, opts.q?.columns, ranges);
    const dir = opts.sort.order === 'asc' ? asc : desc;
    const tiebreak = this.table.primaryKey.filter((k) => k !== opts.sort.column).map((k) => dir(this.col(k)));
    const orm = this.db.baseOrm;
    const rows = orm.select().from(this.t).where(cond).orderBy(dir(this.col(opts.sort.column)), ...tiebreak)
      .limit(sql.placeholder('limit')).offset(sql.placeholder('offset'));
    // The count stops one past COUNT_CAP: its cost is bounded whatever the table holds.
    const matches = orm.select({ one: sql`1` }).from(this.t).where(cond).limit(COUNT_CAP + 1).as('matches');
    const total = orm.select({ n: count() }).from(matches);
    // A small table's rows counted without the bound: the subquery's bound steps every row through
    // a co-routine, which costs several times a plain count (and a count of the whole table is
    // read from its b-tree's pages without visiting rows).
    const exact = orm.select({ n: count() }).from(this.t).where(cond);
    return { rows, total, exact };
  }

  private listShape(opts: ListOptions) {
    const whereCols = Object.keys(opts.where).sort();
    const ranges = (opts.ranges ?? []).map((r) => ({ column: r.column, op: r.op }));
    return { whereCols, ranges, shape: JSON.stringify([whereCols, opts.q?.columns ?? [], opts.sort, ranges]) };
  }

  /** PostgreSQL: a page and its count, prepared once per shape. */
  private preparedList(opts: ListOptions) {
    const { whereCols, ranges, shape } = this.listShape(opts);
    let p = this.lists.get(shape);
    if (!p) {
      const { rows, total } = this.listBuilders(opts, whereCols, ranges);
      p = { rows: prepare(rows, this.statementName('list', shape)), total: prepare(total, this.statementName('count', shape)) };
      this.lists.set(shape, p);
    }
    return p;
  }

  /** SQLite: the same, each runnable in the read worker or on the main thread's read connection. */
  private sqliteList(opts: ListOptions) {
    const { whereCols, ranges, shape } = this.listShape(opts);
    let p = this.sqliteLists.get(shape);
    if (!p) {
      const { rows, total, exact } = this.listBuilders(opts, whereCols, ranges);
      // Rows of `{ n }`, like Drizzle's count.
      const n = (r: Record<string, unknown>[]) => [{ n: Number(r[0]?.['count(*)'] ?? 0) }];
      p = { rows: this.sqliteRead(rows, (r) => this.decode(r)), total: this.sqliteRead(total, n), exact: this.sqliteRead(exact, n) };
      this.sqliteLists.set(shape, p);
    }
    return p;
  }

  /**
   * A select run by better-sqlite3 with its rows mapped here (which saves Drizzle's per-row
   * mapping): in the read worker, or on the main thread's read connection (prepared on first use).
   */
  private sqliteRead(builder: unknown, map: (rows: Record<string, unknown>[]) => unknown[]): SqliteRead {
    const { sql: text, params } = (builder as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    const offload = this.db.offloadSqlite!;
    const bind = binder(params);
    let stmt: SqliteStatement | undefined;
    const here = (values: Record<string, unknown>) => {
      stmt ??= this.db.prepareSqlite!(text);
      return map(stmt.all(...bind(values)) as Record<string, unknown>[]);
    };
    return {
      execute: async (values, inWorker) => (inWorker ? map((await offload(text, bind(values))) as Record<string, unknown>[]) : here(values)),
      here,
    };
  }

  /**
   * SQLite, the routing rule: this table's lists run in the read worker when it holds more than
   * SMALL_TABLE_ROWS rows. The rows are counted (at most SMALL_TABLE_ROWS + 1, along the smallest
   * index: tens of microseconds) on the main thread's read connection, at most once per SIZE_CHECK_MS.
   */
  readsInWorker(now = Date.now()): boolean {
    if (this.size && now < this.size.until) return this.size.large;
    const probe = this.size?.probe ?? this.db.prepareSqlite!(`select count(*) as n from (select 1 from "${this.table.name}" limit ${SMALL_TABLE_ROWS + 1})`);
    const n = Number((probe.get() as { n: number }).n);
    this.size = { probe, large: n > SMALL_TABLE_ROWS, until: now + SIZE_CHECK_MS };
    return this.size.large;
  }

  /** The same for a key lookup: on the main thread's read connection (a worker round trip costs more than the lookup). */
  private sqliteKeyRows(builder: unknown): Prepared {
    const { sql: text, params } = (builder as { toSQL(): { sql: string; params: unknown[] } }).toSQL();
    const stmt: SqliteStatement = this.db.prepareSqlite!(text);
    const bind = binder(params);
    return { execute: (values = {}) => this.decode(stmt.all(...bind(values)) as Record<string, unknown>[]) };
  }

  private decode(rows: Record<string, unknown>[]): Record<string, unknown>[] {
    const decoders = this.decoders;
    if (decoders.length) {
      for (const row of rows) {
        for (const [name, decode] of decoders) {
          const v = row[name];
          if (v !== null && v !== undefined) row[name] = decode(v);
        }
      }
    }
    return rows;
  }

  private listParams(opts: ListOptions): Record<string, unknown> {
    const params: Record<string, unknown> = { limit: opts.limit, offset: opts.offset };
    for (const k in opts.where) params[`w_${k}`] = this.param(opts.where[k] as string | number | boolean);
    if (opts.q?.columns.length) params.q = escapeLike(opts.q.term);
    (opts.ranges ?? []).forEach((r, i) => { params[`r_${i}`] = this.param(r.value); });
    return params;
  }

  /**
   * A page and its total. The total is exact up to COUNT_CAP matches; past that, `estimated` is
   * true and the total is a lower bound (the matches counted, or the end of this page plus one
   * when more follow), exact again on the last page. One row past the page tells whether more follow.
   */
  async list(opts: ListOptions): Promise<ListResult<Row>> {
    if (this.db.inTransaction()) throw new Error('Store.list is not for use inside a transaction');
    const params = this.listParams(opts);
    params.limit = opts.limit + 1;
    let found: Row[];
    let counted: { n: number | string }[];
    if (this.db.offloadSqlite) {
      const p = this.sqliteList(opts);
      const inWorker = this.readsInWorker();
      // A small table (the main thread) is counted exactly and plainly, at about the cost of
      // telling whether a kept total still holds; a large one's bounded count in the worker is kept
      // until something is committed. The mark is read before the count it labels: a commit after
      // it moves the mark, so that total is not kept.
      const mark = inWorker ? this.db.changeMark?.() : undefined;
      const key = mark === undefined ? undefined : this.totalKey(opts);
      const kept = key === undefined ? undefined : this.totals.get(key);
      if (!inWorker) {
        // Two statements on the main thread run one after the other anyway: no promises between them.
        found = p.rows.here(params) as Row[];
        counted = p.exact.here(params) as { n: number }[];
      } else if (kept && kept.mark === mark) {
        found = (await p.rows.execute(params, inWorker)) as Row[];
        counted = [{ n: kept.n }];
      } else {
        [found, counted] = (await Promise.all([p.rows.execute(params, inWorker), p.total.execute(params, inWorker)])) as [Row[], { n: number }[]];
        if (key !== undefined) {
          if (this.totals.size >= TOTALS_KEPT) this.totals.clear();
          this.totals.set(key, { mark: mark!, n: Number(counted[0]?.n ?? 0) });
        }
      }
    } else {
      const p = this.preparedList(opts);
      [found, counted] = (await Promise.all([p.rows.execute(params), p.total.execute(params)])) as [Row[], { n: number | string }[]];
    }
    const more = found.length > opts.limit;
    const rows = more ? found.slice(0, opts.limit) : found;
    const n = Number(counted[0]?.n ?? 0);
    if (n <= COUNT_CAP) return { rows, total: n, estimated: false };
    if (!more && rows.length) return { rows, total: opts.offset + rows.length, estimated: false };
    return { rows, total: Math.max(n, opts.offset + rows.length + (more ? 1 : 0)), estimated: true };
  }

  /** What a total depends on: the list's filters, search and their values (not its order or page). */
  private totalKey(opts: ListOptions): string {
    return JSON.stringify([opts.where, opts.q ?? null, opts.ranges ?? null]);
  }

  private keyStatement(cols: string[]): Prepared {
    const shape = cols.join(',');
    let p = this.byKey.get(shape);
    if (!p) {
      const builder = this.db.baseOrm.select().from(this.t).where(this.conditions(cols, undefined));
      p = this.db.prepareSqlite ? this.sqliteKeyRows(builder) : prepare(builder, this.statementName('get', shape));
      this.byKey.set(shape, p);
    }
    return p;
  }

  /** First row matching every column = value in `key` (usually the primary key). */
  async find(key: Filter): Promise<Row | undefined> {
    if (this.db.inTransaction()) {
      // Prepared statements belong to the base connection; inside a transaction, use the transaction's.
      return ((await this.db.orm.select().from(this.t).where(this.whereNow(key)).limit(1)) as Row[])[0];
    }
    const cols = Object.keys(key).sort();
    const params = Object.fromEntries(cols.map((c) => [`w_${c}`, this.param(key[c] as string | number | boolean)]));
    const rows = (await this.keyStatement(cols).execute(params)) as Row[];
    return rows[0];
  }

  /** Inserts the row; returns undefined (and changes nothing) when the primary key is taken. */
  async insert(row: Row): Promise<Row | undefined> {
    return this.db.transaction(async () => {
      const key = Object.fromEntries(this.table.primaryKey.map((k) => [k, row[k] as string]));
      if (await this.find(key)) return undefined;
      const out = (await this.db.orm.insert(this.t).values(row as never).returning()) as Row[];
      return out[0];
    });
  }

  /**
   * Adds a row whose key is new by construction (a log entry), without the existence check of
   * insert(). On SQLite one prepared statement (no query building per row); callers that share
   * the connection with transactions run it inside db.transaction().
   */
  async append(row: Row): Promise<void> {
    if (!this.db.prepareSqlite) {
      await this.db.orm.insert(this.t).values(row as never);
      return;
    }
    const cols = Object.entries(this.table.columns);
    this.appendOne ??= this.db.prepareSqlite(`insert into "${this.table.name}" (${cols.map(([c]) => `"${c}"`).join(', ')}) values (${cols.map(() => '?').join(', ')})`);
    this.appendOne.run(...cols.map(([c, spec]) => {
      const v = row[c];
      if (v === undefined || v === null) return null;
      return spec.kind === 'json' ? JSON.stringify(v) : spec.kind === 'boolean' ? (v ? 1 : 0) : v;
    }));
  }

  async update(key: Filter, patch: Partial<Row>): Promise<Row | undefined> {
    return this.db.transaction(async () => {
      const out = (await this.db.orm.update(this.t).set(patch as never).where(this.whereNow(key)).returning()) as Row[];
      return out[0];
    });
  }

  async delete(key: Filter): Promise<Row | undefined> {
    return this.db.transaction(async () => {
      const out = (await this.db.orm.delete(this.t).where(this.whereNow(key)).returning()) as Row[];
      return out[0];
    });
  }

  private whereNow(key: Filter): SQL | undefined {
    return and(...Object.entries(key).map(([c, v]) => eq(this.col(c), v)));
  }

  /** better-sqlite3 binds booleans as 0/1 only when told; PostgreSQL takes them as they are. */
  private param(v: string | number | boolean): string | number | boolean {
    return this.db.dialect === 'sqlite' && typeof v === 'boolean' ? (v ? 1 : 0) : v;
  }
}

const shared = new WeakMap<Database, Map<NeutralTable, Store<Record<string, unknown>>>>();
/**
 * The one Store of a table on a database, kept: a Store prepares its statements on first use, so a
 * Store made per call (an event handler, a queue) renders and prepares its SQL again every time.
 */
export function storeFor<Row extends Record<string, unknown>>(db: Database, table: NeutralTable): Store<Row> {
  let byTable = shared.get(db);
  if (!byTable) shared.set(db, (byTable = new Map()));
  let s = byTable.get(table);
  if (!s) byTable.set(table, (s = new Store(db, table)));
  return s as unknown as Store<Row>;
}
