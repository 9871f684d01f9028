// Opens the database named by the configuration: a SQLite file (default), a PostgreSQL server
// (postgres:// URL) or an in-process PGlite (pglite: URL, for tests and laptops without a server).
import { AsyncLocalStorage } from 'node:async_hooks';
import { existsSync, accessSync, chmodSync, constants, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql, type SQL } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { SQLiteSyncDialect } from 'drizzle-orm/sqlite-core';
import { betterSqlite3Binding } from '../runtime/native.js';
import { makeDataDir } from '../runtime/data-dir.js';
import { readWorker } from './read-worker.js';
import { autocheckpointPages, offloadWalCheckpoints, WAL_CHECKPOINT_BYTES } from './wal-checkpoint.js';
import { routedStatement, type RoutedStatement } from './routed-statement.js';

/** Page cache of the read worker's connection: it reads the big tables (lists, KPI, charts). */
const READ_WORKER_CACHE_KIB = 8192;

export type Dialect = 'sqlite' | 'postgres';

/** The query builder, typed by its SQLite flavour; PostgreSQL builders share the same chain shape. */
export type Orm = BetterSQLite3Database<Record<string, never>>;

export interface Database {
  readonly dialect: Dialect;
  readonly engine: 'sqlite' | 'postgresql' | 'pglite';
  readonly orm: Orm;
  /** The builder outside any transaction: prepared statements are built from it, never from a transaction. */
  readonly baseOrm: Orm;
  /**
   * SQLite only: prepares a statement for hot paths that map their rows themselves instead of
   * through Drizzle (Store's key lookups, batch writes). Like every statement of `orm`, a query
   * runs on the read connection unless its caller is inside a transaction (then on the writer,
   * which sees the transaction's own rows); anything that writes runs on the writer.
   */
  readonly prepareSqlite?: (statement: string) => SqliteStatement;
  /**
   * SQLite only: rows of a read-only statement text that may take long (lists, KPI, chart
   * ranges), run off the event loop in a worker thread on its own read-only connection. Outside
   * transactions only (a worker cannot see a transaction's uncommitted rows).
   */
  readonly offloadSqlite?: (statement: string, params: readonly unknown[]) => Promise<unknown[]>;
  /** SQLite only: where long reads run (a worker thread, or the main thread without one), how many the worker answered, and the WAL checkpoints it ran. */
  readonly readPath?: () => { mode: 'thread' | 'main'; workerReads: number; checkpoints: number };
  /** Where the data lives, safe to show (no password). */
  readonly location: string;
  /**
   * SQLite only: the last run of the serving process did not stop cleanly (power cut, crash,
   * SIGKILL), so what it kept in memory (the open telemetry roll-ups) is to be rebuilt.
   */
  readonly uncleanStop?: boolean;
  exec(statement: string): Promise<void>;
  rows<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /**
   * Rows of a read that may take long (KPI, aggregates): on SQLite outside a transaction it runs
   * in the read worker (offloadSqlite), on PostgreSQL on the pool like rows(). Inside a
   * transaction it is rows().
   */
  read<T = Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** Runs a statement that returns no rows. */
  run(query: SQL): Promise<void>;
  /** Whether the current async context runs inside transaction(). */
  inTransaction(): boolean;
  /** Runs fn in one transaction. On SQLite, writers are serialised so awaits cannot interleave. */
  transaction<T>(fn: () => Promise<T>): Promise<T>;
  /**
   * SQLite only: no transaction of any caller is open on the one connection, so a single
   * statement run now commits by itself and nothing can interleave with it.
   */
  writerIdle?(): boolean;
  /**
   * SQLite only: a number that is the same as long as nothing was committed to the database since
   * it was read, by this process (a statement that writes, a transaction's end, exec) or by
   * another connection (PRAGMA data_version). What was read under a mark holds while it stands:
   * Store keeps a list's total under it. Read it before the read it labels.
   */
  changeMark?(): number;
  serverVersion(): Promise<string>;
  close(): Promise<void>;
}

