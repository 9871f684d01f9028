// The telemetry batch writer: points from HTTP and MQTT are queued and written every
// telemetry_flush_ms, or at once when telemetry_batch_max are waiting, in ONE transaction per
// batch with their roll-ups (a burst of points is not a burst of single-row transactions).
// Batches are written one after another; a caller may await the batch holding its points.
//
// Why a trickle waits (2 s by default): every commit writes each page it touched to the WAL, and
// the checkpoint writes them again into the database file. A commit of a few points touches
// about seven pages (the points and their index, the minute and hour roll-ups, the sync outbox),
// so at a site's 10 points/s a commit every 200 ms wrote 10.3 KiB per point to the box's eMMC,
// 8.1 GiB a day; every 2 s, 1.5 KiB and 1.15 GiB (bench/flash-writes.ts, docs/storage-and-reads.md).
// A caller that waits for its answer (an HTTP push) asks for `now`: its batch is written at the
// end of the turn.
//
// With telemetry_hold_ms (a minute by default), points nobody waits for (`hold`: a device poll's)
// are committed on the whole minute, and the roll-ups stay in memory until their bucket closes
// (open-rollups.ts): a minute's points are one commit, and a roll-up row is written once instead
// of by every commit. Points acknowledged to an MQTT client are still committed within
// telemetry_flush_ms (its PUBACK means stored, and the broker reads its next packets only then).
//
// On SQLite the points of a held or gathered batch wait in telemetry_points_recent, which has no
// index, and are settled into telemetry_points once an hour or past RECENT_MAX (recent.ts); a
// batch somebody waits for (an HTTP push, a burst) is written to telemetry_points directly.
import { ApiError } from '../../kernel/errors.js';
import type { Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { TelemetryStorage } from './storage.js';
import { CLOSE_GRACE_MS, mergeRollup, OpenRollups, type OpenBucket } from './open-rollups.js';
import { HOUR_MS, rollup } from './rollups.js';
import { nowMs } from '../../kernel/clock.js';
import { RECENT_MAX, recentCount, settleRecent } from './recent.js';

type SeriesKeyOf = OpenBucket['series'];
const seriesText = (p: { tenant_id: string; site_id: string | null; device_id: string; metric: string; unit: string | null }) =>
  `${p.tenant_id}\u0000${p.site_id ?? ''}\u0000${p.device_id}\u0000${p.metric}\u0000${p.unit ?? ''}`;

/** Points waiting beyond this are refused (HTTP 503, MQTT dropped and counted). */
export const MAX_QUEUED = 200_000;

interface Batch {
  points: TelemetryPoint[];
  /** Somebody waits for it (an HTTP push, a burst): written to telemetry_points, not the recent table. */
  direct: boolean;
  done: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const done = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  done.catch(() => undefined); // a batch nobody awaits must not become an unhandled rejection
  return { points: [], direct: false, done, resolve, reject };
}

export interface TelemetryWriterStats {
  /** Points taken in (queued or refused). */
  received: number;
  queued: number;
  written: number;
  batches: number;
  dropped: number;
}

export class TelemetryWriter {
  /** Batches waiting, oldest first; points join the last one until it holds batchMax. */
  private readonly waiting: Batch[] = [];
  private timer: NodeJS.Timeout | undefined;
  /** The end-of-turn write of a burst (see burst()). */
  private soon: NodeJS.Immediate | undefined;
  private writing: Promise<void> | undefined;
  /** A batch waits that must not wait for the timer (an HTTP push, a burst): written as soon as the running write ends. */
  private urgent = false;
  /** Some waiting point is not held (an MQTT point): the waiting batches go within flushMs. */
  private unheld = false;
  /** Held points are waiting (flushHeld writes them). */
  private held = false;
  /** The next whole-minute commit of held points and closed roll-ups (telemetry_hold_ms). */
  private tick: NodeJS.Timeout | undefined;
  /** The open minute and hour roll-ups; undefined when telemetry_hold_ms is 0 (merged by every commit). */
  private readonly open: OpenRollups | undefined;
  private stopped = false;
  private readonly storage: TelemetryStorage;
  /** Points written to telemetry_points_recent since its last count (an upper bound). */
  private recentRows = 0;
  /** The hour (epoch ms of its start) of the last settle; the first tick of a later hour settles. */
  private settledHour = Math.floor(nowMs() / HOUR_MS) * HOUR_MS;
  private settling: Promise<number> | undefined;
  readonly stats: TelemetryWriterStats = { received: 0, queued: 0, written: 0, batches: 0, dropped: 0 };

  constructor(
    private readonly services: Services,
    private readonly opts: { flushMs: number; batchMax: number; holdMs?: number },
  ) {
    this.storage = new TelemetryStorage(services.db);
    if (opts.holdMs) this.open = new OpenRollups();
  }

  /**
   * Queues points; the promise settles when their batch is stored (or failed). `now`: the
   * batch is written at the end of this turn instead of within telemetry_flush_ms.
   */
  enqueue(points: TelemetryPoint[], opts: { now?: boolean; hold?: boolean } = {}): Promise<void> {
    this.stats.received += points.length;
    const refused = this.refusal(points.length);
    if (refused) return Promise.reject(refused);
    return this.add(points, opts.now === true, opts.hold === true && this.open !== undefined).done;
  }

  private refusal(count: number): ApiError | undefined {
    if (this.stopped) return new ApiError('service_unavailable', 'telemetry intake is stopping');
    if (this.stats.queued + count > MAX_QUEUED) {
      this.stats.dropped += count;
      return new ApiError('service_unavailable', `telemetry queue is full (${MAX_QUEUED} points waiting); retry shortly`, [], { 'retry-after': '1' });
    }
    return undefined;
  }

  /**
   * A call's points stay together in one batch; a batch takes no more calls once it holds
   * batchMax points. Points arriving while a batch is written thus wait in batches of about
   * batchMax, not in one that grows with the flood: a transaction of 40,000 points held the event
   * loop for a second (bench/soak-reads.ts).
   */
  private add(points: TelemetryPoint[], now: boolean, hold: boolean): Batch {
    let batch = this.waiting[this.waiting.length - 1];
    if (!batch || batch.points.length >= this.opts.batchMax) this.waiting.push((batch = newBatch()));
    for (const p of points) batch.points.push(p);
    this.stats.queued += points.length;
    if (!hold) this.unheld = true;
    else this.held = true;
    if (this.full()) this.kick();
    else if (now || (!hold && batch.points.length >= this.burst())) {
      batch.direct = true;
      this.urgent = true;
      this.soon ??= setImmediate(() => { this.soon = undefined; this.kick(); });
    }
    else if (hold) this.armTick();
    else this.timer ??= setTimeout(() => this.kick(), this.opts.flushMs);
    return batch;
  }

  /**
   * The commit of held points and closed roll-ups: on the next whole period of telemetry_hold_ms
   * (the whole minute by default) plus the grace that lets a minute's last points join it.
   */
  private armTick(): void {
    const period = this.opts.holdMs;
    if (this.tick || !period || this.stopped) return;
    const now = nowMs();
    const at = (Math.floor((now - CLOSE_GRACE_MS) / period) + 1) * period + CLOSE_GRACE_MS;
    this.tick = setTimeout(() => {
      this.tick = undefined;
      const t = nowMs();
      if (this.waiting.length) this.kick();
      else if (!this.writing && this.open?.hasClosed(t)) this.writeNext(newBatch());
      // After the minute's write (the database's lock keeps the order): the hour's points settle.
      if (this.recentRows > 0 && t - this.settledHour >= HOUR_MS + CLOSE_GRACE_MS) void this.settle();
      if (this.open?.size || this.waiting.length || this.recentRows > 0) this.armTick();
    }, Math.max(0, at - now));
  }

  /**
   * Points that arrive together in one turn of the event loop past this many are a burst: their
   * batch is written at the end of that turn instead of waiting for the flush timer. The MQTT
   * broker acknowledges a message only once its points are stored and reads that client's next
   * packets only then, so under a flood each turn's packets would otherwise wait the whole
   * timer (measured: 6,500 instead of 14,500 points/s, one point a message). A trickle of
   * sensors stays below it and is still gathered by the timer: few transactions, little wear on
   * the box's flash.
   */
  private burst(): number {
    return Math.max(1, Math.floor(this.opts.batchMax / 8));
  }

  /** Whether a batch is ready to be written now. */
  private full(): boolean {
    return this.waiting.length > 1 || (this.waiting[0]?.points.length ?? 0) >= this.opts.batchMax;
  }

  private kick(): void {
    if (this.timer) { clearTimeout(this.timer); this.timer = undefined; }
    if (this.soon) { clearImmediate(this.soon); this.soon = undefined; }
    if (this.writing) return; // the running write picks the queue up when it ends
    const batch = this.waiting.shift();
    if (!batch) return;
    // Points join the last batch, so an urgent batch is the last: once it is taken, none waits.
    if (this.waiting.length === 0) {
      this.urgent = false;
      this.unheld = false;
      this.held = false;
    }
    this.writeNext(batch);
  }

  private writeNext(batch: Batch, all = false): void {
    // The next batch starts after a turn of the event loop: batches chained in microtasks would
    // hold HTTP, MQTT acknowledgements and the status stream for as long as a flood of points
    // lasts (measured: auth/me p50 0.6 s under MQTT ingest at full rate; bench/soak-reads.ts).
    this.writing = this.write(batch, all).then(() => new Promise<void>((resolve) => setImmediate(resolve))).finally(() => {
      this.writing = undefined;
      if (this.full() || this.urgent) this.kick();
      else if (this.waiting.length && this.unheld) this.timer ??= setTimeout(() => this.kick(), this.opts.flushMs);
      if (this.waiting.length || this.open?.size) this.armTick();
    });
  }

  /** `all`: every open roll-up is written too (a stop, a flush), not only the closed ones. */
  private async write(batch: Batch, all = false): Promise<void> {
    try {
      // The box's wall clock (tests and a clock jump move it): which buckets have closed.
      const now = nowMs();
      let keep: Map<string, OpenBucket> | undefined;
      const open = this.open;
      // With telemetry_hold_ms 0 (the write path before the hold) points are written in place.
      const recent = !batch.direct && this.storage.recent && open !== undefined;
      const written = await this.services.db.transaction(async () => {
        const w = await this.storage.write(batch.points, open && ((rollups) => {
          const plan = open.plan(rollups, now, all);
          keep = plan.keep;
          return plan.write;
        }), { recent });
        if (batch.points.length) await need(this.services, 'bus').stage('telemetry', batch.points);
        return w;
      });
      written.commit();
      if (keep) open?.commit(keep);
      if (recent && batch.points.length) {
        this.recentRows += batch.points.length;
        if (this.recentRows >= RECENT_MAX) void this.settle();
      }
      this.stats.written += batch.points.length;
      this.stats.batches++;
      batch.resolve();
      if (batch.points.length) need(this.services, 'bus').emit('telemetry', batch.points);
    } catch (err) {
      this.services.log.error('telemetry batch could not be stored', { points: batch.points.length, error: (err as Error).message });
      batch.reject(err as Error);
    } finally {
      this.stats.queued -= batch.points.length;
    }
  }

  /**
   * Writes the held points, leaving the roll-ups open (a read of raw points calls it first). Points
   * that wait telemetry_flush_ms at most are left to their timer, as before: a tablet reading the
   * KPI twice a second must not make every MQTT point a commit of its own.
   */
  async flushHeld(): Promise<void> {
    if (this.held) await this.drain();
  }

  private async drain(): Promise<void> {
    for (;;) {
      if (this.writing) await this.writing.catch(() => undefined);
      else if (this.waiting.length) this.kick();
      else return;
    }
  }

  /** Writes everything queued and every open roll-up (used at stop, by the storage run and by tests). */
  async flush(): Promise<void> {
    await this.drain();
    if (!this.open?.size) return;
    if (this.writing) await this.writing.catch(() => undefined);
    this.writeNext(newBatch(), true);
    await this.drain();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.tick) { clearTimeout(this.tick); this.tick = undefined; }
    await this.flush();
    // A settle under way ends after its slice (the rest goes on at the next start).
    await this.settling?.catch(() => undefined);
  }

  /**
   * Moves the points waiting in telemetry_points_recent into telemetry_points (recent.ts): at the
   * start, on the first tick of each hour, past RECENT_MAX waiting points. One at a time; resolves
   * with how many points this call's settle moved (0 when it joined one under way).
   */
  settle(): Promise<number> {
    if (this.settling) return this.settling.then(() => 0, () => 0);
    const db = this.services.db;
    this.settledHour = Math.floor(nowMs() / HOUR_MS) * HOUR_MS;
    const run = (async () => {
      try {
        return await settleRecent(db, { stopped: () => this.stopped });
      } catch (err) {
        this.services.log.error('telemetry points could not be settled', { error: (err as Error).message });
        return 0;
      } finally {
        this.recentRows = await recentCount(db).catch(() => this.recentRows);
        this.settling = undefined;
      }
    })();
    this.settling = run;
    return run;
  }

  /**
   * The roll-ups not yet stored of a resolution: the open buckets, and those of the points still
   * waiting to be written (keyed by series; `series_id` -1 for a series not stored yet). Reads
   * add them to the stored rows.
   */
  openBuckets(resolution: number): OpenBucket[] {
    const open = this.open?.list(resolution) ?? [];
    if (!this.waiting.length) return open;
    const byKey = new Map<string, OpenBucket>();
    const keyOf = (b: OpenBucket) => `${seriesText(b.series)}\u0000${b.bucket}`;
    for (const b of open) byKey.set(keyOf(b), b);
    const ids = new Map<string, number>();
    const inputs: { series_id: number; ts: number; value: number | null }[] = [];
    const series: SeriesKeyOf[] = [];
    for (const batch of this.waiting) {
      for (const p of batch.points) {
        const k = seriesText(p);
        let i = ids.get(k);
        if (i === undefined) {
          ids.set(k, (i = series.length));
          series.push({ tenant_id: p.tenant_id, site_id: p.site_id ?? '', device_id: p.device_id, metric: p.metric, unit: p.unit ?? '' });
        }
        inputs.push({ series_id: i, ts: Date.parse(p.ts), value: p.value });
      }
    }
    for (const r of rollup(inputs)) {
      if (r.resolution !== resolution) continue;
      const b: OpenBucket = { ...r, series_id: -1, series: series[r.series_id]! };
      const had = byKey.get(keyOf(b));
      if (had) mergeRollup(had, b);
      else byKey.set(keyOf(b), b);
    }
    return [...byKey.values()];
  }
}
