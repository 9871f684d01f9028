// Shell settings: per-user preferences and the versioned shell profile of a tenant context.
// Every change of the profile (import, rollback, preferences update) is a new version with an
// audit entry; nothing is overwritten, so any version can be exported or rolled back to.
import { and, asc, desc, eq, isNull, type SQL } from 'drizzle-orm';
import { uiRules } from '../../auth/policy.js';
import type { Column } from 'drizzle-orm';
import { ApiError } from '../../kernel/errors.js';
import type { Caller, Services } from '../../kernel/context.js';
import { timeId } from '../../kernel/ids.js';
import { colOf, tableOf } from '../../db/sql.js';
import { shellProfileAudit, shellProfileVersions, uiPreferences, type PrefRow, type ShellAuditRow, type Snapshot, type UiAccessRule, type VersionRow } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';

export interface Context {
  tenant_id: string | null;
  site_id: string | null;
  industry_code: string | null;
}

const part = (v: string | null) => (v === null ? '-' : encodeURIComponent(v));
export const profileKey = (c: Context) => `${part(c.tenant_id)}/${part(c.site_id)}/${part(c.industry_code)}`;
const prefKey = (c: Context, subject: string) => `${profileKey(c)}/${encodeURIComponent(subject)}`;
// A role's defaults live beside the users' rows: a subject is URI-encoded, so no user's key can
// contain "/@role/".
const roleKey = (c: Context, role: string) => `${profileKey(c)}/@role/${role}`;
export const ROLE_SUBJECT = (role: string) => `@role:${role}`;

export const UI_RESOURCE = 'ui.sidebar.menu';

/** The UI access rules in force for the tenant: the same rules auth/ui-access serves and the shell obeys. */
export async function liveUiAccess(services: Services, tenantId: string | null): Promise<UiAccessRule[]> {
  const { rules } = await uiRules(services, UI_RESOURCE, tenantId ?? undefined);
  return rules.map((r) => ({ resource: UI_RESOURCE, role: r.role, actions: r.actions as UiAccessRule['actions'] }));
}

/** The context a caller acts in: its own tenant (masters may name one), the given site or its own. */
export function contextOf(caller: Caller, given: { tenant_id?: string; site_id?: string; industry_code?: string }): Context {
  const site = caller.site_id ?? given.site_id ?? null;
  if (caller.site_id && given.site_id && given.site_id !== caller.site_id) throw new ApiError('tenant_boundary_denied', `this session is bound to site ${caller.site_id}`);
  return { tenant_id: ownerTenant(caller, given.tenant_id), site_id: site, industry_code: given.industry_code ?? null };
}

const eqOrNull = (c: Column, v: string | null): SQL => (v === null ? isNull(c) : eq(c, v));

