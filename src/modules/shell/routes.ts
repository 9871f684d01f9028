// auth/ui-preferences/list|commands/update and auth/shell-profile/list|commands/export|import|rollback.
import * as v from 'valibot';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { pagingSpec } from '../../kernel/query.js';
import type { Caller, Services } from '../../kernel/context.js';
import { INDUSTRIES } from '../../config.js';
import { THEMES, SOURCES, UI_ACTIONS, type Snapshot, type VersionRow } from './schema.js';
import { contextOf, createShellService, liveUiAccess, profileKey, UI_RESOURCE, type Context } from './service.js';
import { apiAllowed, uiRules } from '../../auth/policy.js';
import type { PrefRow } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';

const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));
const layout = v.pipe(v.union([v.array(v.unknown()), v.record(v.string(), v.unknown())]), v.check((x) => JSON.stringify(x).length <= 64 * 1024, 'dashboard_layout is limited to 64 KiB'));
const moduleIds = v.pipe(v.array(short(64)), v.maxLength(50));
const uiAccess = v.array(v.strictObject({ resource: short(100), role: v.picklist(['operator', 'admin', 'security']), actions: v.array(v.picklist(UI_ACTIONS)) }));
const contextFields = { site_id: v.optional(short(200)), industry_code: v.optional(v.picklist(INDUSTRIES)), tenant_id: v.optional(short(200)) };

const services_ = new WeakMap<Services, ReturnType<typeof createShellService>>();
const shell = (s: Services) => {
  let x = services_.get(s);
  if (!x) services_.set(s, (x = createShellService(s)));
  return x;
};

function checkModules(services: Services, ids: string[] | undefined) {
  if (!ids) return;
  const known = new Set(services.modules.states().map((m) => m.id));
  const bad = ids.map((id, i) => ({ id, i })).filter(({ id }) => !known.has(id));
  if (bad.length) throw new ApiError('validation_error', `unknown module id(s): ${bad.map((b) => b.id).join(', ')}`, bad.map((b) => ({ field: `quick_module_ids.${b.i}`, reason: 'unsupported_value' })));
}

const nullable = (schema: Record<string, unknown>) => ({ anyOf: [schema, { type: 'null' }] });
const snapshotProps = {
  theme: nullable({ enum: [...THEMES] }),
  dashboard_layout: nullable({ type: ['object', 'array'] }),
  quick_module_ids: nullable({ type: 'array', items: { type: 'string' } }),
};
const ctxProps = { tenant_id: { type: ['string', 'null'] }, site_id: { type: ['string', 'null'] }, industry_code: { type: ['string', 'null'] } };
const uiAccessSchema = { type: 'array', items: { type: 'object', required: ['resource', 'role', 'actions'], properties: { resource: { type: 'string' }, role: { type: 'string' }, actions: { type: 'array', items: { enum: [...UI_ACTIONS] } } } } };

const prefItem = {
  type: 'object',
  required: ['subject', 'tenant_id', 'site_id', 'industry_code', 'theme', 'dashboard_layout', 'quick_module_ids', 'has_theme', 'has_dashboard_layout', 'has_quick_module_ids', 'source', 'role_fields', 'updated_at'],
  properties: {
    subject: { type: 'string' }, ...ctxProps, ...snapshotProps,
    has_theme: { type: 'boolean', description: 'The user has stored a theme for this context.' },
    has_dashboard_layout: { type: 'boolean' }, has_quick_module_ids: { type: 'boolean' },
    source: { enum: ['user', 'role', 'profile', 'none'], description: 'Where the values come from: the user\'s own preferences, else the defaults an admin set for the user\'s role, else the context\'s shell profile, else nothing (the UI uses its defaults or its local cache).' },
    role_fields: { type: 'array', items: { enum: ['quick_module_ids', 'module_order'] }, description: 'Values set by an admin for the caller\'s role (ui-role-preferences): they win over the caller\'s own for a role that may not arrange the menu (ui.sidebar.menu update), and fill in where the caller has none otherwise.' },
    updated_at: { type: ['string', 'null'], format: 'date-time' },
  },
};

