// What a request carries through the kit, and the services handlers receive.
// Modules add their own services by augmenting `Services` (declaration merging), so the kernel
// never imports module code.
import type { Catalogues } from '../i18n/site-catalogues.js';
import type { Context } from 'hono';
import type { Config } from '../config.js';
import type { Database } from '../db/client.js';
import type { Logger } from './logger.js';
import { ApiError } from './errors.js';
import type { SecurityLog } from '../auth/security-log.js';
import type { EventBus } from '../realtime/bus.js';
import type { FieldService } from '../field/service.js';
import type { Poller } from '../field/poll-types.js';
import type { Clock } from './clock.js';

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

export type { RouteContext } from './route-context.js';
import type { RouteContext } from './route-context.js';

export interface Lifecycle {
  state: 'starting' | 'ready' | 'stopping';
  reason?: string;
  /** Settles once the state has become 'ready' (set by the server that owns this lifecycle):
   *  work that `/ready` need not wait for starts after it (the MQTT broker's libraries). */
  whenReady?: Promise<void>;
}

/** What the kernel asks of the module registry (src/modules/core/registry implements it). */
export interface ModuleRegistry {
  states(): { id: string; version: string; core: boolean; installed: boolean }[];
  isInstalled(id: string): boolean;
  /** Whether a role may perform `action` on permission resource `resource` (installed modules' rules). */
  allows(role: Role, resource: string, action: string): boolean;
  /** The catalogue's modules and their routes, for the permission matrix (installed or not). */
  manifests(): readonly ModuleRoutes[];
}

/** A module as the permission matrix sees it (structural, so the kernel needs no module types). */
export interface ModuleRoutes {
  id: string;
  routes: readonly {
    method: string;
    path: string;
    module: string;
    access: { public: true } | { resource: string; action: string; scope?: 'master' | 'tenant' | 'any' };
  }[];
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
  /** The in-process event bus (status, alarms, telemetry). Built by the composition root. */
  bus: EventBus;
  /** Writes to field devices (Modbus, BACnet), with or without the RPC listener. Built by the composition root. */
  field: FieldService;
  /** Reads the adapter profiles' devices on the field service's buses (src/field/poller.ts). Built by the composition root. */
  poller: Poller;
  /** The box's clock for what schedules by it (src/kernel/clock.ts). Built by the composition root. */
  clock: Clock;
  /** The catalogues the box renders its own texts with and serves to the shell (src/i18n). Built by the composition root. */
  catalogues: Catalogues;
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

/**
 * A service typed and present, or 503 service_unavailable when the module that provides it is
 * not running (status, telemetry, industry alarms, MQTT off, ...): handlers never reach a service
 * through a non-null assertion. The core services (db, bus, audit, alarms, field) are built by
 * the composition root and always present once the server is ready; need() passes them through.
 */
export function need<K extends keyof Services>(services: Pick<Services, K>, name: K): NonNullable<Services[K]> {
  const service = services[name];
  if (service === undefined || service === null) throw new ApiError('service_unavailable', `the ${String(name)} service is not running`);
  return service as NonNullable<Services[K]>;
}
