// Retention: rows older than a number of days are deleted at start (or soon after) and then hourly. One timer per
// kind of record; a failed purge is logged and tried again at the next hour. Time comes from the
// kernel clock: a run right after the wall clock jumped (NTP correcting a box that booted in the
// past) is skipped and the next hour's run, on a clock that has held still, purges.
import { JumpDetector, nowMs } from './clock.js';
import type { Logger } from './logger.js';

const HOUR = 60 * 60_000;
export const DAY_MS = 24 * HOUR;

export interface Retention {
  start(): void;
  stop(): void;
}

/** A purge is housekeeping (nothing waits on it): its first run comes this long after start()
 *  instead of during it, so a restart answers `/ready` without building and running those DELETEs.
 *  `atStart` for upkeep that must run before rows arrive (the sync's partitions ahead of the rows). */
export const FIRST_PURGE_AFTER_MS = 2000;

export function hourlyRetention(log: Logger, what: string, days: number, purge: (before: Date) => Promise<unknown>, opts: { atStart?: boolean } = {}): Retention {
  let timer: NodeJS.Timeout | undefined;
  let first: NodeJS.Timeout | undefined;
  const jumps = new JumpDetector();
  const run = () => {
    const jump = jumps.check();
    if (jump) {
      log.warn(`${what} retention waits: the clock moved`, { jump_ms: Math.round(jump) });
      return;
    }
    purge(new Date(nowMs() - days * DAY_MS)).catch((err: Error) => log.error(`${what} retention purge failed`, { error: err.message }));
  };
  return {
    start() {
      if (opts.atStart) run();
      else {
        first = setTimeout(run, FIRST_PURGE_AFTER_MS);
        first.unref();
      }
      timer = setInterval(run, HOUR);
      timer.unref();
    },
    stop() {
      clearTimeout(first);
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}

/**
 * The cutoff of a purge: `days` before now, but never later than `days` before the table's own
 * newest row, so a wall clock that jumped forward cannot delete what is younger than its
 * retention by the data's time. `newest` is epoch ms or null for an empty table.
 */
export function retentionCutoff(now: number, days: number, newest: number | null): number {
  const byClock = now - days * DAY_MS;
  return newest === null ? byClock : Math.min(byClock, newest - days * DAY_MS);
}
