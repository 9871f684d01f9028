// `status/list?since=<id>`: the polling form of the stream's catch-up (every stored event with a
// greater id), for clients without a WebSocket. The resource kit's list filters are equalities;
// `since` is a comparison, so a list call that carries it is answered here, with the same scope,
// filters, search, sort and paging as the kit's list, plus `id > since`. Without `since` the kit's
// own handler answers. (When the kit gains comparison filters, this file goes.)
import { and, asc, count, desc, eq, gt, or, sql, type SQL } from 'drizzle-orm';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';
import type { FilterSpec, ResourceKit, ResourceDef } from '../../kernel/resource.js';
import { colOf, tableOf } from '../../realtime/sql.js';
import { statusEvents } from './schema.js';

const escapeLike = (term: string) => `%${term.replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

export function withSince<Row extends Record<string, unknown>>(list: AnyRoute, def: ResourceDef<Row>, kit: ResourceKit<Row>): AnyRoute {
  // The kit's own lists: its list route's query holds the paging parameters plus exactly the
  // filters (declared on the resource or marked on its fields); searched fields, likewise both.
  const PAGING = new Set(['limit', 'offset', 'sort', 'order', 'q']);
  const filters = Object.fromEntries(Object.entries(list.query ?? {}).filter(([name]) => !PAGING.has(name))) as Record<string, FilterSpec>;
  const search = [...new Set([...(def.search ?? []), ...Object.entries(def.fields).filter(([, f]) => f.searchable).map(([name]) => name)])];
  async function sinceHandler(ctx: HandlerContext<unknown>) {
    await def.beforeRead?.(ctx);
    const { db } = ctx.services;
    const q = ctx.query;
    const c = (name: string) => colOf(statusEvents, db, name);
    const where: Record<string, string | number | boolean> = { ...kit.scope(ctx.caller) };
    for (const [name, f] of Object.entries(filters)) {
      const value = q[name];
      if (value === undefined) continue;
      const column = f.column ?? name;
      // As in the kit: a filter on the tenant column cannot widen a tenant caller's scope.
      if (column in where && where[column] !== value) return { items: [], offset: q.offset, limit: q.limit, total: 0 };
      where[column] = value as string | number | boolean;
    }
    const parts: SQL[] = [gt(c('id'), q.since as number), ...Object.entries(where).map(([k, v]) => eq(c(k), v))];
    if (typeof q.q === 'string' && search.length) {
      const term = escapeLike(q.q);
      const like = (col: string) => (db.dialect === 'sqlite' ? sql`${c(col)} like ${term} escape '\\'` : sql`${c(col)}::text ilike ${term} escape '\\'`);
      parts.push(or(...search.map(like)) as SQL);
    }
    const cond = and(...parts);
    // Oldest first unless asked otherwise: a poller reads the events after its last id in order.
    const dir = q.order === 'desc' ? desc : asc;
    const sortCol = (q.sort as string | undefined) ?? 'id';
    const t = tableOf(statusEvents, db);
    const [rows, totals] = await Promise.all([
      db.orm.select().from(t).where(cond).orderBy(dir(c(sortCol)), dir(c('id'))).limit(q.limit as number).offset(q.offset as number),
      db.orm.select({ n: count() }).from(t).where(cond),
    ]);
    const total = Number((totals as { n: number | string }[])[0]?.n ?? 0);
    return { items: (rows as Row[]).map(def.toItem), offset: q.offset, limit: q.limit, total };
  }
  return {
    ...list,
    query: {
      ...list.query,
      since: { type: 'integer', min: 0, description: 'Only events with an id greater than this (the stream\'s last id), oldest first unless sort/order say otherwise: poll with the last id seen.' },
    },
    handler: (ctx) => (ctx.query.since === undefined ? list.handler(ctx) : sinceHandler(ctx)),
  };
}
