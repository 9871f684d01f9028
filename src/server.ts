// Starts the service: build the shared services (src/compose.ts), listen at once (probes answer
// 503 while starting), open and migrate the database, start the module runtimes in dependency
// order, then report ready. close() stops accepting, lets in-flight requests finish within
// shutdown_timeout_ms, stops the runtimes in reverse and closes the database.
import { configureGroupCommit, flushGrouped } from './db/group-commit.js';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import type { Server as HttpsServer } from 'node:https';
import { serve } from './runtime/node-serve.js';
import { createApp, allRoutes } from './app.js';
import { openDatabase, type Database } from './db/client.js';
import { migrateAll } from './modules/migrate-all.js';
import { createLogger, type Logger } from './kernel/logger.js';
import { clientErrorHandler } from './kernel/client-error.js';
import type { Guards } from './kernel/route.js';
import type { Lifecycle, Services } from './kernel/context.js';
import { createAccessGuards } from './auth/guard.js';
import { loadSessionKey } from './auth/secret.js';
import { createSessionService } from './auth/sessions.js';
import { SecurityLog } from './auth/security-log.js';
import { MODULES } from './modules/index.js';
import { readAsset } from './runtime/assets.js';
import { isBundled } from './runtime/native.js';
import { composeServices, Runtimes, StartupError } from './compose.js';
import type { Clock } from './kernel/clock.js';
import { httpsPortOf, type Config } from './config.js';
import { BoxTls } from './runtime/tls.js';
import { tightenDataDir } from './runtime/data-dir.js';
import { plainHttpFetch, plainUpgrade, type HttpsInfo, type NodeFetch } from './runtime/tls-http.js';
import { refuseUpgradeWith } from './realtime/upgrade.js';
import pkg from '../package.json' with { type: 'json' };

export interface RunningServer {
  url: string;
  port: number;
  /** The HTTPS listener (https_port), once the database is open; absent when off or its port was taken. */
  https?: { url: string; port: number; tls: BoxTls };
  services: Services;
  close(): Promise<void>;
}

export { StartupError };

/** A failure writing an answer after the app made it (a stream that broke): logged, the connection closed. */
const answerFailed = (log: Logger) => (err: unknown) => log.error('writing an answer failed', { error: err instanceof Error ? err.message : String(err) });

function listen(fetch: NodeFetch, config: Config, log: Logger): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch, port: config.http_port, hostname: config.host, onError: answerFailed(log) }) as Server;
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new StartupError(`cannot listen on ${config.host}:${config.http_port}: ${err.code ?? err.message}${err.code === 'EADDRINUSE' ? ' (the port is taken: choose another with --http-port, CABINET_HTTP_PORT or http_port in the config file)' : ''}`)),
    );
  });
}

/**
 * The HTTPS listener with the box's certificate (src/runtime/tls.ts), swapped in place when it is
 * issued anew. A taken port is logged and the box goes on over HTTP (without redirects), as with
 * the MQTT port: the panel and the LAN keep the service while someone frees the port. So are
 * certificates that cannot be written or read.
 */
async function listenHttps(fetch: NodeFetch, config: Config, port: number, tls: BoxTls, log: Logger): Promise<HttpsServer | undefined> {
  try {
    await tls.check();
  } catch (err) {
    // A full disk or a data directory someone made read-only: the box still serves, over HTTP.
    log.error('HTTPS is off: cannot make or read the certificates', { dir: 'tls in the data directory', error: (err as Error).message });
    return undefined;
  }
  const { certPem, keyPem } = tls.material;
  // node:https (and node:tls under it, whose load starts Node parsing its bundled root
  // certificates on a thread of its own) only when HTTPS is served: https_port off loads neither.
  const { createServer: createHttpsServer } = process.getBuiltinModule('node:https');
  return new Promise((resolve) => {
    const server = serve({ fetch, port, hostname: config.host, createServer: createHttpsServer, serverOptions: { cert: certPem, key: keyPem }, onError: answerFailed(log) }) as HttpsServer;
    server.once('listening', () => {
      tls.onChange((m) => server.setSecureContext({ cert: m.certPem, key: m.keyPem }));
      tls.start();
      resolve(server);
    });
    server.once('error', (err: NodeJS.ErrnoException) => {
      log.error('HTTPS is off: cannot listen', { host: config.host, port, error: err.code ?? err.message, hint: 'choose another port with --https-port, CABINET_HTTPS_PORT or https_port' });
      resolve(undefined);
    });
  });
}

