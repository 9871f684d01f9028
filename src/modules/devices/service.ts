// Telemetry: ingest (through the batch writer), KPI from the last known state of each device,
// and retention of raw points and roll-ups.
import { sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Services } from '../../kernel/context.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { RESOLUTIONS, STATUS_CODE, type DeviceStatus, type Resolution } from './schema.js';
import { TelemetryWriter } from './writer.js';
import { HOUR_MS } from './rollups.js';
import { seriesMatches } from './open-rollups.js';

export interface TelemetryFilter {
  tenant_id?: string;
  device_id?: string;
  site_id?: string;
  status?: string;
  metric?: string;
  q?: string;
}

export interface TelemetryKpi {
  devices: number;
  online: number;
  warn: number;
  error: number;
  total_points: number;
  average_latency_ms: number | null;
}

export interface TelemetryService {
  writer: TelemetryWriter;
  /**
   * Queues stored-ready points; resolves when their batch is written (`now`: at the end of this
   * turn, not within telemetry_flush_ms; `hold`: nobody waits for them, committed with the
   * whole minute's, telemetry_hold_ms).
   */
  ingest(points: TelemetryPoint[], opts?: { now?: boolean; hold?: boolean }): Promise<void>;
  kpi(filter: TelemetryFilter): Promise<TelemetryKpi>;
  /** Deletes raw points measured before `before`; resolves with how many. */
  purge(before: Date): Promise<number>;
  /** Deletes roll-ups of a resolution whose bucket starts before `before`; resolves with how many. */
  purgeRollups(resolution: Resolution, before: Date): Promise<number>;
}

declare module '../../kernel/context.js' {
  interface Services {
    telemetry?: TelemetryService;
  }
}

/**
 * Rows deleted per transaction by a purge: a box that was off for months (or lowered a
 * retention) deletes its backlog in slices, and batches of new points get the lock in between.
 */
export const PURGE_CHUNK = 20_000;

/**
 * One bounded delete (its own transaction) repeated until a slice comes back short. `target` is
 * the row key, `from` the table and `where` the condition with `?` for the parameters; the
 * condition is on an indexed column, so each slice is a range read of that index. Between slices
 * the loop yields to the event loop, so requests and telemetry batches go in between; the storage
 * budget passes a smaller `chunk` so that no slice holds the writer for long.
 */
export async function purgeInChunks(db: Database, target: string, from: string, where: string, params: (number | string)[], chunk = PURGE_CHUNK): Promise<number> {
  const inner = `select ${target} from ${from} where ${where} limit ${chunk}`;
  let slice: () => Promise<number>;
  if (db.prepareSqlite) {
    const stmt = db.prepareSqlite(`delete from ${from} where (${target}) in (${inner})`);
    slice = async () => (stmt.run(...params) as { changes: number }).changes;
  } else {
    const parts = `with gone as (delete from ${from} where (${target}) in (${inner}) returning 1) select count(*) as n from gone`.split('?');
    const statement = sql.join(parts.flatMap((part, k) => (k < params.length ? [sql.raw(part), sql`${params[k]}`] : [sql.raw(part)])));
    slice = async () => Number((await db.rows<{ n: string | number }>(statement))[0]?.n ?? 0);
  }
  let total = 0;
  for (;;) {
    const n = await db.transaction(slice);
    total += n;
    if (n < chunk) return total;
    await new Promise((resolve) => setImmediate(resolve));
  }
}

/** Deletes roll-ups of a resolution whose bucket starts before `beforeMs`, series by series through the primary key (their only index). */
export async function purgeRollups(db: Database, resolution: Resolution, beforeMs: number, chunk = PURGE_CHUNK): Promise<number> {
  const series = await db.rows<{ id: number | string }>(sql`select id from telemetry_series order by id`);
  let total = 0;
  for (const { id } of series) {
    total += await purgeInChunks(db, 'series_id, resolution, bucket', 'telemetry_rollups', 'series_id = ? and resolution = ? and bucket < ?', [Number(id), RESOLUTIONS[resolution], beforeMs], chunk);
  }
  return total;
}

/**
 * The oldest and newest bucket start of a resolution's roll-ups (epoch ms), or nulls: per series
 * along the primary key (one index step each), never a scan of the table.
 */
export async function rollupSpan(db: Database, resolution: Resolution): Promise<{ oldest: number | null; newest: number | null }> {
  // The storage run measures, purges and thins what is stored: the open roll-ups are written
  // first (once per run, hourly), so that its figures and a purge cover them.
  if (!db.inTransaction()) await writers.get(db)?.flush();
  const r = sql.raw(String(RESOLUTIONS[resolution]));
  const [row] = await db.read<{ lo: number | string | null; hi: number | string | null }>(sql`select
      min((select min(bucket) from telemetry_rollups r where r.series_id = s.id and r.resolution = ${r})) as lo,
      max((select max(bucket) from telemetry_rollups r where r.series_id = s.id and r.resolution = ${r})) as hi
    from telemetry_series s`);
  const n = (x: number | string | null | undefined) => (x === null || x === undefined ? null : Number(x));
  return { oldest: n(row?.lo), newest: n(row?.hi) };
}

const escapeLike = (term: string) => `%${term.toLowerCase().replace(/[\\%_]/g, (m) => `\\${m}`)}%`;

/** The writer of each database, for the storage run (rollupSpan). */
const writers = new WeakMap<Database, TelemetryWriter>();

