// version-policies/scheme|list|{id}, commands/set (create or update by id) and commands/check
// (violations of the installed modules).
import * as v from 'valibot';
import semver from '../../runtime/semver.js';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError, type ErrorDetail } from '../../kernel/errors.js';
import { ident } from '../tenant-master/input.js';
import { POLICY_SCOPES, versionPolicies, versionPolicyRecord, type VersionPolicyRow } from './schema.js';
import { checkPolicies } from './check.js';
import { tableOf } from '../../db/sql.js';
import { registryOf } from '../core/registry/runtime.js';

const version = v.nullable(v.pipe(v.string(), v.maxLength(64)));
const setBody = v.strictObject({
  id: ident,
  scope: v.picklist(POLICY_SCOPES),
  industry_code: v.optional(v.nullable(ident)),
  tenant_id: v.optional(v.nullable(ident)),
  module_id: v.optional(v.nullable(ident)),
  allowed_major: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(100_000)))),
  min_version: v.optional(version),
  max_version: v.optional(version),
  pinned_version: v.optional(version),
});
const checkBody = v.optional(v.strictObject({
  tenant_id: v.optional(ident),
  industry_code: v.optional(ident),
  module_id: v.optional(ident),
}), {});

type SetBody = v.InferOutput<typeof setBody>;

/** The stored row for a set body, or a 400 naming every wrong field. */
function policyRow(b: SetBody, actor: string): VersionPolicyRow {
  const details: ErrorDetail[] = [];
  const row: VersionPolicyRow = {
    id: b.id, scope: b.scope, industry_code: b.industry_code ?? null, tenant_id: b.tenant_id ?? null, module_id: b.module_id ?? null,
    allowed_major: b.allowed_major ?? null, min_version: b.min_version ?? null, max_version: b.max_version ?? null, pinned_version: b.pinned_version ?? null,
    origin: 'local', updated_by: actor, updated_at: new Date().toISOString(),
  };
  if (row.scope === 'industry' && !row.industry_code) details.push({ field: 'industry_code', reason: 'required_for_industry_scope' });
  if (row.scope === 'tenant' && !row.tenant_id) details.push({ field: 'tenant_id', reason: 'required_for_tenant_scope' });
  if (row.scope !== 'industry' && row.industry_code) details.push({ field: 'industry_code', reason: 'only_for_industry_scope' });
  if (row.scope !== 'tenant' && row.tenant_id) details.push({ field: 'tenant_id', reason: 'only_for_tenant_scope' });
  for (const f of ['min_version', 'max_version', 'pinned_version'] as const) {
    const value = row[f];
    if (value !== null && semver.valid(value) === null) details.push({ field: f, reason: 'not_semver' });
    else if (value !== null) row[f] = semver.valid(value);
  }
  if (row.allowed_major === null && row.min_version === null && row.max_version === null && row.pinned_version === null) {
    details.push({ field: 'allowed_major', reason: 'a policy needs at least one rule' });
  }
  if (!details.length && row.min_version && row.max_version && semver.gt(row.min_version, row.max_version)) details.push({ field: 'min_version', reason: 'greater_than_max_version' });
  if (!details.length && row.pinned_version) {
    const p = row.pinned_version;
    if ((row.allowed_major !== null && semver.major(p) !== row.allowed_major) || (row.min_version && semver.lt(p, row.min_version)) || (row.max_version && semver.gt(p, row.max_version))) {
      details.push({ field: 'pinned_version', reason: 'outside_the_other_rules' });
    }
  }
  if (details.length) throw new ApiError('validation_error', `version policy ${b.id} is not valid: ${details.map((d) => `${d.field} ${d.reason}`).join(', ')}`, details);
  return row;
}

const checkResponse = {
  type: 'object', required: ['checked_at', 'modules_checked', 'policies_applied', 'violations', 'compliant'],
  properties: {
    checked_at: { type: 'string', format: 'date-time' }, modules_checked: { type: 'integer' }, policies_applied: { type: 'array', items: { type: 'string' } },
    compliant: { type: 'boolean' },
    violations: { type: 'array', items: { type: 'object', required: ['policy_id', 'module_id', 'installed_version', 'rule', 'expected', 'message'] } },
  },
};

export const versionPolicyResource = defineResource<VersionPolicyRow>({
  name: 'version-policies',
  module: 'version-policies',
  title: 'Version policies',
  record: versionPolicyRecord,
  access: { resource: 'version-policies', scope: 'master' },
  defaultSort: { field: 'id', order: 'asc' },
  commands: {
    set: command({
      summary: 'Create or update a version policy by id (the whole policy: omitted rules are cleared)',
      action: 'update',
      body: setBody,
      handler: async (ctx, kit) => {
        const row = policyRow(ctx.body, ctx.caller?.subject ?? 'system');
        const store = kit.store(ctx.services.db);
        const saved = (await store.update({ id: row.id }, row)) ?? (await store.insert(row)) ?? (await store.update({ id: row.id }, row));
        await ctx.services.audit.record({ actor: row.updated_by, action: 'version_policy.set', resource: 'version-policies', result: 'success', correlation_id: ctx.requestId, details: { ...row }, tenant_id: row.tenant_id });
        return kit.toItem(saved as VersionPolicyRow);
      },
    }),
    check: command({
      summary: 'Check the installed modules against the applicable policies; answers the violations',
      action: 'read',
      body: checkBody,
      idempotent: false,
      response: checkResponse,
      handler: async (ctx) => {
        const b = ctx.body ?? {};
        const { config, modules, db } = ctx.services;
        const policies = (await db.orm.select().from(tableOf(versionPolicies, db))) as VersionPolicyRow[];
        const registry = registryOf(ctx.services);
        const installed = modules.states().filter((m) => m.installed && (b.module_id === undefined || m.id === b.module_id))
          .map((m) => ({ id: m.id, version: m.version, industry_code: registry.manifest(m.id)?.industry_code ?? null }));
        const industry = b.industry_code ?? (config.mode === 'edge-single' ? config.industry : null);
        const result = checkPolicies(policies, installed, { industry_code: industry, tenant_id: b.tenant_id ?? null, single_tenant: config.mode === 'edge-single' });
        return { checked_at: new Date().toISOString(), ...result };
      },
    }),
  },
});