const shownUrl = (scheme: string, host: string, port: number) => {
  const shown = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
  return `${scheme}://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
};

type OpenApiModule = typeof import('./kernel/openapi.js');
// The document depends only on the catalogue and the version, both fixed for the process: every
// server a process starts (the tests start many) shares the one it built first.
let processYaml: string | undefined;
const documentYaml = (o: OpenApiModule) => (processYaml ??= o.toYaml(o.buildOpenApi(allRoutes(MODULES), { version: pkg.version })));

/** The OpenAPI document of this binary's routes, as YAML (about a second of CPU for 2 MB). */
export async function openapiDocumentYaml(): Promise<string> {
  return documentYaml(await import('./kernel/openapi.js'));
}

const missingOpenApi = (): never => {
  throw new Error('this executable carries no OpenAPI document (openapi/openapi.yaml)');
};

/** The executable carries the document the build wrote (scripts/openapi-yaml.ts): nothing to compute on the box. */
function embeddedOpenApi(): string | undefined {
  return isBundled() ? readAsset('openapi/openapi.yaml')?.toString('utf8') : undefined;
}

/** `clock`: the box's clock for what schedules by it (poller, curve following); tests step one. */
export async function startServer(config: Config, opts: { log?: Logger; guards?: Guards; clock?: Clock } = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.log_level);
  let markReady!: () => void;
  const lifecycle: Lifecycle = { state: 'starting', reason: 'opening database', whenReady: new Promise<void>((resolve) => { markReady = resolve; }) };
  let db: Database | undefined;
  let security: SecurityLog | undefined;
  let yaml: string | undefined;
  // The executable serves the document its build wrote, and never loads the module that makes one
  // (the decisions' texts, the YAML writer: evaluated and in the code cache at every start before).
  const openapi = isBundled() ? undefined : await import('./kernel/openapi.js');
  const { services, open } = composeServices({
    config, log, lifecycle, catalogue: MODULES, ...(opts.clock ? { clock: opts.clock } : {}),
    openapiYaml: () => (yaml ??= embeddedOpenApi() ?? (openapi ? documentYaml(openapi) : missingOpenApi())),
  });
  const app = createApp(services, MODULES, opts.guards ?? createAccessGuards(services, () => services.security));
  // LAN clients are sent to HTTPS once it listens (services.tls set); until then HTTP serves all.
  const httpsInfo: HttpsInfo = () => (services.tls ? { port: services.tls.httpsPort, names: services.tls.box.material.names } : undefined);
  const server = await listen(plainHttpFetch(app.fetch, httpsInfo), config, log);
  server.on('upgrade', plainUpgrade(services.upgrades.handle, httpsInfo, (socket, message) => refuseUpgradeWith(socket, 'https_required', message)));
  server.on('clientError', clientErrorHandler(log));
  const port = (server.address() as AddressInfo).port;
  const url = shownUrl('http', config.host, port);
  let secure: HttpsServer | undefined;
  let https: RunningServer['https'];

  const runtimes = new Runtimes(services, MODULES, { starting: (id) => { lifecycle.reason = `starting module ${id}`; } });
  const stopRuntimes = async () => {
    await runtimes.stop();
    // After the runtimes: a setpoint dispatch or device poll in flight may still be writing.
    await services.poller.close().catch((err: Error) => log.error('poller failed to close', { error: err.message }));
    await services.field.close().catch((err: Error) => log.error('field service failed to close', { error: err.message }));
  };
  const stopListening = () => {
    services.tls?.box.stop();
    return Promise.all([server, secure].map((s) =>
      new Promise<void>((resolve) => {
        if (!s) return resolve();
        s.close(() => resolve());
        s.closeIdleConnections?.();
      }))).then(() => undefined);
  };

  try {
    db = await openDatabase({
      databaseUrl: config.database_url,
      dataDir: config.data_dir,
      onIdleError: (err) => log.warn('database connection lost; it will reconnect', { error: err.message }),
      cleanStop: { onCheck: ({ ms }) => log.warn('the last run did not stop cleanly: the database was checked whole', { result: 'ok', ms }) },
      sqlite: { pageSize: config.sqlite_page_size, checkpointBytes: config.sqlite_checkpoint_bytes },
    });
    configureGroupCommit(db, { holdMs: config.telemetry_hold_ms });
    // Whoever made the data directory and its files, they are the service's alone from here on.
    const tightened = tightenDataDir(config.data_dir);
    if (tightened.changed.length) log.warn('made files in the data directory owner-only', { changed: tightened.changed.slice(0, 20), count: tightened.changed.length, dir_mode: '0700', file_mode: '0600' });
    if (tightened.failed.length) log.error('files in the data directory are readable by others and are not this service\'s to change', { files: tightened.failed.slice(0, 20), count: tightened.failed.length });
    lifecycle.reason = 'applying migrations';
    const ran = await migrateAll(db);
    if (ran.length) log.info('migrations applied', { migrations: ran, engine: db.engine });
    const key = loadSessionKey({ secret: config.session_secret, dataDir: config.data_dir });
    if (key.source === 'generated') log.info('generated a new session key', { file: 'session.key in the data directory', mode: '0600' });
    security = new SecurityLog(db, log, config.security_log_retention_days);
    open({ db, sessions: createSessionService(db, key.key, config.session_ttl_minutes), security });
    const httpsPort = httpsPortOf(config);
    if (httpsPort !== undefined) {
      const tls = new BoxTls({ dataDir: config.data_dir, log });
      secure = await listenHttps(app.fetch, config, httpsPort, tls, log);
      if (secure) {
        secure.on('upgrade', services.upgrades.handle);
        secure.on('clientError', clientErrorHandler(log));
        const sport = (secure.address() as AddressInfo).port;
        https = { url: shownUrl('https', config.host, sport), port: sport, tls };
        services.tls = { box: tls, httpPort: port, httpsPort: sport };
      }
    }
    await runtimes.start();
  } catch (err) {
    await stopRuntimes();
    await stopListening();
    if (db) await flushGrouped(db).catch(() => undefined);
    await db?.close().catch(() => undefined);
    throw err;
  }
  lifecycle.state = 'ready';
  delete lifecycle.reason;
  markReady();
  log.info(`cabinet listening on ${url}`, { port, host: config.host, url, ...(https ? { https_port: https.port, https_url: https.url } : {}), mode: config.mode, industry: config.industry, engine: db.engine, version: pkg.version });

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      lifecycle.state = 'stopping';
      lifecycle.reason = 'shutting down';
      services.upgrades.closeAll();
      const drained = stopListening();
      const timer = new Promise<void>((resolve) => setTimeout(resolve, config.shutdown_timeout_ms).unref());
      await Promise.race([drained, timer]);
      server.closeAllConnections?.();
      secure?.closeAllConnections?.();
      await stopRuntimes();
      await security?.flush();
      if (db) await flushGrouped(db);
      await db?.close();
      log.info('cabinet stopped', { port });
    })());

  return { url, port, ...(https ? { https } : {}), services, close };
}
