// The roll-up list with the buckets not yet stored (open-rollups.ts): an open bucket that has a
// stored row (a late point's, or one written at a flush) is added to that row; one without is an
// item of its own, after the stored ones in time order: the open buckets are the newest (the
// current minute and hour), so a chart's page, oldest first or newest first, gets them where
// they belong, and `total` counts them. A list in another order (by device or metric) has the open
// buckets written first: rare, and then exact whatever the order.
import { sql } from 'drizzle-orm';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';
import type { Database } from '../../db/client.js';
import { mergeRollup, seriesMatches, type OpenBucket, type SeriesFilter } from './open-rollups.js';
import type { Rollup } from './rollups.js';
import { RESOLUTIONS, type Resolution } from './schema.js';

interface ListAnswer {
  items: Record<string, unknown>[];
  offset: number;
  limit: number;
  total: number;
  total_estimated?: true;
}

const NAMES = Object.fromEntries(Object.entries(RESOLUTIONS).map(([name, seconds]) => [seconds, name])) as Record<number, Resolution>;
const iso = (ms: number) => new Date(ms).toISOString();
const orNull = (x: string) => (x === '' ? null : x);
const itemKey = (tenant: unknown, site: unknown, device: unknown, metric: unknown, unit: unknown, bucket: number) =>
  `${String(tenant)}\u0000${String(site ?? '')}\u0000${String(device)}\u0000${String(metric)}\u0000${String(unit ?? '')}\u0000${bucket}`;
const keyOfBucket = (b: OpenBucket) => itemKey(b.series.tenant_id, b.series.site_id, b.series.device_id, b.series.metric, b.series.unit, b.bucket);

/** The item of a bucket, as the resource's toItem makes it from a stored row. */
function itemOf(b: OpenBucket): Record<string, unknown> {
  return {
    tenant_id: b.series.tenant_id, site_id: orNull(b.series.site_id), device_id: b.series.device_id, metric: b.series.metric, unit: orNull(b.series.unit),
    resolution: NAMES[b.resolution], bucket: iso(b.bucket), count: b.count, value_count: b.value_count, sum: b.sum,
    avg: b.value_count > 0 ? b.sum / b.value_count : null, min: b.min, max: b.max, last: b.last, last_ts: iso(b.last_ts),
  };
}

/** A stored item with an open bucket's points added. */
function addTo(item: Record<string, unknown>, b: OpenBucket): Record<string, unknown> {
  const stored: Rollup = {
    series_id: b.series_id, resolution: b.resolution, bucket: b.bucket, count: Number(item.count), value_count: Number(item.value_count), sum: Number(item.sum),
    min: item.min as number | null, max: item.max as number | null, last: item.last as number | null, last_ts: Date.parse(String(item.last_ts)),
  };
  const m = mergeRollup(stored, b);
  return { ...item, count: m.count, value_count: m.value_count, sum: m.sum, avg: m.value_count > 0 ? m.sum / m.value_count : null, min: m.min, max: m.max, last: m.last, last_ts: iso(m.last_ts) };
}

/** Which of the open buckets already have a stored row (one query over their series). */
async function storedKeys(db: Database, resolution: number, open: readonly OpenBucket[]): Promise<Set<string>> {
  const known = open.filter((b) => b.series_id >= 0);
  const out = new Set<string>();
  if (!known.length) return out;
  const ids = [...new Set(known.map((b) => b.series_id))];
  const buckets = [...new Set(known.map((b) => b.bucket))];
  const rows = await db.rows<{ series_id: number | string; bucket: number | string }>(sql`select series_id, bucket from telemetry_rollups
    where resolution = ${resolution} and series_id in (${sql.join(ids.map((i) => sql`${i}`), sql`, `)}) and bucket in (${sql.join(buckets.map((x) => sql`${x}`), sql`, `)})`);
  for (const r of rows) out.add(`${Number(r.series_id)}:${Number(r.bucket)}`);
  return out;
}

export function withOpenBuckets(route: AnyRoute): AnyRoute {
  const list = route.handler as (ctx: HandlerContext<unknown>) => Promise<ListAnswer>;
  return {
    ...route,
    handler: async (ctx: HandlerContext<unknown>) => {
      const writer = ctx.services.telemetry?.writer;
      const q = ctx.query as Record<string, string | number | undefined>;
      const resolution = RESOLUTIONS[q.resolution as Resolution];
      const caller = ctx.caller;
      const scoped = caller?.scope_type === 'tenant' ? caller.tenant_id : undefined;
      if (!writer || resolution === undefined || (scoped !== undefined && q.tenant_id !== undefined && q.tenant_id !== scoped)) return list(ctx);
      const f: SeriesFilter = {};
      for (const k of ['site_id', 'device_id', 'metric', 'q'] as const) if (typeof q[k] === 'string') f[k] = q[k] as string;
      const tenant = scoped ?? (q.tenant_id as string | undefined);
      if (tenant !== undefined) f.tenant_id = tenant;
      const from = q.from !== undefined ? Date.parse(String(q.from)) : -Infinity;
      const to = q.to !== undefined ? Date.parse(String(q.to)) : Infinity;
      const open = writer.openBuckets(resolution).filter((b) => b.bucket >= from && b.bucket < to && seriesMatches(b.series, f));
      if (!open.length) return list(ctx);
      if (q.sort !== undefined && q.sort !== 'bucket') {
        await writer.flush();
        return list(ctx);
      }
      const order = (q.order as 'asc' | 'desc' | undefined) ?? (q.sort !== undefined || q.from !== undefined ? 'asc' : 'desc');
      const stored = await storedKeys(ctx.services.db, resolution, open);
      const onRows = new Map<string, OpenBucket>();
      const extra: OpenBucket[] = [];
      for (const b of open) {
        if (stored.has(`${b.series_id}:${b.bucket}`)) onRows.set(keyOfBucket(b), b);
        else extra.push(b);
      }
      const byTime = (a: OpenBucket, b: OpenBucket) => a.bucket - b.bucket || keyOfBucket(a).localeCompare(keyOfBucket(b));
      extra.sort(order === 'asc' ? byTime : (a, b) => byTime(b, a));
      const offset = Number(q.offset ?? 0);
      const limit = Number(q.limit);
      let items: Record<string, unknown>[];
      let answer: ListAnswer;
      if (order === 'desc') {
        const first = extra.slice(offset, offset + limit);
        const rest = limit - first.length;
        answer = await list({ ...ctx, query: { ...ctx.query, offset: Math.max(0, offset - extra.length), limit: Math.max(1, rest) } });
        items = [...first.map(itemOf), ...(rest > 0 ? answer.items : [])];
      } else {
        answer = await list(ctx);
        const after = answer.total_estimated ? [] : extra.slice(Math.max(0, offset - answer.total), Math.max(0, offset + limit - answer.total));
        items = [...answer.items, ...after.map(itemOf)].slice(0, limit);
      }
      items = items.map((item) => {
        const b = onRows.get(itemKey(item.tenant_id, item.site_id, item.device_id, item.metric, item.unit, Date.parse(String(item.bucket))));
        return b ? addTo(item, b) : item;
      });
      return { ...answer, items, offset, limit, total: answer.total + extra.length };
    },
  };
}
