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
  runtime?(services: Services): ModuleRuntime;
}

export const defineModule = (m: ModuleManifest): ModuleManifest => m;
