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
  start: () => void;
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
      const start = (): void => {
        this.busy = true;
        let settled = false;
        const finish = (): void => {
          if (settled) return;
          settled = true;
          clearTimeout(watchdog);
          this.busy = false;
          this.next();
        };
        const watchdog = setTimeout(() => {
          if (settled) return;
          let failure: FieldFailure;
          try {
            failure = job.abandon();
          } catch (err) {
            failure = new FieldFailure('timeout', `Timeout ${this.name}`, String(err));
          }
          reject(failure);
          finish();
        }, job.watchdogMs);
        let p: Promise<T>;
        try {
          p = job.run();
        } catch (err) {
          p = Promise.reject(err);
        }
        p.then(
          (value) => {
            if (settled) return;
            resolve(value);
            finish();
          },
          (err: unknown) => {
            if (settled) return;
            reject(err);
            finish();
          },
        );
      };
      if (this.busy) line.push({ start });
      else start();
    });
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
