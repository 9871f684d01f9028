// Which session scope a route needs. The contract names the groups by path (5.7); a route outside
// them needs what it declares. The access guard and the OpenAPI document both read this.
import type { ModuleRoutes } from './context.js';

const MASTER_GROUP = /^(tenant-master[a-z-]*|subscriptions|sla-profiles|version-policies|analytics)$/;
const TENANT_GROUP = /^(industry-|melioration-|poultry-|swine-)/;

export function requiredScope(route: Pick<ModuleRoutes['routes'][number], 'path' | 'access'>): 'master' | 'tenant' | 'any' {
  const group = route.path.split('/')[3] ?? '';
  if (MASTER_GROUP.test(group)) return 'master';
  if (TENANT_GROUP.test(group)) return 'tenant';
  return 'public' in route.access ? 'any' : (route.access.scope ?? 'any');
}
