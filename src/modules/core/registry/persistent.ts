// The persistent module registry: install state, permission overrides and site policies live in
// SQL (the source of truth); this object keeps in-memory copies as caches, rebuilt after every
// change, so the access guard's isInstalled()/allows() never touch the database.
import { readFileSync, existsSync } from 'node:fs';
import { and, eq } from 'drizzle-orm';
import type { SQLiteTable } from 'drizzle-orm/sqlite-core';
import { ApiError, type ErrorCode, type ErrorDetail } from '../../../kernel/errors.js';
import type { ModuleManifest, PermissionRule } from '../../../kernel/module.js';
import type { ModuleRegistry, Role } from '../../../kernel/context.js';
import type { Logger } from '../../../kernel/logger.js';
import type { Config } from '../../../config.js';
import type { Database } from '../../../db/client.js';
import { columnOf, type NeutralTable, tableFor } from '../../../db/table.js';
import { crossProcessLock } from '../../../db/sql.js';
import { moduleInstalls, permissionOverrides, registryImports, sitePolicies } from './tables.js';
import { AccessAudit, type AccessAuditEvent, type AccessAuditInput } from './access-audit.js';
import { moduleRecord, majorOf, type ModuleRecord } from './records.js';
import { parseLegacyState } from './legacy.js';

export interface InstallRow {
  module_id: string;
  installed: boolean;
  version: string;
  industry_code: string | null;
  source: string;
  updated_at: string;
  updated_by: string;
}

export interface SitePolicyRow {
  tenant_id: string;
  site_id: string;
  module_id: string;
  enabled: boolean;
  updated_at: string;
  updated_by: string;
}

export interface ImportRow {
  id: string;
  path: string;
  sha256: string;
  imported_at: string;
  applied: { module_id: string; installed: boolean }[];
  skipped: { module_id: string; reason: string }[];
}

/** Who asks: the session subject, and its tenant for a tenant session. */
export interface Actor {
  subject: string;
  tenant_id?: string | null;
}

export interface RegistryOptions {
  db: Database;
  config: Pick<Config, 'mode' | 'industry' | 'modules_state_path'>;
  log: Logger;
  catalogue: readonly ModuleManifest[];
  /** Migration tags of a module for the running database (from the generated folders). */
  migrationsOf(moduleId: string): string[];
}

export const LEGACY_IMPORT_ID = 'legacy-json';
const grantKey = (role: string, resource: string, action: string) => `${role}\n${resource}\n${action}`;

export class PersistentRegistry implements ModuleRegistry {
  readonly audit = new AccessAudit();
  readonly catalogue: readonly ModuleManifest[];
  private readonly byId: Map<string, ModuleManifest>;
  private installs = new Map<string, InstallRow>();
  private overrides = new Map<string, PermissionRule[]>();
  private grants = new Set<string>();
  private readonly migrations = new Map<string, string[]>();
  private queue: Promise<unknown> = Promise.resolve();
  /** Called after this process changed install state or rules (other processes reload: src/modules/tenant-master-sync/engine/cluster.ts). */
  readonly changeListeners = new Set<() => void>();

  constructor(private readonly opts: RegistryOptions) {
    this.catalogue = opts.catalogue;
    this.byId = new Map(opts.catalogue.map((m) => [m.id, m]));
  }

  private get db(): Database {
    return this.opts.db;
  }

  private table(t: NeutralTable): SQLiteTable {
    return tableFor(t, this.db.dialect);
  }

  private col(t: NeutralTable, name: string) {
    return columnOf(t, this.db.dialect, name);
  }

  /** Changes run one at a time: each check and its write see the state the previous one left. */
  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  // ---------------------------------------------------------------- ModuleRegistry (hot path)

  states() {
    return this.catalogue.map((m) => ({ id: m.id, version: m.version, core: m.core, installed: this.isInstalled(m.id) }));
  }

  manifests(): readonly ModuleManifest[] {
    return this.catalogue;
  }

  isInstalled(id: string): boolean {
    const m = this.byId.get(id);
    if (!m) return false;
    return m.core || this.installs.get(id)?.installed === true;
  }

  allows(role: Role, resource: string, action: string): boolean {
    return this.grants.has(grantKey(role, resource, action)) || this.grants.has(grantKey(role, resource, '*'));
  }

  // ---------------------------------------------------------------- reading

  manifest(id: string): ModuleManifest | undefined {
    return this.byId.get(id);
  }

