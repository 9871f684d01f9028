// Builds the Hono app from the module manifests: shared middleware, every module's routes
// through the kit's pipeline, and one error handler. No business logic lives here.
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { ApiError } from './kernel/errors.js';
import { requestHeader } from './kernel/headers.js';
import { changesState, crossSiteReason, cspFor, HSTS, wantsHsts } from './kernel/web-policy.js';
import { errorResponse as respondError } from './kernel/envelope.js';
import { mountRoute, honoPath, requestPath, type AnyRoute, type Guards } from './kernel/route.js';
import { StaticFirstRouter } from './kernel/router.js';
import type { AppContext, AppEnv, RouteContext, Services } from './kernel/context.js';
import type { ModuleManifest } from './kernel/module.js';

const ROUTE_HEADERS: Record<keyof RouteContext, string> = {
  route_path: 'x-route-path',
  route_module: 'x-route-module',
  route_filter: 'x-route-filter',
  client_version: 'x-client-version',
  client_build_time: 'x-client-build-time',
};
const ROUTE_HEADER_LIST = Object.entries(ROUTE_HEADERS) as [keyof RouteContext, string][];
const REQUEST_ID = /^[A-Za-z0-9._-]{1,128}$/;
const QUIET_PATHS = new Set(['/health', '/live', '/ready']);
/** A read slower than this is written at info like a change or a failure (docs/operate.md, "The box's log"). */
export const SLOW_READ_MS = 1000;

/**
 * The access log's level for one answer. Changes, failures and slow reads at info; a read answered
 * well (GET or HEAD under 400, within SLOW_READ_MS) at debug: a tablet polls all day, and a line per
 * poll was the journal's largest writer on the box's flash (about 50 MiB a day at 2 reads a second)
 * and a tenth of a read's CPU. The security log keeps every allowed request with its route context.
 */
export function accessLevel(method: string, path: string, status: number, ms: number): 'debug' | 'info' {
  if (QUIET_PATHS.has(path)) return 'debug';
  return (method === 'GET' || method === 'HEAD') && status < 400 && ms < SLOW_READ_MS ? 'debug' : 'info';
}

function routeContext(c: AppContext): RouteContext {
  const out: RouteContext = {};
  for (const [key, header] of ROUTE_HEADER_LIST) {
    const value = requestHeader(c, header);
    if (value) out[key] = value.slice(0, 200);
  }
  return out;
}

const errorResponse = (c: AppContext, err: ApiError) => respondError(c, err, c.get('requestId') ?? 'unknown');

export function allRoutes(modules: readonly ModuleManifest[]): AnyRoute[] {
  return modules.flatMap((m) => m.routes);
}

