// A route is declared once: method, path, owning module, access rule, query/body schemas and
// response shape. mountRoute() turns the declaration into a Hono handler that runs the same
// pipeline for every endpoint; openapi.ts renders the same declarations as the contract.
import type { Hono } from 'hono';
import type * as v from 'valibot';
import { ApiError, type ErrorCode } from './errors.js';
import { errorResponse, listEnvelope, singleEnvelope, type ListPage } from './envelope.js';
import { parseParams, parseQuery, type QuerySpec, type QueryValues } from './query.js';
import { validate } from './validate.js';
import { readJsonBody } from './body.js';
import { idempotent } from './idempotency.js';
import { conflictError } from './unique.js';
import type { AppContext, AppEnv, Caller, Services } from './context.js';
import type { Owner } from './scope.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';
export type JsonSchema = Record<string, unknown>;

/**
 * Who may call a route. Scope, owner and role rules are enforced by the access guard, not by
 * handlers. `owner` says whose state a write changes (src/kernel/scope.ts): `installation` for
 * state every tenant shares (module install state, permission rules), which only the
 * installation's master scope may change; `tenant` for state keyed by tenant, where each tenant
 * changes its own. A test walks every route so a write of shared state cannot forget it.
 */
export type Access =
  | { public: true }
  | { resource: string; action: string; scope?: 'master' | 'tenant' | 'any'; owner?: Owner };

export type ResponseSpec =
  | { kind: 'single'; item: JsonSchema }
  | { kind: 'list'; item: JsonSchema }
  | { kind: 'raw'; contentType: string; schema?: JsonSchema; description: string }
  | { kind: 'none' };

export interface HandlerContext<B> {
  c: AppContext;
  services: Services;
  caller: Caller | undefined;
  requestId: string;
  query: QueryValues;
  params: Record<string, string>;
  body: B;
}

export interface RouteDef<B = unknown> {
  method: Method;
  /** OpenAPI-style path, e.g. /api/v1/tables/{id}. */
  path: string;
  module: string;
  summary: string;
  description?: string;
  tags?: string[];
  access: Access;
  query?: QuerySpec;
  /** Path parameters that are not plain strings (an integer id); documented and checked like query parameters. */
  params?: QuerySpec;
  body?: v.GenericSchema<unknown, B>;
  /** The body schema as JSON Schema when it cannot be derived from the valibot schema. */
  bodyJsonSchema?: JsonSchema;
  /**
   * A body that is not JSON (e.g. application/octet-stream bytes): the pipeline does not read it
   * (the handler does, from ctx.c, within max_body_bytes); documented with this content type.
   */
  rawBody?: { contentType: string; description: string };
  response: ResponseSpec;
  status?: 200 | 201 | 202;
  errors?: ErrorCode[];
  /** POSTs accept Idempotency-Key unless this is false (e.g. login, where a replay is wrong). */
  idempotent?: boolean;
  handler(ctx: HandlerContext<B>): Promise<unknown>;
}

/** Loosely-typed route for collections of routes with different body types. */
export type AnyRoute = RouteDef<any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const defineRoute = <B>(def: RouteDef<B>): RouteDef<B> => def;

export interface GuardInput {
  c: AppContext;
  route: AnyRoute;
  caller: Caller | undefined;
  rawQuery: URLSearchParams;
  rawBody: unknown;
}

/**
 * Checks that run before any handler, in order. The module-install gate, authentication and
 * the scope/tenant/role guard are guards; a guard throws ApiError to refuse.
 */
export interface Guards {
  /** Runs first, before authentication or parsing (module install state). */
  gate?(route: AnyRoute, c: AppContext): Promise<void> | void;
  authenticate?(c: AppContext): Promise<Caller | undefined>;
  authorize?(input: GuardInput): Promise<void> | void;
}

export const honoPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

/**
 * The path of a request URL as `new URL(url).pathname` gives it. Request URLs are already
 * normalised (`scheme://host/path?query`), so slicing suffices; anything else is parsed.
 */
export function requestPath(url: string): string {
  const scheme = url.indexOf('://');
  const start = scheme < 0 ? -1 : url.indexOf('/', scheme + 3);
  if (start < 0) return new URL(url).pathname;
  let end = start;
  while (end < url.length) {
    const ch = url.charCodeAt(end);
    if (ch === 63 /* ? */ || ch === 35 /* # */) break;
    end++;
  }
  return url.slice(start, end);
}

/** The query parameters of a request URL, as `new URL(url).searchParams` gives them. */
export function requestQuery(url: string): URLSearchParams {
  if (url.indexOf('://') < 0) return new URL(url).searchParams;
  const q = url.indexOf('?');
  if (q < 0) return new URLSearchParams();
  const hash = url.indexOf('#', q);
  return new URLSearchParams(hash < 0 ? url.slice(q + 1) : url.slice(q + 1, hash));
}

const isPromise = (v: unknown): v is Promise<unknown> => typeof (v as Promise<unknown> | undefined)?.then === 'function';

export function mountRoute(app: Hono<AppEnv>, route: AnyRoute, guards: Guards): void {
  // Everything that depends on the route alone is settled here, once, not per request; the query
  // parameters at the route's first request (a resource's list makes them only when asked).
  let querySpec: QuerySpec | undefined;
  const readsBody = !(route.method === 'get' || route.method === 'delete') && !route.rawBody;
  const idempotentPost = route.method === 'post' && route.idempotent !== false;
  const status = route.status ?? 200;
  const kind = route.response.kind;
  const hasParams = route.path.includes('{');
  const paramSpec = route.params;
  const handler = async (c: AppContext) => {
    const services = c.get('services');
    if (guards.gate) {
      const gated = guards.gate(route, c);
      if (isPromise(gated)) await gated;
    }
    const caller = guards.authenticate ? await guards.authenticate(c) : undefined;
    c.set('caller', caller);
    const searchParams = requestQuery(c.req.url);
    const rawBody = readsBody ? await readJsonBody(c) : undefined;
    if (guards.authorize) {
      const authorized = guards.authorize({ c, route, caller, rawQuery: searchParams, rawBody });
      if (isPromise(authorized)) await authorized;
    }
    const params = hasParams ? (c.req.param() as Record<string, string>) : {};
    if (paramSpec) parseParams(paramSpec, params);
    const query = parseQuery((querySpec ??= route.query ?? {}), searchParams);
    const body = route.body ? validate(route.body, rawBody) : undefined;
    const run = async (): Promise<Response> => {
      const requestId = c.get('requestId');
      let result: unknown;
      try {
        result = await route.handler({ c, services, caller, requestId, query, params, body });
      } catch (err) {
        // Refusals are answers too: returned (not thrown) so a repeated Idempotency-Key replays them.
        if (err instanceof ApiError) return errorResponse(c, err, requestId);
        const conflict = conflictError(err);
        if (conflict) return errorResponse(c, conflict, requestId);
        throw err;
      }
      switch (kind) {
        case 'single': return c.json(singleEnvelope(result, requestId), status);
        case 'list': return c.json(listEnvelope(result as ListPage<unknown>, requestId), status);
        case 'none': return c.body(null, 204);
        case 'raw': return result as Response;
      }
    };
    if (idempotentPost) return idempotent(c, caller, rawBody, run);
    return run();
  };
  app.on(route.method.toUpperCase(), honoPath(route.path), handler);
}

export function assertFound<T>(value: T | undefined | null, code: ErrorCode, message: string): T {
  if (value === undefined || value === null) throw new ApiError(code, message);
  return value;
}
