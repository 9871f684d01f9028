// Probes, the contract document, its interactive UI and the runtime snapshot.
import type { Database } from '../../db/client.js';
import { appliedMigrations } from '../../db/migrate.js';
import { readAsset, readEncodedAsset } from '../../runtime/assets.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { requestHeader } from '../../kernel/headers.js';
import pkg from '../../../package.json' with { type: 'json' };
import { siteOf } from '../../runtime/first-run.js';

const DOCS_FILES: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
};

/** Content types of the web shell's files (built by src/ui/build-ui.mjs into dist/web), served from the binary. */
/** The build precompressed the shell (src/ui/build-ui.mjs); caches must key on the coding asked for. */
const codingHeaders = (encoding: 'br' | 'gzip' | undefined): Record<string, string> => (encoding ? { 'content-encoding': encoding, vary: 'accept-encoding' } : { vary: 'accept-encoding' });

/**
 * An answer of the shell's files with its headers as a plain object, which the kit's listener
 * writes as they are (src/runtime/node-serve.ts); c.body() with more than one header builds a web
 * Headers object, and with it loads undici, for every file a tablet loads.
 */
const fileAnswer = (body: Uint8Array, headers: Record<string, string>): Response => new Response(body, { status: 200, headers });

const WEB_TYPES: Record<string, string> = {
  js: 'text/javascript; charset=utf-8',
  css: 'text/css; charset=utf-8',
  svg: 'image/svg+xml',
  png: 'image/png',
  woff2: 'font/woff2',
  json: 'application/json',
  webmanifest: 'application/manifest+json',
};

const DOCS_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>cabinet API</title><link rel="stylesheet" href="/docs/swagger-ui.css"></head>
<body><div id="ui"></div><script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/init.js"></script></body></html>`;
const DOCS_INIT = `window.ui = SwaggerUIBundle({ url: '/openapi.yaml', dom_id: '#ui', deepLinking: true, withCredentials: true });`;

/** SQLite: whether long reads run in the worker thread and how many it answered (absent on PostgreSQL: the pool). */
const readPath = (db: Database) => {
  const p = db.readPath?.();
  return p ? { read_worker: p.mode, worker_reads: p.workerReads, wal_checkpoints: p.checkpoints } : {};
};

const probe = (path: string, summary: string, handler: AnyRoute['handler']): AnyRoute =>
  defineRoute({
    method: 'get', path, module: 'core', summary, tags: ['probes'], access: { public: true },
    response: { kind: 'raw', contentType: 'application/json', description: summary, schema: { type: 'object' } },
    handler,
  });

export const systemRoutes: AnyRoute[] = [
  probe('/health', 'Health: the service answers', async ({ c }) => c.json({ status: 'ok', layer: 'master-cloud' })),
  probe('/live', 'Liveness: the process runs', async ({ c }) => c.json({ status: 'live' })),
  probe('/ready', 'Readiness: database open and migrated', async ({ c, services }) => {
    const state = services.lifecycle;
    return state.state === 'ready' ? c.json({ status: 'ready' }) : c.json({ status: state.state, reason: state.reason }, 503);
  }),
  defineRoute({
    method: 'get', path: '/openapi.yaml', module: 'core', summary: 'This OpenAPI 3.1 document', tags: ['docs'], access: { public: true },
    response: { kind: 'raw', contentType: 'application/yaml', description: 'OpenAPI document (YAML)' },
    handler: async ({ c, services }) => c.body(services.openapiYaml(), 200, { 'content-type': 'application/yaml; charset=utf-8' }),
  }),
  defineRoute({
    method: 'get', path: '/docs', module: 'core', summary: 'Interactive API documentation (served from the binary)', tags: ['docs'], access: { public: true },
    response: { kind: 'raw', contentType: 'text/html', description: 'HTML page' },
    handler: async ({ c }) => c.html(DOCS_HTML),
  }),
  defineRoute({
    method: 'get', path: '/docs/{file}', module: 'core', summary: 'Assets of the documentation UI', tags: ['docs'], access: { public: true },
    response: { kind: 'raw', contentType: 'text/javascript', description: 'Asset file' },
    errors: ['not_found'],
    handler: async ({ c, params }) => {
      const file = params.file as string;
      if (file === 'init.js') return c.body(DOCS_INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' });
      const type = DOCS_FILES[file];
      const body = type ? readAsset(`docs/${file}`) : undefined;
      if (!type || !body) throw new ApiError('not_found', `no documentation asset ${file}`);
      return c.body(new Uint8Array(body), 200, { 'content-type': type, 'cache-control': 'public, max-age=86400' });
    },
  }),
  defineRoute({
    method: 'get', path: '/', module: 'core', summary: 'The tablet web shell', tags: ['web'], access: { public: true },
    response: { kind: 'raw', contentType: 'text/html', description: 'HTML page' },
    handler: async ({ c }) => {
      // Its Content-Security-Policy is every answer's (src/kernel/web-policy.ts, set in src/app.ts).
      const page = readEncodedAsset('web/index.html', requestHeader(c, 'accept-encoding'));
      if (!page) throw new ApiError('not_found', 'this build carries no web shell');
      return fileAnswer(new Uint8Array(page.body), {
        'content-type': 'text/html; charset=utf-8',
        ...codingHeaders(page.encoding),
      });
    },
  }),
  defineRoute({
    method: 'get', path: '/app/{file}', module: 'core', summary: 'Assets of the web shell', tags: ['web'], access: { public: true },
    response: { kind: 'raw', contentType: 'text/javascript', description: 'Asset file' }, errors: ['not_found'],
    handler: async ({ c, params }) => {
      const file = params.file as string;
      const type = /^[\w.-]+$/.test(file) && !file.startsWith('.') ? WEB_TYPES[file.split('.').pop() ?? ''] : undefined;
      const asset = type ? readEncodedAsset(`web/${file}`, requestHeader(c, 'accept-encoding')) : undefined;
      if (!type || !asset) throw new ApiError('not_found', `no web asset ${file}`);
      // Hashed names never change; sw.js (the service worker, scope /) and the rest are revalidated.
      const hashed = /-[\w-]{8}\.(js|css)$/.test(file);
      const headers: Record<string, string> = { 'content-type': type, 'cache-control': hashed ? 'public, max-age=31536000, immutable' : 'no-cache', ...codingHeaders(asset.encoding) };
      if (file === 'sw.js') headers['service-worker-allowed'] = '/';
      return fileAnswer(new Uint8Array(asset.body), headers);
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/operability/runtime', module: 'core', summary: 'Diagnostic runtime snapshot', tags: ['operability'],
    access: { resource: 'operability', action: 'read', scope: 'any' },
    response: { kind: 'single', item: { type: 'object', required: ['version', 'persistence', 'migrations', 'runtime', 'modules'] } },
    handler: async ({ services }) => {
      const { db } = services;
      return {
        version: pkg.version,
        mode: services.config.mode,
        industry: services.config.industry,
        site: siteOf(services.config),
        started_at: services.startedAt.toISOString(),
        uptime_seconds: Math.round(process.uptime()),
        persistence: { engine: db.engine, dialect: db.dialect, location: db.location, server_version: await db.serverVersion(), ...readPath(db) },
        migrations: await appliedMigrations(db),
        runtime: { node: process.version, platform: `${process.platform}-${process.arch}`, rss_bytes: process.memoryUsage().rss },
        dependencies: pkg.dependencies,
        modules: services.modules.states(),
        storage: (await services.storage?.snapshot()) ?? null,
      };
    },
  }),
];