/** The part of a better-sqlite3 statement the store uses. */
export interface SqliteStatement {
  all(...params: unknown[]): unknown[];
  get(...params: unknown[]): unknown;
  run(...params: unknown[]): unknown;
}

export class DatabaseOpenError extends Error {}

/** close() may be called by a failing request path and again at shutdown. */
const once = (fn: () => Promise<void>) => {
  let done: Promise<void> | undefined;
  return () => (done ??= fn());
};

function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}

/**
 * A FIFO lock: SQLite has one connection, so a transaction must own it until it ends. `held()`:
 * someone owns or awaits it (a transaction, or the checkpoint's RESTART holding the write lock).
 */
export function createLock() {
  let tail: Promise<unknown> = Promise.resolve();
  let holders = 0;
  const lock = <T>(fn: () => Promise<T>): Promise<T> => {
    holders++;
    const run = tail.then(fn, fn).finally(() => { holders--; });
    tail = run.catch(() => undefined);
    return run;
  };
  return Object.assign(lock, { held: () => holders > 0 });
}

/**
 * How the serving process tracks its own stops: while it has the database open a marker file
 * lies beside it; one found at start means the last run did not stop cleanly (power cut, crash,
 * SIGKILL), the moment a full integrity check is worth its time.
 */
export interface CleanStopTracking {
  onCheck(result: { reason: 'unclean_stop'; ms: number }): void;
}

/** How a SQLite file is made and checkpointed (flash wear: docs/storage-and-reads.md). */
export interface SqliteTuning {
  /** Page size of a file made now (an existing file keeps its own). */
  pageSize?: number;
  /** The log is copied into the database once it has grown past this. */
  checkpointBytes?: number;
}

