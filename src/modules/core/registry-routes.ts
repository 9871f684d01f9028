// The module registry over HTTP (contract 4.3): the catalogue with its four circuits, install and
// uninstall, permission rules, site policies and the cross-industry access audit. The work is
// done by the persistent registry (src/modules/core/registry); these declarations only parse and project.
import * as v from 'valibot';
import { defineRoute, type AnyRoute, type HandlerContext, type JsonSchema } from '../../kernel/route.js';
import { pagingSpec, type QuerySpec, type QueryValues } from '../../kernel/query.js';
import type { Caller } from '../../kernel/context.js';
import type { ModuleManifest } from '../../kernel/module.js';
import { INDUSTRIES } from '../../config.js';
import { registryOf } from './registry/runtime.js';
import { PersistentRegistry } from './registry/persistent.js';
import { moduleRecordSchema, ruleSchema, tableSchema } from './registry/records.js';
import { ACCESS_AUDIT_LIMIT } from './registry/access-audit.js';
import { moduleVisible } from '../../auth/policy.js';
import { ownerSite } from '../../kernel/tenancy.js';

const TAGS = ['modules'];
const read = { resource: 'modules', action: 'read', scope: 'any' } as const;

const moduleId = v.pipe(v.string(), v.regex(/^[a-z][a-z0-9-]{0,63}$/, 'a module id: lower-case letters, digits and -'));
const siteId = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'site_id: 1-128 of A-Z a-z 0-9 . _ : -'));
const tenantId = v.pipe(v.string(), v.minLength(1), v.maxLength(128));
const industry = v.picklist(INDUSTRIES);

const paging = pagingSpec([], false);
const siteQuery: QuerySpec = {
  site_id: { type: 'string', description: 'Leave out the modules this site\'s policy disables.' },
  tenant_id: { type: 'string', description: 'Master callers: whose site policy applies (default: the master-level policy). Tenant callers always use their own tenant.' },
};
const modelQuery: QuerySpec = {
  ...paging,
  installed_only: { type: 'boolean', default: true, description: 'Only installed modules (default true).' },
  industry_code: { type: 'string', enum: INDUSTRIES, description: 'Only modules available for this industry: global and master modules and the modules of that industry.' },
  ...siteQuery,
};

/** Whose site policies a caller reads or writes: a tenant's own, or for master the named tenant ('' = master level). */
export function policyTenant(caller: Caller | undefined, given: unknown): string {
  if (caller?.scope_type === 'tenant') return caller.tenant_id ?? '';
  return typeof given === 'string' ? given : '';
}

function page<T>(items: T[], q: QueryValues) {
  const offset = q.offset as number;
  const limit = q.limit as number;
  return { items: items.slice(offset, offset + limit), offset, limit, total: items.length };
}

/** Catalogue modules after the common filters (installed_only, industry_code, site_id). */
async function selected(ctx: HandlerContext<unknown>, opts: { installedOnly: boolean }): Promise<ModuleManifest[]> {
  const registry = registryOf(ctx.services);
  const q = ctx.query;
  let mods = [...registry.catalogue];
  if (opts.installedOnly) mods = mods.filter((m) => registry.isInstalled(m.id));
  if (typeof q.industry_code === 'string') mods = mods.filter((m) => PersistentRegistry.availableFor(m, q.industry_code as string));
  if (typeof q.site_id === 'string') {
    const off = new Set((await registry.sitePolicies(policyTenant(ctx.caller, q.tenant_id), q.site_id)).filter((p) => !p.enabled).map((p) => p.module_id));
    mods = mods.filter((m) => !off.has(m.id));
  }
  return mods;
}

const actor = (caller: Caller | undefined) => ({ subject: caller?.subject ?? 'anonymous', tenant_id: caller?.tenant_id ?? null });

