// What a request carries through the kit, and the services handlers receive.
// Modules add their own services by augmenting `Services` (declaration merging), so the kernel
// never imports module code.
import type { Context } from 'hono';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from './logger.js';

export type Role = 'operator' | 'admin' | 'security';
export type ScopeType = 'master' | 'tenant';

/** The authenticated caller, from a verified session token. */
export interface Caller {
  subject: string;
  role: Role;
  scope_type: ScopeType;
  tenant_id?: string;
  site_id?: string;
  session_id: string;
}

/** The five contract headers (2.1), kept for the access log and the security log. */
export interface RouteContext {
  route_path?: string;
  route_module?: string;
  route_filter?: string;
  client_version?: string;
  client_build_time?: string;
}

export interface Lifecycle {
  state: 'starting' | 'ready' | 'stopping';
  reason?: string;
}

export interface ModuleStates {
  states(): { id: string; version: string; core: boolean; installed: boolean }[];
  isInstalled(id: string): boolean;
}

export interface Services {
  config: Config;
  /** Throws service_unavailable until the database is open and migrated. */
  readonly db: Database;
  log: Logger;
  startedAt: Date;
  lifecycle: Lifecycle;
  modules: ModuleStates;
  openapiYaml(): string;
}

export type AppEnv = {
  Variables: {
    requestId: string;
    routeContext: RouteContext;
    services: Services;
    caller: Caller | undefined;
  };
};

export type AppContext = Context<AppEnv>;