export function createTelemetryService(services: Services): TelemetryService {
  const { config } = services;
  const writer = new TelemetryWriter(services, { flushMs: config.telemetry_flush_ms, batchMax: config.telemetry_batch_max, holdMs: config.telemetry_hold_ms });
  writers.set(services.db, writer);
  return {
    writer,
    ingest: (points, opts) => writer.enqueue(points, opts),
    async kpi(f) {
      // Every filter but status is a series column: the series are chosen first, then each one's
      // last point (matching status) is one step back along its (series_id, ts) index, so the KPI
      // costs a lookup per series and a sum of roll-ups, not a sort or count of every point.
      const { db } = services;
      // Points held for the whole minute's commit are written first: the devices' last states
      // are read from the stored points.
      await writer.flushHeld();
      const parts: SQL[] = [];
      if (f.tenant_id !== undefined) parts.push(sql`tenant_id = ${f.tenant_id}`);
      if (f.device_id !== undefined) parts.push(sql`device_id = ${f.device_id}`);
      if (f.metric !== undefined) parts.push(sql`metric = ${f.metric}`);
      if (f.site_id !== undefined) parts.push(sql`site_id = ${f.site_id}`);
      if (f.q) {
        const term = escapeLike(f.q);
        parts.push(sql`(lower(device_id) like ${term} escape '\\' or lower(metric) like ${term} escape '\\' or lower(site_id) like ${term} escape '\\')`);
      }
      const where = parts.length ? sql`where ${sql.join(parts, sql` and `)}` : sql``;
      const code = f.status === undefined ? undefined : STATUS_CODE[f.status as DeviceStatus];
      if (f.status !== undefined && code === undefined) return { devices: 0, online: 0, warn: 0, error: 0, total_points: 0, average_latency_ms: null };
      const status = code === undefined ? sql`` : sql` and q.status = ${code}`;
      // The points count: the hour roll-ups hold it per series and hour, exact for every hour the
      // purge has not begun on (each hour after the oldest stored point's); that hour's points are
      // counted raw (an index range of at most an hour). Roll-ups carry no status, so with a
      // status filter the points are counted along each series' index (in the read worker).
      // Constants inline: better-sqlite3 binds numbers as REAL, and the edge is integer arithmetic.
      const hourMs = sql.raw(String(HOUR_MS));
      const hourRes = sql.raw(String(RESOLUTIONS.hour));
      // The points waiting in telemetry_points_recent (recent.ts) count and may be a series' last:
      // that table has no index, and at most RECENT_MAX rows, so it is read once, not per series.
      const total = code === undefined
        ? sql`(select coalesce(sum(r.count), 0) from telemetry_rollups r, edge
            where r.series_id in (select id from sel) and r.resolution = ${hourRes} and r.bucket >= edge.h)
          + (select count(*) from telemetry_points q, edge where q.series_id in (select id from sel) and q.ts < edge.h)
          + (select count(*) from telemetry_points_recent q, edge where q.series_id in (select id from sel) and q.ts < edge.h)`
        : sql`(select count(*) from telemetry_points q where q.series_id in (select id from sel)${status})
          + (select count(*) from telemetry_points_recent q where q.series_id in (select id from sel)${status})`;
      const [row] = await db.read<Record<string, string | number | null>>(sql`
        with sel as (select id, tenant_id, device_id from telemetry_series ${where}),
        edge as (select coalesce((min(m) / ${hourMs} + 1) * ${hourMs}, 0) as h
          from (select min(ts) as m from telemetry_points union all select min(ts) from telemetry_points_recent) e),
        last as (
          select sel.tenant_id, sel.device_id, p.status, p.latency_ms, p.ts, p.id
          from sel join telemetry_points p on p.id = (select q.id from telemetry_points q where q.series_id = sel.id${status} order by q.ts desc, q.id desc limit 1)
          union all
          select sel.tenant_id, sel.device_id, q.status, q.latency_ms, q.ts, q.id
          from sel join telemetry_points_recent q on q.series_id = sel.id${status}
        ),
        ranked as (select status, latency_ms, row_number() over (partition by tenant_id, device_id order by ts desc, id desc) as rn from last)
        select
          ${total} as total_points,
          count(*) as devices,
          coalesce(sum(case when status = 0 then 1 else 0 end), 0) as online,
          coalesce(sum(case when status = 1 then 1 else 0 end), 0) as warn,
          coalesce(sum(case when status = 2 then 1 else 0 end), 0) as error,
          avg(latency_ms) as average_latency_ms,
          (select h from edge) as edge_h
        from ranked where rn = 1`);
      const n = (k: string) => Number(row?.[k] ?? 0);
      // The open hour roll-ups (in memory until their hour closes) count like the stored ones.
      let open = 0;
      if (code === undefined) {
        const edge = n('edge_h');
        for (const b of writer.openBuckets(RESOLUTIONS.hour)) if (b.bucket >= edge && seriesMatches(b.series, f)) open += b.count;
      }
      const avg = row?.average_latency_ms;
      return {
        devices: n('devices'), online: n('online'), warn: n('warn'), error: n('error'), total_points: n('total_points') + open,
        average_latency_ms: avg === null || avg === undefined ? null : Math.round(Number(avg) * 1000) / 1000,
      };
    },
    purge: (before) => purgeInChunks(services.db, 'id', 'telemetry_points', 'ts < ?', [before.getTime()]),
    purgeRollups: (resolution, before) => purgeRollups(services.db, resolution, before.getTime()),
  };
}
