// Keeps the analytics roll-ups (sync_rollups) current on ingest: a push adds its heartbeats and
// its new telemetry rows to the minute, hour and day buckets of its site, in the push's own
// transaction, so a roll-up never counts an event the inbox does not hold (or the reverse).
// The analytics read the roll-ups (src/modules/analytics/rollups.ts) instead of the raw rows.
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.js';
import { colOf, rowsPerInsert, tableOf } from '../../../db/sql.js';
import { ROLLUP_GRAINS, syncRollups, type RollupGrain } from '../schema.js';

const GRAIN_MS: Record<Exclude<RollupGrain, 'day'>, number> = { minute: 60_000, hour: 3_600_000 };

/** The start of the bucket of a time, in the sync's ISO form; null for a time that does not parse. */
export function bucketOf(grain: RollupGrain, at: number): string | null {
  if (!Number.isFinite(at)) return null;
  const size = grain === 'day' ? 86_400_000 : GRAIN_MS[grain];
  return new Date(Math.floor(at / size) * size).toISOString();
}

/**
 * How long the finer grains are kept: a window of at most 7 days reads them only at its start,
 * which is up to 7 days back. Day roll-ups are kept as long as the master runs.
 */
export const ROLLUP_KEEP_MS: Record<RollupGrain, number | null> = { minute: 8 * 86_400_000, hour: 8 * 86_400_000, day: null };

export interface RollupDelta {
  heartbeats: number;
  covered_ms: number;
  rtt_sum: number;
  rtt_count: number;
  first_beat_at: string | null;
  telemetry_points: number;
  telemetry_rows: number;
}

const empty = (): RollupDelta => ({ heartbeats: 0, covered_ms: 0, rtt_sum: 0, rtt_count: 0, first_beat_at: null, telemetry_points: 0, telemetry_rows: 0 });

/** Collects one push's contributions per (grain, bucket). */
export class RollupBatch {
  readonly buckets = new Map<string, RollupDelta>();

  private each(at: string, fn: (d: RollupDelta) => void): void {
    const ms = Date.parse(at);
    for (const grain of ROLLUP_GRAINS) {
      const bucket = bucketOf(grain, ms);
      if (bucket === null) return;
      fn(this.delta(grain, bucket));
    }
  }

  private delta(grain: RollupGrain, bucket: string): RollupDelta {
    const key = `${grain}\n${bucket}`;
    let d = this.buckets.get(key);
    if (!d) this.buckets.set(key, (d = empty()));
    return d;
  }

  heartbeat(at: string, intervalMs: number, rttMs: number | null): void {
    this.each(at, (d) => {
      d.heartbeats += 1;
      d.covered_ms += intervalMs;
      if (rttMs !== null) { d.rtt_sum += rttMs; d.rtt_count += 1; }
      if (d.first_beat_at === null || Date.parse(at) < Date.parse(d.first_beat_at)) d.first_beat_at = at;
    });
  }

  /**
   * Points merged into a per-minute row; `newRow` when the row did not exist before this push.
   * `buckets`: the row's minute, hour and day buckets (rollupBucketsOf), null when its minute does not parse.
   */
  telemetry(buckets: readonly string[] | null, points: number, newRow: boolean): void {
    if (!buckets) return;
    ROLLUP_GRAINS.forEach((grain, i) => {
      const d = this.delta(grain, buckets[i]!);
      d.telemetry_points += points;
      if (newRow) d.telemetry_rows += 1;
    });
  }
}

/** Adds the batch to the stored roll-ups of a site: one multi-row upsert, the same SQL on both engines. */
export async function addRollups(db: Database, site: { tenant_id: string; site_id: string }, batch: RollupBatch): Promise<void> {
  if (!batch.buckets.size) return;
  const c = (n: string) => colOf(syncRollups, db, n);
  const ex = (n: string) => sql.raw(`excluded.${n}`);
  const add = (n: string) => sql`${c(n)} + ${ex(n)}`;
  const set = {
    heartbeats: add('heartbeats'), covered_ms: add('covered_ms'), rtt_sum: add('rtt_sum'), rtt_count: add('rtt_count'),
    telemetry_points: add('telemetry_points'), telemetry_rows: add('telemetry_rows'),
    first_beat_at: sql`case when ${c('first_beat_at')} is null or ${ex('first_beat_at')} < ${c('first_beat_at')} then coalesce(${ex('first_beat_at')}, ${c('first_beat_at')}) else ${c('first_beat_at')} end`,
  };
  const rows = [...batch.buckets].map(([key, d]) => {
    const [grain, bucket] = key.split('\n') as [string, string];
    return { tenant_id: site.tenant_id, site_id: site.site_id, grain, bucket, ...d };
  });
  const target = ['tenant_id', 'site_id', 'grain', 'bucket'].map(c);
  const per = rowsPerInsert(11);
  for (let i = 0; i < rows.length; i += per) {
    await db.orm.insert(tableOf(syncRollups, db)).values(rows.slice(i, i + per) as never).onConflictDoUpdate({ target: target as never, set: set as never });
  }
}
