// Per-minute and per-hour roll-ups of a written batch: count, non-null value count, sum, min,
// max and the last value (by measurement time) per series and bucket. The writer merges them
// into telemetry_rollups in the batch's own transaction, so a roll-up never disagrees with the
// raw points it was built from.
import { RESOLUTIONS } from './schema.js';

export const MINUTE_MS = RESOLUTIONS.minute * 1000;
export const HOUR_MS = RESOLUTIONS.hour * 1000;

/** A stored point as the roll-ups see it. */
export interface RollupInput {
  series_id: number;
  ts: number;
  value: number | null;
}

export interface Rollup {
  series_id: number;
  /** Bucket width in seconds (60 or 3600). */
  resolution: number;
  /** Bucket start, epoch ms. */
  bucket: number;
  count: number;
  value_count: number;
  sum: number;
  min: number | null;
  max: number | null;
  last: number | null;
  last_ts: number;
}

/** The columns of a Rollup in insert order. */
export const ROLLUP_COLUMNS = ['series_id', 'resolution', 'bucket', 'count', 'value_count', 'sum', 'min', 'max', 'last', 'last_ts'] as const;

/** Minute and hour aggregates of the points; a later point of equal ts wins `last`, as in the merge. */
export function rollup(points: readonly RollupInput[]): Rollup[] {
  const groups = new Map<string, Rollup>();
  const add = (p: RollupInput, resolution: number, width: number) => {
    const bucket = Math.floor(p.ts / width) * width;
    const key = `${p.series_id}:${resolution}:${bucket}`;
    let g = groups.get(key);
    if (!g) {
      g = { series_id: p.series_id, resolution, bucket, count: 0, value_count: 0, sum: 0, min: null, max: null, last: p.value, last_ts: p.ts };
      groups.set(key, g);
    }
    g.count++;
    if (p.value !== null) {
      g.value_count++;
      g.sum += p.value;
      if (g.min === null || p.value < g.min) g.min = p.value;
      if (g.max === null || p.value > g.max) g.max = p.value;
    }
    if (p.ts >= g.last_ts) { g.last_ts = p.ts; g.last = p.value; }
  };
  for (const p of points) {
    add(p, RESOLUTIONS.minute, MINUTE_MS);
    add(p, RESOLUTIONS.hour, HOUR_MS);
  }
  return [...groups.values()];
}

/**
 * The merge of a batch's roll-ups into stored ones, per dialect (min/max skip NULLs: SQLite's
 * scalar min() does not, PostgreSQL's least() does). Every right-hand side reads the old row.
 */
export function rollupConflictClause(dialect: 'sqlite' | 'postgres'): string {
  const t = 'telemetry_rollups';
  const lo = dialect === 'sqlite'
    ? `min(coalesce(${t}."min", excluded."min"), coalesce(excluded."min", ${t}."min"))`
    : `least(${t}."min", excluded."min")`;
  const hi = dialect === 'sqlite'
    ? `max(coalesce(${t}."max", excluded."max"), coalesce(excluded."max", ${t}."max"))`
    : `greatest(${t}."max", excluded."max")`;
  const lastTs = dialect === 'sqlite' ? `max(${t}."last_ts", excluded."last_ts")` : `greatest(${t}."last_ts", excluded."last_ts")`;
  return `on conflict ("series_id", "resolution", "bucket") do update set
    "count" = ${t}."count" + excluded."count",
    "value_count" = ${t}."value_count" + excluded."value_count",
    "sum" = ${t}."sum" + excluded."sum",
    "min" = ${lo},
    "max" = ${hi},
    "last" = case when excluded."last_ts" >= ${t}."last_ts" then excluded."last" else ${t}."last" end,
    "last_ts" = ${lastTs}`;
}