async function openSqlite(dataDir: string, tracking?: CleanStopTracking, tuning: SqliteTuning = {}): Promise<Database> {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const { drizzle } = await import('drizzle-orm/better-sqlite3');
  try {
    makeDataDir(dataDir);
    if (!statSync(dataDir).isDirectory()) throw Object.assign(new Error('not a directory'), { code: 'ENOTDIR' });
    accessSync(dataDir, constants.W_OK | constants.R_OK);
  } catch (err) {
    throw new DatabaseOpenError(`data directory ${dataDir} is not usable: ${(err as NodeJS.ErrnoException).code ?? String(err)} (it must be a writable directory)`);
  }
  const file = join(dataDir, 'cabinet.sqlite');
  const nativeBinding = betterSqlite3Binding();
  const options = nativeBinding ? { nativeBinding: nativeBinding as unknown as string } : {};
  const marker = join(dataDir, 'cabinet.sqlite.running');
  if (existsSync(file)) {
    // Probe read-only first: a corrupt file must be reported, not "repaired" by a WAL switch.
    // The header and schema are read at every start; the whole file (quick_check reads every
    // page: seconds on a box's database of a few hundred MB) only after an unclean stop.
    try {
      const probe = new BetterSqlite3(file, { ...options, readonly: true, fileMustExist: true });
      probe.pragma('schema_version');
      if (tracking && existsSync(marker)) {
        const started = performance.now();
        const [result] = probe.pragma('quick_check(1)') as { quick_check: string }[];
        if (result?.quick_check !== 'ok') throw new Error(`integrity check: ${result?.quick_check ?? 'no answer'}`);
        tracking.onCheck({ reason: 'unclean_stop', ms: Math.round(performance.now() - started) });
      }
      probe.close();
    } catch (err) {
      throw new DatabaseOpenError(`database file ${file} cannot be read as SQLite: ${(err as Error).message}`);
    }
  }
  const fresh = !existsSync(file);
  const uncleanStop = Boolean(tracking) && !fresh && existsSync(marker);
  const raw = new BetterSqlite3(file, options);
  // Credential digests and the security log live here: owner-only, like the session key.
  // SQLite gives the -wal and -shm files the same mode as the database file.
  if (fresh) chmodSync(file, 0o600);
  // Before auto_vacuum, which fixes the page size: a commit writes whole pages to the log (and
  // the checkpoint writes them again), so a smaller page writes fewer bytes for the few rows a
  // commit appends.
  if (fresh && tuning.pageSize) raw.pragma(`page_size = ${tuning.pageSize}`);
  // No auto-vacuum (SQLite's default, said here): freed pages stay in the file for the next rows,
  // and no pointer map is written for every page allocated or freed (src/modules/storage/space.ts).
  if (fresh) raw.pragma('auto_vacuum = NONE');
  if (tracking) writeFileSync(marker, `${process.pid}\n`, { mode: 0o600 });
  raw.pragma('journal_mode = WAL');
  raw.pragma('foreign_keys = ON');
  raw.pragma('busy_timeout = 5000');
  raw.pragma('synchronous = NORMAL');
  // 16 MiB of page cache instead of 2: telemetry batches touch one index leaf per series (and
  // roll-up rows per series), hundreds of pages per commit, which the default cache evicts
  // between batches (measured: 2-3x fewer points/s once the table outgrows it; bench/telemetry.ts).
  raw.pragma('cache_size = -16384');
  // Reads outside a transaction use connections of their own: on the writer they would see
  // the uncommitted rows of a transaction that is awaiting I/O (and may yet roll back). WAL gives
  // each read connection the last committed state.
  const reader = new BetterSqlite3(file, { ...options, readonly: true, fileMustExist: true });
  reader.pragma('busy_timeout = 5000');
  const worker = readWorker(file, { cacheKiB: READ_WORKER_CACHE_KIB });
  // Checkpoints get a thread of their own: one that copies megabytes of log under a flood took
  // 100-200 ms, and every list page, chart and KPI read queued behind it in the read worker.
  // Started when the log first needs a checkpoint, closed after a minute without one, so an idle
  // box does not keep it. At nice 10 it gives way to the event loop and the read worker when the
  // cores are busy: a checkpoint may take longer, an answer may not.
  const checkpointer = worker ? readWorker(file, { cacheKiB: 64, nice: 10 }) : undefined;
  const lock = createLock();
  // Without a checkpoint thread the writer checkpoints, at the same size of log whatever the page size.
  if (!checkpointer) raw.pragma(`wal_autocheckpoint = ${autocheckpointPages(raw, tuning.checkpointBytes ?? WAL_CHECKPOINT_BYTES)}`);
  const checkpoints = checkpointer ? offloadWalCheckpoints(file, raw, checkpointer, { idleCloseMs: 60_000, exclusive: lock, ...(tuning.checkpointBytes ? { bytes: tuning.checkpointBytes } : {}) }) : undefined;
  // Which async context owns the open transaction: a caller nested in it runs inside it; any other
  // caller (another request, or work a transaction started and left running after it committed)
  // waits for the lock. A counter shared by everyone let another request's writes join an open
  // transaction and be rolled back with it.
  const owner = new AsyncLocalStorage<{ open: boolean }>();
  const nested = () => owner.getStore()?.open === true;
  // Drizzle prepares every query it runs; kept by text, a statement is prepared once per connection
  // instead of once per call (SQLite's prepare was a reading's costliest step after its INSERT;
  // bench/readings-pipeline.ts). Bounded: texts with literals in them must not grow it for ever.
  const routed = new Map<string, RoutedStatement>();
  // changeMark(): this process's writes counted as they run; other connections' commits through
  // data_version, which the writer's own commits do not move.
  let changes = 0;
  const wrote = () => { changes++; };
  const dataVersion = raw.prepare('pragma data_version').pluck();
  let otherVersion = dataVersion.get();
  const prepare = (statement: string) => {
    let s = routed.get(statement);
    if (!s) {
      if (routed.size >= 512) routed.clear();
      routed.set(statement, (s = routedStatement(statement, raw, reader, nested, wrote)));
    }
    return s;
  };
  // Drizzle asks its client only for prepare() (transactions are ours, below).
  const orm = drizzle({ client: { prepare } as never }) as unknown as Orm;
  const dialect = new SQLiteSyncDialect();
  // Without a worker (better-sqlite3 not loadable in one) long reads run on the read connection.
  const here = new Map<string, SqliteStatement>();
  const onReader = (statement: string) => {
    let s = here.get(statement);
    if (!s) {
      if (here.size >= 256) here.clear();
      here.set(statement, (s = reader.prepare(statement)));
    }
    return s;
  };
  const offload = async (statement: string, params: readonly unknown[]): Promise<unknown[]> =>
    worker ? worker.all(statement, params) : onReader(statement).all(...params);
  return {
    dialect: 'sqlite',
    engine: 'sqlite',
    orm,
    baseOrm: orm,
    prepareSqlite: prepare,
    offloadSqlite: offload,
    readPath: () => ({ mode: worker ? 'thread' : 'main', workerReads: worker?.reads ?? 0, checkpoints: checkpointer?.checkpoints ?? 0 }),
    location: file,
    uncleanStop,
    async exec(statement) {
      changes++;
      raw.exec(statement);
    },
    async rows<T>(query: SQL) {
      return orm.all(query) as T[];
    },
    async read<T>(query: SQL) {
      if (nested()) return orm.all(query) as T[];
      const q = dialect.sqlToQuery(query);
      return (await offload(q.sql, q.params)) as T[];
    },
    async run(query: SQL) {
      orm.run(query);
    },
    inTransaction: nested,
    // Not idle while the lock is owned or awaited: a statement run now outside a transaction would
    // sleep in SQLite's busy handler on the event loop behind the checkpoint's RESTART.
    writerIdle: () => !raw.inTransaction && !lock.held(),
    changeMark() {
      const v = dataVersion.get();
      if (v !== otherVersion) {
        otherVersion = v;
        changes++;
      }
      return changes;
    },
    transaction(fn) {
      if (nested()) return fn();
      return lock(() => {
        const tx = { open: true };
        return owner.run(tx, async () => {
          raw.exec('BEGIN IMMEDIATE');
          try {
            const out = await fn();
            raw.exec('COMMIT');
            return out;
          } catch (err) {
            if (raw.inTransaction) raw.exec('ROLLBACK');
            throw err;
          } finally {
            tx.open = false;
            // What was read on the read connection while the transaction was open is older than its end.
            changes++;
          }
        });
      });
    },
    async serverVersion() {
      return (raw.prepare('select sqlite_version() as v').get() as { v: string }).v;
    },
    async close() {
      checkpoints?.stop();
      await Promise.all([worker?.close(), checkpointer?.close()]);
      if (reader.open) reader.close();
      if (raw.open) raw.close();
      if (tracking) rmSync(marker, { force: true });
    },
  };
}

