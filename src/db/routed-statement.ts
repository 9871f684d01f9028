// One statement text, two SQLite connections: while a transaction is open on the writer, a query
// runs on the read connection unless its caller is inside that transaction (the writer holds the
// transaction's uncommitted rows, which nobody else may see); anything that writes always runs on
// the writer. While no transaction is open the writer holds only committed rows, the same state
// the read connection would see, so everything runs there: the read connection starts each query
// with an empty page cache whenever the writer has committed since its last one (WAL), which costs
// a lookup under a steady stream of commits (readings) about half as much again as on the writer,
// whose cache its own commits keep warm. Each connection's statement is prepared on first use and kept,
// so a statement prepared once (Store, the telemetry writer) stays prepared on both.
import type { Database as BetterDatabase, Statement } from 'better-sqlite3';

/** What Drizzle's better-sqlite3 session calls on a statement: all/get/run, and raw() for row arrays. */
export interface RoutedStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
  raw(on?: boolean): RoutedStatement;
}

/** A text that can only read: SQLite's own verdict is asked too (stmt.readonly) before the reader runs it. */
const QUERY = /^\s*(select|with|values)\b/i;

/**
 * `wrote`: told each time a statement that can change the database runs on the writer (Store's
 * list totals are kept until then: src/db/store.ts).
 */
export function routedStatement(text: string, writer: BetterDatabase, reader: BetterDatabase, inTransaction: () => boolean, wrote: () => void = () => undefined): RoutedStatement {
  let onWriter: Statement | undefined;
  let onReader: Statement | undefined;
  // A text that reads by its first word but writes (a CTE in front of an insert) goes to the writer for good.
  let writes = !QUERY.test(text);
  const onWriterNow = (): Statement => {
    const s = (onWriter ??= writer.prepare(text));
    if (!s.readonly) wrote();
    return s;
  };
  const pick = (): Statement => {
    if (!writer.inTransaction) return onWriterNow();
    if (!writes && !inTransaction()) {
      if (!onReader) {
        const s = reader.prepare(text);
        if (s.readonly) onReader = s;
        else writes = true;
      }
      if (onReader) return onReader;
    }
    return onWriterNow();
  };
  const make = (rawRows: boolean): RoutedStatement => {
    // raw() is a mode of the shared statement: set it on every call, on statements that return rows.
    const ready = () => {
      const s = pick();
      if (s.reader) s.raw(rawRows);
      return s;
    };
    const self: RoutedStatement = {
      all: (...params) => ready().all(...params),
      get: (...params) => ready().get(...params),
      run: (...params) => pick().run(...params),
      raw: (on = true) => (on === rawRows ? self : make(on)),
    };
    return self;
  };
  return make(false);
}
