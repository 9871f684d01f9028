// One statement text, two SQLite connections: a query runs on the read connection unless its
// caller is inside a transaction (the writer holds that transaction's own rows); anything that
// writes always runs on the writer. Each connection's statement is prepared on first use and kept,
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

export function routedStatement(text: string, writer: BetterDatabase, reader: BetterDatabase, inTransaction: () => boolean): RoutedStatement {
  let onWriter: Statement | undefined;
  let onReader: Statement | undefined;
  // A text that reads by its first word but writes (a CTE in front of an insert) goes to the writer for good.
  let writes = !QUERY.test(text);
  const pick = (): Statement => {
    if (!writes && !inTransaction()) {
      if (!onReader) {
        const s = reader.prepare(text);
        if (s.readonly) onReader = s;
        else writes = true;
      }
      if (onReader) return onReader;
    }
    return (onWriter ??= writer.prepare(text));
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
