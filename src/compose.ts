// The composition root: builds the shared services before any module, then starts the modules'
// runtimes in dependency order, each with exactly the services it declared, and stops them in
// reverse. Modelled on zigbee2mqtt's controller: services first, extensions receive them, an
// extension does nothing until start(), one failing to start does not stop the rest.
//
//   shared (built here, always present once ready): db, sessions, security, bus, audit, alarms,
//     industryAlarms (never optional for a rule engine: an alarm it cannot raise would be lost), field, poller (idle until a runtime calls set()), clock (the system clock unless the caller injects one), upgrades, modules (static until the core runtime provides the persistent registry)
//   provided by runtimes (absent when their module is off or failed): status, mqtt, telemetry,
//     melioration, edgeSync, rpc
import { join } from 'node:path';
import type { Config } from './config.js';
import type { Database } from './db/client.js';
import type { AuditService, Lifecycle, Services, SessionService } from './kernel/context.js';
import type { Logger } from './kernel/logger.js';
import type { ModuleManifest, RuntimeDeclaration, ServiceName } from './kernel/module.js';
import { ApiError } from './kernel/errors.js';
import { EventBus } from './realtime/bus.js';
import { createUpgradeRouter } from './realtime/upgrade.js';
import type { SecurityLog } from './auth/security-log.js';
import { staticRegistry } from './modules/core/registry/static.js';
import { createSqlAudit } from './modules/audit/service.js';
import { createAlarmService, type AlarmService } from './modules/alarms/service.js';
import { createIndustryAlarmService, type IndustryAlarmService } from './industry/alarm-service.js';
import { changeCommitter } from './modules/alarm-view/alarm-commit.js';
import { createFieldWrites } from './modules/field/writes.js';
import { createPoller } from './field/poller.js';
import { createCatalogues } from './i18n/site-catalogues.js';
import { systemClock, type Clock } from './kernel/clock.js';
import { dialsNobody, masterField, masterPoller } from './runtime/egress.js';

export class StartupError extends Error {}

/** The services built on the opened database (session key, security log). */
export interface Opened {
  db: Database;
  sessions: SessionService;
  security: SecurityLog;
}

export interface Composition {
  services: Services;
  /** Puts the opened database and what is built on it on the bag; runtimes start after this. */
  open(parts: Opened): void;
}

/**
 * The bag every handler and runtime draws from. Services that reach the database read it when
 * called, so they are built here at once; until open() the database getters answer 503.
 */
export function composeServices(input: { config: Config; log: Logger; lifecycle: Lifecycle; catalogue: readonly ModuleManifest[]; openapiYaml(): string; clock?: Clock }): Composition {
  const { config, log } = input;
  const clock = input.clock ?? systemClock;
  let opened: Opened | undefined;
  // The SQL audit and the alarm service close over the bag itself, so they are made on first use.
  let audit: AuditService | undefined;
  let alarms: AlarmService | undefined;
  let industryAlarms: IndustryAlarmService | undefined;
  const notReady = (what: string) => new ApiError('service_unavailable', `${what} is not ready yet`);
  const bus = new EventBus(log);
  // `audit` is read at each write, so the sync's wrapper sees field writes too.
  // The master cloud has no field bus: it refuses every field connection before a socket is
  // opened, whatever address a request or a stored profile names (src/runtime/egress.ts).
  const master = dialsNobody(config);
  const fieldWrites = createFieldWrites({ config, log, audit: () => services.audit });
  const field = master ? masterField(fieldWrites, log) : fieldWrites;
  const boxPoller = createPoller({
    field,
    bus,
    clock,
    log: (level, msg, data) => log[level](msg, { component: 'poller', ...(data ?? {}) }),
  });
  const poller = master ? masterPoller(boxPoller, log) : boxPoller;
  const services: Services = {
    config,
    log,
    startedAt: new Date(),
    lifecycle: input.lifecycle,
    get db(): Database {
      if (!opened) throw notReady('the database');
      return opened.db;
    },
    get sessions(): SessionService {
      if (!opened) throw notReady('the session service');
      return opened.sessions;
    },
    get security(): SecurityLog {
      if (!opened) throw notReady('the security log');
      return opened.security;
    },
    modules: staticRegistry(input.catalogue),
    bus,
    get audit(): AuditService {
      return (audit ??= createSqlAudit(services));
    },
    // The edge sync wraps the audit service to copy each record to its outbox.
    set audit(next: AuditService) {
      audit = next;
    },
    get alarms(): AlarmService {
      return (alarms ??= createAlarmService(services));
    },
    get industryAlarms(): IndustryAlarmService {
      return (industryAlarms ??= createIndustryAlarmService(services, changeCommitter(services)));
    },
    field,
    poller,
    clock,
    catalogues: createCatalogues({ dir: join(config.data_dir, 'i18n'), warn: (msg, data) => log.warn(msg, data) }),
    upgrades: createUpgradeRouter((err) => log.error('websocket upgrade failed', { error: err.message })),
    openapiYaml: input.openapiYaml,
  };
  return {
    services,
    open(parts) {
      opened = parts;
    },
  };
}

