// What a caller may do, computed from the same rules the access guard enforces: the API
// operations of every installed module's routes, and the UI operations of the shell.
import type { Caller, ModuleRoutes, Role, Services } from '../kernel/context.js';
import type { ModuleManifest } from '../kernel/module.js';
import { Store } from '../db/store.js';
import { scopeAllows } from './guard.js';
import { uiAccess } from './tables.js';

export const UI_RESOURCES = { 'ui.sidebar.menu': ['read', 'update'] } as const;
export type UiResourceId = keyof typeof UI_RESOURCES;
export interface UiRule { role: Role; actions: string[] }

/** The rules a box starts with: everyone sees the menu, admins edit it. */
export const DEFAULT_UI_RULES: UiRule[] = [
  { role: 'operator', actions: ['read'] },
  { role: 'admin', actions: ['read', 'update'] },
  { role: 'security', actions: ['read'] },
];

interface UiAccessRow extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  rules: UiRule[];
  updated_at: string;
  updated_by: string;
}

export const uiAccessStore = (db: Services['db']) => new Store<UiAccessRow>(db, uiAccess);

/** The effective rules: the tenant's own, else the fleet default ('*'), else the built-in. */
export async function uiRules(services: Services, id: UiResourceId, tenantId: string | undefined): Promise<{ rules: UiRule[]; source: string }> {
  const store = uiAccessStore(services.db);
  const own = tenantId ? await store.find({ id, tenant_id: tenantId }) : undefined;
  if (own) return { rules: own.rules, source: `tenant:${tenantId}` };
  const fleet = await store.find({ id, tenant_id: '*' });
  return fleet ? { rules: fleet.rules, source: 'fleet' } : { rules: DEFAULT_UI_RULES, source: 'default' };
}

export interface Operation {
  id: string;
  layer: 'api' | 'ui';
  resource: string;
  action: string;
  method?: string;
  path?: string;
  module?: string;
  allowed: boolean;
}

export function apiAllowed(services: Services, caller: Caller, route: ModuleRoutes['routes'][number]): boolean {
  if ('public' in route.access) return true;
  return services.modules.isInstalled(route.module) && scopeAllows(services, caller, route) && services.modules.allows(caller.role, route.access.resource, route.access.action);
}

export async function operations(services: Services, caller: Caller): Promise<Operation[]> {
  const modules = services.modules.manifests();
  const api: Operation[] = modules.flatMap((m) =>
    m.routes.filter((r) => r.path.startsWith('/api/') && !('public' in r.access)).map((r) => {
      const access = r.access as { resource: string; action: string };
      return { id: `api:${r.method.toUpperCase()} ${r.path}`, layer: 'api' as const, resource: access.resource, action: access.action, method: r.method.toUpperCase(), path: r.path, module: m.id, allowed: apiAllowed(services, caller, r) };
    }),
  );
  const ui: Operation[] = [];
  for (const [id, actions] of Object.entries(UI_RESOURCES) as [UiResourceId, readonly string[]][]) {
    const { rules } = await uiRules(services, id, caller.tenant_id);
    for (const action of actions) {
      ui.push({ id: `ui:${id}.${action}`, layer: 'ui', resource: id, action, allowed: rules.some((r) => r.role === caller.role && r.actions.includes(action)) });
    }
  }
  for (const m of modules) {
    const readable = m.routes.some((r) => r.method === 'get' && r.path.startsWith('/api/') && apiAllowed(services, caller, r));
    ui.push({ id: `ui:module.${m.id}.view`, layer: 'ui', resource: `module.${m.id}`, action: 'view', module: m.id, allowed: services.modules.isInstalled(m.id) && readable });
  }
  return [...api, ...ui];
}

/**
 * Whether a module belongs in the caller's module projection (contract 5.11: filtered by grants on
 * the server). Whoever may install modules sees the whole catalogue; everyone else sees installed
 * modules in which it may call something, or (modules without API routes) holds a grant.
 */
export function moduleVisible(services: Services, caller: Caller, m: ModuleManifest): boolean {
  if (services.modules.allows(caller.role, 'modules', 'install')) return true;
  if (!services.modules.isInstalled(m.id)) return false;
  const api = m.routes.filter((r) => r.path.startsWith('/api/') && !('public' in r.access));
  if (api.length) return api.some((r) => apiAllowed(services, caller, r));
  // Not yet routed: the scope the module's routes will need (contract 5.7) decides.
  if (m.industry_scope === 'master' && caller.scope_type !== 'master') return false;
  if (m.industry_code !== null && caller.scope_type !== 'tenant') return false;
  return m.permissions.some((rule) => rule.role === caller.role && rule.actions.some((a) => services.modules.allows(caller.role, rule.resource, a)));
}