  /** The manifest's rules, or the rules saved by permissions/commands/update. */
  rulesOf(m: ModuleManifest): PermissionRule[] {
    return this.overrides.get(m.id) ?? m.permissions;
  }

  migrationsOf(id: string): string[] {
    let tags = this.migrations.get(id);
    if (!tags) this.migrations.set(id, (tags = this.opts.migrationsOf(id)));
    return tags;
  }

  record(m: ModuleManifest): ModuleRecord {
    return moduleRecord(m, { installed: this.isInstalled(m.id), rules: this.rulesOf(m), migrations: this.migrationsOf(m.id) });
  }

  /** Installed modules that declare `id` as a dependency. */
  dependents(id: string): string[] {
    return this.catalogue.filter((m) => m.dependencies.includes(id) && this.isInstalled(m.id)).map((m) => m.id);
  }

  /** A module is available for an industry when it is global (no industry_code) or of that industry. */
  static availableFor(m: ModuleManifest, industry: string): boolean {
    return m.industry_code === null || m.industry_code === industry;
  }

  /** Why the industry policy refuses the module for the requested industry, or undefined. */
  private industryConflict(m: ModuleManifest, requested: string | null): string | undefined {
    const { mode, industry } = this.opts.config;
    if (mode === 'edge-single') {
      if (requested !== null && requested !== industry) return `this edge-single box runs industry ${industry}; industry ${requested} cannot be requested`;
      if (m.industry_code !== null && m.industry_code !== industry) return `module ${m.id} belongs to industry ${m.industry_code}; this edge-single box runs ${industry}`;
      return undefined;
    }
    if (requested !== null && !PersistentRegistry.availableFor(m, requested)) return `module ${m.id} belongs to industry ${m.industry_code}, not ${requested}`;
    return undefined;
  }

  private defaultIndustry(requested: string | null | undefined): string | null {
    return requested ?? (this.opts.config.mode === 'edge-single' ? this.opts.config.industry : null);
  }

  private changed(): void {
    for (const fn of this.changeListeners) fn();
  }

  // ---------------------------------------------------------------- start-up

  /**
   * Seeds rows for modules the database does not know yet, runs the legacy import once, fills
   * the caches. A row nobody decided (source `seed`) is re-evaluated on every start, so a module
   * whose dependency arrives in a later build, or a changed box industry, gets its default again;
   * rows written by the API or the legacy import are never changed here.
   */
  async start(): Promise<void> {
    await this.db.transaction(async () => {
      // Replicas starting together seed one after the other; the later ones find the rows.
      await crossProcessLock(this.db, 'cabinet_module_seed');
      const rows = new Map(((await this.db.orm.select().from(this.table(moduleInstalls))) as unknown as InstallRow[]).map((r) => [r.module_id, r]));
      const state = new Map([...rows.values()].map((r) => [r.module_id, Boolean(r.installed)]));
      for (const m of this.ordered()) {
        const row = rows.get(m.id);
        if (row && row.source !== 'seed') continue;
        // The default: installed when core, or when the industry policy allows it and its
        // dependencies are installed.
        const installed = m.core || (this.industryConflict(m, null) === undefined && m.dependencies.every((d) => state.get(d) === true || this.byId.get(d)?.core === true));
        state.set(m.id, installed);
        if (row && Boolean(row.installed) === installed && row.version === m.version) continue;
        if (row && Boolean(row.installed) !== installed) this.opts.log.info('module default changed', { module: m.id, installed });
        await this.writeInstall(m, installed, 'seed', 'system');
      }
    });
    await this.reload();
    await this.importLegacy();
    for (const m of this.catalogue) {
      if (!this.isInstalled(m.id)) continue;
      const conflict = this.industryConflict(m, null);
      if (conflict) this.opts.log.warn('installed module outside the industry policy', { module: m.id, reason: conflict });
      const missing = m.dependencies.filter((d) => !this.isInstalled(d));
      if (missing.length) this.opts.log.warn('installed module misses dependencies', { module: m.id, missing });
    }
  }

  /** Rebuilds the caches from SQL. */
  async reload(): Promise<void> {
    const rows = (await this.db.orm.select().from(this.table(moduleInstalls))) as unknown as InstallRow[];
    const over = (await this.db.orm.select().from(this.table(permissionOverrides))) as unknown as { module_id: string; rules: PermissionRule[] }[];
    this.installs = new Map(rows.map((r) => [r.module_id, { ...r, installed: Boolean(r.installed) }]));
    this.overrides = new Map(over.map((r) => [r.module_id, r.rules]));
    this.grants = this.grantsFor(this.overrides);
  }

