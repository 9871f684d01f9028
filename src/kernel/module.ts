// A module's manifest: what the registry reports about it. Routes and tables are the module's
// real declarations, so the backend and database circuits are derived, never typed twice.
import type { AnyRoute } from './route.js';
import type { NeutralTable } from '../db/table.js';
import type { Role, Services } from './context.js';

export interface PermissionRule {
  role: Role;
  resource: string;
  actions: string[];
}

/**
 * Background work of a module (brokers, batch writers, registries). Created after the database
 * is migrated; does nothing until start(); one runtime failing to start is logged and does not
 * stop the others. It may assign the services it provides onto `services` in start().
 */
export interface ModuleRuntime {
  /** Runtimes marked required stop start-up when they fail (the registry, the audit log). */
  required?: boolean;
  start?(): Promise<void>;
  stop?(): Promise<void>;
}

export interface ModuleManifest {
  id: string;
  name: string;
  description: string;
  /** MAJOR.MINOR.PATCH */
  version: string;
  core: boolean;
  dependencies: string[];
  industry_code: string | null;
  industry_scope: 'global' | 'industry' | 'master';
  key_entity: string | null;
  provides_enrichment_for: string[];
  frontend: { block_id: string; component: string };
  routes: AnyRoute[];
  tables: NeutralTable[];
  permissions: PermissionRule[];
  /** `catalogue` is every module the binary carries (the registry's runtime needs it). */
  runtime?(services: Services, catalogue: readonly ModuleManifest[]): ModuleRuntime;
}

export const defineModule = (m: ModuleManifest): ModuleManifest => m;

/** Actions of one role on some resources; the object's key order is the rules' order. */
export type Grants = Partial<Record<Role, readonly string[]>>;

/** One rule per resource and role, so a module states each role's actions once. */
export function grant(resources: string | readonly string[], grants: Grants): PermissionRule[] {
  const list = typeof resources === 'string' ? [resources] : resources;
  return list.flatMap((resource) =>
    (Object.entries(grants) as [Role, readonly string[]][]).map(([role, actions]) => ({ role, resource, actions: [...actions] })));
}

const MANAGE = ['read', 'create', 'update', 'delete', 'execute'] as const;

/**
 * The usual grants of business resources: admins manage them, security reads them, operators
 * read them and, for the resources a site's crew runs (`'operate'`), execute their commands.
 */
export function managed(resources: string | readonly string[], operator: 'read' | 'operate'): PermissionRule[] {
  return grant(resources, { admin: MANAGE, operator: operator === 'operate' ? ['read', 'execute'] : ['read'], security: ['read'] });
}
