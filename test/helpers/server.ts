// Starts the real service in-process on port 0 with a temporary data directory, for each
// dialect: SQLite (a file), PostgreSQL (a fresh database on the server named by
// CABINET_TEST_PG_URL, which the global setup sets to the machine's server when one answers on
// the default local address) or, without a server, PGlite in-process on a temporary directory.
import { chmodSync, copyFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig, type Config } from '../../src/config.js';
import { startServer, type RunningServer } from '../../src/server.js';
import type { Clock } from '../../src/kernel/clock.js';
import { createLogger } from '../../src/kernel/logger.js';
import { openDatabase } from '../../src/db/client.js';
import { migrateAll } from '../../src/modules/migrate-all.js';

export type TestDialect = 'sqlite' | 'postgres';
export const DIALECTS: TestDialect[] = ['sqlite', 'postgres'];

export interface TokenClaims {
  subject: string;
  role: 'operator' | 'admin' | 'security';
  scope_type: 'master' | 'tenant';
  tenant_id?: string;
  site_id?: string;
  ttlMinutes?: number;
}

export interface TestEnv {
  dialect: TestDialect;
  dataDir: string;
  databaseUrl: string;
  logs: Record<string, unknown>[];
  config(overrides?: Record<string, string>): Config;
  /** `clock`: the box's clock (test/helpers/clock.ts steps one); the system clock by default. */
  start(overrides?: Record<string, string>, opts?: { clock?: Clock }): Promise<RunningServer>;
  /** A signed session token from the server's own key (default: admin, master scope). */
  token(server: RunningServer, claims?: Partial<TokenClaims>): Promise<string>;
  cleanup(): Promise<void>;
}

/** The machine's PostgreSQL as the README describes it: local, database test, user postgres, trust. */
export const DEFAULT_PG_URL = 'postgres://postgres@127.0.0.1:5432/test';

/**
 * Which server the PostgreSQL variant uses: CABINET_TEST_PG_URL when set (`pglite` forces PGlite),
 * else the default local server when it answers within a few seconds, else none (PGlite).
 * Returns the URL (or undefined) and the line that says so.
 */
