// What a request carries through the kit, and the services handlers receive.
// Modules add their own services by augmenting `Services` (declaration merging), so the kernel
// never imports module code.
import type { Context } from 'hono';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from './logger.js';
import type { SecurityLog } from '../auth/security-log.js';

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

/** What the kernel asks of the module registry (src/registry implements it). */
export interface ModuleRegistry {
  states(): { id: string; version: string; core: boolean; installed: boolean }[];
  isInstalled(id: string): boolean;
  /** Whether a role may perform `action` on permission resource `resource` (installed modules' rules). */
  allows(role: Role, resource: string, action: string): boolean;
}

export interface AuditEntry {
  actor: string;
  action: string;
  resource: string;
  result: 'success' | 'denied' | 'error';
  correlation_id?: string;
  details?: Record<string, unknown>;
  tenant_id?: string | null;
}

/** Who did what (the audit module implements it; the kernel default writes the JSON log). */
export interface AuditService {
  record(entry: AuditEntry): Promise<void>;
}

/** Session tokens (src/auth implements it). */
export interface SessionService {
  /** The caller a token names, or undefined when it is absent, expired, forged or revoked. */
  verify(token: string): Promise<Caller | undefined>;
  issue(input: { subject: string; role: Role; scope_type: ScopeType; tenant_id?: string; site_id?: string; ttlMinutes?: number }): Promise<{ token: string; sid: string; expiresAt: Date }>;
  revoke(caller: Caller): Promise<void>;
  /** A keyed digest (HMAC-SHA256 with the session key) for storing login credentials. */
  digest(value: string): string;
  /** Lets a module refuse tokens of subjects it has disabled (e.g. a revoked passkey). */
  setSubjectCheck(check: (subject: string) => Promise<boolean>): void;
}

export interface Services {
  config: Config;
  /** Throws service_unavailable until the database is open and migrated. */
  readonly db: Database;
  log: Logger;
  startedAt: Date;
  lifecycle: Lifecycle;
  modules: ModuleRegistry;
  sessions: SessionService;
  security: SecurityLog;
  audit: AuditService;
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