  private grantsFor(overrides: Map<string, PermissionRule[]>): Set<string> {
    const set = new Set<string>();
    for (const m of this.catalogue) {
      if (!this.isInstalled(m.id)) continue;
      for (const r of overrides.get(m.id) ?? m.permissions) for (const a of r.actions) set.add(grantKey(r.role, r.resource, a));
    }
    return set;
  }

  /** Catalogue in dependency order (dependencies first); unknown dependencies are ignored here. */
  ordered(): ModuleManifest[] {
    const out: ModuleManifest[] = [];
    const seen = new Set<string>();
    const visit = (m: ModuleManifest, path: Set<string>) => {
      if (seen.has(m.id) || path.has(m.id)) return;
      path.add(m.id);
      for (const d of m.dependencies) {
        const dep = this.byId.get(d);
        if (dep) visit(dep, path);
      }
      path.delete(m.id);
      seen.add(m.id);
      out.push(m);
    };
    for (const m of this.catalogue) visit(m, new Set());
    return out;
  }

  /** Imports the legacy JSON state file once (recorded in registry_imports with its hash). */
  private async importLegacy(): Promise<void> {
    const path = this.opts.config.modules_state_path;
    if (!path) return;
    const done = (await this.db.orm.select().from(this.table(registryImports)).where(eq(this.col(registryImports, 'id'), LEGACY_IMPORT_ID))) as unknown as ImportRow[];
    if (done.length) {
      this.opts.log.debug('legacy module state already imported', { path, imported_at: done[0]?.imported_at });
      return;
    }
    if (!existsSync(path)) {
      this.opts.log.warn('legacy module state file not found; nothing imported', { path });
      return;
    }
    const legacy = parseLegacyState(readFileSync(path, 'utf8'), path);
    const target = new Map<string, boolean>();
    const skipped: ImportRow['skipped'] = [];
    for (const [id] of legacy.states) if (!this.byId.has(id)) skipped.push({ module_id: id, reason: 'module_not_found' });
    for (const m of this.catalogue) {
      const current = this.isInstalled(m.id);
      let want = legacy.states.get(m.id) ?? (legacy.complete ? false : current);
      if (m.core && !want) {
        if (legacy.states.has(m.id) || legacy.complete) skipped.push({ module_id: m.id, reason: 'module_is_core' });
        want = true;
      }
      if (want && !current) {
        const conflict = this.industryConflict(m, null);
        const version = legacy.versions.get(m.id);
        if (conflict) { skipped.push({ module_id: m.id, reason: 'industry_policy_conflict' }); want = false; }
        else if (version && majorOf(version) !== majorOf(m.version)) { skipped.push({ module_id: m.id, reason: 'module_version_conflict' }); want = false; }
      }
      target.set(m.id, want);
    }
    // Dependencies: a module whose dependency ends up uninstalled is not installed either.
    for (let changed = true; changed;) {
      changed = false;
      for (const m of this.ordered()) {
        if (!target.get(m.id) || m.core) continue;
        const missing = m.dependencies.find((d) => target.get(d) !== true);
        if (missing !== undefined) {
          target.set(m.id, false);
          skipped.push({ module_id: m.id, reason: 'module_dependency_missing' });
          changed = true;
        }
      }
    }
    const applied: ImportRow['applied'] = [];
    const now = new Date().toISOString();
    await this.db.transaction(async () => {
      for (const m of this.catalogue) {
        const want = target.get(m.id) === true;
        if (want === this.isInstalled(m.id)) continue;
        applied.push({ module_id: m.id, installed: want });
        await this.writeInstall(m, want, 'legacy-import', 'system:legacy-import', now);
      }
      await this.db.orm.insert(this.table(registryImports)).values({ id: LEGACY_IMPORT_ID, path, sha256: legacy.sha256, imported_at: now, applied, skipped } as never);
    });
    await this.reload();
    for (const a of applied) {
      const m = this.byId.get(a.module_id) as ModuleManifest;
      this.audit.record({ operation: 'legacy_import', decision: 'allow', reason: a.installed ? 'installed' : 'uninstalled', module_id: m.id, requested_industry_code: this.defaultIndustry(null), module_industry_code: m.industry_code, actor: 'system:legacy-import', tenant_id: null });
    }
    for (const s of skipped) {
      this.audit.record({ operation: 'legacy_import', decision: 'deny', reason: s.reason, module_id: s.module_id, requested_industry_code: this.defaultIndustry(null), module_industry_code: this.byId.get(s.module_id)?.industry_code ?? null, actor: 'system:legacy-import', tenant_id: null });
    }
    this.opts.log.info('legacy module state imported', { path, sha256: legacy.sha256, applied, skipped });
  }

