// The caller's permissions as data (auth/permissions), the shell's UI access rules
// (auth/ui-access) and the app context the shell starts from (app/context).
import * as v from 'valibot';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { pageItems } from '../../kernel/query.js';
import { ApiError } from '../../kernel/errors.js';
import { INDUSTRIES } from '../../config.js';
import { DEFAULT_UI_RULES, operations, uiAccessStore, uiRules, UI_RESOURCES, type UiResourceId } from '../../auth/policy.js';
import { scopeString } from '../../auth/scope.js';
import type { Caller, Services } from '../../kernel/context.js';
import { personLanguage } from './language-routes.js';

const operationItem = {
  type: 'object', required: ['id', 'layer', 'resource', 'action', 'allowed'],
  properties: { id: { type: 'string' }, layer: { enum: ['api', 'ui'] }, resource: { type: 'string' }, action: { type: 'string' }, method: { type: 'string' }, path: { type: 'string' }, module: { type: 'string' }, allowed: { type: 'boolean' } },
};
const rulesItem = {
  type: 'object', required: ['id', 'rules', 'source'],
  properties: { id: { type: 'string' }, source: { type: 'string' }, rules: { type: 'array', items: { type: 'object', properties: { role: { type: 'string' }, actions: { type: 'array', items: { type: 'string' } } } } } },
};
const UI_IDS = Object.keys(UI_RESOURCES) as UiResourceId[];

async function appContext(services: Services, caller: Caller) {
  const ops = await operations(services, caller);
  const lookup = (layer: 'api' | 'ui') => Object.fromEntries(ops.filter((o) => o.layer === layer).map((o) => [o.id, o.allowed]));
  const ui = lookup('ui');
  const api = lookup('api');
  const can = (method: string, path: string) => api[`api:${method} ${path}`] === true;
  const master = caller.scope_type === 'master';
  const multi = services.config.mode === 'cloud-multi';
  const language = await personLanguage(services, caller.subject);
  return {
    deployment_mode: services.config.mode,
    industry_code: services.config.industry,
    available_industries: multi ? [...INDUSTRIES] : [services.config.industry],
    tenant_id: caller.tenant_id ?? null,
    site_id: caller.site_id ?? null,
    // How the tablets write dates and times (settings site_locale, site_clock); the tablet's own zone.
    // language: the site's default (site_language), for a person whose card has none.
    display: { locale: services.config.site_locale, clock: services.config.site_clock, language: services.config.site_language },
    feature_flags: { realtime_status: services.modules.isInstalled('status'), field_writes: services.modules.isInstalled('field'), passkeys: services.modules.isInstalled('passkeys') },
    // language: the person's own (their card's or badge's), null for the site's default.
    user: { role: caller.role, scope: scopeString(caller), scope_type: caller.scope_type, subject: caller.subject, language, ...(caller.tenant_id ? { tenant_id: caller.tenant_id } : {}) },
    policy: {
      scope_type: caller.scope_type,
      role: caller.role,
      effective_tenant_id: caller.tenant_id ?? null,
      permissions: { ui, api },
      capabilities: {
        switch_industry: multi,
        sidebar_menu: ui['ui:ui.sidebar.menu.read'] === true,
        sidebar_menu_update: ui['ui:ui.sidebar.menu.update'] === true,
        module_install: can('POST', '/api/v1/modules/commands/install'),
        module_permissions: can('POST', '/api/v1/modules/permissions/commands/update'),
        master_tenant_events: master && can('GET', '/api/v1/tenant-master/list'),
        master_subscriptions: master && can('GET', '/api/v1/subscriptions/list'),
        master_analytics: master && can('GET', '/api/v1/analytics/summary'),
        tenant_industry: !master,
        tenant_field_writes: !master && services.modules.allows(caller.role, 'field-writes', 'write'),
      },
      guards: { master_scope: master, tenant_scope: !master, allow_industry_switch: multi },
    },
  };
}

