// Long SQLite reads (lists, KPI, chart ranges) run in a worker thread on a read-only connection of
// their own, so a query of hundreds of milliseconds never holds up HTTP, MQTT acknowledgements or
// the status stream on the event loop. WAL checkpoints run there too, on a second connection (a
// read-only one may not write the database file): a checkpoint copies the log into the database
// and syncs both files, which took a committing writer on the main thread up to 280 ms under a
// flood of telemetry (bench/soak-reads.ts). WAL gives the connection a snapshot per statement: it sees
// committed rows only. The worker is plain JavaScript evaluated from a string (no file to ship
// beside the bundle). In development it requires better-sqlite3 from the path the main thread
// resolved; the single executable has no such file, so build.mjs embeds better-sqlite3's
// JavaScript as a string (__CABINET_SQLITE_JS__) that is evaluated ahead of the worker's code, and
// the worker dlopens the addon file the executable already extracted to its cache.
import type { Worker } from 'node:worker_threads';
import { betterSqlite3File, isBundled } from '../runtime/native.js';

// Replaced by build.mjs with better-sqlite3's bundled JavaScript, which sets the global
// __cabinetBetterSqlite3 to its Database class; not defined in development.
declare const __CABINET_SQLITE_JS__: string | undefined;

const SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = workerData.module ? require(workerData.module) : __cabinetBetterSqlite3;
const options = { readonly: true, fileMustExist: true };
if (workerData.addon) {
  const addon = { exports: {} };
  process.dlopen(addon, workerData.addon, require('node:os').constants.dlopen.RTLD_NOW);
  options.nativeBinding = addon.exports;
}
const db = new Database(workerData.file, options);
// Linux applies a nice value set with pid 0 to the calling thread only: a worker that may run
// behind the event loop (checkpoints) gives way to it on a busy box.
if (workerData.nice) { try { require('node:os').setPriority(0, workerData.nice); } catch {} }
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -' + workerData.cacheKiB);
// Statements are prepared once per text; the texts are the shapes of lists and the KPI, a bounded
// set, but a cap keeps a caller that inlines values from growing it without end.
const statements = new Map();
let checkpointer;
parentPort.on('message', (m) => {
  if (m.close) { db.close(); if (checkpointer) checkpointer.close(); process.exit(0); }
  try {
    if (m.checkpoint) {
      if (!checkpointer) checkpointer = new Database(workerData.file, { ...options, readonly: false });
      // PASSIVE copies the log's frames without waiting for or blocking the writer. A log that
      // keeps being written is never wholly copied that way, and only a wholly copied log is
      // started again from its beginning: RESTART then copies the few frames written meanwhile
      // and restarts it, holding the write lock meanwhile (and its sync of the database file); it
      // gives up after 20 ms (busy: a reader is still in the log) and is tried at the next round.
      // The caller asks for it only while its own writer has no transaction open
      // (src/db/wal-checkpoint.ts), so no BEGIN waits for it on the event loop.
      const restart = m.checkpoint === 'restart';
      checkpointer.pragma(restart ? 'busy_timeout = 20' : 'busy_timeout = 0');
      const [row] = checkpointer.pragma(restart ? 'wal_checkpoint(RESTART)' : 'wal_checkpoint(PASSIVE)');
      parentPort.postMessage({ id: m.id, rows: [row] });
      return;
    }
    let s = statements.get(m.sql);
    if (!s) {
      if (statements.size >= 256) statements.clear();
      s = db.prepare(m.sql);
      statements.set(m.sql, s);
    }
    parentPort.postMessage({ id: m.id, rows: s.all(...m.params) });
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: { message: String(err && err.message || err), code: err && err.code } });
  }
});
`;

export type CheckpointMode = 'passive' | 'restart';

/** SQLite's answer to `wal_checkpoint`: busy 1 when it could not finish, frames in the log, frames copied. */
export interface CheckpointResult {
  busy: number;
  log: number;
  checkpointed: number;
}

export interface ReadWorker {
  /** Statements the worker has answered (rows or an SQL error) since the database opened. */
  readonly reads: number;
  /** Checkpoints run in the worker since the database opened (a PASSIVE and its RESTART count once). */
  readonly checkpoints: number;
  /**
   * A checkpoint of the WAL, run in the worker on a connection that may write: PASSIVE copies
   * what it can beside the writer; RESTART takes the write lock, copies the rest and starts the
   * log again (it gives up after 20 ms when a reader is still in the log).
   */
  checkpoint(mode: CheckpointMode): Promise<CheckpointResult>;
  /** Rows of a read-only statement, run in the worker. */
  all(text: string, params: readonly unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

interface WorkerSetup {
  /** The worker's code: better-sqlite3's embedded JavaScript first in the single executable. */
  source: string;
  /** Development: where better-sqlite3's JavaScript lives, for require(). */
  module?: string;
  /** Single executable: the extracted addon file, for process.dlopen. */
  addon?: string;
}

/** How a worker gets better-sqlite3 here, or undefined when it cannot (then reads stay on the main thread). */
function workerSetup(): WorkerSetup | undefined {
  if (isBundled()) {
    const embedded = typeof __CABINET_SQLITE_JS__ === 'string' ? __CABINET_SQLITE_JS__ : undefined;
    const addon = betterSqlite3File();
    return embedded && addon ? { source: `${embedded}\n${SOURCE}`, addon } : undefined;
  }
  try {
    // node:module (with the source-map support it loads) in development only, not in the executable's start.
    return { source: SOURCE, module: process.getBuiltinModule('node:module').createRequire(import.meta.url).resolve('better-sqlite3') };
  } catch {
    return undefined;
  }
}

/**
 * A worker for `file`, started on first use and again after it died; undefined when
 * better-sqlite3 cannot be loaded in a worker (the caller then reads on the main thread).
 */
export function readWorker(file: string, opts: { cacheKiB: number; nice?: number }): ReadWorker | undefined {
  const setup = workerSetup();
  if (!setup) return undefined;
  const { source, module, addon } = setup;
  let worker: Worker | undefined;
  let next = 0;
  let reads = 0;
  let checkpoints = 0;
  const pending = new Map<number, { kind: 'read' | CheckpointMode; resolve(rows: unknown[]): void; reject(err: Error): void }>();
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const start = (): Worker => {
    // node:worker_threads (six modules under it) when the first worker starts, not at every restart.
    const w = new (process.getBuiltinModule('node:worker_threads').Worker)(source, { eval: true, workerData: { module, addon, file, cacheKiB: opts.cacheKiB, nice: opts.nice ?? 0 } });
    // The worker must not keep a stopping process alive; pending reads keep it referenced.
    w.unref();
    w.on('message', (m: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (p.kind === 'read') reads++;
      else if (p.kind === 'restart') checkpoints++;
      // Not once close() has taken it (worker no longer w): that close keeps it referenced until it
      // exits, or a stopping process could end with the connection open (a read or checkpoint
      // answered after close() was called used to unref it: 1 in 3 soak runs ended that way).
      if (pending.size === 0 && worker === w) w.unref();
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
      else p.resolve(m.rows ?? []);
    });
    w.on('error', (err) => { if (worker === w) worker = undefined; failAll(err); });
    w.on('exit', () => { if (worker === w) worker = undefined; failAll(new Error('the read worker stopped')); });
    return w;
  };
  const ask = (message: Record<string, unknown>): Promise<unknown[]> => {
    worker ??= start();
    const w = worker;
    const id = ++next;
    return new Promise((resolve, reject) => {
      pending.set(id, { kind: (message.checkpoint as CheckpointMode | undefined) ?? 'read', resolve, reject });
      w.ref();
      w.postMessage({ id, ...message });
    });
  };
  return {
    get reads() {
      return reads;
    },
    get checkpoints() {
      return checkpoints;
    },
    all(text, params) {
      return ask({ sql: text, params });
    },
    async checkpoint(mode) {
      const [row] = (await ask({ checkpoint: mode })) as CheckpointResult[];
      return row ?? { busy: 0, log: 0, checkpointed: 0 };
    },
    async close() {
      const w = worker;
      worker = undefined;
      if (!w) return;
      const exited = new Promise((resolve) => w.once('exit', resolve));
      // Referenced while it closes: a stopping process must not exit before the connection is closed.
      w.ref();
      w.postMessage({ close: true });
      await exited;
    },
  };
}
