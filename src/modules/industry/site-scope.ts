// Site isolation on top of the kit's tenant isolation, for the industry resources: a tenant
// session bound to a site (site_id claim) lists and reads only that site's rows (naming another
// site in the list gives an empty page, like the kit's tenant filter; {id} of another site's
// row is 404) and writes only for its own site.
import { ApiError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/context.js';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';

export const boundSite = (caller: Caller | undefined): string | undefined =>
  caller?.scope_type === 'tenant' ? caller.site_id : undefined;

/** The site a write is for: the session's site when bound (another one is refused), else the named one. */
export function writeSite(caller: Caller | undefined, named: string | null | undefined, fallback: string | null = null): string | null {
  const bound = boundSite(caller);
  if (bound !== undefined) {
    if (named && named !== bound) throw new ApiError('tenant_boundary_denied', `this session is bound to site ${bound}; it cannot act on site ${named}`, [{ field: 'site_id', reason: 'other_site' }]);
    return bound;
  }
  return named ?? fallback;
}

/** Wraps a resource's list and {id} routes with the site binding of the session. */
export function siteBound(routes: AnyRoute[], siteParam = 'site_id'): AnyRoute[] {
  return routes.map((route) => {
    if (route.method !== 'get') return route;
    if (route.path.endsWith('/list')) {
      return {
        ...route,
        handler: async (ctx: HandlerContext<unknown>) => {
          const site = boundSite(ctx.caller);
          if (site) {
            if (ctx.query[siteParam] !== undefined && ctx.query[siteParam] !== site) return { items: [], offset: ctx.query.offset, limit: ctx.query.limit, total: 0 };
            ctx.query[siteParam] = site;
          }
          return route.handler(ctx);
        },
      };
    }
    if (route.path.endsWith('/{id}')) {
      return {
        ...route,
        handler: async (ctx: HandlerContext<unknown>) => {
          const item = (await route.handler(ctx)) as Record<string, unknown>;
          const site = boundSite(ctx.caller);
          if (site && item[siteParam] !== site) throw new ApiError('not_found', `${ctx.params.id} not found`);
          return item;
        },
      };
    }
    return route;
  });
}