interface Transactional {
  transaction<T>(fn: (tx: unknown) => Promise<T>): Promise<T>;
}

/**
 * A PostgreSQL-dialect database (a server through node-postgres, or PGlite). Queries built from
 * `orm` inside transaction(fn) run on the transaction's connection, found through async context.
 */
async function pgDatabase(
  base: object,
  transactional: Transactional,
  info: Pick<Database, 'engine' | 'location' | 'serverVersion' | 'close'>,
): Promise<Database> {
  const store = new AsyncLocalStorage<unknown>();
  const orm = new Proxy(base, {
    get(target, prop) {
      const owner = (store.getStore() ?? target) as object;
      const v = Reflect.get(owner, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(owner) : v;
    },
  }) as unknown as Orm;
  const execute = <T>(query: SQL) => (orm as unknown as { execute(q: SQL): Promise<{ rows: T[] }> }).execute(query);
  return {
    dialect: 'postgres',
    orm,
    baseOrm: base as unknown as Orm,
    ...info,
    async exec(statement) {
      await execute(sql.raw(statement));
    },
    async rows<T>(query: SQL) {
      return (await execute<T>(query)).rows;
    },
    // The pool already runs every query off the event loop, each on a connection of its own.
    async read<T>(query: SQL) {
      return (await execute<T>(query)).rows;
    },
    async run(query: SQL) {
      await execute(query);
    },
    inTransaction: () => store.getStore() !== undefined,
    transaction: <T>(fn: () => Promise<T>): Promise<T> => (store.getStore() ? fn() : transactional.transaction((tx) => store.run(tx, fn))),
  };
}

async function openPostgres(url: string, onIdleError: (err: Error) => void): Promise<Database> {
  const { default: pg } = await import('pg');
  const { drizzle } = await import('drizzle-orm/node-postgres');
  const pool = new pg.Pool({ connectionString: url, max: 10, connectionTimeoutMillis: 5000 });
  // An idle connection dropped by the server (restart, failover) must not crash the process;
  // the pool replaces it and the next query reconnects.
  pool.on('error', onIdleError);
  // A connection checked out at that moment (a transaction between two statements) emits its
  // error on the client, where the pool does not listen: without this it would be uncaught.
  pool.on('connect', (client) => client.on('error', onIdleError));
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new DatabaseOpenError(`cannot connect to PostgreSQL at ${redact(url)}: ${(err as Error).message}`);
  }
  const orm = drizzle(pool);
  // Drizzle's pool transaction checks a connection out before its BEGIN and gives it back only
  // after it: a BEGIN failing on a connection the server had just ended (restart, failover) kept
  // it for good, the pool shrank by one each time, and pool.end() waited for it at every stop.
  // So the transaction runs on a connection checked out here, given back whatever step failed.
  // One Drizzle per pooled connection, made at its first transaction, not at every one.
  const onClient = new WeakMap<object, Transactional>();
  const transactional: Transactional = {
    async transaction(fn) {
      const client = await pool.connect();
      try {
        let tx = onClient.get(client);
        if (!tx) {
          tx = drizzle(client);
          onClient.set(client, tx);
        }
        return await tx.transaction(fn);
      } finally {
        // A connection the server ended is not queryable: the pool drops it instead of reusing it.
        client.release();
      }
    },
  };
  return pgDatabase(orm, transactional, {
    engine: 'postgresql',
    location: redact(url),
    async serverVersion() {
      const r = await pool.query('show server_version');
      return String(r.rows[0]?.server_version ?? 'unknown');
    },
    close: once(() => pool.end()),
  });
}

