// A box clock a test steps (src/kernel/clock.ts Clock): time stands still until step() jumps it,
// then the timers due by the new time run one at a time, each followed by `settle` (what the test
// waits for: the polls and passes they started), so days pass in milliseconds and what the timers
// start never overlaps. A timer set while stepping for a time within the step waits for the next
// step: a jump is one instant, as a box that was busy for an hour sees it, not a burst of catch-ups.
import type { Clock } from '../../src/kernel/clock.js';

interface Timer {
  at: number;
  fn: () => void;
}

export class SteppedClock implements Clock {
  private t: number;
  private seq = 0;
  private readonly timers = new Map<number, Timer>();

  constructor(start: number) {
    this.t = start;
  }

  now(): number {
    return this.t;
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const id = ++this.seq;
    this.timers.set(id, { at: this.t + Math.max(0, ms), fn });
    return id;
  }

  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }

  /** Jumps `ms` ahead and runs the timers due by then, earliest first, awaiting `settle` after each. */
  async step(ms: number, settle: () => Promise<void> = async () => undefined): Promise<void> {
    this.t += ms;
    const due = [...this.timers.entries()].filter(([, x]) => x.at <= this.t).sort((a, b) => a[1].at - b[1].at || a[0] - b[0]);
    for (const [id, timer] of due) {
      // An earlier timer's work may have cleared this one.
      if (!this.timers.delete(id)) continue;
      timer.fn();
      await settle();
    }
  }
}
