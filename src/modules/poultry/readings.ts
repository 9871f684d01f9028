// poultry-climate-readings: the stored climate readings (poultry_climate_readings, written by
// poultry-climate/commands/telemetry, the sensors ingest and MQTT), read-only: scheme, list and
// {id}, tenant-scoped and site-bound through the kit, newest first, with the range filters
// from/to on ts; every item says its age_s and whether it is stale (src/industry/stale.ts). And the hourly roll-up a batch chart needs (GET poultry-climate-readings/hourly):
// one row per hour computed in SQL (GROUP BY the hour; ts is RFC 3339 UTC text in both engines, so
// substr(ts, 1, 13) is the hour), ~1,000 points for a 42-day batch instead of 60,000 readings; and
// the minute roll-up (GET poultry-climate-readings/minutely, substr(ts, 1, 16)) for a batch's first hours.
import { and, asc, count, eq, gte, lt, sql, type SQL } from 'drizzle-orm';
import { defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import type { Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { readingRecord, readingView, recentReadingTable, type ReadingRow } from './climate-schema.js';
import { staleAware, staleFields } from '../../industry/stale.js';
import { holdRowsOf, pendingRows } from '../../db/group-commit.js';
import { withHeldRows } from './held-rows.js';

const HOUR_MS = 3_600_000;
/** Where the readings not yet committed are appended: the recent table on SQLite, the readings' own on PostgreSQL. */
const HELD_TABLES = [readingRecord.table.name, recentReadingTable.name];
/** The longest window of the hourly roll-up: a batch with room to spare (2,880 hours). */
export const HOURLY_MAX_DAYS = 120;

export const readingsResource = defineResource<ReadingRow>({
  name: 'poultry-climate-readings',
  module: 'poultry',
  title: 'Poultry climate readings',
  // The stored readings and, on SQLite, those waiting to be settled (recent-readings.ts).
  table: readingView,
  fields: {
    ...readingRecord.fields,
    source: { ...readingRecord.fields.source, enum: ['device', 'mqtt', 'api', 'manual'], description: 'How the reading came: device (read by the poller from the house controller), mqtt, api (poultry-climate/commands/telemetry, sensors/commands/ingest) or manual (typed in).' },
    ...staleFields,
  },
  access: { resource: 'poultry-climate', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  filters: {
    from: { type: 'string', format: 'date-time', column: 'ts', op: 'gte', description: 'Readings at or after this time (RFC 3339 date-time).' },
    to: { type: 'string', format: 'date-time', column: 'ts', op: 'lt', description: 'Readings before this time (RFC 3339 date-time).' },
  },
  defaultSort: { field: 'ts', order: 'desc' },
  toItem: (row) => row,
});

const climateAggregates = {
  n: { type: 'integer', description: 'Readings in the bucket.' },
  temp_avg: { type: ['number', 'null'] }, temp_min: { type: ['number', 'null'] }, temp_max: { type: ['number', 'null'] },
  humidity_avg: { type: ['number', 'null'] }, co2_max: { type: ['number', 'null'] }, nh3_max: { type: ['number', 'null'] }, ventilation_avg: { type: ['number', 'null'] },
};

const numOrNull = (x: unknown): number | null => (x === null || x === undefined ? null : Number(x));

/** A bucket's aggregates kept as sums and counts, so readings not yet stored can be added to it. */
interface Bucket {
  n: number;
  temp: { sum: number; n: number }; humidity: { sum: number; n: number }; ventilation: { sum: number; n: number };
  temp_min: number | null; temp_max: number | null; co2_max: number | null; nh3_max: number | null;
}
const emptyBucket = (): Bucket => ({ n: 0, temp: { sum: 0, n: 0 }, humidity: { sum: 0, n: 0 }, ventilation: { sum: 0, n: 0 }, temp_min: null, temp_max: null, co2_max: null, nh3_max: null });
const bucketOf = (r: Record<string, unknown>): Bucket => ({
  n: Number(r.n),
  temp: { sum: Number(r.temp_sum ?? 0), n: Number(r.temp_n) }, humidity: { sum: Number(r.humidity_sum ?? 0), n: Number(r.humidity_n) },
  ventilation: { sum: Number(r.ventilation_sum ?? 0), n: Number(r.ventilation_n) },
  temp_min: numOrNull(r.temp_min), temp_max: numOrNull(r.temp_max), co2_max: numOrNull(r.co2_max), nh3_max: numOrNull(r.nh3_max),
});
const avgOf = (a: { sum: number; n: number }) => (a.n > 0 ? a.sum / a.n : null);
const lower = (a: number | null, x: number) => (a === null || x < a ? x : a);
const higher = (a: number | null, x: number) => (a === null || x > a ? x : a);
function addReading(b: Bucket, r: ReadingRow): void {
  b.n++;
  if (r.temp !== null && r.temp !== undefined) { b.temp.sum += r.temp; b.temp.n++; b.temp_min = lower(b.temp_min, r.temp); b.temp_max = higher(b.temp_max, r.temp); }
  if (r.humidity !== null && r.humidity !== undefined) { b.humidity.sum += r.humidity; b.humidity.n++; }
  if (r.ventilation !== null && r.ventilation !== undefined) { b.ventilation.sum += r.ventilation; b.ventilation.n++; }
  if (r.co2 !== null && r.co2 !== undefined) b.co2_max = higher(b.co2_max, r.co2);
  if (r.nh3 !== null && r.nh3 !== undefined) b.nh3_max = higher(b.nh3_max, r.nh3);
}

/** One roll-up route: buckets of an hour or a minute (ts is RFC 3339 UTC text in both engines, so its first 13 or 16 characters are the bucket). */
function rollupRoute(bucket: 'hour' | 'minute', path: string, maxMs: number, maxWords: string, summary: string): AnyRoute {
  const width = bucket === 'hour' ? 13 : 16;
  const suffix = bucket === 'hour' ? ':00:00.000Z' : ':00.000Z';
  return defineRoute({
    method: 'get',
    path,
    module: 'poultry',
    tags: ['poultry'],
    summary: `${summary} house_id is required; the window from..to (default: the 24 hours before to, which defaults to now) is at most ${maxWords}.`,
    access: { resource: 'poultry-climate', action: 'read', scope: 'tenant' },
    query: {
      house_id: { type: 'string', required: true, description: 'The house.' },
      batch_id: { type: 'string', description: 'Only readings of this batch.' },
      from: { type: 'string', format: 'date-time', description: 'Start (included; RFC 3339 date-time). Default: 24 hours before `to`.' },
      to: { type: 'string', format: 'date-time', description: 'End (excluded; RFC 3339 date-time). Default: now.' },
    },
    response: {
      kind: 'single',
      item: {
        type: 'object', required: ['house_id', 'from', 'to', 'items'],
        properties: {
          house_id: { type: 'string' }, batch_id: { type: ['string', 'null'] }, from: { type: 'string', format: 'date-time' }, to: { type: 'string', format: 'date-time' },
          items: { type: 'array', items: { type: 'object', required: [bucket, ...Object.keys(climateAggregates)], properties: { [bucket]: { type: 'string', format: 'date-time', description: `Start of the UTC ${bucket}.` }, ...climateAggregates } } },
        },
      },
    },
    handler: async (ctx) => {
      const q = ctx.query as { house_id: string; batch_id?: string; from?: string; to?: string };
      const to = q.to ?? new Date().toISOString();
      const from = q.from ?? new Date(Date.parse(to) - 24 * HOUR_MS).toISOString();
      const span = Date.parse(to) - Date.parse(from);
      if (span <= 0) throw new ApiError('validation_error', `from (${from}) must be before to (${to})`, [{ field: 'from', reason: 'not_before_to' }]);
      if (span > maxMs) throw new ApiError('validation_error', `the window is at most ${maxWords}`, [{ field: 'from', reason: 'window_too_long' }]);
      const { db } = ctx.services;
      const c = (n: string) => colOf(readingView, db, n);
      // The kit's scope: the caller's tenant, and its site when the session is bound to one.
      const parts: SQL[] = Object.entries(readingsResource.kit.scope(ctx.caller)).map(([k, v]) => eq(c(k), v));
      parts.push(eq(c('house_id'), q.house_id), gte(c('ts'), from), lt(c('ts'), to));
      if (q.batch_id !== undefined) parts.push(eq(c('batch_id'), q.batch_id));
      const at = sql<string>`substr(${c('ts')}, 1, ${sql.raw(String(width))})`;
      const rows = (await db.orm.select({
        at, n: count(),
        temp_sum: sql`sum(${c('temp')})`, temp_n: count(c('temp')), temp_min: sql`min(${c('temp')})`, temp_max: sql`max(${c('temp')})`,
        humidity_sum: sql`sum(${c('humidity')})`, humidity_n: count(c('humidity')), co2_max: sql`max(${c('co2')})`, nh3_max: sql`max(${c('nh3')})`,
        ventilation_sum: sql`sum(${c('ventilation')})`, ventilation_n: count(c('ventilation')),
      }).from(tableOf(readingView, db)).where(and(...parts)).groupBy(at).orderBy(asc(at))) as Record<string, unknown>[];
      // The readings held for the whole minute's commit (telemetry_hold_ms) count as stored ones.
      const scope = readingsResource.kit.scope(ctx.caller) as Record<string, unknown>;
      const held = HELD_TABLES.flatMap((t) => pendingRows<ReadingRow>(db, t)).filter((r) =>
        Object.entries(scope).every(([k, v]) => (r as Record<string, unknown>)[k] === v) && r.house_id === q.house_id && r.ts >= from && r.ts < to && (q.batch_id === undefined || r.batch_id === q.batch_id));
      const buckets = new Map<string, Bucket>(rows.map((r) => [String(r.at), bucketOf(r)]));
      for (const r of held) {
        const key = r.ts.slice(0, width);
        const b = buckets.get(key) ?? emptyBucket();
        addReading(b, r);
        buckets.set(key, b);
      }
      return {
        house_id: q.house_id, batch_id: q.batch_id ?? null, from, to,
        items: [...buckets.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([key, b]) => ({
          [bucket]: `${key}${suffix}`, n: b.n,
          temp_avg: avgOf(b.temp), temp_min: b.temp_min, temp_max: b.temp_max,
          humidity_avg: avgOf(b.humidity), co2_max: b.co2_max, nh3_max: b.nh3_max, ventilation_avg: avgOf(b.ventilation),
        })),
      };
    },
  });
}

export const hourlyRoute: AnyRoute = rollupRoute('hour', '/api/v1/poultry-climate-readings/hourly', HOURLY_MAX_DAYS * 24 * HOUR_MS, `${HOURLY_MAX_DAYS} days`,
  "Hourly roll-up of a house's climate readings (UTC hours, oldest first): n, temperature average/min/max, humidity average, CO2 and NH3 maximum, ventilation average.");

/** The minute roll-up draws a batch's first hours, when the hourly one has a point or two. */
export const MINUTELY_MAX_HOURS = 24;
export const minutelyRoute: AnyRoute = rollupRoute('minute', '/api/v1/poultry-climate-readings/minutely', MINUTELY_MAX_HOURS * HOUR_MS, `${MINUTELY_MAX_HOURS} hours`,
  "Minute roll-up of a house's climate readings (UTC minutes, oldest first), the same aggregates as the hourly one: what a chart draws while a batch's readings span less than a few hours.");

/** The roll-ups are declared before the resource's {id} so that /hourly and /minutely are not read as ids; the list adds the held readings. */
export const readingsRoutes: AnyRoute[] = [hourlyRoute, minutelyRoute, ...staleAware(readingsResource.routes.map((r) =>
  (r.method === 'get' && r.path.endsWith('/list') ? withHeldRows(r, readingsResource, HELD_TABLES) : r)), '/api/v1/poultry-climate-readings')];
for (const t of HELD_TABLES) holdRowsOf(t);

/** Deletes readings taken before `before` (poultry_readings_retention_days, hourly). */
export async function purgeReadings(services: Services, before: Date): Promise<void> {
  const db = services.db;
  await db.orm.delete(tableOf(readingRecord.table, db)).where(lt(colOf(readingRecord.table, db, 'ts'), before.toISOString()));
}
