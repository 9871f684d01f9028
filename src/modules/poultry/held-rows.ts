// A list that also shows the rows held for the whole minute's commit (src/db/group-commit.ts,
// telemetry_hold_ms): the house screen and the readings list show a polled reading as soon as it
// is judged, as they did when it was committed within 2 s. The held rows that pass the caller's
// scope and the list's filters are merged with the stored page in the list's order (the stored
// rows up to the end of the page are read, then the page is cut from both); `total` counts them.
// A search, or a page deep enough that reading up to its end would cost more than a commit, has
// the held rows committed first instead.
import { flushGrouped, pendingRows } from '../../db/group-commit.js';
import type { ResourceDef } from '../../kernel/resource.js';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';

/** Deeper than this, the held rows are committed first rather than merged. */
const MERGE_DEPTH = 1000;

interface ListAnswer {
  items: Record<string, unknown>[];
  offset: number;
  limit: number;
  total: number;
  total_estimated?: true;
}

type Test = (row: Record<string, unknown>) => boolean;

const compare = (a: unknown, b: unknown): number => {
  if (a === b) return 0;
  if (a === null || a === undefined) return -1; // SQL sorts NULL first in ascending order (SQLite)
  if (b === null || b === undefined) return 1;
  return a < b ? -1 : 1;
};

export function withHeldRows<Row extends Record<string, unknown>>(
  route: AnyRoute,
  resource: { kit: { scope(caller: HandlerContext<unknown>['caller']): Record<string, unknown> }; def: ResourceDef<Row> },
  tables: readonly string[],
): AnyRoute {
  const list = route.handler as (ctx: HandlerContext<unknown>) => Promise<ListAnswer>;
  const { def } = resource;
  const filterOf = (name: string) => def.filters?.[name] ?? (def.fields[name]?.filter ? (typeof def.fields[name]!.filter === 'object' ? def.fields[name]!.filter : {}) : undefined);
  const names = [...new Set([...Object.keys(def.filters ?? {}), ...Object.entries(def.fields).filter(([, f]) => f.filter).map(([n]) => n)])];
  return {
    ...route,
    handler: async (ctx: HandlerContext<unknown>) => {
      const { db } = ctx.services;
      const held = tables.flatMap((t) => pendingRows<Row>(db, t));
      if (!held.length) return list(ctx);
      const q = ctx.query as Record<string, string | number | boolean | undefined>;
      const offset = Number(q.offset ?? 0);
      const limit = Number(q.limit);
      if (q.q !== undefined || offset + limit > MERGE_DEPTH) {
        await flushGrouped(db);
        return list(ctx);
      }
      const tests: Test[] = Object.entries(resource.kit.scope(ctx.caller)).map(([k, v]) => (r) => r[k] === v);
      let implied: 'asc' | 'desc' | undefined;
      for (const name of names) {
        const given = q[name];
        if (given === undefined) continue;
        const f = filterOf(name) as { column?: string; op?: string; defaultOrder?: 'asc' | 'desc'; encode?: (v: string | number | boolean) => unknown } | undefined;
        const column = f?.column ?? name;
        const value = f?.encode ? f.encode(given) : given;
        const op = f?.op ?? 'eq';
        if (op !== 'eq') implied ??= f?.defaultOrder;
        tests.push((r) => {
          const c = compare(r[column], value);
          return op === 'gte' ? c >= 0 : op === 'gt' ? c > 0 : op === 'lte' ? c <= 0 : op === 'lt' ? c < 0 : r[column] === value;
        });
      }
      const mine = held.filter((r) => tests.every((t) => t(r)));
      if (!mine.length) return list(ctx);
      const field = (q.sort as string | undefined) ?? def.defaultSort.field;
      const order = (q.order as 'asc' | 'desc' | undefined) ?? (q.sort ? 'asc' : (implied ?? def.defaultSort.order));
      const sign = order === 'asc' ? 1 : -1;
      const stored = await list({ ...ctx, query: { ...ctx.query, offset: 0, limit: offset + limit } });
      // Ties: a held row after the stored ones (it came later), whatever the order.
      const merged: { item: Record<string, unknown>; held: boolean }[] = stored.items.map((item) => ({ item, held: false }));
      for (const row of mine.map((r) => def.toItem(r))) merged.push({ item: row, held: true });
      merged.sort((a, b) => sign * compare(a.item[field], b.item[field]) || Number(a.held) - Number(b.held));
      return { ...stored, offset, limit, items: merged.slice(offset, offset + limit).map((m) => m.item), total: stored.total + mine.length };
    },
  };
}
