// Whose rows a write belongs to: a tenant caller always acts for its own tenant (the access
// guard has already refused any other tenant it named); a master caller may name one, or none.
import type { Caller } from './context.js';
import { ApiError } from './errors.js';

export function ownerTenant(caller: Caller | undefined, named: string | null | undefined): string | null {
  return caller?.scope_type === 'tenant' ? (caller.tenant_id ?? null) : (named ?? null);
}

/** ownerTenant() for writes that must belong to a tenant: a master caller has to name one. */
export function requiredTenant(caller: Caller | undefined, named: string | null | undefined): string {
  const tenant = ownerTenant(caller, named);
  if (!tenant) throw new ApiError('validation_error', 'tenant_id is required for a master caller', [{ field: 'tenant_id', reason: 'required' }]);
  return tenant;
}

/**
 * The site a write is for: a tenant session bound to a site (site_id claim) writes for that site
 * only (naming another is refused), anyone else for the site named, else `fallback`.
 */
export function ownerSite(caller: Caller | undefined, named: string | null | undefined, fallback: string | null = null): string | null {
  const bound = caller?.scope_type === 'tenant' ? caller.site_id : undefined;
  if (bound !== undefined) {
    if (named && named !== bound) throw new ApiError('tenant_boundary_denied', `this session is bound to site ${bound}; it cannot act on site ${named}`, [{ field: 'site_id', reason: 'other_site' }]);
    return bound;
  }
  return named ?? fallback;
}

/** The site a tenant session is bound to (its site_id claim), if any. */
export const boundSite = (caller: Caller | undefined): string | undefined => (caller?.scope_type === 'tenant' ? caller.site_id : undefined);
