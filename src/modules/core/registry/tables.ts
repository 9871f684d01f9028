// Tables of the module registry (owned by the core module): install state, site policies,
// permission rule overrides and the record of one-time imports. SQL is the source of truth;
// the registry keeps in-memory copies as caches only.
import { col, defineTable } from '../../../db/table.js';

/** One row per catalogue module once the registry has decided its state (seed, API or import). */
export const moduleInstalls = defineTable('module_installs', {
  module_id: col.id(),
  installed: col.boolean({ notNull: true }),
  /** The version recorded when the state last changed (the build's version of the module). */
  version: col.text({ notNull: true }),
  industry_code: col.text(),
  /** seed | api | legacy-import */
  source: col.text({ notNull: true }),
  updated_at: col.timestamp({ notNull: true }),
  updated_by: col.text({ notNull: true }),
});

/** Rules saved by modules/permissions/commands/update; they replace the manifest's rules of that module. */
export const permissionOverrides = defineTable('permission_overrides', {
  module_id: col.id(),
  rules: col.json({ notNull: true }),
  industry_code: col.text(),
  updated_at: col.timestamp({ notNull: true }),
  updated_by: col.text({ notNull: true }),
});

/** Per-site module switches. tenant_id is '' for master-level (box-wide) policies. */
export const sitePolicies = defineTable('site_policies', {
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  module_id: col.text({ notNull: true }),
  enabled: col.boolean({ notNull: true }),
  updated_at: col.timestamp({ notNull: true }),
  updated_by: col.text({ notNull: true }),
}, { primaryKey: ['tenant_id', 'site_id', 'module_id'] });

/** One row per one-time import (the legacy JSON module state file). */
export const registryImports = defineTable('registry_imports', {
  id: col.id(),
  path: col.text({ notNull: true }),
  sha256: col.text({ notNull: true }),
  imported_at: col.timestamp({ notNull: true }),
  applied: col.json({ notNull: true }),
  skipped: col.json({ notNull: true }),
});

export const registryTables = [moduleInstalls, permissionOverrides, sitePolicies, registryImports];