export function createShellService(services: Services) {
  const db = () => services.db;
  const vt = () => tableOf(shellProfileVersions, db());
  const vc = (n: string) => colOf(shellProfileVersions, db(), n);
  const at = () => tableOf(shellProfileAudit, db());
  const ac = (n: string) => colOf(shellProfileAudit, db(), n);

  const versionsOf = async (key: string) =>
    (await db().orm.select().from(vt()).where(eq(vc('profile_key'), key)).orderBy(asc(vc('version')))) as VersionRow[];

  async function audit(ctx: Context, action: string, actor: string, version: number | null, details: Record<string, unknown>, correlationId: string) {
    const row: ShellAuditRow = { id: timeId(), profile_key: profileKey(ctx), tenant_id: ctx.tenant_id, action, actor, version, details, at: new Date().toISOString() };
    await db().transaction(async () => { await db().orm.insert(at()).values(row as never); });
    await services.audit.record({ actor, action: `shell-profile.${action}`, resource: 'shell-profile', result: 'success', correlation_id: correlationId, details: { profile_key: row.profile_key, version, ...details }, tenant_id: ctx.tenant_id });
  }

  return {
    async preferences(ctx: Context, subject: string): Promise<PrefRow | undefined> {
      const t = tableOf(uiPreferences, db());
      const [row] = (await db().orm.select().from(t).where(eq(colOf(uiPreferences, db(), 'id'), prefKey(ctx, subject)))) as PrefRow[];
      return row;
    },

    async savePreferences(ctx: Context, subject: string, patch: Partial<Snapshot>): Promise<PrefRow> {
      const t = tableOf(uiPreferences, db());
      const id = prefKey(ctx, subject);
      const idCol = colOf(uiPreferences, db(), 'id');
      return db().transaction(async () => {
        const [current] = (await db().orm.select().from(t).where(eq(idCol, id))) as PrefRow[];
        const row: PrefRow = {
          id, tenant_id: ctx.tenant_id, subject, site_id: ctx.site_id, industry_code: ctx.industry_code,
          theme: patch.theme !== undefined ? patch.theme : (current?.theme ?? null),
          dashboard_layout: patch.dashboard_layout !== undefined ? patch.dashboard_layout : (current?.dashboard_layout ?? null),
          quick_module_ids: patch.quick_module_ids !== undefined ? patch.quick_module_ids : (current?.quick_module_ids ?? null),
          updated_at: new Date().toISOString(),
        };
        if (current) await db().orm.update(t).set(row as never).where(eq(idCol, id));
        else await db().orm.insert(t).values(row as never);
        return row;
      });
    },

    /** A role's quick buttons and module order in the context, else the tenant-wide ones (no site). */
    async roleDefaults(ctx: Context, role: string): Promise<PrefRow | undefined> {
      const t = tableOf(uiPreferences, db());
      const idCol = colOf(uiPreferences, db(), 'id');
      for (const c of ctx.site_id === null ? [ctx] : [ctx, { ...ctx, site_id: null }]) {
        const [row] = (await db().orm.select().from(t).where(eq(idCol, roleKey(c, role)))) as PrefRow[];
        if (row) return row;
      }
      return undefined;
    },

    async saveRoleDefaults(ctx: Context, role: string, patch: { quick_module_ids?: string[]; module_order?: string[] }, actor: string): Promise<PrefRow> {
      const t = tableOf(uiPreferences, db());
      const id = roleKey(ctx, role);
      const idCol = colOf(uiPreferences, db(), 'id');
      return db().transaction(async () => {
        const [current] = (await db().orm.select().from(t).where(eq(idCol, id))) as PrefRow[];
        const layout = (current?.dashboard_layout ?? {}) as { module_order?: string[]; updated_by?: string };
        const row: PrefRow = {
          id, tenant_id: ctx.tenant_id, subject: ROLE_SUBJECT(role), site_id: ctx.site_id, industry_code: ctx.industry_code, theme: null,
          dashboard_layout: { module_order: patch.module_order ?? layout.module_order ?? null, updated_by: actor },
          quick_module_ids: patch.quick_module_ids ?? current?.quick_module_ids ?? null,
          updated_at: new Date().toISOString(),
        };
        if (current) await db().orm.update(t).set(row as never).where(eq(idCol, id));
        else await db().orm.insert(t).values(row as never);
        return row;
      });
    },

    versionsOf,

    async current(ctx: Context): Promise<VersionRow | undefined> {
      const [row] = (await db().orm.select().from(vt()).where(eq(vc('profile_key'), profileKey(ctx))).orderBy(desc(vc('version'))).limit(1)) as VersionRow[];
      return row;
    },

    /** Appends a version (number = highest + 1, in one transaction) and audits it. */
    async addVersion(ctx: Context, snapshot: Snapshot, meta: { source: VersionRow['source']; actor: string; rollback_of?: number; correlation_id: string }): Promise<VersionRow> {
      const key = profileKey(ctx);
      const row = await db().transaction(async () => {
        const [top] = (await db().orm.select({ v: vc('version') }).from(vt()).where(eq(vc('profile_key'), key)).orderBy(desc(vc('version'))).limit(1)) as { v: number }[];
        const row: VersionRow = {
          id: timeId(), profile_key: key, ...ctx, version: Number(top?.v ?? 0) + 1,
          theme: snapshot.theme, dashboard_layout: snapshot.dashboard_layout ?? null, quick_module_ids: snapshot.quick_module_ids, ui_access: snapshot.ui_access,
          rollback_of: meta.rollback_of ?? null, source: meta.source, created_by: meta.actor, created_at: new Date().toISOString(),
        };
        await db().orm.insert(vt()).values(row as never);
        return row;
      });
      await audit(ctx, meta.source === 'ui-preferences' ? 'preferences-update' : meta.source, meta.actor, row.version, meta.rollback_of ? { rollback_of: meta.rollback_of } : {}, meta.correlation_id);
      return row;
    },

    audit,

    async auditOf(key: string): Promise<ShellAuditRow[]> {
      return (await db().orm.select().from(at()).where(eq(ac('profile_key'), key)).orderBy(asc(ac('at')), asc(ac('id')))) as ShellAuditRow[];
    },

    /** The profile keys of a tenant (optionally one site / industry), for the list. */
    async profilesOf(filter: { tenant_id: string | null; site_id?: string; industry_code?: string }): Promise<Context[]> {
      const parts: SQL[] = [eqOrNull(vc('tenant_id'), filter.tenant_id)];
      if (filter.site_id !== undefined) parts.push(eq(vc('site_id'), filter.site_id));
      if (filter.industry_code !== undefined) parts.push(eq(vc('industry_code'), filter.industry_code));
      const rows = (await db().orm.selectDistinct({ tenant_id: vc('tenant_id'), site_id: vc('site_id'), industry_code: vc('industry_code'), profile_key: vc('profile_key') })
        .from(vt()).where(and(...parts)).orderBy(asc(vc('profile_key')))) as unknown as (Context & { profile_key: string })[];
      return rows.map(({ tenant_id, site_id, industry_code }) => ({ tenant_id, site_id, industry_code }));
    },
  };
}

export type ShellService = ReturnType<typeof createShellService>;
