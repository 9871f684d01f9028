import { col, defineTable } from '../../db/table.js';

/** One user's shell preferences in one context (tenant, site, industry). */
export const uiPreferences = defineTable('ui_preferences', {
  id: col.id(),
  tenant_id: col.text(),
  subject: col.text({ notNull: true }),
  site_id: col.text(),
  industry_code: col.text(),
  theme: col.text(),
  dashboard_layout: col.json(),
  quick_module_ids: col.json(),
  updated_at: col.timestamp({ notNull: true }),
}, { indexes: [{ name: 'ui_preferences_tenant_subject', columns: ['tenant_id', 'subject'] }] });

/** Versioned snapshots of a shell profile (per tenant, optional site and industry). */
export const shellProfileVersions = defineTable('shell_profile_versions', {
  id: col.id(),
  profile_key: col.text({ notNull: true }),
  tenant_id: col.text(),
  site_id: col.text(),
  industry_code: col.text(),
  version: col.integer({ notNull: true }),
  theme: col.text(),
  dashboard_layout: col.json(),
  quick_module_ids: col.json(),
  ui_access: col.json(),
  rollback_of: col.integer(),
  source: col.text({ notNull: true }),
  created_by: col.text({ notNull: true }),
  created_at: col.timestamp({ notNull: true }),
}, {
  indexes: [
    { name: 'shell_profile_versions_key_version', columns: ['profile_key', 'version'], unique: true },
    { name: 'shell_profile_versions_tenant', columns: ['tenant_id'] },
  ],
});

/** The audit trail of a shell profile (also written to the audit module). */
export const shellProfileAudit = defineTable('shell_profile_audit', {
  id: col.id(),
  profile_key: col.text({ notNull: true }),
  tenant_id: col.text(),
  action: col.text({ notNull: true }),
  actor: col.text({ notNull: true }),
  version: col.integer(),
  details: col.json(),
  at: col.timestamp({ notNull: true }),
}, { indexes: [{ name: 'shell_profile_audit_key', columns: ['profile_key', 'at'] }] });

export const THEMES = ['light', 'dark', 'system'] as const;
export const UI_ACTIONS = ['read', 'update'] as const;
export const SOURCES = ['import', 'rollback', 'ui-preferences'] as const;

export interface UiAccessRule {
  resource: string;
  role: string;
  actions: string[];
}

export interface Snapshot {
  theme: string | null;
  dashboard_layout: unknown;
  quick_module_ids: string[] | null;
  ui_access: UiAccessRule[] | null;
}

export interface PrefRow extends Record<string, unknown> {
  id: string;
  tenant_id: string | null;
  subject: string;
  site_id: string | null;
  industry_code: string | null;
  theme: string | null;
  dashboard_layout: unknown;
  quick_module_ids: string[] | null;
  updated_at: string;
}

export interface VersionRow extends Snapshot, Record<string, unknown> {
  id: string;
  profile_key: string;
  tenant_id: string | null;
  site_id: string | null;
  industry_code: string | null;
  version: number;
  rollback_of: number | null;
  source: (typeof SOURCES)[number];
  created_by: string;
  created_at: string;
}

export interface ShellAuditRow extends Record<string, unknown> {
  id: string;
  profile_key: string;
  tenant_id: string | null;
  action: string;
  actor: string;
  version: number | null;
  details: Record<string, unknown> | null;
  at: string;
}
