// The current time as an RFC 3339 string, formatted once per millisecond: every answer's meta,
// every security-log entry and every log line carry one, and under load many share a millisecond.
let lastMs = Number.NaN;
let lastIso = '';

export function isoNow(): string {
  const ms = Date.now();
  if (ms !== lastMs) {
    lastMs = ms;
    lastIso = new Date(ms).toISOString();
  }
  return lastIso;
}

// The wall clock and a monotonic clock for code that must survive the wall clock jumping (a box
// without a battery-backed clock boots in the past and NTP corrects it): retention and the
// storage budget read time here, so a test injects both (a jump moves the wall clock only).
export interface ClockSource {
  /** Wall time, epoch ms. */
  wall(): number;
  /** Monotonic time, ms from an arbitrary origin; never jumps. */
  mono(): number;
}

// process.hrtime, not performance.now(): reading the global `performance` loads node:perf_hooks
// and seven modules under it (about 1 ms of a restart's CPU).
const hrMs = (): number => { const [s, ns] = process.hrtime(); return s * 1e3 + ns / 1e6; };
const systemSource: ClockSource = { wall: () => Date.now(), mono: hrMs };
let clock: ClockSource = systemSource;

export const nowMs = (): number => clock.wall();
export const monoMs = (): number => clock.mono();

/** Tests and benchmarks only: replace the clock (no argument restores the system clock). */
export function setClock(source?: ClockSource): void {
  clock = source ?? systemSource;
}

/**
 * Says whether the wall clock moved by more than `toleranceMs` against the monotonic clock since
 * the previous call (the first call is never a jump). Retention asks it before each run.
 */
export class JumpDetector {
  private last: { wall: number; mono: number } | undefined;
  constructor(private readonly toleranceMs = 5 * 60_000) {}
  /** The jump in ms (positive forward) when larger than the tolerance, else 0. */
  check(): number {
    const now = { wall: nowMs(), mono: monoMs() };
    const prev = this.last;
    this.last = now;
    if (!prev) return 0;
    const skew = (now.wall - prev.wall) - (now.mono - prev.mono);
    return Math.abs(skew) > this.toleranceMs ? skew : 0;
  }
}

/**
 * The box's clock for the services that schedule by it (the poller's reading schedule, curve
 * following): wall time and timers together, so one injected clock moves both. Built once by the
 * composition root (startServer's `clock` option, the system clock by default) and found on
 * `services.clock`; a test passes a clock it steps instead of sleeping through days.
 */
export interface Clock {
  /** Wall time, epoch ms. */
  now(): number;
  /** Runs `fn` once after `ms` of this clock; the timer never keeps the process alive. */
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms);
    t.unref();
    return t;
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
};

/** Calls `fn` every `ms` of the clock until the returned function is called. */
export function every(clock: Clock, ms: number, fn: () => void): () => void {
  let handle: unknown;
  let stopped = false;
  const arm = () => {
    handle = clock.setTimeout(() => {
      if (stopped) return;
      arm();
      fn();
    }, ms);
  };
  arm();
  return () => {
    stopped = true;
    clock.clearTimeout(handle);
  };
}
