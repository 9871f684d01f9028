// A module's manifest: what the registry reports about it. Routes and tables are the module's
// real declarations, so the backend and database circuits are derived, never typed twice; the
// frontend block is derived from the id (the web shell draws every module with one screen).
import type { SetupStep } from './setup.js';
import type { AnyRoute } from './route.js';
import type { NeutralTable } from '../db/table.js';
import type { Role, Services } from './context.js';

export interface PermissionRule {
  role: Role;
  resource: string;
  actions: string[];
}

/** A service on the shared bag, by name. */
export type ServiceName = keyof Services;

/**
 * What a runtime may declare it needs: services by name, or `services`, the read-only view of
 * the whole bag that request handlers get (for runtimes that drive the same code paths as
 * handlers: rule ticks, MQTT ingest, the sync engine).
 */
export type NeedName = ServiceName | 'services';

/** Exactly the declared services, present and typed. */
export type Needs<N extends NeedName> = {
  readonly [K in N]-?: K extends ServiceName ? NonNullable<Services[K]> : Readonly<Services>;
};

/** What a runtime's start() hands back for the root to put on the bag (absent when switched off). */
export type Provides<P extends ServiceName> = { [K in P]?: NonNullable<Services[K]> };

/**
 * Background work of a module (brokers, batch writers, schedulers, listeners). Built by the
 * composition root (src/compose.ts) once the services it needs are on the bag; does nothing until
 * start(); start() returns what it provides instead of assigning onto the bag; stop() releases
 * what start() took (timers, listeners, sockets).
 */
export interface ModuleRuntime<P extends ServiceName = never> {
  start?(): Promise<[P] extends [never] ? void : Provides<P>>;
  stop?(): Promise<void>;
}

/** A module's runtime as the manifest declares it; made by defineRuntime(), which keeps its types. */
export interface RuntimeDeclaration {
  needs: readonly NeedName[];
  provides: readonly ServiceName[];
  /** Required runtimes stop start-up when they fail (the registry, the status stream); others are logged and the rest go on. */
  required: boolean;
  /** Called by the composition root when every need is on the bag; throws when one is not. */
  create(services: Services, catalogue: readonly ModuleManifest[]): { start(): Promise<Partial<Services>>; stop(): Promise<void> };
}

/**
 * A runtime that receives exactly the services it names in `needs`. `catalogue` is every module
 * the binary carries (the registry's runtime needs it).
 */
export function defineRuntime<N extends NeedName, P extends ServiceName = never>(spec: {
  needs: readonly N[];
  provides?: readonly P[];
  required?: boolean;
  create(deps: Needs<N>, catalogue: readonly ModuleManifest[]): ModuleRuntime<P>;
}): RuntimeDeclaration {
  return {
    needs: spec.needs,
    provides: spec.provides ?? [],
    required: spec.required ?? false,
    create(services, catalogue) {
      const runtime = spec.create(pickNeeds(services, spec.needs), catalogue);
      return {
        async start() {
          const provided: Partial<Services> | void = await runtime.start?.();
          return provided ?? {};
        },
        async stop() {
          await runtime.stop?.();
        },
      };
    },
  };
}

/** The declared services off the bag; a missing one is a start failure, never a silent undefined. */
export function pickNeeds<N extends NeedName>(services: Services, needs: readonly N[]): Needs<N> {
  const out: Partial<Record<NeedName, unknown>> = {};
  for (const name of needs) {
    const value = name === 'services' ? services : services[name as ServiceName];
    if (value === undefined || value === null) throw new Error(`needs the ${name} service, which is not running`);
    out[name] = value;
  }
  return out as Needs<N>;
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
  routes: AnyRoute[];
  tables: NeutralTable[];
  permissions: PermissionRule[];
  /** Background work, if any: what it needs and provides (see defineRuntime). */
  runtime?: RuntimeDeclaration;
  /** Its lines on the site set-up screen (kernel/setup.ts): what commissioning it means, checked live. */
  setup?: SetupStep[];
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

/** What an admin may do on a resource an operator reads or operates. */
export const MANAGE = ['read', 'create', 'update', 'delete', 'execute'] as const;

/**
 * The usual grants of business resources: admins manage them, security reads them, operators
 * read them and, for the resources a site's crew runs (`'operate'`), execute their commands.
 */
export function managed(resources: string | readonly string[], operator: 'read' | 'operate'): PermissionRule[] {
  return grant(resources, { admin: MANAGE, operator: operator === 'operate' ? ['read', 'execute'] : ['read'], security: ['read'] });
}
