import { FieldFailure } from './errors.js';

// One queue per bus: exactly one job on the wire at a time, a bounded backlog, and a watchdog so
// that a job whose promise never settles (a driver callback lost when an adapter is unplugged)
// cannot hold the bus forever.

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
  private readonly waiting: Pending[] = [];
  private busy = false;
  private closed = false;

  constructor(
    readonly name: string,
    private readonly maxLength: number,
  ) {}

  get length(): number {
    return this.waiting.length + (this.busy ? 1 : 0);
  }

  /** Resolves or rejects with the job's outcome; rejects with kind queue_full when the backlog is full. */
  push<T>(job: QueueJob<T>, refusal: () => FieldFailure): Promise<T> {
    if (this.closed || (this.busy && this.waiting.length >= this.maxLength)) {
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
      if (this.busy) this.waiting.push({ start });
      else start();
    });
  }

  private next(): void {
    const item = this.waiting.shift();
    if (item) item.start();
  }

  /** Refuses new jobs; waiting jobs still run so their callers get an answer. */
  close(): void {
    this.closed = true;
  }
}
