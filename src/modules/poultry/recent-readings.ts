// When the climate readings waiting in poultry_climate_readings_recent (SQLite) are settled into
// poultry_climate_readings (src/db/settle.ts): at the start (what a previous run left), a few
// seconds after each hour (its readings then all committed: the held commit is on the whole
// minute plus 2 s), and at once past RECENT_READINGS_MAX waiting readings (a site of many houses:
// the reads scan the recent table, which has no index, so it stays short). Readings are as
// durable in either table; reads see both (the view poultry_climate_readings_all).
import type { Database } from '../../db/client.js';
import { settleRows, waitingRows } from '../../db/settle.js';
import type { Services } from '../../kernel/context.js';
import { nowMs } from '../../kernel/clock.js';
import { readingRecord, recentReadingTable } from './climate-schema.js';

export const RECENT_READINGS_MAX = 20_000;
const HOUR_MS = 3_600_000;
const MINUTE_MS = 60_000;
/** Past the minute's held commit (the whole minute plus 2 s). */
const AFTER_MINUTE_MS = 5_000;

const TABLES = { from: recentReadingTable.name, into: readingRecord.table.name, columns: Object.keys(readingRecord.table.columns) };

export interface ReadingSettle {
  /** Readings committed to the recent table. */
  appended(n: number): void;
  /** Moves every waiting reading now; resolves with how many this call moved (0 when it joined one under way). */
  settle(): Promise<number>;
  stop(): Promise<void>;
}

const settles = new WeakMap<Database, ReadingSettle>();

/** The settle of `db`'s readings, once the poultry module has started it. */
export const readingSettleOf = (db: Database): ReadingSettle | undefined => settles.get(db);

export async function startReadingSettle(services: Services): Promise<ReadingSettle> {
  const { db, log } = services;
  let waiting = 0;
  let running: Promise<number> | undefined;
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const settle = (): Promise<number> => {
    if (running) return running.then(() => 0, () => 0);
    const run = (async () => {
      try {
        return await settleRows(db, TABLES, { stopped: () => stopped });
      } catch (err) {
        log.error('climate readings could not be settled', { error: (err as Error).message });
        return 0;
      } finally {
        waiting = db.dialect === 'sqlite' ? await waitingRows(db, TABLES.from).catch(() => waiting) : 0;
        running = undefined;
      }
    })();
    running = run;
    return run;
  };
  // A look every minute (a few seconds past it), not one timer for the hour: a box's wall clock
  // may jump (NTP after a boot without a clock), and the first look in a later hour settles.
  let settledHour = Math.floor((nowMs() - AFTER_MINUTE_MS) / HOUR_MS);
  const arm = () => {
    if (stopped) return;
    const now = nowMs();
    const at = (Math.floor((now - AFTER_MINUTE_MS) / MINUTE_MS) + 1) * MINUTE_MS + AFTER_MINUTE_MS;
    timer = setTimeout(() => {
      timer = undefined;
      const hour = Math.floor((nowMs() - AFTER_MINUTE_MS) / HOUR_MS);
      if (hour !== settledHour && waiting > 0) {
        settledHour = hour;
        void settle();
      }
      arm();
    }, at - now);
    timer.unref?.();
  };
  await settle();
  arm();
  const handle: ReadingSettle = {
    appended(n) {
      waiting += n;
      if (waiting >= RECENT_READINGS_MAX) void settle();
    },
    settle,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running?.catch(() => undefined);
      settles.delete(db);
    },
  };
  settles.set(db, handle);
  return handle;
}