const versionItem = {
  type: 'object', required: ['version', 'theme', 'dashboard_layout', 'quick_module_ids', 'ui_access', 'rollback_of', 'source', 'created_by', 'created_at'],
  properties: { version: { type: 'integer' }, ...snapshotProps, ui_access: nullable(uiAccessSchema), rollback_of: { type: ['integer', 'null'] }, source: { enum: [...SOURCES] }, created_by: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } },
};
const auditItem = {
  type: 'object', required: ['action', 'actor', 'version', 'at'],
  properties: { action: { type: 'string' }, actor: { type: 'string' }, version: { type: ['integer', 'null'] }, details: { type: ['object', 'null'] }, at: { type: 'string', format: 'date-time' } },
};
const profileItem = {
  type: 'object', required: ['tenant_id', 'site_id', 'industry_code', 'current_version', 'versions', 'audit', 'updated_at'],
  properties: { ...ctxProps, current_version: { type: 'integer' }, versions: { type: 'array', items: versionItem }, audit: { type: 'array', items: auditItem }, updated_at: { type: 'string', format: 'date-time' } },
};
const exportItem = {
  type: 'object', required: ['schema_version', 'tenant_id', 'site_id', 'industry_code', 'version', 'live', 'theme', 'dashboard_layout', 'quick_module_ids', 'ui_access', 'exported_at'],
  properties: {
    schema_version: { const: 'v1' }, ...ctxProps, version: { type: ['integer', 'null'], description: 'null for a live snapshot' },
    live: { type: 'boolean', description: 'true when the profile has no history and the snapshot is built from the live preferences and UI access rules' },
    ...snapshotProps, ui_access: uiAccessSchema, rollback_of: { type: ['integer', 'null'] }, exported_at: { type: 'string', format: 'date-time' },
  },
};

const versionOut = (r: VersionRow) => ({
  version: Number(r.version), theme: r.theme, dashboard_layout: r.dashboard_layout ?? null, quick_module_ids: r.quick_module_ids, ui_access: r.ui_access,
  rollback_of: r.rollback_of === null ? null : Number(r.rollback_of), source: r.source, created_by: r.created_by, created_at: r.created_at,
});

async function profileRecord(services: Services, ctx: Context) {
  const s = shell(services);
  const versions = await s.versionsOf(profileKey(ctx));
  const audit = await s.auditOf(profileKey(ctx));
  const last = versions[versions.length - 1];
  return {
    ...ctx, current_version: last ? Number(last.version) : 0, versions: versions.map(versionOut),
    audit: audit.map((a) => ({ action: a.action, actor: a.actor, version: a.version === null ? null : Number(a.version), details: a.details, at: a.at })),
    updated_at: last?.created_at ?? new Date(0).toISOString(),
  };
}

const prefsBody = v.strictObject({ theme: v.optional(v.picklist(THEMES)), dashboard_layout: v.optional(layout), quick_module_ids: v.optional(moduleIds), ...contextFields });
const exportBody = v.optional(v.strictObject({ version: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))), ...contextFields }));
const importBody = v.strictObject({
  schema_version: v.optional(v.literal('v1')),
  ...contextFields,
  theme: v.optional(v.nullable(v.picklist(THEMES))),
  dashboard_layout: v.optional(v.nullable(layout)),
  quick_module_ids: v.optional(v.nullable(moduleIds)),
  ui_access: v.optional(v.nullable(uiAccess)),
  // Fields of an export document, accepted so an export can be imported as it is.
  version: v.optional(v.nullable(v.number())),
  live: v.optional(v.boolean()),
  rollback_of: v.optional(v.nullable(v.number())),
  exported_at: v.optional(v.string()),
});
const rollbackBody = v.strictObject({ to_version: v.pipe(v.number(), v.integer(), v.minValue(1)), ...contextFields });

const who = (caller: Caller | undefined) => caller!;

type Layout = { module_order?: string[] | null } & Record<string, unknown>;
type RoleField = 'quick_module_ids' | 'module_order';

/**
 * The admin's defaults for the caller's role merged in: they win for a role that may not arrange
 * the menu itself (so an operator's panel shows what the site admin set, whatever the operator's
 * own row holds), and fill in where the caller has nothing of its own otherwise.
 */
async function withRoleDefaults(services: Services, ctx: Context, c: Caller, mine: PrefRow | undefined, base: { dashboard_layout: unknown; quick_module_ids: string[] | null }) {
  const role = await shell(services).roleDefaults(ctx, c.role);
  const fields: RoleField[] = [];
  if (!role) return { ...base, fields };
  const arranges = (await uiRules(services, UI_RESOURCE, ctx.tenant_id ?? undefined)).rules.some((r) => r.role === c.role && r.actions.includes('update'));
  const own = (v: unknown) => arranges && mine !== undefined && v !== null && v !== undefined;
  let quick = base.quick_module_ids;
  if (role.quick_module_ids && !own(mine?.quick_module_ids)) {
    quick = role.quick_module_ids;
    fields.push('quick_module_ids');
  }
  let layout = base.dashboard_layout;
  const order = (role.dashboard_layout as Layout | null)?.module_order;
  if (order && !own((mine?.dashboard_layout as Layout | null)?.module_order)) {
    layout = { ...(layout && typeof layout === 'object' && !Array.isArray(layout) ? layout : {}), module_order: order };
    fields.push('module_order');
  }
  return { dashboard_layout: layout, quick_module_ids: quick, fields };
}

