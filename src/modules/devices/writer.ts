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
import { ApiError } from '../../kernel/errors.js';
import type { Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { TelemetryStorage } from './storage.js';

/** Points waiting beyond this are refused (HTTP 503, MQTT dropped and counted). */
export const MAX_QUEUED = 200_000;

interface Batch {
  points: TelemetryPoint[];
  done: Promise<void>;
  resolve(): void;
  reject(err: Error): void;
}

function newBatch(): Batch {
  let resolve!: () => void;
  let reject!: (err: Error) => void;
  const done = new Promise<void>((res, rej) => { resolve = res; reject = rej; });
  done.catch(() => undefined); // a batch nobody awaits must not become an unhandled rejection
  return { points: [], done, resolve, reject };
}

export interface TelemetryWriterStats {
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
  private stopped = false;
  private readonly storage: TelemetryStorage;
  readonly stats: TelemetryWriterStats = { queued: 0, written: 0, batches: 0, dropped: 0 };

  constructor(
    private readonly services: Services,
    private readonly opts: { flushMs: number; batchMax: number },
  ) {
    this.storage = new TelemetryStorage(services.db);
  }

  /**
   * Queues points; the promise settles when their batch is stored (or failed). `now`: the
   * batch is written at the end of this turn instead of within telemetry_flush_ms.
   */
  enqueue(points: TelemetryPoint[], opts: { now?: boolean } = {}): Promise<void> {
    const refused = this.refusal(points.length);
    if (refused) return Promise.reject(refused);
    return this.add(points, opts.now === true).done;
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
  private add(points: TelemetryPoint[], now: boolean): Batch {
    let batch = this.waiting[this.waiting.length - 1];
    if (!batch || batch.points.length >= this.opts.batchMax) this.waiting.push((batch = newBatch()));
    for (const p of points) batch.points.push(p);
    this.stats.queued += points.length;
    if (this.full()) this.kick();
    else if (now || batch.points.length >= this.burst()) {
      this.urgent = true;
      this.soon ??= setImmediate(() => { this.soon = undefined; this.kick(); });
    }
    else this.timer ??= setTimeout(() => this.kick(), this.opts.flushMs);
    return batch;
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
    if (this.waiting.length === 0) this.urgent = false;
    // The next batch starts after a turn of the event loop: batches chained in microtasks would
    // hold HTTP, MQTT acknowledgements and the status stream for as long as a flood of points
    // lasts (measured: auth/me p50 0.6 s under MQTT ingest at full rate; bench/soak-reads.ts).
    this.writing = this.write(batch).then(() => new Promise<void>((resolve) => setImmediate(resolve))).finally(() => {
      this.writing = undefined;
      if (this.full() || this.urgent) this.kick();
      else if (this.waiting.length) this.timer ??= setTimeout(() => this.kick(), this.opts.flushMs);
    });
  }

  private async write(batch: Batch): Promise<void> {
    try {
      const written = await this.services.db.transaction(async () => {
        const w = await this.storage.write(batch.points);
        await need(this.services, 'bus').stage('telemetry', batch.points);
        return w;
      });
      written.commit();
      this.stats.written += batch.points.length;
      this.stats.batches++;
      batch.resolve();
      need(this.services, 'bus').emit('telemetry', batch.points);
    } catch (err) {
      this.services.log.error('telemetry batch could not be stored', { points: batch.points.length, error: (err as Error).message });
      batch.reject(err as Error);
    } finally {
      this.stats.queued -= batch.points.length;
    }
  }

  /** Writes everything queued (used at stop and by tests). */
  async flush(): Promise<void> {
    for (;;) {
      if (this.writing) await this.writing.catch(() => undefined);
      else if (this.waiting.length) this.kick();
      else return;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    await this.flush();
  }
}
