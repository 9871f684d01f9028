// The open minute and hour roll-ups, kept in memory and written once: an hour's when it closes, a
// minute's when its hour closes (all of that hour's minutes in one commit). A roll-up row written by every commit rewrote its page of telemetry_rollups (one leaf per series
// and resolution, a series' minute and hour rows lying apart) in the WAL and again at the
// checkpoint, a few times a minute for the minute and a few hundred times an hour for the hour
// (bench/flash-site.ts, docs/storage-and-reads.md). Here a batch's roll-ups are merged into the
// open buckets once the batch has committed; a commit writes only the buckets that have closed
// (or that are not the current one: a late point's, a point stamped ahead of the box's clock),
// with the same merge as before, so a bucket written twice adds up. Reads add the open buckets
// to what is stored (mergeRollup). After a crash the open buckets are rebuilt from the raw points,
// which are the truth (recoverRollups in storage.ts): a power cut loses no roll-up that its raw
// points did not lose.
//
// Why a closed minute waits for its hour: telemetry_rollups is keyed by series first, so a
// minute's rows land on one leaf per series, and on a box that has run for hours each series has a
// leaf of its own: written every minute, 30 series rewrote 30 leaves and their parents a minute
// (bench/flash-site.ts with a day's history). Written with the hour, a series' 60 minutes fill its
// leaves once. The recovery rebuilds the last two hours, which covers every minute held.
import type { Rollup } from './rollups.js';
import { RESOLUTIONS } from './schema.js';

/** One telemetry series: whose, which device, which metric in which unit. */
export interface SeriesKey {
  tenant_id: string;
  site_id: string;
  device_id: string;
  metric: string;
  unit: string;
}

/** A bucket stays open this long past its end, so that points of its last seconds still join it. */
export const CLOSE_GRACE_MS = 2000;

/**
 * At most this many closed minutes are held for their hour (a site of up to about 800 series);
 * past it, closed minutes are written as they close, as before: memory stays bounded on a box
 * with thousands of series.
 */
export const HELD_MINUTES_MAX = 50_000;

export interface OpenBucket extends Rollup {
  series: SeriesKey;
}

/** Two roll-ups of one bucket as one: the SQL merge's rules (min/max skip nulls, the later `last`). */
export function mergeRollup<T extends Rollup>(into: T, add: Rollup): T {
  into.count += add.count;
  into.value_count += add.value_count;
  into.sum += add.sum;
  if (add.min !== null && (into.min === null || add.min < into.min)) into.min = add.min;
  if (add.max !== null && (into.max === null || add.max > into.max)) into.max = add.max;
  if (add.last_ts >= into.last_ts) {
    into.last = add.last;
    into.last_ts = add.last_ts;
  }
  return into;
}

const keyOf = (r: Pick<Rollup, 'series_id' | 'resolution' | 'bucket'>) => `${r.series_id}:${r.resolution}:${r.bucket}`;

/** Whether a bucket is the open one at `now`: started, and not ended more than the grace ago. */
export function isOpen(r: Pick<Rollup, 'resolution' | 'bucket'>, now: number): boolean {
  return r.bucket <= now && now < r.bucket + r.resolution * 1000 + CLOSE_GRACE_MS;
}

const HOUR_MS = RESOLUTIONS.hour * 1000;

/** Whether a bucket stays in memory at `now`: it is open, or it is a minute of an hour still open. */
export function isHeld(r: Pick<Rollup, 'resolution' | 'bucket'>, now: number): boolean {
  if (isOpen(r, now)) return true;
  return r.resolution === RESOLUTIONS.minute && isOpen({ resolution: RESOLUTIONS.hour, bucket: Math.floor(r.bucket / HOUR_MS) * HOUR_MS }, now);
}

export class OpenRollups {
  private readonly open = new Map<string, OpenBucket>();

  get size(): number {
    return this.open.size;
  }

  /**
   * The buckets a commit at `now` writes: every one of `batch` (merged with what is held for it)
   * and every held one that is not held at `now` any more (isHeld), or all of them (`all`: a
   * stop, a flush). Nothing changes here until commit() is called with the same plan, so a
   * rolled-back batch leaves the open buckets as they were.
   */
  plan(batch: readonly OpenBucket[], now: number, all = false): { write: Rollup[]; keep: Map<string, OpenBucket> } {
    const next = new Map<string, OpenBucket>();
    for (const [k, b] of this.open) next.set(k, { ...b });
    for (const r of batch) {
      const k = keyOf(r);
      const had = next.get(k);
      if (had) mergeRollup(had, r);
      else next.set(k, { ...r });
    }
    let closedMinutes = 0;
    for (const b of next.values()) if (!isOpen(b, now)) closedMinutes++;
    const held = closedMinutes > HELD_MINUTES_MAX ? isOpen : isHeld;
    const write: Rollup[] = [];
    for (const [k, b] of next) {
      if (all || !held(b, now)) {
        const { series: _series, ...row } = b;
        write.push(row);
        next.delete(k);
      }
    }
    return { write, keep: next };
  }

  /** The plan's buckets kept open become the open ones (its batch committed). */
  commit(keep: Map<string, OpenBucket>): void {
    this.open.clear();
    for (const [k, b] of keep) this.open.set(k, b);
  }

  /** Whether a bucket waits to be written: its own or its hour's bucket has closed (or too many minutes are held). */
  hasClosed(now: number): boolean {
    let closedMinutes = 0;
    for (const b of this.open.values()) {
      if (!isHeld(b, now)) return true;
      if (!isOpen(b, now)) closedMinutes++;
    }
    return closedMinutes > HELD_MINUTES_MAX;
  }

  /** The open buckets of a resolution (copies). */
  list(resolution: number = RESOLUTIONS.minute): OpenBucket[] {
    const out: OpenBucket[] = [];
    for (const b of this.open.values()) if (b.resolution === resolution) out.push({ ...b, series: b.series });
    return out;
  }
}

export interface SeriesFilter {
  tenant_id?: string;
  site_id?: string;
  device_id?: string;
  metric?: string;
  /** Case-insensitive substring of device_id, metric or site_id. */
  q?: string;
}

/** Whether a series passes the filters the lists and the KPI take (as their SQL does). */
export function seriesMatches(s: SeriesKey, f: SeriesFilter): boolean {
  if (f.tenant_id !== undefined && s.tenant_id !== f.tenant_id) return false;
  if (f.site_id !== undefined && s.site_id !== f.site_id) return false;
  if (f.device_id !== undefined && s.device_id !== f.device_id) return false;
  if (f.metric !== undefined && s.metric !== f.metric) return false;
  if (f.q) {
    const term = f.q.toLowerCase();
    if (![s.device_id, s.metric, s.site_id].some((x) => x.toLowerCase().includes(term))) return false;
  }
  return true;
}