async function openPglite(url: string): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { drizzle } = await import('drizzle-orm/pglite');
  const path = url.slice('pglite:'.length).replace(/^\/\//, '');
  const client = path && path !== 'memory' ? new PGlite(path) : new PGlite();
  await client.waitReady;
  const orm = drizzle(client);
  return pgDatabase(orm, orm, {
    engine: 'pglite',
    location: url,
    async serverVersion() {
      const r = await client.query<{ v: string }>('select version() as v');
      return `pglite (${r.rows[0]?.v ?? 'unknown'})`;
    },
    close: once(() => client.close()),
  });
}

/** `cleanStop`: only the serving process tracks its stops (a CLI command beside it must not). */
export async function openDatabase(opts: { databaseUrl?: string; dataDir: string; onIdleError?: (err: Error) => void; cleanStop?: CleanStopTracking; sqlite?: SqliteTuning }): Promise<Database> {
  const url = opts.databaseUrl?.trim();
  if (!url || url.startsWith('sqlite:')) {
    return openSqlite(url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) || opts.dataDir : opts.dataDir, opts.cleanStop, opts.sqlite);
  }
  if (url.startsWith('postgres://') || url.startsWith('postgresql://')) return openPostgres(url, opts.onIdleError ?? (() => undefined));
  if (url.startsWith('pglite:')) return openPglite(url);
  throw new DatabaseOpenError(`database_url ${url.split(':')[0]}:... is not supported (use postgres://, pglite: or leave it empty for SQLite)`);
}