interface Entry {
  id: string;
  decl: RuntimeDeclaration;
}

/**
 * The runtimes in start order: a runtime starts after every module it depends on (manifest
 * `dependencies`) and after every runtime that provides a service it needs; among those free to
 * go, catalogue order. A cycle is a programming error and stops start-up.
 */
export function startOrder(catalogue: readonly ModuleManifest[]): Entry[] {
  const entries = catalogue.flatMap((m) => (m.runtime ? [{ id: m.id, decl: m.runtime, deps: m.dependencies }] : []));
  const provider = new Map<ServiceName, string>();
  for (const e of entries) for (const p of e.decl.provides) provider.set(p, e.id);
  const ids = new Set(entries.map((e) => e.id));
  const before = new Map(entries.map((e) => {
    const fromNeeds = e.decl.needs.flatMap((n) => (n === 'services' ? [] : [provider.get(n)])).filter((p): p is string => p !== undefined && p !== e.id);
    return [e.id, new Set([...e.deps.filter((d) => ids.has(d)), ...fromNeeds])];
  }));
  const order: Entry[] = [];
  const done = new Set<string>();
  while (order.length < entries.length) {
    const next = entries.find((e) => !done.has(e.id) && [...(before.get(e.id) ?? [])].every((d) => done.has(d)));
    if (!next) {
      const stuck = entries.filter((e) => !done.has(e.id)).map((e) => `${e.id} (after ${[...(before.get(e.id) ?? [])].filter((d) => !done.has(d)).join(', ')})`);
      throw new StartupError(`module runtimes depend on each other in a cycle: ${stuck.join('; ')}`);
    }
    done.add(next.id);
    order.push({ id: next.id, decl: next.decl });
  }
  return order;
}

/** Starts runtimes in order and stops the started ones in reverse. */
export class Runtimes {
  private readonly started: { id: string; stop(): Promise<void> }[] = [];

  constructor(
    private readonly services: Services,
    private readonly catalogue: readonly ModuleManifest[],
    private readonly hooks: { starting?(id: string): void } = {},
  ) {}

  /** Throws StartupError when a required runtime fails (the caller stops the started ones). */
  async start(): Promise<void> {
    const { log } = this.services;
    for (const { id, decl } of startOrder(this.catalogue)) {
      this.hooks.starting?.(id);
      try {
        const runtime = decl.create(this.services, this.catalogue);
        const provided = await runtime.start();
        this.started.push({ id, stop: runtime.stop });
        for (const name of decl.provides) {
          const value = provided[name];
          if (value !== undefined) Object.assign(this.services, { [name]: value });
        }
      } catch (err) {
        if (decl.required) throw new StartupError(`module ${id} failed to start: ${(err as Error).message}`);
        log.error('module failed to start; the others go on', { module: id, error: (err as Error).message });
      }
    }
  }

  async stop(): Promise<void> {
    for (const { id, stop } of this.started.splice(0).reverse()) {
      await stop().catch((err: Error) => this.services.log.error('module failed to stop', { module: id, error: (err as Error).message }));
    }
  }
}
