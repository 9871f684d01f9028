// Generic CRUD over a neutral table for the active dialect. Reads outside transactions are
// prepared once per shape (which filters, whether q is present, sort field and direction) and reused, because
// Drizzle otherwise rebuilds the SQL on every call. Writes run inside db.transaction so that on
// SQLite no other request's statements can interleave with them.
import { createHash } from 'node:crypto';
import { and, asc, count, desc, eq, or, sql, type SQL } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import type { Database } from './client.js';
import { columnOf, tableFor, type NeutralTable } from './table.js';

export type Filter = Record<string, string | number | boolean>;

export interface ListOptions {
  where: Filter;
  q?: { columns: readonly string[]; term: string };
  sort: { column: string; order: 'asc' | 'desc' };
  limit: number;
  offset: number;
}

interface Prepared {
  execute(params?: Record<string, unknown>): unknown;
}

/** SQLite's prepare() takes no name; PostgreSQL's needs one per distinct statement. */
const prepare = (builder: unknown, name: string): Prepared =>
  (builder as { prepare(name: string): Prepared }).prepare(name);

const escapeLike = (term: string) => `%${term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

export class Store<Row extends Record<string, unknown>> {
  private readonly lists = new Map<string, { rows: Prepared; total: Prepared }>();
  private readonly byKey = new Map<string, Prepared>();

  constructor(
    readonly db: Database,
    readonly table: NeutralTable,
  ) {}

  private get t(): SQLiteTable {
    return tableFor(this.table, this.db.dialect);
  }

  private col(name: string) {
    return columnOf(this.table, this.db.dialect, name);
  }

  private statementName(kind: string, shape: string): string {
    return `${this.table.name}_${kind}_${createHash('sha1').update(shape).digest('hex').slice(0, 12)}`;
  }

  private conditions(whereCols: string[], qCols: readonly string[] | undefined): SQL | undefined {
    const parts: SQL[] = whereCols.map((c) => eq(this.col(c), sql.placeholder(`w_${c}`)));
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

  private preparedList(opts: ListOptions) {
    const whereCols = Object.keys(opts.where).sort();
    const shape = JSON.stringify([whereCols, opts.q?.columns ?? [], opts.sort]);
    let p = this.lists.get(shape);
    if (!p) {
      const cond = this.conditions(whereCols, opts.q?.columns);
      const dir = opts.sort.order === 'asc' ? asc : desc;
      const tiebreak = this.table.primaryKey.filter((k) => k !== opts.sort.column).map((k) => dir(this.col(k)));
      const orm = this.db.baseOrm;
      p = {
        rows: prepare(orm.select().from(this.t).where(cond).orderBy(dir(this.col(opts.sort.column)), ...tiebreak)
          .limit(sql.placeholder('limit')).offset(sql.placeholder('offset'))
          ,
          this.statementName('list', shape)),
        total: prepare(orm.select({ n: count() }).from(this.t).where(cond), this.statementName('count', shape)),
      };
      this.lists.set(shape, p);
    }
    return p;
  }

  async list(opts: ListOptions): Promise<{ rows: Row[]; total: number }> {
    if (this.db.inTransaction()) throw new Error('Store.list is not for use inside a transaction');
    const p = this.preparedList(opts);
    const params: Record<string, unknown> = { limit: opts.limit, offset: opts.offset };
    for (const [k, v] of Object.entries(opts.where)) params[`w_${k}`] = this.param(v);
    if (opts.q?.columns.length) params.q = escapeLike(opts.q.term);
    const [rows, total] = await Promise.all([p.rows.execute(params), p.total.execute(params)]);
    return { rows: rows as Row[], total: Number((total as { n: number | string }[])[0]?.n ?? 0) };
  }

  private keyStatement(cols: string[]): Prepared {
    const shape = cols.join(',');
    let p = this.byKey.get(shape);
    if (!p) {
      p = prepare(this.db.baseOrm.select().from(this.t).where(this.conditions(cols, undefined)), this.statementName('get', shape));
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