const ROLES = ['operator', 'admin', 'security'] as const;

/** The installed modules a role may open in the caller's scope: those where it may read something (as the menu decides). */
const modulesFor = (services: Services, c: Caller, role: Caller['role']) =>
  services.modules.manifests()
    .filter((m) => services.modules.isInstalled(m.id) && m.routes.some((r) => r.method === 'get' && r.path.startsWith('/api/') && !('public' in r.access) && apiAllowed(services, { ...c, role }, r)))
    .map((m) => m.id);
const roleItem = {
  type: 'object', required: ['role', 'tenant_id', 'site_id', 'industry_code', 'quick_module_ids', 'module_order', 'modules', 'updated_at', 'updated_by'],
  properties: {
    role: { enum: [...ROLES] }, ...ctxProps, modules: { type: 'array', items: { type: 'string' }, description: 'The modules this role may open here: the ones its quick buttons may name.' }, quick_module_ids: nullable({ type: 'array', items: { type: 'string' } }), module_order: nullable({ type: 'array', items: { type: 'string' } }),
    updated_at: { type: ['string', 'null'], format: 'date-time' }, updated_by: { type: ['string', 'null'] },
  },
};
const roleOut = (role: string, ctx: Context, r: PrefRow | undefined, modules: string[]) => {
  const layout = (r?.dashboard_layout ?? null) as (Layout & { updated_by?: string }) | null;
  return {
    role, modules, tenant_id: r?.tenant_id ?? ctx.tenant_id, site_id: r ? r.site_id : ctx.site_id, industry_code: r?.industry_code ?? ctx.industry_code,
    quick_module_ids: r?.quick_module_ids ?? null, module_order: layout?.module_order ?? null, updated_at: r?.updated_at ?? null, updated_by: layout?.updated_by ?? null,
  };
};
const roleBody = v.strictObject({ role: v.picklist(ROLES), quick_module_ids: v.optional(moduleIds), module_order: v.optional(moduleIds), ...contextFields });

export const roleRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/auth/ui-role-preferences/list', module: 'shell', tags: ['shell'],
    summary: 'The quick buttons and module order an admin set for each role in the current context (else tenant-wide)',
    access: { resource: 'ui-role-preferences', action: 'read', scope: 'any' },
    query: { ...pagingSpec([], false), site_id: { type: 'string' }, industry_code: { type: 'string', enum: INDUSTRIES } },
    response: { kind: 'list', item: roleItem },
    handler: async ({ services, caller, query }) => {
      const ctx = contextOf(who(caller), { site_id: query.site_id as string | undefined, industry_code: query.industry_code as string | undefined });
      const items = await Promise.all(ROLES.map(async (role) => roleOut(role, ctx, await shell(services).roleDefaults(ctx, role), modulesFor(services, who(caller), role))));
      return { items, offset: 0, limit: query.limit as number, total: items.length };
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/ui-role-preferences/commands/set', module: 'shell', tags: ['shell'],
    summary: 'Admin: set the quick buttons and module order of a role (what operators see at the panel); audited',
    access: { resource: 'ui-role-preferences', action: 'update', scope: 'any' },
    body: roleBody, response: { kind: 'single', item: roleItem },
    handler: async ({ services, caller, body, requestId }) => {
      const c = who(caller);
      checkModules(services, body.quick_module_ids);
      checkModules(services, body.module_order);
      // a quick button the role could not open would be a button that refuses
      const open = new Set(modulesFor(services, c, body.role));
      const closed = (body.quick_module_ids ?? []).map((id, i) => ({ id, i })).filter(({ id }) => !open.has(id));
      if (closed.length) throw new ApiError('validation_error', `the ${body.role} role may not open ${closed.map((x) => x.id).join(', ')}`, closed.map((x) => ({ field: `quick_module_ids.${x.i}`, reason: 'not_open_to_role' })));
      const ctx = contextOf(c, body);
      const saved = await shell(services).saveRoleDefaults(ctx, body.role, { quick_module_ids: body.quick_module_ids, module_order: body.module_order }, c.subject);
      await services.audit.record({ actor: c.subject, action: 'ui-role-preferences.set', resource: 'ui-role-preferences', result: 'success', correlation_id: requestId, details: { role: body.role, site_id: ctx.site_id, industry_code: ctx.industry_code, quick_module_ids: saved.quick_module_ids, module_order: (saved.dashboard_layout as Layout).module_order }, tenant_id: ctx.tenant_id });
      return roleOut(body.role, ctx, saved, [...open]);
    },
  }),
];