const strings = { type: 'array', items: { type: 'string' } };
const nullableString = { anyOf: [{ type: 'string' }, { type: 'null' }] };
const databaseItemSchema: JsonSchema = {
  type: 'object', required: ['module_id', 'module_name', 'installed', 'migrations', 'tables'],
  properties: { module_id: { type: 'string' }, module_name: { type: 'string' }, installed: { type: 'boolean' }, migrations: strings, tables: { type: 'array', items: tableSchema } },
};
const permissionItemSchema: JsonSchema = {
  type: 'object', required: ['module_id', 'module_name', 'installed', 'rules'],
  properties: { module_id: { type: 'string' }, module_name: { type: 'string' }, installed: { type: 'boolean' }, rules: { type: 'array', items: ruleSchema } },
};
const auditEventSchema: JsonSchema = {
  type: 'object', required: ['operation', 'decision', 'reason', 'module_id', 'requested_industry_code', 'module_industry_code', 'actor', 'timestamp'],
  properties: {
    id: { type: 'integer', description: 'Sequence number since start-up.' },
    operation: { enum: ['install', 'uninstall', 'permissions_update', 'legacy_import'] },
    decision: { enum: ['allow', 'deny'] },
    reason: { type: 'string', description: 'What was done (installed, uninstalled, rules_updated) or the refusal\'s error code.' },
    module_id: { type: 'string' },
    requested_industry_code: nullableString,
    module_industry_code: nullableString,
    actor: { type: 'string' },
    tenant_id: nullableString,
    timestamp: { type: 'string', format: 'date-time' },
  },
};
const sitePolicySchema: JsonSchema = {
  type: 'object', required: ['site_id', 'module_id', 'enabled'],
  properties: {
    site_id: { type: 'string' }, module_id: { type: 'string' }, enabled: { type: 'boolean' },
    tenant_id: { ...nullableString, description: 'The tenant the policy belongs to; null for the master-level policy.' },
    updated_at: { type: 'string', format: 'date-time' }, updated_by: { type: 'string' },
  },
};

const field = (name: string, type: string, label: string, extra: Record<string, unknown> = {}) => ({ name, type, label, ...extra });

const installBody = v.strictObject({
  id: moduleId,
  industry_code: v.optional(industry),
  version: v.optional(v.pipe(v.string(), v.regex(/^\d+\.\d+\.\d+$/, 'MAJOR.MINOR.PATCH'))),
});
const uninstallBody = v.strictObject({ id: moduleId });
const rulesBody = v.strictObject({
  id: moduleId,
  industry_code: v.optional(industry),
  rules: v.pipe(v.array(v.strictObject({
    role: v.picklist(['operator', 'admin', 'security']),
    resource: v.pipe(v.string(), v.regex(/^[a-z][a-z0-9._-]{0,99}$/, 'a permission resource id')),
    actions: v.pipe(v.array(v.pipe(v.string(), v.regex(/^(\*|[a-z][a-z0-9_-]{0,63})$/, 'an action name or *'))), v.minLength(1), v.maxLength(50)),
  })), v.maxLength(200)),
});
const siteBody = v.strictObject({ site_id: siteId, module_id: moduleId, enabled: v.boolean(), tenant_id: v.optional(tenantId) });

const toPolicy = (r: { tenant_id: string; site_id: string; module_id: string; enabled: boolean; updated_at: string; updated_by: string }) => ({
  site_id: r.site_id, module_id: r.module_id, enabled: r.enabled, tenant_id: r.tenant_id || null, updated_at: r.updated_at, updated_by: r.updated_by,
});

const INDUSTRY_POLICY = 'Industry policy: in `edge-single` mode the box runs one industry (setting `industry`); a module whose `industry_code` is another industry, or a request naming another `industry_code`, is refused with 409 industry_policy_conflict. In `cloud-multi` any industry is allowed, but a given `industry_code` must match the module\'s (global and master modules, with no industry_code, fit every industry).';

