// Retention: rows older than a number of days are deleted at start and then hourly. One timer per
// kind of record; a failed purge is logged and tried again at the next hour.
import type { Logger } from './logger.js';

const HOUR = 60 * 60_000;

export interface Retention {
  start(): void;
  stop(): void;
}

export function hourlyRetention(log: Logger, what: string, days: number, purge: (before: Date) => Promise<unknown>): Retention {
  let timer: NodeJS.Timeout | undefined;
  const run = () => {
    purge(new Date(Date.now() - days * 24 * HOUR)).catch((err: Error) => log.error(`${what} retention purge failed`, { error: err.message }));
  };
  return {
    start() {
      run();
      timer = setInterval(run, HOUR);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
    },
  };
}
