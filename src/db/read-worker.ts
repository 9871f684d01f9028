// Long SQLite reads (lists, KPI, chart ranges) run in a worker thread on a read-only connection of
// their own, so a query of hundreds of milliseconds never holds up HTTP, MQTT acknowledgements or
// the status stream on the event loop. WAL gives the connection a snapshot per statement: it sees
// committed rows only. The worker is plain JavaScript evaluated from a string (no file to ship
// beside the bundle); it loads better-sqlite3 from the path the main thread resolved.
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { isBundled } from '../runtime/native.js';

const SOURCE = String.raw`
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file, { readonly: true, fileMustExist: true });
db.pragma('busy_timeout = 5000');
db.pragma('cache_size = -' + workerData.cacheKiB);
// Statements are prepared once per text; the texts are the shapes of lists and the KPI, a bounded
// set, but a cap keeps a caller that inlines values from growing it without end.
const statements = new Map();
parentPort.on('message', (m) => {
  if (m.close) { db.close(); process.exit(0); }
  try {
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

export interface ReadWorker {
  /** Rows of a read-only statement, run in the worker. */
  all(text: string, params: readonly unknown[]): Promise<unknown[]>;
  close(): Promise<void>;
}

/** Where better-sqlite3's JavaScript lives, or undefined where it is only bundled (single executable). */
function betterSqlite3Module(): string | undefined {
  if (isBundled()) return undefined;
  try {
    return createRequire(import.meta.url).resolve('better-sqlite3');
  } catch {
    return undefined;
  }
}

/**
 * A worker for `file`, started on first use and again after it died; undefined when
 * better-sqlite3 cannot be loaded in a worker (the caller then reads on the main thread).
 */
export function readWorker(file: string, opts: { cacheKiB: number }): ReadWorker | undefined {
  const module = betterSqlite3Module();
  if (!module) return undefined;
  let worker: Worker | undefined;
  let next = 0;
  const pending = new Map<number, { resolve(rows: unknown[]): void; reject(err: Error): void }>();
  const failAll = (err: Error) => {
    for (const p of pending.values()) p.reject(err);
    pending.clear();
  };
  const start = (): Worker => {
    const w = new Worker(SOURCE, { eval: true, workerData: { module, file, cacheKiB: opts.cacheKiB } });
    // The worker must not keep a stopping process alive; pending reads keep it referenced.
    w.unref();
    w.on('message', (m: { id: number; rows?: unknown[]; error?: { message: string; code?: string } }) => {
      const p = pending.get(m.id);
      if (!p) return;
      pending.delete(m.id);
      if (pending.size === 0) w.unref();
      if (m.error) p.reject(Object.assign(new Error(m.error.message), { code: m.error.code }));
      else p.resolve(m.rows ?? []);
    });
    w.on('error', (err) => { if (worker === w) worker = undefined; failAll(err); });
    w.on('exit', () => { if (worker === w) worker = undefined; failAll(new Error('the read worker stopped')); });
    return w;
  };
  return {
    all(text, params) {
      worker ??= start();
      const w = worker;
      const id = ++next;
      return new Promise((resolve, reject) => {
        pending.set(id, { resolve, reject });
        w.ref();
        w.postMessage({ id, sql: text, params });
      });
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