  async legacyImport(): Promise<ImportRow | undefined> {
    const rows = (await this.db.orm.select().from(this.table(registryImports)).where(eq(this.col(registryImports, 'id'), LEGACY_IMPORT_ID))) as unknown as ImportRow[];
    return rows[0];
  }

  private async writeInstall(m: ModuleManifest, installed: boolean, source: string, actor: string, now = new Date().toISOString()): Promise<void> {
    await this.db.transaction(async () => {
      await this.db.orm.delete(this.table(moduleInstalls)).where(eq(this.col(moduleInstalls, 'module_id'), m.id));
      await this.db.orm.insert(this.table(moduleInstalls)).values({
        module_id: m.id, installed, version: m.version, industry_code: m.industry_code, source, updated_at: now, updated_by: actor,
      } as never);
    });
  }

  // ---------------------------------------------------------------- commands

  private refuse(base: Omit<AccessAuditInput, 'decision' | 'reason'>, code: ErrorCode, message: string, details: ErrorDetail[] = []): never {
    this.audit.record({ ...base, decision: 'deny', reason: code });
    throw new ApiError(code, message, details);
  }

  install(id: string, actor: Actor, opts: { industry_code?: string; version?: string } = {}): Promise<{ record: ModuleRecord; event: AccessAuditEvent }> {
    return this.serial(async () => {
      const m = this.byId.get(id);
      const requested = this.defaultIndustry(opts.industry_code);
      const base = { operation: 'install' as const, module_id: id, requested_industry_code: requested, module_industry_code: m?.industry_code ?? null, actor: actor.subject, tenant_id: actor.tenant_id ?? null };
      if (!m) return this.refuse(base, 'module_not_found', `no module ${id} in the catalogue`);
      if (this.isInstalled(id)) return this.refuse(base, 'module_already_installed', `module ${id} is already installed`);
      const conflict = this.industryConflict(m, opts.industry_code ?? null);
      if (conflict) return this.refuse(base, 'industry_policy_conflict', conflict, [{ field: 'industry_code', reason: 'industry_policy' }]);
      if (opts.version !== undefined && majorOf(opts.version) !== majorOf(m.version)) {
        return this.refuse(base, 'module_version_conflict',
          `this build serves the ${majorOf(m.version)}.x line of ${id} (${m.version}); installing ${opts.version} would make a second major line active in industry ${m.industry_code ?? requested ?? 'global'}`,
          [{ field: 'version', reason: 'major_line' }]);
      }
      const missing = m.dependencies.filter((d) => !this.isInstalled(d));
      if (missing.length) {
        return this.refuse(base, 'module_dependency_missing', `module ${id} needs ${missing.join(', ')} installed first`, missing.map((d) => ({ field: 'dependencies', reason: d })));
      }
      return this.setInstalled(m, true, base, actor);
    });
  }

  /** The allowed end of install and uninstall: stored, reloaded, announced, audited and logged. */
  private async setInstalled(m: ModuleManifest, installed: boolean, base: Omit<Parameters<AccessAudit['record']>[0], 'decision' | 'reason'>, actor: Actor): Promise<{ record: ModuleRecord; event: AccessAuditEvent }> {
    await this.writeInstall(m, installed, 'api', actor.subject);
    await this.reload();
    this.changed();
    const what = installed ? 'installed' : 'uninstalled';
    const event = this.audit.record({ ...base, decision: 'allow', reason: what });
    this.opts.log.info(`module ${what}`, { module: m.id, actor: actor.subject });
    return { record: this.record(m), event };
  }

  uninstall(id: string, actor: Actor): Promise<{ record: ModuleRecord; event: AccessAuditEvent }> {
    return this.serial(async () => {
      const m = this.byId.get(id);
      const base = { operation: 'uninstall' as const, module_id: id, requested_industry_code: this.defaultIndustry(null), module_industry_code: m?.industry_code ?? null, actor: actor.subject, tenant_id: actor.tenant_id ?? null };
      if (!m) return this.refuse(base, 'module_not_found', `no module ${id} in the catalogue`);
      if (m.core) return this.refuse(base, 'module_is_core', `module ${id} is a core module and cannot be uninstalled`);
      if (!this.isInstalled(id)) return this.refuse(base, 'module_not_installed', `module ${id} is not installed`);
      const dependents = this.dependents(id);
      if (dependents.length) {
        return this.refuse(base, 'module_has_dependents', `module ${id} is needed by installed ${dependents.join(', ')}; uninstall those first`, dependents.map((d) => ({ field: 'dependents', reason: d })));
      }
      return this.setInstalled(m, false, base, actor);
    });
  }

