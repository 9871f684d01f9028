// Which session scope a route needs. The contract names the groups by path (5.7); a route that
// changes installation-wide state needs the installation's owner; any other route needs what it
// declares. The access guard, the permission matrix and the OpenAPI document all read this.
import type { ModuleRoutes } from './context.js';

const MASTER_GROUP = /^(tenant-master[a-z-]*|subscriptions|sla-profiles|version-policies|analytics)$/;
const TENANT_GROUP = /^(industry-|melioration-|poultry-|swine-)/;

/**
 * Whose state a write changes. `installation`: state every tenant of the installation shares;
 * `tenant`: state keyed by tenant (a tenant session changes its own tenant's only).
 */
export type Owner = 'installation' | 'tenant';

type ScopedRoute = Pick<ModuleRoutes['routes'][number], 'path'> & {
  access: { public: true } | { scope?: 'master' | 'tenant' | 'any'; owner?: Owner };
};

export const ownerOf = (route: Pick<ScopedRoute, 'access'>): Owner | undefined =>
  'public' in route.access ? undefined : route.access.owner;

export function requiredScope(route: ScopedRoute): 'master' | 'tenant' | 'any' {
  // The owner of an installation is its master scope in both modes: the fleet's master sessions
  // in cloud-multi, the box's own master-scope sessions (its admins) on an edge-single box.
  // Tenant sessions never change what other tenants share, so this comes before the groups.
  if (ownerOf(route) === 'installation') return 'master';
  const group = route.path.split('/')[3] ?? '';
  if (MASTER_GROUP.test(group)) return 'master';
  if (TENANT_GROUP.test(group)) return 'tenant';
  return 'public' in route.access ? 'any' : (route.access.scope ?? 'any');
}

/** Who may call a route that declares an owner, in words (the OpenAPI description carries it). */
export function ownerStatement(route: Pick<ScopedRoute, 'access'>): string | undefined {
  switch (ownerOf(route)) {
    case 'installation':
      return 'Who may call: an installation-wide setting, shared by every tenant. Only the installation\'s owner changes it: in cloud-multi a master-scope session; on an edge-single box the box\'s admin (an admin of the box\'s own tenant, fixed at first start in site.json, or a master-scope session issued on that box). Any other tenant session, admin or not, gets 403 scope_boundary_denied and nothing changes.';
    case 'tenant':
      return 'Who may call: a per-tenant setting. A tenant session changes its own tenant\'s records only (naming another tenant is 403 tenant_boundary_denied); a master-scope session changes the installation-level records (and a tenant\'s, where the operation takes a tenant_id).';
    default:
      return undefined;
  }
}
