// The one place where access is decided, for every route: module installed, a valid session,
// the scope group, the tenant boundary of query and body, and the role's permission. Every
// decision is written to the security log.
import { getConnInfo } from '@hono/node-server/conninfo';
import type { Context } from 'hono';
import { ApiError } from '../kernel/errors.js';
import { requestCookie, requestHeader } from '../kernel/headers.js';
import { requestPath, type Guards, type GuardInput } from '../kernel/route.js';
import { ownerOf, requiredScope } from '../kernel/scope.js';
import type { AppContext, Caller, Services } from '../kernel/context.js';
import type { SecurityLog } from './security-log.js';
import { siteOf } from '../runtime/first-run.js';

export const SESSION_COOKIE = 'cabinet_session';
const TENANT_KEYS = new Set(['tenant_id', 'target_tenant_id']);

export { requiredScope };

export function clientAddress(c: AppContext): string | undefined {
  // Under the kit's Node listener the socket is at hand (where getConnInfo reads it): read without
  // building the connection-info object.
  type Bindings = { incoming?: { socket?: { remoteAddress?: string } } };
  const env = c.env as (Bindings & { server?: Bindings }) | undefined;
  const socket = (env?.server ?? env)?.incoming?.socket;
  if (socket) return socket.remoteAddress;
  try {
    return getConnInfo(c).remote.address;
  } catch {
    return undefined;
  }
}

/**
 * Whether a client address is the panel's (panel_addresses): the only place a card logs in and the
 * only one told where the box keeps its files. An IPv4-mapped IPv6 address counts as its IPv4.
 */
export function atPanel(config: Pick<Services['config'], 'panel_addresses'>, address: string | undefined): boolean {
  if (!address) return false;
  const plain = address.toLowerCase().startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
  return config.panel_addresses.split(',').some((a) => {
    const listed = a.trim().toLowerCase();
    return listed === address.toLowerCase() || listed === plain;
  });
}

/** The session token of a request: the bearer header, else the session cookie. */
export function presentedToken(c: Context): string | undefined {
  const header = requestHeader(c, 'authorization');
  if (header) {
    const m = /^Bearer\s+(\S+)$/i.exec(header);
    return m?.[1];
  }
  return requestCookie(c, SESSION_COOKIE) || undefined;
}

/** Every tenant id named in the query or anywhere in the JSON body. */
export function namedTenants(query: URLSearchParams, body: unknown): string[] {
  const found: string[] = [];
  for (const key of TENANT_KEYS) for (const v of query.getAll(key)) found.push(v);
  walkTenants(body, 0, found);
  return found;
}

/**
 * The walk of namedTenants without an array of entries per object or a call per plain value: a
 * site's push is thousands of small objects, and the walk cost the master more than validating them.
 */
function walkTenants(node: unknown, depth: number, found: string[]): void {
  if (depth > 8 || node === null || typeof node !== 'object') return;
  if (Array.isArray(node)) {
    for (const n of node) if (n !== null && typeof n === 'object') walkTenants(n, depth + 1, found);
    return;
  }
  const obj = node as Record<string, unknown>;
  for (const k in obj) {
    if (!Object.hasOwn(obj, k)) continue;
    const v = obj[k];
    if (TENANT_KEYS.has(k) && v !== null && v !== undefined) found.push(typeof v === 'string' ? v : JSON.stringify(v));
    else if (v !== null && typeof v === 'object') walkTenants(v, depth + 1, found);
  }
}

/** The refusal of a tenant session's attempt on state every tenant of the installation shares. */
const installationOnly = (services: Services, path: string) =>
  services.config.mode === 'cloud-multi'
    ? `${path} changes a setting every tenant shares; only a master-scope session of this installation may change it`
    : `${path} changes a setting of the whole box; only the box's admin (a session of the box's own tenant, or a master-scope session of this box) may change it`;

/**
 * On an edge-single box the installation is the box: its own tenant (site.json, fixed at first
 * start) owns it, so that tenant's sessions change the box's settings (the role rules still decide
 * which of them may). Other tenants' sessions never do, and in cloud-multi only master sessions.
 */
function ownsTheBox(services: Services, caller: Caller): boolean {
  if (services.config.mode !== 'edge-single' || caller.scope_type !== 'tenant' || !caller.tenant_id) return false;
  return siteOf(services.config)?.tenant_id === caller.tenant_id;
}

/** Whether the caller's scope may call the route: the one scope rule of the guard and the permission matrix. */
export function scopeAllows(services: Services, caller: Caller, route: Parameters<typeof requiredScope>[0]): boolean {
  const scope = requiredScope(route);
  if (scope === 'any' || scope === caller.scope_type) return true;
  return ownerOf(route) === 'installation' && ownsTheBox(services, caller);
}

export function createAccessGuards(services: Services, securityLog: () => SecurityLog): Guards {
  const audit = (c: AppContext, caller: Caller | undefined, result: 'allow' | 'deny', event: string, reason?: string) =>
    securityLog().record({
      category: event === 'authenticate' ? 'auth' : 'access', result, event, method: c.req.method, path: requestPath(c.req.url),
      tenant_id: caller?.tenant_id, subject: caller?.subject, role: caller?.role, client_address: clientAddress(c), reason,
      request_id: c.get('requestId'), route_context: c.get('routeContext'),
    });
  const deny = (c: AppContext, caller: Caller | undefined, code: 'auth_required' | 'scope_boundary_denied' | 'tenant_boundary_denied' | 'rbac_forbidden', event: string, message: string): never => {
    audit(c, caller, 'deny', event, code);
    throw new ApiError(code, message);
  };

  return {
    gate(route) {
      if (!services.modules.isInstalled(route.module)) {
        throw new ApiError('module_not_installed', `module ${route.module} is not installed`);
      }
    },
    async authenticate(c) {
      const token = presentedToken(c);
      if (!token) return undefined;
      const caller = await services.sessions.verify(token);
      if (!caller) audit(c, undefined, 'deny', 'authenticate', 'invalid_token');
      return caller;
    },
    authorize({ c, route, caller, rawQuery, rawBody }: GuardInput) {
      if ('public' in route.access) return;
      if (!caller) return deny(c, caller, 'auth_required', 'authenticate', 'a valid session token is required');
      if (!scopeAllows(services, caller, route)) {
        if (ownerOf(route) === 'installation') return deny(c, caller, 'scope_boundary_denied', 'owner_check', installationOnly(services, route.path));
        return deny(c, caller, 'scope_boundary_denied', 'scope_check', `${route.path} needs a ${requiredScope(route)} session, this one is ${caller.scope_type}`);
      }
      if (caller.scope_type === 'tenant') {
        const foreign = namedTenants(rawQuery, rawBody).find((t) => t !== caller.tenant_id);
        if (foreign !== undefined) return deny(c, caller, 'tenant_boundary_denied', 'tenant_check', `tenant ${caller.tenant_id} cannot act on tenant ${foreign}`);
      }
      const { resource, action } = route.access;
      if (!services.modules.allows(caller.role, resource, action)) {
        return deny(c, caller, 'rbac_forbidden', 'rbac_check', `role ${caller.role} may not ${action} ${resource}`);
      }
      audit(c, caller, 'allow', 'access');
    },
  };
}
