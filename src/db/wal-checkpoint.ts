// Checkpoints of the SQLite WAL, off the event loop. By default SQLite checkpoints inside the
// commit that takes the log past 1000 pages: the committing call copies the log into the
// database and syncs both files, on the main thread. Under a flood of telemetry that stalled
// everything for up to 280 ms (bench/soak-reads.ts). With a read worker the writer never
// checkpoints; a worker does, when the log has grown past the same 4 MiB: one of its own, not the
// read worker, so reads do not wait behind a checkpoint (src/db/client.ts).
import { stat } from 'node:fs/promises';
import type BetterSqlite3 from 'better-sqlite3';
import type { ReadWorker } from './read-worker.js';

/** SQLite's own threshold: 1000 pages of 4 KiB. */
export const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024;

export interface WalCheckpoints {
  stop(): void;
}

export function offloadWalCheckpoints(
  file: string,
  writer: BetterSqlite3.Database,
  worker: ReadWorker,
  opts: { everyMs?: number; bytes?: number; idleCloseMs?: number; onFallback?: (err: Error) => void } = {},
): WalCheckpoints {
  const bytes = opts.bytes ?? WAL_CHECKPOINT_BYTES;
  writer.pragma('wal_autocheckpoint = 0');
  // A log restarted after a complete checkpoint is cut to half the threshold, so the file's size
  // says again how much waits to be copied.
  writer.pragma(`journal_size_limit = ${Math.floor(bytes / 2)}`);
  let running = false;
  let stopped = false;
  let idle: NodeJS.Timeout | undefined;
  const checkpoint = async () => {
    clearTimeout(idle);
    await worker.checkpoint();
    // A worker kept only for checkpoints is closed when none was needed for a while (started again by the next).
    if (opts.idleCloseMs !== undefined && !stopped) idle = setTimeout(() => void worker.close(), opts.idleCloseMs).unref();
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    stat(`${file}-wal`)
      .then((s) => (s.size >= bytes ? checkpoint() : undefined), (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
      })
      .catch((err: Error) => {
        // The worker cannot checkpoint (it died, or cannot open the file for writing): the writer
        // checkpoints again, as SQLite does by default, rather than let the log grow.
        if (stopped) return;
        clearInterval(timer);
        if (writer.open) writer.pragma('wal_autocheckpoint = 1000');
        opts.onFallback?.(err);
      })
      .finally(() => { running = false; });
  }, opts.everyMs ?? 500);
  timer.unref();
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
      clearTimeout(idle);
    },
  };
}
