import { FieldFailure } from './errors.js';

// One queue per bus: exactly one job on the wire at a time, a bounded backlog, and a watchdog so
// that a job whose promise never settles (a driver callback lost when an adapter is unplugged)
// cannot hold the bus forever. Two classes wait: writes (an operator or a setpoint dispatch is
// waiting for the answer) go before reads (the poller), but never pre-empt the job on the wire.

export type JobPriority = 'write' | 'read';

/**
 * Reads waiting per bus. The poller keeps at most one poll per device in flight and pushes a
 * device's requests one after the other, so this bounds a runaway, not a normal site.
 */
export const READ_BACKLOG = 1024;

export interface QueueJob<T> {
  run: () => Promise<T>;
  /** Called when the watchdog fires: makes the bus safe for the next job (drops the link) and says what to report. */
  abandon: () => FieldFailure;
  watchdogMs: number;
}

interface Pending {
  start(): void;
}

/**
 * One job's life on the queue. A class rather than closures: this runs for every poll request, and
 * the build keeps function names (esbuild keepNames), which costs a defineProperty per named closure.
 */
class Slot<T> implements Pending {
  private settled = false;
  private watchdog: NodeJS.Timeout | undefined;

  constructor(
    private readonly queue: BusQueue,
    private readonly job: QueueJob<T>,
    private readonly resolve: (value: T) => void,
    private readonly reject: (err: unknown) => void,
  ) {}

  start(): void {
    this.queue.onStart();
    this.watchdog = setTimeout(Slot.fire, this.job.watchdogMs, this);
    let p: Promise<T>;
    try {
      p = this.job.run();
    } catch (err) {
      p = Promise.reject(err);
    }
    p.then(
      (value) => {
        if (this.settled) return;
        this.resolve(value);
        this.finish();
      },
      (err: unknown) => {
        if (this.settled) return;
        this.reject(err);
        this.finish();
      },
    );
  }

  private static fire<U>(slot: Slot<U>): void {
    if (slot.settled) return;
    let failure: FieldFailure;
    try {
      failure = slot.job.abandon();
    } catch (err) {
      failure = new FieldFailure('timeout', `Timeout ${slot.queue.name}`, String(err));
    }
    slot.reject(failure);
    slot.finish();
  }

  private finish(): void {
    if (this.settled) return;
    this.settled = true;
    clearTimeout(this.watchdog);
    this.queue.onFinish();
  }
}

export class BusQueue {
  private readonly writes: Pending[] = [];
  private readonly reads: Pending[] = [];
  private busy = false;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly maxLength: number,
  ) {}

  get length(): number {
    return this.writes.length + this.reads.length + (this.busy ? 1 : 0);
  }

  /** Reads waiting (not counting one on the wire). */
  get readsWaiting(): number {
    return this.reads.length;
  }

  /**
   * Resolves or rejects with the job's outcome; rejects with kind queue_full when the backlog of
   * its class is full (writes: maxLength; reads: READ_BACKLOG, so polling never refuses a write).
   */
  push<T>(job: QueueJob<T>, refusal: () => FieldFailure, priority: JobPriority = 'write'): Promise<T> {
    const line = priority === 'write' ? this.writes : this.reads;
    const limit = priority === 'write' ? this.maxLength : READ_BACKLOG;
    if (this.closed || (this.busy && line.length >= limit)) {
      return Promise.reject(refusal());
    }
    return new Promise<T>((resolve, reject) => {
      const slot = new Slot<T>(this, job, resolve, reject);
      if (this.busy) line.push(slot);
      else slot.start();
    });
  }

  /** Called by a slot when its job goes on the wire / has settled. */
  onStart(): void {
    this.busy = true;
  }

  onFinish(): void {
    this.busy = false;
    this.next();
  }

  private next(): void {
    const item = this.writes.shift() ?? this.reads.shift();
    if (item) item.start();
  }

  /** Refuses new jobs; waiting jobs still run so their callers get an answer. */
  close(): void {
    this.closed = true;
  }
}
