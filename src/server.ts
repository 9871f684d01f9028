// Starts the service: listen at once (probes answer 503 while starting), open and migrate the
// database, then report ready. close() stops accepting, lets in-flight requests finish within
// shutdown_timeout_ms, and closes the database.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { serve } from '@hono/node-server';
import { createApp, allRoutes } from './app.js';
import { openDatabase, type Database } from './db/client.js';
import { migrate } from './db/migrate.js';
import { ApiError } from './kernel/errors.js';
import { createLogger, type Logger } from './kernel/logger.js';
import { buildOpenApi, toYaml } from './kernel/openapi.js';
import type { Guards } from './kernel/route.js';
import type { Lifecycle, Services } from './kernel/context.js';
import { MODULES } from './modules/index.js';
import type { Config } from './config.js';
import pkg from '../package.json' with { type: 'json' };

export interface RunningServer {
  url: string;
  port: number;
  services: Services;
  close(): Promise<void>;
}

export class StartupError extends Error {}

function listen(app: ReturnType<typeof createApp>, config: Config): Promise<Server> {
  return new Promise((resolve, reject) => {
    const server = serve({ fetch: app.fetch, port: config.http_port, hostname: config.host }) as Server;
    server.once('listening', () => resolve(server));
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new StartupError(`cannot listen on ${config.host}:${config.http_port}: ${err.code ?? err.message}`)),
    );
  });
}

export async function startServer(config: Config, opts: { log?: Logger; guards?: Guards } = {}): Promise<RunningServer> {
  const log = opts.log ?? createLogger(config.log_level);
  const lifecycle: Lifecycle = { state: 'starting', reason: 'opening database' };
  let db: Database | undefined;
  let yaml: string | undefined;
  const services: Services = {
    config,
    log,
    startedAt: new Date(),
    lifecycle,
    get db(): Database {
      if (!db) throw new ApiError('service_unavailable', 'database is not open yet');
      return db;
    },
    modules: {
      states: () => MODULES.map((m) => ({ id: m.id, version: m.version, core: m.core, installed: true })),
      isInstalled: () => true,
    },
    openapiYaml: () => (yaml ??= toYaml(buildOpenApi(allRoutes(MODULES), { version: pkg.version }))),
  };
  const app = createApp(services, MODULES, opts.guards);
  const server = await listen(app, config);
  const port = (server.address() as AddressInfo).port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host;
  const url = `http://${shownHost.includes(':') ? `[${shownHost}]` : shownHost}:${port}`;

  const stopListening = () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections?.();
    });

  try {
    db = await openDatabase({ databaseUrl: config.database_url, dataDir: config.data_dir });
    lifecycle.reason = 'applying migrations';
    const ran = await migrate(db);
    if (ran.length) log.info('migrations applied', { migrations: ran, engine: db.engine });
  } catch (err) {
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
      const drained = stopListening();
      const timer = new Promise<void>((resolve) => setTimeout(resolve, config.shutdown_timeout_ms).unref());
      await Promise.race([drained, timer]);
      server.closeAllConnections?.();
      await db?.close();
      log.info('cabinet stopped', { port });
    })());

  return { url, port, services, close };
}
