// Starts the service: build the shared services (src/compose.ts), listen at once (probes answer
// 503 while starting), open and migrate the database, start the module runtimes in dependency
// order, then report ready. close() stops accepting, lets in-flight requests finish within
// shutdown_timeout_ms, stops the runtimes in reverse and closes the database.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp, allRoutes } from './app.js';
import { openDatabase, type Database } from './db/client.js';
import { migrateAll } from './modules/migrate-all.js';
import { createLogger, type Logger } from './kernel/logger.js';
import { clientErrorHandler } from './kernel/client-error.js';
import { buildOpenApi, toYaml } from './kernel/openapi.js';
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
import type { Config } from './config.js';
import pkg from '../package.json' with { type: 'json' };

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  close(): Promise<void>;
}

export { StartupError };

function listen(app: ReturnType<typeof createApp>, config: Config): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: config.http_port, hostname: config.host }) as Server;
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new StartupError(`cannot listen on ${config.host}:${config.http_port}: ${err.code ?? err.message}${err.code === 'EADDRINUSE' ? ' (the port is taken: choose another with --http-port, CABINET_HTTP_PORT or http_port in the config file)' : ''}`)),
    );
  });
}

/** The OpenAPI document of this binary's routes, as YAML (about a second of CPU for 2 MB). */
export function openapiDocumentYaml(): string {
  return toYaml(buildOpenApi(allRoutes(MODULES), { version: pkg.version }));
}

/** The executable carries the document the build wrote (scripts/openapi-yaml.ts): nothing to compute on the box. */
function embeddedOpenApi(): string | undefined {
  return isBundled() ? readAsset('openapi/openapi.yaml')?.toString('utf8') : undefined;
}

export async function startServer(config: Config, opts: { log?: Logger; guards?: Guards } = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.log_level);
  const lifecycle: Lifecycle = { state: 'starting', reason: 'opening database' };
  let db: Database | undefined;
  let security: SecurityLog | undefined;
  let yaml: string | undefined;
  const { services, open } = composeServices({
    config, log, lifecycle, catalogue: MODULES,
    openapiYaml: () => (yaml ??= embeddedOpenApi() ?? openapiDocumentYaml()),
  });
  const app = createApp(services, MODULES, opts.guards ?? createAccessGuards(services, () => services.security));
  const server = await listen(app, config);
  server.on('upgrade', services.upgrades.handle);
  server.on('clientError', clientErrorHandler(log));
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;

  const runtimes = new Runtimes(services, MODULES, { starting: (id) => { lifecycle.reason = `starting module ${id}`; } });
  const stopRuntimes = async () => {
    await runtimes.stop();
    // After the runtimes: a setpoint dispatch or device poll in flight may still be writing.
    await services.poller.close().catch((err: Error) => log.error('poller failed to close', { error: err.message }));
    await services.field.close().catch((err: Error) => log.error('field service failed to close', { error: err.message }));
  };
  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections?.();
    });

  try {
    db = await openDatabase({
      databaseUrl: config.database_url,
      dataDir: config.data_dir,
      onIdleError: (err) => log.warn('database connection lost; it will reconnect', { error: err.message }),
      cleanStop: { onCheck: ({ ms }) => log.warn('the last run did not stop cleanly: the database was checked whole', { result: 'ok', ms }) },
    });
    lifecycle.reason = 'applying migrations';
    const ran = await migrateAll(db);
    if (ran.length) log.info('migrations applied', { migrations: ran, engine: db.engine });
    const key = loadSessionKey({ secret: config.session_secret, dataDir: config.data_dir });
    if (key.source === 'generated') log.info('generated a new session key', { file: 'session.key in the data directory', mode: '0600' });
    security = new SecurityLog(db, log, config.security_log_retention_days);
    open({ db, sessions: createSessionService(db, key.key, config.session_ttl_minutes), security });
    await runtimes.start();
  } catch (err) {
    await stopRuntimes();
    await stopListening();
    await db?.close().catch(() => undefined);
    throw err;
  }
  lifecycle.state = 'ready';
  delete lifecycle.reason;
  log.info(`cabinet listening on ${url}`, { port, host: config.host, url, mode: config.mode, industry: config.industry, engine: db.engine, version: pkg.version });

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
      await stopRuntimes();
      await security?.flush();
      await db?.close();
      log.info('cabinet stopped', { port });
    })());

  return { url, port, services, close };
}
