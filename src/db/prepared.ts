// A query of a hot path, built once. Drizzle renders a query's SQL each time it runs it: on a
// wide table (the alarm events' 40-odd columns) that rendering cost more than SQLite's work, and
// an alarm raised or cleared ran half a dozen of them (bench/readings-pipeline.ts, swine).
//
// On SQLite the query is built once per database with placeholders and prepared; its statement is
// routed at each run (routed-statement.ts), so it runs on the writer inside a transaction (seeing
// the transaction's rows) and on the read connection outside one, like any query of `db.orm`.
// On PostgreSQL it is built per call on `db.orm`, which follows the transaction in force: a
// named statement prepared on the pool could not run on a transaction's connection.
import { sql } from 'drizzle-orm';
import type { Database, Orm } from './client.js';

export type QueryParams = Record<string, string | number | boolean | null>;

/** What a Drizzle builder offers both ways: awaited as it is, or prepared (SQLite's prepare takes no name). */
interface Buildable extends PromiseLike<unknown> {
  prepare(): { execute(params: Record<string, unknown>): unknown };
}

/**
 * `build(db, orm, p)` makes the query; `p(name)` stands for the parameter `name` (a placeholder on
 * SQLite, the value itself on PostgreSQL). Only parameters may differ between runs: anything else
 * in the query is fixed at its first build on SQLite. Booleans are bound as SQLite stores them (0/1).
 */
export function preparedQuery<P extends QueryParams, R>(
  build: (db: Database, orm: Orm, p: <K extends keyof P & string>(name: K) => P[K]) => Buildable,
): (db: Database, params: P) => Promise<R> {
  const prepared = new WeakMap<Database, { execute(params: Record<string, unknown>): unknown }>();
  return async (db, params) => {
    // R is what the caller knows the rows to be (Drizzle's builders over neutral tables are typed loosely).
    if (db.dialect !== 'sqlite') return (await build(db, db.orm, (name) => params[name])) as R;
    let q = prepared.get(db);
    if (!q) prepared.set(db, (q = build(db, db.baseOrm, (name) => sql.placeholder(name) as never).prepare()));
    const bound: Record<string, unknown> = {};
    for (const k in params) {
      const v = params[k];
      bound[k] = typeof v === 'boolean' ? (v ? 1 : 0) : v;
    }
    return q.execute(bound) as R;
  };
}