export const policyRoutes: AnyRoute[] = [
  defineRoute({
    method: 'get', path: '/api/v1/auth/permissions/scheme', module: 'auth', tags: ['auth'], summary: 'UI metadata of the permission matrix',
    access: { resource: 'permissions', action: 'read', scope: 'any' }, response: { kind: 'single', item: { type: 'object' } },
    handler: async () => ({
      resource: 'auth/permissions', title: 'Permissions',
      fields: [{ name: 'id', type: 'string', label: 'Operation' }, { name: 'layer', type: 'string', label: 'Layer', enum: ['api', 'ui'] }, { name: 'resource', type: 'string', label: 'Resource' }, { name: 'action', type: 'string', label: 'Action' }, { name: 'allowed', type: 'boolean', label: 'Allowed' }],
      filters: [{ name: 'layer', type: 'string', enum: ['api', 'ui'] }, { name: 'allowed', type: 'boolean' }],
    }),
  }),
  defineRoute({
    method: 'get', path: '/api/v1/auth/permissions/list', module: 'auth', tags: ['auth'], summary: "The caller's API and UI operations with computed `allowed`",
    access: { resource: 'permissions', action: 'read', scope: 'any' },
    query: { limit: { type: 'integer', min: 1, max: 500, default: 500 }, offset: { type: 'integer', min: 0, default: 0 }, layer: { type: 'string', enum: ['api', 'ui'] }, allowed: { type: 'boolean' } },
    response: { kind: 'list', item: operationItem },
    handler: async ({ services, caller, query }) => {
      let ops = await operations(services, caller as Caller);
      if (query.layer) ops = ops.filter((o) => o.layer === query.layer);
      if (query.allowed !== undefined) ops = ops.filter((o) => o.allowed === query.allowed);
      return pageItems(ops, query);
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/auth/ui-access/list', module: 'auth', tags: ['auth'], summary: 'Role and action rules of a shell resource',
    access: { resource: 'ui-access', action: 'read', scope: 'any' },
    query: { id: { type: 'string', enum: UI_IDS, default: 'ui.sidebar.menu' }, limit: { type: 'integer', min: 1, max: 500, default: 50 }, offset: { type: 'integer', min: 0, default: 0 } },
    response: { kind: 'list', item: rulesItem },
    handler: async ({ services, caller, query }) => {
      const id = query.id as UiResourceId;
      return pageItems([{ id, ...(await uiRules(services, id, caller?.tenant_id)) }], query);
    },
  }),
  defineRoute({
    method: 'post', path: '/api/v1/auth/ui-access/commands/update', module: 'auth', tags: ['auth'], summary: 'Replace the rules of a shell resource (per tenant; a master session sets the fleet default)',
    access: { resource: 'ui-access', action: 'update', owner: 'tenant' },
    body: v.strictObject({
      id: v.optional(v.picklist(UI_IDS), 'ui.sidebar.menu'),
      rules: v.pipe(v.array(v.strictObject({ role: v.picklist(['operator', 'admin', 'security']), actions: v.array(v.picklist(['read', 'update'])) })), v.maxLength(3)),
    }),
    response: { kind: 'single', item: rulesItem },
    handler: async ({ services, caller, body }) => {
      if (new Set(body.rules.map((r) => r.role)).size !== body.rules.length) throw new ApiError('validation_error', 'one rule per role', [{ field: 'rules', reason: 'duplicate_role' }]);
      const adminUpdate = body.rules.find((r) => r.role === 'admin')?.actions.includes('update');
      if (!adminUpdate) throw new ApiError('validation_error', 'admin must keep the update action, or nobody could change the menu again', [{ field: 'rules', reason: 'locks_out_admin' }]);
      const row = { id: body.id, tenant_id: caller?.tenant_id ?? '*', rules: body.rules, updated_at: new Date().toISOString(), updated_by: caller?.subject ?? 'unknown' };
      const store = uiAccessStore(services.db);
      const key = { id: row.id, tenant_id: row.tenant_id };
      if (!(await store.update(key, row))) await store.insert(row);
      await services.audit.record({ actor: row.updated_by, action: 'ui-access.update', resource: row.id, result: 'success', tenant_id: caller?.tenant_id ?? null, details: { rules: row.rules } });
      return { id: row.id, rules: row.rules, source: row.tenant_id === '*' ? 'fleet' : `tenant:${row.tenant_id}` };
    },
  }),
  defineRoute({
    method: 'get', path: '/api/v1/app/context', module: 'auth', tags: ['auth'], summary: 'The app context the shell starts from: mode, industry, user and policy',
    description: '`user.language`: the language of whoever is logged in, from their card or badge (null: none of their own, and for a token that is no person\'s card); `display.language`: the site\'s default (setting site_language); `display.locale` and `display.clock`: how dates and numbers are written (site_locale, site_clock).',
    access: { resource: 'app-context', action: 'read', scope: 'any' },
    response: { kind: 'single', item: { type: 'object', required: ['deployment_mode', 'industry_code', 'available_industries', 'user', 'policy', 'feature_flags'] } },
    handler: async ({ services, caller }) => appContext(services, caller as Caller),
  }),
];

export { DEFAULT_UI_RULES };