export const registryRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/modules/list', module: 'core', tags: TAGS, summary: 'The module catalogue with install state and four circuits',
    description: 'Catalogue modules as module records: metadata, dependencies, install state, frontend block, backend routes, database migrations and tables, effective permission rules. Routes and tables are derived from the module\'s real declarations. The projection is filtered by grants on the server: a caller who may install modules sees the whole catalogue; others see the installed modules in which their role and scope may call something. With `site_id`, modules disabled by that site\'s policy are left out.',
    access: read, query: { ...paging, ...siteQuery }, errors: ['tenant_boundary_denied'], response: { kind: 'list', item: moduleRecordSchema },
    handler: async (ctx) => {
      const registry = registryOf(ctx.services);
      const visible = (await selected(ctx, { installedOnly: false })).filter((m) => moduleVisible(ctx.services, ctx.caller as Caller, m));
      return page(visible.map((m) => registry.record(m)), ctx.query);
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/scheme', module: 'core', tags: TAGS, summary: 'UI metadata of the module catalogue',
    access: read, response: { kind: 'single', item: { type: 'object', required: ['display_module', 'show_filters', 'module_view', 'catalog_enrichment'] } },
    handler: async () => ({
      resource: 'modules',
      title: 'Modules',
      display_module: 'modules',
      show_filters: true,
      module_view: 'catalog',
      catalog_enrichment: {
        sidebar_fields: ['name', 'version', 'installed', 'core', 'industry_code'],
        infobar_fields: ['description', 'dependencies', 'industry_scope', 'key_entity', 'provides_enrichment_for', 'frontend.component'],
      },
      fields: [
        field('id', 'string', 'ID'), field('name', 'string', 'Name'), field('description', 'string', 'Description'),
        field('version', 'string', 'Version'), field('core', 'boolean', 'Core'), field('installed', 'boolean', 'Installed'),
        field('dependencies', 'array', 'Dependencies'), field('industry_code', 'string', 'Industry', { enum: INDUSTRIES }),
        field('industry_scope', 'string', 'Industry scope', { enum: ['global', 'industry', 'master'] }), field('key_entity', 'string', 'Key entity'),
        field('provides_enrichment_for', 'array', 'Enriches'), field('frontend', 'object', 'Frontend'), field('backend', 'object', 'Backend'),
        field('database', 'object', 'Database'), field('permissions', 'object', 'Permissions'),
      ],
      filters: [field('site_id', 'string', 'Site'), field('tenant_id', 'string', 'Tenant')],
      commands: ['install', 'uninstall'],
    }),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/database/list', module: 'core', tags: TAGS, summary: 'Database model per module: migrations and tables',
    description: '`installed_only` defaults to true. `industry_code` keeps the modules available for that industry (global and master modules plus that industry\'s). `site_id` leaves out modules the site policy disables. Migrations are the tags applied for the running engine.',
    access: read, query: modelQuery, errors: ['tenant_boundary_denied'], response: { kind: 'list', item: databaseItemSchema },
    handler: async (ctx) => {
      const registry = registryOf(ctx.services);
      const items = (await selected(ctx, { installedOnly: ctx.query.installed_only as boolean })).map((m) => {
        const r = registry.record(m);
        return { module_id: m.id, module_name: m.name, installed: r.installed, migrations: r.database.migrations, tables: r.database.tables };
      });
      return page(items, ctx.query);
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/permissions/list', module: 'core', tags: TAGS, summary: 'Permission model per module: effective rules',
    description: 'The rules in effect per module: the manifest\'s, or the ones saved with permissions/commands/update. Only rules of installed modules grant anything. Filters as database/list.',
    access: read, query: modelQuery, errors: ['tenant_boundary_denied'], response: { kind: 'list', item: permissionItemSchema },
    handler: async (ctx) => {
      const registry = registryOf(ctx.services);
      const items = (await selected(ctx, { installedOnly: ctx.query.installed_only as boolean })).map((m) => ({
        module_id: m.id, module_name: m.name, installed: registry.isInstalled(m.id), rules: registry.rulesOf(m),
      }));
      return page(items, ctx.query);
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/modules/permissions/commands/update', module: 'core', tags: TAGS, summary: 'Replace the permission rules of a module',
    description: `The given rules replace the module's rules (persisted; they survive restarts and take effect at once for installed modules). With \`industry_code\`, only modules available for that industry may be updated, else 409 industry_policy_conflict. Rules that would take modules read/update away from admin are refused (400, reason admin_lockout). Every decision is recorded in the access audit. ${INDUSTRY_POLICY}`,
    access: { resource: 'modules', action: 'update', owner: 'installation' }, body: rulesBody,
    errors: ['module_not_found', 'industry_policy_conflict'], response: { kind: 'single', item: moduleRecordSchema },
    handler: async ({ services, caller, body }) => registryOf(services).updatePermissions(body.id, body.rules, actor(caller), body.industry_code),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/access-audit/scheme', module: 'core', tags: TAGS, summary: 'UI metadata of the access audit',
    access: { resource: 'modules', action: 'audit', scope: 'any' }, response: { kind: 'single', item: { type: 'object' } },
    handler: async () => ({
      resource: 'modules/access-audit',
      title: 'Module access audit',
      fields: [
        field('timestamp', 'datetime', 'Time'), field('operation', 'string', 'Operation', { enum: ['install', 'uninstall', 'permissions_update', 'legacy_import'] }),
        field('decision', 'string', 'Decision', { enum: ['allow', 'deny'] }), field('reason', 'string', 'Reason'), field('module_id', 'string', 'Module'),
        field('requested_industry_code', 'string', 'Requested industry'), field('module_industry_code', 'string', 'Module industry'), field('actor', 'string', 'Actor'),
      ],
      filters: [field('module_id', 'string', 'Module'), field('decision', 'string', 'Decision', { enum: ['allow', 'deny'] }), field('requested_industry_code', 'string', 'Requested industry', { enum: INDUSTRIES }), field('module_industry_code', 'string', 'Module industry', { enum: INDUSTRIES })],
      order: 'newest first',
      retention: { kept: ACCESS_AUDIT_LIMIT, storage: 'memory' },
    }),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/access-audit/list', module: 'core', tags: TAGS, summary: 'Install, uninstall and permission decisions, newest first',
    description: `The last ${ACCESS_AUDIT_LIMIT} decisions since start-up, kept in memory (contract 8). Tenant callers see the decisions of their tenant only.`,
    access: { resource: 'modules', action: 'audit', scope: 'any' },
    query: {
      ...paging,
      module_id: { type: 'string', description: 'Only this module.' },
      decision: { type: 'string', enum: ['allow', 'deny'] },
      requested_industry_code: { type: 'string', enum: INDUSTRIES },
      module_industry_code: { type: 'string', enum: INDUSTRIES },
    },
    response: { kind: 'list', item: auditEventSchema },
    handler: async ({ services, caller, query }) => {
      const s = (k: string) => (typeof query[k] === 'string' ? (query[k] as string) : undefined);
      const events = registryOf(services).audit.list({
        module_id: s('module_id'), decision: s('decision') as 'allow' | 'deny' | undefined,
        requested_industry_code: s('requested_industry_code'), module_industry_code: s('module_industry_code'),
        tenant_id: caller?.scope_type === 'tenant' ? (caller.tenant_id ?? null) : undefined,
      });
      return page(events, query);
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/site-policy/scheme', module: 'core', tags: TAGS, summary: 'UI metadata of site policies',
    access: read, response: { kind: 'single', item: { type: 'object' } },
    handler: async () => ({
      resource: 'modules/site-policy',
      title: 'Site module policy',
      fields: [field('site_id', 'string', 'Site', { required: true }), field('module_id', 'string', 'Module', { required: true }), field('enabled', 'boolean', 'Enabled', { required: true }),
        field('tenant_id', 'string', 'Tenant', { read_only: true }), field('updated_at', 'datetime', 'Updated', { read_only: true }), field('updated_by', 'string', 'Updated by', { read_only: true })],
      filters: [field('site_id', 'string', 'Site', { required: true }), field('tenant_id', 'string', 'Tenant')],
      commands: ['set'],
      default: { enabled: true, note: 'A module without a policy record is enabled at every site.' },
    }),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/modules/site-policy/list', module: 'core', tags: TAGS, summary: 'Policy records of one site',
    description: 'The explicit records saved for the site, by module id. Tenant callers see their tenant\'s records; master callers the master-level records, or a tenant\'s with `tenant_id`.',
    access: read, query: { ...paging, site_id: { type: 'string', required: true, description: 'The site.' }, tenant_id: siteQuery.tenant_id! },
    errors: ['tenant_boundary_denied'],
    response: { kind: 'list', item: sitePolicySchema },
    handler: async ({ services, caller, query }) => {
      const rows = await registryOf(services).sitePolicies(policyTenant(caller, query.tenant_id), query.site_id as string);
      return page(rows.map(toPolicy), query);
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/modules/site-policy/commands/set', module: 'core', tags: TAGS, summary: 'Enable or disable a module at a site',
    description: 'Saves (or replaces) the record for this site and module; persisted. A tenant caller\'s records belong to its tenant (a session bound to a site sets that site\'s only, else 403 tenant_boundary_denied); a master caller writes master-level records, or a tenant\'s with `tenant_id`. A core module cannot be disabled (409 module_is_core); an unknown module is 404 module_not_found.',
    access: { resource: 'modules', action: 'update', owner: 'tenant' }, body: siteBody,
    errors: ['module_not_found', 'module_is_core', 'tenant_boundary_denied'], response: { kind: 'single', item: sitePolicySchema },
    handler: async ({ services, caller, body }) =>
      toPolicy(await registryOf(services).setSitePolicy(policyTenant(caller, body.tenant_id), ownerSite(caller, body.site_id) ?? body.site_id, body.module_id, body.enabled, actor(caller))),
  }),
  defineRoute({
    method: 'post', path: '/api/v1/modules/commands/install', module: 'core', tags: TAGS, summary: 'Install a module',
    description: `Refused when the module is unknown (404 module_not_found), installed (409 module_already_installed), outside the industry policy (409 industry_policy_conflict), of another major line than this build serves (\`version\`, 409 module_version_conflict: within one industry one major line is active), or when a dependency is not installed (409 module_dependency_missing, details name each). Answers the module record. Every decision goes to the access audit. ${INDUSTRY_POLICY}`,
    access: { resource: 'modules', action: 'install', owner: 'installation' }, body: installBody,
    errors: ['module_not_found', 'module_already_installed', 'industry_policy_conflict', 'module_version_conflict', 'module_dependency_missing'],
    response: { kind: 'single', item: moduleRecordSchema },
    handler: async ({ services, caller, body }) => (await registryOf(services).install(body.id, actor(caller), { industry_code: body.industry_code, version: body.version })).record,
  }),
  defineRoute({
    method: 'post', path: '/api/v1/modules/commands/uninstall', module: 'core', tags: TAGS, summary: 'Uninstall a module',
    description: 'Refused for an unknown module (404 module_not_found), a core module (409 module_is_core), a module not installed (404 module_not_installed) or one an installed module depends on (409 module_has_dependents). Afterwards every endpoint of the module answers 404 module_not_installed until it is installed again; its tables and rows are kept. Every decision goes to the access audit.',
    access: { resource: 'modules', action: 'install', owner: 'installation' }, body: uninstallBody,
    errors: ['module_not_found', 'module_is_core', 'module_not_installed', 'module_has_dependents'],
    response: { kind: 'single', item: moduleRecordSchema },
    handler: async ({ services, caller, body }) => (await registryOf(services).uninstall(body.id, actor(caller))).record,
  }),
];