  updatePermissions(id: string, rules: PermissionRule[], actor: Actor, industryCode?: string): Promise<ModuleRecord> {
    return this.serial(async () => {
      const m = this.byId.get(id);
      const base = { operation: 'permissions_update' as const, module_id: id, requested_industry_code: industryCode ?? null, module_industry_code: m?.industry_code ?? null, actor: actor.subject, tenant_id: actor.tenant_id ?? null };
      if (!m) return this.refuse(base, 'module_not_found', `no module ${id} in the catalogue`);
      if (industryCode !== undefined) {
        const { mode, industry } = this.opts.config;
        if (mode === 'edge-single' && industryCode !== industry) {
          return this.refuse(base, 'industry_policy_conflict', `this edge-single box runs industry ${industry}; rules for industry ${industryCode} cannot be set`, [{ field: 'industry_code', reason: 'industry_policy' }]);
        }
        if (!PersistentRegistry.availableFor(m, industryCode)) {
          return this.refuse(base, 'industry_policy_conflict', `module ${id} belongs to industry ${m.industry_code}, not ${industryCode}`, [{ field: 'industry_code', reason: 'industry_policy' }]);
        }
      }
      const normalised = rules.map((r) => ({ role: r.role, resource: r.resource, actions: [...new Set(r.actions)] }));
      const next = new Map(this.overrides);
      next.set(id, normalised);
      const grants = this.grantsFor(next);
      const keeps = (a: string) => grants.has(grantKey('admin', 'modules', a)) || grants.has(grantKey('admin', 'modules', '*'));
      if (!keeps('read') || !keeps('update')) {
        return this.refuse(base, 'validation_error', 'these rules would take modules read/update away from admin, locking everyone out of the registry', [{ field: 'rules', reason: 'admin_lockout' }]);
      }
      await this.db.transaction(async () => {
        await this.db.orm.delete(this.table(permissionOverrides)).where(eq(this.col(permissionOverrides, 'module_id'), id));
        await this.db.orm.insert(this.table(permissionOverrides)).values({ module_id: id, rules: normalised, industry_code: industryCode ?? null, updated_at: new Date().toISOString(), updated_by: actor.subject } as never);
      });
      await this.reload();
      this.changed();
      this.audit.record({ ...base, decision: 'allow', reason: 'rules_updated' });
      return this.record(m);
    });
  }

  // ---------------------------------------------------------------- site policies

  async sitePolicies(tenantKey: string, siteId: string): Promise<SitePolicyRow[]> {
    const t = sitePolicies;
    const rows = (await this.db.orm.select().from(this.table(t))
      .where(and(eq(this.col(t, 'tenant_id'), tenantKey), eq(this.col(t, 'site_id'), siteId)))) as unknown as SitePolicyRow[];
    return rows.map((r) => ({ ...r, enabled: Boolean(r.enabled) })).sort((a, b) => a.module_id.localeCompare(b.module_id));
  }

  setSitePolicy(tenantKey: string, siteId: string, moduleId: string, enabled: boolean, actor: Actor): Promise<SitePolicyRow> {
    return this.serial(async () => {
      const m = this.byId.get(moduleId);
      if (!m) throw new ApiError('module_not_found', `no module ${moduleId} in the catalogue`);
      if (m.core && !enabled) throw new ApiError('module_is_core', `module ${moduleId} is a core module and cannot be disabled at a site`);
      const row: SitePolicyRow = { tenant_id: tenantKey, site_id: siteId, module_id: moduleId, enabled, updated_at: new Date().toISOString(), updated_by: actor.subject };
      const t = sitePolicies;
      await this.db.transaction(async () => {
        await this.db.orm.delete(this.table(t)).where(and(eq(this.col(t, 'tenant_id'), tenantKey), eq(this.col(t, 'site_id'), siteId), eq(this.col(t, 'module_id'), moduleId)));
        await this.db.orm.insert(this.table(t)).values(row as never);
      });
      return row;
    });
  }
}