export function createApp(services: Services, modules: readonly ModuleManifest[], guards: Guards = {}): Hono<AppEnv> {
  const app = new Hono<AppEnv>({ router: new StaticFirstRouter() });
  const routes = allRoutes(modules);

  app.use('*', async (c, next) => {
    const given = requestHeader(c, 'x-request-id');
    const requestId = given && REQUEST_ID.test(given) ? given : randomUUID();
    c.set('requestId', requestId);
    c.set('routeContext', routeContext(c));
    c.set('services', services);
    c.set('caller', undefined);
    const started = process.hrtime.bigint(); // not performance.now(): that loads node:perf_hooks at the first request
    // Under the kit's Node listener the headers every answer carries go on the Node response, which
    // merges them into whatever answer is written (errors, raw and streamed ones too). Set
    // through c.header() they would make Hono build a web Headers object for every answer, and
    // the server convert it back.
    const outgoing = (c.env as { outgoing?: ServerResponse } | undefined)?.outgoing;
    const onNode = typeof outgoing?.setHeader === 'function' && !outgoing.headersSent;
    const common = onNode ? (name: string, value: string) => void outgoing.setHeader(name, value) : c.header;
    const path = requestPath(c.req.url);
    // Every answer carries the browser policy (src/kernel/web-policy.ts): a JSON answer opened
    // as a page, or an error page, is framed or scripted no more than the shell.
    const csp = cspFor(path);
    const socket = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket as TLSSocket | undefined;
    const hsts = wantsHsts(socket?.encrypted === true, socket?.remoteAddress);
    common('x-request-id', requestId);
    common('x-content-type-options', 'nosniff');
    common('referrer-policy', 'no-referrer');
    common('content-security-policy', csp);
    common('x-frame-options', 'DENY');
    if (hsts) common('strict-transport-security', HSTS);
    await next();
    // Elsewhere (app.request()), a Response returned by a handler does not carry c.header()'s values.
    if (!onNode && !c.res.headers.has('x-request-id')) {
      c.header('x-request-id', requestId);
      c.header('x-content-type-options', 'nosniff');
      c.header('referrer-policy', 'no-referrer');
      c.header('content-security-policy', csp);
      c.header('x-frame-options', 'DENY');
      if (hsts) c.header('strict-transport-security', HSTS);
    }
    // The entry is built only when its level is written (a box at log level warn skips it). Where
    // info is not written debug is not either.
    if (services.log.enabled && !services.log.enabled('info')) return;
    const ms = Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10;
    const level = accessLevel(c.req.method, path, c.res.status, ms);
    if (services.log.enabled && !services.log.enabled(level)) return;
    services.log[level]('request', {
      request_id: requestId, method: c.req.method, path, status: c.res.status, ms,
      subject: c.get('caller')?.subject, tenant_id: c.get('caller')?.tenant_id, ...c.get('routeContext'),
    });
  });

  const tooLarge = () => {
    throw new ApiError('payload_too_large', `request body exceeds ${services.config.max_body_bytes} bytes`);
  };
  const limit = bodyLimit({ maxSize: services.config.max_body_bytes, onError: tooLarge });
  // One middleware for the lifecycle gate of /api and the body limit: each level of middleware
  // is a closure and a promise more on every request.
  app.use('*', (c, next) => {
    if (services.lifecycle.state !== 'ready') {
      const path = requestPath(c.req.url);
      if (path === '/api' || path.startsWith('/api/')) {
        c.header('retry-after', '2');
        throw new ApiError('service_unavailable', `service is ${services.lifecycle.state}: ${services.lifecycle.reason ?? ''}`.trim());
      }
    }
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    // A page of another origin must not write through the box's cookie (nor log a browser in):
    // refused before any route, body or session is looked at. Bearer clients hold no ambient
    // credential a page could borrow, so they are not asked.
    if (changesState(c.req.method) && requestHeader(c, 'authorization') === undefined) {
      const reason = crossSiteReason({ origin: requestHeader(c, 'origin'), secFetchSite: requestHeader(c, 'sec-fetch-site'), host: requestHeader(c, 'host') });
      if (reason) {
        services.security?.record({
          category: 'access', result: 'deny', event: 'origin_check', method: c.req.method, path: requestPath(c.req.url), reason,
          client_address: (c.env as { incoming?: IncomingMessage } | undefined)?.incoming?.socket.remoteAddress, request_id: c.get('requestId'), route_context: c.get('routeContext'),
        });
        throw new ApiError('cross_site_request', `refused: a page of another origin cannot change anything on this box (${reason})`);
      }
    }
    // A body with a Content-Length is exactly that long (Node's parser reads no more): its size is
    // checked from the Node headers, as bodyLimit would, because bodyLimit asks the web Request,
    // which the Node listener then builds (with a stream around the body) for every POST. A
    // chunked body goes through bodyLimit, which counts it.
    const length = requestHeader(c, 'content-length');
    if (length !== undefined && requestHeader(c, 'transfer-encoding') === undefined) {
      return parseInt(length, 10) > services.config.max_body_bytes ? tooLarge() : next();
    }
    return limit(c, next);
  });

  for (const route of routes) mountRoute(app, route, guards);

  // Which methods a path has, for a 405's Allow: made at the first request no route answers, not at start.
  let patterns: { method: string; re: RegExp }[] | undefined;
  app.notFound((c) => {
    const path = new URL(c.req.url).pathname;
    patterns ??= routes.map((r) => ({ method: r.method.toUpperCase(), re: new RegExp(`^${honoPath(r.path).replace(/:\w+/g, '[^/]+')}$`) }));
    const allowed = patterns.filter((p) => p.re.test(path)).map((p) => p.method);
    if (allowed.length) {
      c.header('allow', [...new Set(allowed)].join(', '));
      return errorResponse(c, new ApiError('method_not_allowed', `${c.req.method} is not allowed on ${path}`));
    }
    return errorResponse(c, new ApiError('not_found', `no route ${c.req.method} ${path}`));
  });

  app.onError((err, c) => {
    if (err instanceof ApiError) return errorResponse(c, err);
    services.log.error('unexpected error', {
      request_id: c.get('requestId'), method: c.req.method, path: new URL(c.req.url).pathname,
      error: err.message, ...(services.config.debug_errors ? { stack: err.stack } : {}),
    });
    return errorResponse(c, new ApiError('internal_error', `unexpected failure; quote request id ${c.get('requestId')} to find it in the log`));
  });

  return app;
}