export async function choosePostgres(env: NodeJS.ProcessEnv = process.env, fallback = DEFAULT_PG_URL): Promise<{ url?: string; line: string }> {
  const given = env.CABINET_TEST_PG_URL;
  if (given === 'pglite') return { line: 'PostgreSQL variant: PGlite in-process (CABINET_TEST_PG_URL=pglite)' };
  if (given) return { url: given, line: `PostgreSQL variant: ${given} (CABINET_TEST_PG_URL)` };
  const client = new pg.Client({ connectionString: fallback, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return { url: fallback, line: `PostgreSQL variant: the machine's server at ${fallback}` };
  } catch (err) {
    return { line: `PostgreSQL variant: PGlite in-process (no PostgreSQL at ${fallback}: ${(err as Error).message || String(err)}); the tests that need two processes on one server do not run` };
  } finally {
    await client.end().catch(() => undefined);
  }
}

const PG_URL = process.env.CABINET_TEST_PG_URL === 'pglite' ? undefined : process.env.CABINET_TEST_PG_URL;

/**
 * On the machine's PostgreSQL: a database with every migration applied, made once per run by the
 * global setup, that each environment's database is created from (CREATE DATABASE ... TEMPLATE, a
 * file copy). An empty database ran all the migrations at every first start: 1.5-4 s of each
 * PostgreSQL environment on a loaded machine. The migrations still run here, once, on the real
 * server. Returns the template's name.
 */
export async function makePgTemplate(url: string): Promise<string> {
  const name = `cabinet_tpl_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(url);
  u.pathname = `/${name}`;
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-pg-template-'));
  try {
    const db = await openDatabase({ databaseUrl: u.toString(), dataDir: dir });
    try {
      await migrateAll(db);
    } finally {
      await db.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return name;
}

export async function dropPgDatabase(url: string, name: string): Promise<void> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  try {
    await admin.query(`drop database if exists ${name} with (force)`);
  } finally {
    await admin.end();
  }
}

/**
 * A PGlite cluster with every migration applied, made once per run in `dir` by the global setup.
 * A new PGlite directory runs initdb inside WebAssembly (10-40 s on a loaded 2-core machine) and
 * then the 28 migrations (1.5-3 s): before, every test environment paid both, and a suite with
 * eight environments spent minutes there and timed out. Each environment now copies this closed
 * cluster (40 MB, a quarter of a second); its first start finds the schema current, as a restart
 * does. The migrations themselves still run on PGlite, here, and on every SQLite environment.
 */
export async function makePgliteTemplate(dir: string): Promise<void> {
  const db = await openDatabase({ databaseUrl: `pglite:${dir}`, dataDir: dir });
  try {
    await migrateAll(db);
  } finally {
    await db.close();
  }
}

async function adminQuery(text: string): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text);
  } finally {
    await client.end();
  }
}

/** The SQLite file a box keeps in its data directory (src/db/client.ts). */
const SQLITE_FILE = 'cabinet.sqlite';

/**
 * A SQLite database with every migration applied, made once per run by the global setup in `dir`.
 * An environment's first start copies it (a file copy) instead of migrating an empty file: the
 * migrations took 105-125 ms of CPU a start, and the suite starts a few hundred SQLite servers.
 * The migrations still run, here, on the real code, and every start still checks them against
 * the copy. Returns the file.
 */
export async function makeSqliteTemplate(dir: string): Promise<string> {
  const db = await openDatabase({ dataDir: dir });
  try {
    await migrateAll(db);
  } finally {
    await db.close();
  }
  return join(dir, SQLITE_FILE);
}

/**
 * The migrated SQLite template into a data directory that has no database yet, when the start
 * leaves the file's making to the box's defaults (a start with its own page size or database
 * makes its own file, as a box would).
 */
function copySqliteTemplate(dataDir: string, overrides: Record<string, string>): void {
  const template = process.env.CABINET_TEST_SQLITE_TEMPLATE;
  if (!template || !existsSync(template) || overrides.database_url || overrides.sqlite_page_size) return;
  const file = join(dataDir, SQLITE_FILE);
  if (existsSync(file)) return;
  copyFileSync(template, file);
  chmodSync(file, 0o600);
}

/**
 * `empty`: a database with nothing in it, for tests that build an older layout themselves (every
 * other environment starts from a copy of a database with every migration applied: on SQLite at
 * its first start, see copySqliteTemplate).
 */
export async function createTestEnv(dialect: TestDialect, opts: { empty?: boolean } = {}): Promise<TestEnv> {
  const empty = opts.empty === true;
  const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-test-'));
  let databaseUrl = '';
  let dropDb: string | undefined;
  if (dialect === 'postgres') {
    if (PG_URL) {
      dropDb = `cabinet_t_${randomBytes(6).toString('hex')}`;
      const template = process.env.CABINET_TEST_PG_TEMPLATE;
      await adminQuery(`create database ${dropDb}${template && !opts.empty ? ` template ${template}` : ''}`);
      const u = new URL(PG_URL);
      u.pathname = `/${dropDb}`;
      databaseUrl = u.toString();
    } else {
      const dir = join(dataDir, 'pglite');
      const template = process.env.CABINET_TEST_PGLITE_TEMPLATE;
      if (template && existsSync(template) && !opts.empty) cpSync(template, dir, { recursive: true });
      databaseUrl = `pglite:${dir}`;
    }
  }
  const logs: Record<string, unknown>[] = [];
  const running: RunningServer[] = [];
  const env: TestEnv = {
    dialect,
    dataDir,
    databaseUrl,
    logs,
    config(overrides = {}) {
      // MQTT over TLS off like HTTPS: making the box's CA costs every test server a few hundred ms.
      return loadConfig({ http_port: '0', https_port: 'off', mqtt_tls_port: 'off', host: '127.0.0.1', data_dir: dataDir, database_url: databaseUrl, log_level: 'debug', rpc_port: '0', ...overrides }, {});
    },
    async start(overrides = {}, opts = {}) {
      if (dialect === 'sqlite' && !empty) copySqliteTemplate(dataDir, overrides);
      const log = createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
      const server = await startServer(env.config(overrides), { log, ...opts });
      running.push(server);
      return server;
    },
    async token(server, claims = {}) {
      const c: TokenClaims = { subject: 'test-admin', role: 'admin', scope_type: 'master', ...claims };
      return (await server.services.sessions.issue(c)).token;
    },
    async cleanup() {
      for (const s of running) await s.close();
      if (dropDb) await adminQuery(`drop database if exists ${dropDb} with (force)`);
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return env;
}
