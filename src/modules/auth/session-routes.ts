// Who am I, and logout (both public: they answer for absent or invalid tokens too).
import { deleteCookie } from 'hono/cookie';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { presentedToken, SESSION_COOKIE } from '../../auth/guard.js';
import { scopeString } from '../../auth/scope.js';

const userSchema = {
  type: 'object', required: ['role', 'scope', 'scope_type'],
  properties: {
    role: { enum: ['operator', 'admin', 'security'] }, scope: { type: 'string' }, scope_type: { enum: ['master', 'tenant'] },
    tenant_id: { type: 'string' }, site_id: { type: 'string' }, subject: { type: 'string' },
  },
};


export const sessionRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/auth/me', module: 'auth', summary: 'The authenticated user, or authenticated=false', tags: ['auth'],
    access: { public: true },
    response: { kind: 'single', item: { type: 'object', required: ['authenticated'], properties: { authenticated: { type: 'boolean' }, user: userSchema } } },
    handler: async ({ caller }) =>
      caller
        ? { authenticated: true, user: { role: caller.role, scope: scopeString(caller), scope_type: caller.scope_type, subject: caller.subject, ...(caller.tenant_id ? { tenant_id: caller.tenant_id } : {}), ...(caller.site_id ? { site_id: caller.site_id } : {}) } }
        : { authenticated: false },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/commands/logout', module: 'auth', summary: 'End the session: clears the cookie and revokes the token server-side', tags: ['auth'],
    access: { public: true }, idempotent: false,
    response: { kind: 'single', item: { type: 'object', required: ['logged_out'], properties: { logged_out: { type: 'boolean' } } } },
    handler: async ({ c, caller, services }) => {
      deleteCookie(c, SESSION_COOKIE, { path: '/' });
      if (!caller || !presentedToken(c)) return { logged_out: false };
      await services.sessions.revoke(caller);
      services.security.record({ category: 'session', result: 'allow', event: 'logout', method: 'POST', path: '/api/v1/auth/commands/logout', tenant_id: caller.tenant_id, subject: caller.subject, role: caller.role, request_id: c.get('requestId'), route_context: c.get('routeContext') });
      return { logged_out: true };
    },
  }),
];