export const shellRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/auth/ui-preferences/list', module: 'shell', tags: ['shell'],
    summary: 'The caller\'s shell preferences in the current context, with has_* presence flags',
    access: { resource: 'ui-preferences', action: 'read', scope: 'any' },
    query: { ...pagingSpec([], false), site_id: { type: 'string', description: 'Context site (default: the session\'s site).' }, industry_code: { type: 'string', enum: INDUSTRIES } },
    response: { kind: 'list', item: prefItem },
    handler: async ({ services, caller, query }) => {
      const c = who(caller);
      const ctx = contextOf(c, { site_id: query.site_id as string | undefined, industry_code: query.industry_code as string | undefined });
      const s = shell(services);
      const mine = await s.preferences(ctx, c.subject);
      const profile = mine ? undefined : await s.current(ctx);
      const from = mine ?? profile;
      const role = await withRoleDefaults(services, ctx, c, mine, { dashboard_layout: from?.dashboard_layout ?? null, quick_module_ids: from?.quick_module_ids ?? null });
      const item = {
        subject: c.subject, ...ctx,
        theme: from?.theme ?? null, dashboard_layout: role.dashboard_layout, quick_module_ids: role.quick_module_ids,
        has_theme: mine?.theme != null, has_dashboard_layout: mine?.dashboard_layout != null, has_quick_module_ids: mine?.quick_module_ids != null,
        source: mine ? 'user' : role.fields.length ? 'role' : profile ? 'profile' : 'none', role_fields: role.fields, updated_at: mine?.updated_at ?? profile?.created_at ?? null,
      };
      return { items: [item], offset: 0, limit: query.limit as number, total: 1 };
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/ui-preferences/commands/update', module: 'shell', tags: ['shell'],
    summary: 'Change the caller\'s preferences (merged); writes a new shell-profile version of the context',
    access: { resource: 'ui-preferences', action: 'update', scope: 'any' },
    body: prefsBody, response: { kind: 'single', item: prefItem },
    handler: async ({ services, caller, body, requestId }) => {
      const c = who(caller);
      checkModules(services, body.quick_module_ids);
      const ctx = contextOf(c, body);
      const s = shell(services);
      const saved = await s.savePreferences(ctx, c.subject, { theme: body.theme, dashboard_layout: body.dashboard_layout, quick_module_ids: body.quick_module_ids });
      const previous = await s.current(ctx);
      await s.addVersion(ctx, { theme: saved.theme, dashboard_layout: saved.dashboard_layout, quick_module_ids: saved.quick_module_ids, ui_access: previous?.ui_access ?? (await liveUiAccess(services, ctx.tenant_id)) },
        { source: 'ui-preferences', actor: c.subject, correlation_id: requestId });
      return {
        subject: c.subject, ...ctx, theme: saved.theme, dashboard_layout: saved.dashboard_layout ?? null, quick_module_ids: saved.quick_module_ids,
        has_theme: saved.theme != null, has_dashboard_layout: saved.dashboard_layout != null, has_quick_module_ids: saved.quick_module_ids != null,
        source: 'user', role_fields: [], updated_at: saved.updated_at,
      };
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/auth/shell-profile/list', module: 'shell', tags: ['shell'],
    summary: 'Shell profile records of the current tenant: current_version, versions[], audit[]',
    access: { resource: 'shell-profile', action: 'read', scope: 'any' },
    query: { ...pagingSpec([], false), site_id: { type: 'string' }, industry_code: { type: 'string', enum: INDUSTRIES }, tenant_id: { type: 'string', description: 'Master callers: the tenant whose profiles to list (default: the master\'s own, tenant_id null).' } },
    response: { kind: 'list', item: profileItem },
    handler: async ({ services, caller, query }) => {
      const c = who(caller);
      const tenant = ownerTenant(c, query.tenant_id as string | undefined);
      const site = c.site_id ?? (query.site_id as string | undefined);
      const contexts = await shell(services).profilesOf({ tenant_id: tenant, site_id: site, industry_code: query.industry_code as string | undefined });
      const offset = query.offset as number;
      const limit = query.limit as number;
      const page = contexts.slice(offset, offset + limit);
      return { items: await Promise.all(page.map((ctx) => profileRecord(services, ctx))), offset, limit, total: contexts.length };
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/shell-profile/commands/export', module: 'shell', tags: ['shell'],
    summary: 'Export a version (default: the current one) as schema_version v1; with no history, a live snapshot of preferences and UI access',
    access: { resource: 'shell-profile', action: 'export', scope: 'any' },
    body: exportBody, response: { kind: 'single', item: exportItem }, errors: ['not_found'],
    handler: async ({ services, caller, body, requestId }) => {
      const c = who(caller);
      const ctx = contextOf(c, body ?? {});
      const s = shell(services);
      const versions = await s.versionsOf(profileKey(ctx));
      const exported_at = new Date().toISOString();
      let out;
      if (!versions.length) {
        if (body?.version !== undefined) throw new ApiError('not_found', `shell profile ${profileKey(ctx)} has no version ${body.version} (it has no history)`);
        const prefs = await s.preferences(ctx, c.subject);
        out = { schema_version: 'v1', ...ctx, version: null, live: true, theme: prefs?.theme ?? null, dashboard_layout: prefs?.dashboard_layout ?? null, quick_module_ids: prefs?.quick_module_ids ?? null, ui_access: await liveUiAccess(services, ctx.tenant_id), rollback_of: null, exported_at };
      } else {
        const chosen = body?.version === undefined ? versions[versions.length - 1]! : versions.find((r) => Number(r.version) === body.version);
        if (!chosen) throw new ApiError('not_found', `shell profile ${profileKey(ctx)} has no version ${body?.version}`, [{ field: 'version', reason: 'not_found' }]);
        const vo = versionOut(chosen);
        out = { schema_version: 'v1', ...ctx, version: vo.version, live: false, theme: vo.theme, dashboard_layout: vo.dashboard_layout, quick_module_ids: vo.quick_module_ids, ui_access: vo.ui_access ?? (await liveUiAccess(services, ctx.tenant_id)), rollback_of: vo.rollback_of, exported_at };
      }
      await s.audit(ctx, 'export', c.subject, out.version, { live: out.live }, requestId);
      return out;
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/shell-profile/commands/import', module: 'shell', tags: ['shell'],
    summary: 'Import a snapshot (an export document is accepted as it is) as a new version, with an audit entry',
    access: { resource: 'shell-profile', action: 'import', scope: 'any' },
    body: importBody, response: { kind: 'single', item: profileItem }, status: 201,
    handler: async ({ services, caller, body, requestId }) => {
      const c = who(caller);
      checkModules(services, body.quick_module_ids ?? undefined);
      const ctx = contextOf(c, body);
      const snapshot: Snapshot = { theme: body.theme ?? null, dashboard_layout: body.dashboard_layout ?? null, quick_module_ids: body.quick_module_ids ?? null, ui_access: body.ui_access ?? null };
      await shell(services).addVersion(ctx, snapshot, { source: 'import', actor: c.subject, correlation_id: requestId });
      return profileRecord(services, ctx);
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/shell-profile/commands/rollback', module: 'shell', tags: ['shell'],
    summary: 'Admin only: copy an earlier version into a new version with rollback_of',
    access: { resource: 'shell-profile', action: 'rollback', scope: 'any' },
    body: rollbackBody, response: { kind: 'single', item: profileItem }, status: 201, errors: ['not_found'],
    handler: async ({ services, caller, body, requestId }) => {
      const c = who(caller);
      const ctx = contextOf(c, body);
      const s = shell(services);
      const target = (await s.versionsOf(profileKey(ctx))).find((r) => Number(r.version) === body.to_version);
      if (!target) throw new ApiError('not_found', `shell profile ${profileKey(ctx)} has no version ${body.to_version}`, [{ field: 'to_version', reason: 'not_found' }]);
      await s.addVersion(ctx, { theme: target.theme, dashboard_layout: target.dashboard_layout, quick_module_ids: target.quick_module_ids, ui_access: target.ui_access },
        { source: 'rollback', actor: c.subject, rollback_of: body.to_version, correlation_id: requestId });
      return profileRecord(services, ctx);
    },
  }),
];
