// Checkpoints of the SQLite WAL, off the event loop. By default SQLite checkpoints inside the
// commit that takes the log past 1000 pages: the committing call copies the log into the
// database and syncs both files, on the main thread. Under a flood of telemetry that stalled
// everything for up to 280 ms (bench/soak-reads.ts). With a read worker the writer never
// checkpoints; a worker does, when the log has grown past the same 4 MiB: one of its own, not the
// read worker, so reads do not wait behind a checkpoint (src/db/client.ts).
// The checkpoint's last step (RESTART) takes the write lock for as long as it copies the last
// frames and syncs the database file: a BEGIN on the main thread meanwhile waited in SQLite's busy
// handler, asleep on the event loop (18-105 ms under full-rate ingest on the soak database; the
// tail of every HTTP answer, bench/soak-reads.ts). That step now runs inside the writer's own
// transaction lock (`exclusive`): transactions wait for it as promises, the event loop goes on.
import type BetterSqlite3 from 'better-sqlite3';
import type { ReadWorker } from './read-worker.js';

/** Runs fn while this process's writer has no transaction open and opens none (the writer's transaction lock). */
export type Exclusive = <T>(fn: () => Promise<T>) => Promise<T>;

/** SQLite's own threshold with 4 KiB pages (1000 pages); the default of sqlite_checkpoint_bytes. */
export const WAL_CHECKPOINT_BYTES = 4 * 1024 * 1024;

/** SQLite's own checkpoint threshold, in pages of this file, for a log of `bytes`. */
export function autocheckpointPages(db: BetterSqlite3.Database, bytes: number): number {
  return Math.max(1, Math.round(bytes / Number(db.pragma('page_size', { simple: true }))));
}

export interface WalCheckpoints {
  stop(): void;
}

export function offloadWalCheckpoints(
  file: string,
  writer: BetterSqlite3.Database,
  worker: ReadWorker,
  opts: { everyMs?: number; bytes?: number; idleCloseMs?: number; exclusive?: Exclusive; onFallback?: (err: Error) => void } = {},
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
    await worker.checkpoint('passive');
    // Stopped while it waited for the lock (the database is closing): no worker started again after close.
    await (opts.exclusive ?? ((fn) => fn()))(async () => { if (!stopped) await worker.checkpoint('restart'); });
    // A worker kept only for checkpoints is closed when none was needed for a while (started again by the next).
    if (opts.idleCloseMs !== undefined && !stopped) idle = setTimeout(() => void worker.close(), opts.idleCloseMs).unref();
  };
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    // node:fs/promises (with the readline interface it loads) at the first tick, not at start.
    process.getBuiltinModule('node:fs/promises').stat(`${file}-wal`)
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
