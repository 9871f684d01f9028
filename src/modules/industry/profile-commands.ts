// The profile commands, shared by industry-profiles (import, export, publish, rollback; any
// industry this installation serves) and the industry-only variants such as poultry-profiles
// (import-yaml, export-yaml, publish, rollback; one industry, another industry's profile is a
// 409 conflict). Both act on the one profile store (src/industry/profiles.ts).
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { command, itemSchema, type CommandDef, type ResourceKit } from '../../kernel/resource.js';
import type { HandlerContext, JsonSchema } from '../../kernel/route.js';
import type { Caller } from '../../kernel/context.js';
import {
  decodeProfileYaml, industryProfiles, lineageOf, profileOps, profileRecord, profileVersions, type IndustryCode, type ProfileRow,
} from '../../industry/profiles.js';
import { Store } from '../../db/store.js';
import type { Database } from '../../db/client.js';
import { INDUSTRY_CODES } from '../../industry/alarm-schema.js';
import { ownerSite as writeSite, boundSite } from '../../kernel/tenancy.js';

const text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));
const note = v.optional(v.nullable(v.pipe(v.string(), v.maxLength(2000))));
/** 512 KiB of YAML: a profile with hundreds of phases and rules fits many times over. */
const YAML_MAX = 512 * 1024;

const importBody = v.strictObject({
  yaml: v.pipe(v.string(), v.minLength(1), v.maxLength(YAML_MAX)),
  site_id: v.optional(v.pipe(v.string(), v.maxLength(200))),
  target_profile_id: v.optional(text(200)),
  industry_code: v.optional(v.picklist(INDUSTRY_CODES)),
  equipment_profile: v.optional(text(200)),
  publish: v.optional(v.boolean()),
  change_note: note,
});

const exportBody = v.pipe(v.strictObject({
  id: v.optional(text(200)),
  industry_code: v.optional(v.picklist(INDUSTRY_CODES)),
  equipment_profile: v.optional(text(200)),
  name: v.optional(text(200)),
  site_id: v.optional(v.pipe(v.string(), v.maxLength(200))),
  version_id: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1))),
}), v.check((b) => b.id !== undefined || (b.industry_code !== undefined && b.equipment_profile !== undefined && b.name !== undefined), 'give id, or industry_code + equipment_profile + name'));

const publishBody = v.strictObject({ id: text(200) });
const rollbackBody = v.strictObject({ id: text(200), version_id: v.pipe(v.number(), v.integer(), v.minValue(1)), change_note: note });

const profileItem = itemSchema(profileRecord.fields);
export const exportResponse: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' }, industry_code: { type: 'string' }, equipment_profile: { type: 'string' }, name: { type: 'string' },
    site_id: { type: 'string' }, version_id: { type: 'integer' }, state: { type: 'string' }, content_sha256: { type: 'string' },
    format: { type: 'string', enum: ['yaml'] }, yaml: { type: 'string', description: 'The profile as a YAML document (schema_version v1); import reads it back unchanged.' },
  },
  required: ['id', 'industry_code', 'equipment_profile', 'name', 'site_id', 'version_id', 'state', 'content_sha256', 'format', 'yaml'],
  additionalProperties: false,
};
export const transitionResponse: JsonSchema = {
  type: 'object',
  properties: { published: profileItem, archived: { anyOf: [profileItem, { type: 'null' }], description: 'The version that was in force before, now archived.' } },
  required: ['published', 'archived'],
  additionalProperties: false,
};

export interface ProfileCommandOptions {
  /** The one industry the commands act on (poultry-profiles), or undefined for every industry. */
  industry?: IndustryCode;
  /** Audit resource and error wording. */
  resource: string;
  names: { import: string; export: string; publish: string; rollback: string };
}

const stores = new WeakMap<Database, Store<ProfileRow>>();
const storeOf = (db: Database): Store<ProfileRow> => {
  let s = stores.get(db);
  if (!s) stores.set(db, (s = new Store<ProfileRow>(db, industryProfiles)));
  return s;
};

const tenantOf = (caller: Caller | undefined): string => {
  if (!caller?.tenant_id) throw new ApiError('tenant_boundary_denied', 'a tenant session is required');
  return caller.tenant_id;
};

export function profileCommands(opts: ProfileCommandOptions): Record<string, CommandDef<any>> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const only = opts.industry;
  /** A version the caller may see; for an industry-only variant another industry's profile is a conflict. */
  const loadOwn = async (ctx: HandlerContext<unknown>, _kit: ResourceKit<Record<string, unknown>>, id: string): Promise<ProfileRow> => {
    // Looked up across industries (the caller's tenant only), so that a variant can tell
    // "another industry's profile" (409) from "no such profile" (404).
    const row = await storeOf(ctx.services.db).find({ id, tenant_id: tenantOf(ctx.caller) });
    const site = boundSite(ctx.caller);
    if (!row || (site !== undefined && row.site_id !== site)) throw new ApiError('not_found', `profile version ${id} not found`, [{ field: 'id', reason: 'not_found' }]);
    if (only && row.industry_code !== only) {
      throw new ApiError('profile_industry_mismatch', `profile ${id} (${row.industry_code}/${row.equipment_profile}/${row.name}) is a ${row.industry_code} profile; ${opts.resource} acts only on ${only} profiles`, [{ field: 'id', reason: `industry_${row.industry_code}` }]);
    }
    return row;
  };
  const ops = (ctx: HandlerContext<unknown>) => profileOps(ctx.services, ctx.caller!, ctx.requestId, opts.resource);
  const onlyNote = only ? ` Only ${only} profiles: a document of another industry is 409 profile_incompatible; a profile of another industry is 409 profile_industry_mismatch.` : '';

  return {
    [opts.names.import]: command({
      summary: `Import a profile from YAML as a new version of its lineage (tenant + site + industry_code + equipment_profile + name); a draft unless publish=true. Compatibility: the document's industry_code and equipment_profile must match target_profile_id's profile (or the industry_code / equipment_profile given), and the industry must be one this installation serves, else 409 profile_incompatible and nothing is stored.${onlyNote}`,
      action: 'create',
      body: importBody,
      status: 201,
      errors: ['profile_incompatible', 'not_found'],
      response: profileItem,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const doc = decodeProfileYaml(b.yaml);
        const target = b.target_profile_id ? await loadOwn(ctx, kit, b.target_profile_id) : undefined;
        const industry_code = only ?? b.industry_code;
        const site_id = writeSite(ctx.caller, b.site_id === undefined ? target?.site_id : b.site_id, '') ?? '';
        if (target && site_id !== target.site_id) throw new ApiError('profile_incompatible', `profile ${target.id} is for site '${target.site_id}', not '${site_id}'`, [{ field: 'site_id', reason: 'other_site' }]);
        const { version } = await ops(ctx).importDocument({
          doc, tenant_id: tenantOf(ctx.caller), site_id, publish: b.publish, change_note: b.change_note,
          target: { profile: target, industry_code, equipment_profile: b.equipment_profile },
        });
        return kit.toItem(version);
      },
    }),
    [opts.names.export]: command({
      summary: `Export one profile version as YAML: by id, or by industry_code + equipment_profile + name (+ site_id) with version_id, else the published version. Audited.${onlyNote}`,
      action: 'read',
      body: exportBody,
      errors: ['not_found', ...(only ? ['profile_industry_mismatch' as const] : [])],
      response: exportResponse,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        let row: ProfileRow | undefined;
        if (b.id !== undefined) row = await loadOwn(ctx, kit, b.id);
        else {
          if (only && b.industry_code !== only) throw new ApiError('profile_industry_mismatch', `${opts.resource} exports only ${only} profiles, not ${b.industry_code}`, [{ field: 'industry_code', reason: `industry_${b.industry_code}` }]);
          const lineage = { tenant_id: tenantOf(ctx.caller), site_id: writeSite(ctx.caller, b.site_id, '') ?? '', industry_code: b.industry_code!, equipment_profile: b.equipment_profile!, name: b.name! };
          row = b.version_id !== undefined
            ? (await profileVersions.history(ctx.services.db, lineage)).find((r) => r.version_id === b.version_id)
            : await profileVersions.published(ctx.services.db, lineage);
          if (!row) throw new ApiError('not_found', `no ${b.version_id !== undefined ? `version ${b.version_id}` : 'published version'} of profile ${lineage.industry_code}/${lineage.equipment_profile}/${lineage.name}`, [{ field: b.version_id !== undefined ? 'version_id' : 'name', reason: 'not_found' }]);
        }
        const { yaml } = await ops(ctx).export(row);
        return {
          id: row.id, industry_code: row.industry_code, equipment_profile: row.equipment_profile, name: row.name, site_id: row.site_id,
          version_id: row.version_id, state: row.state, content_sha256: row.content_sha256, format: 'yaml', yaml,
        };
      },
    }),
    [opts.names.publish]: command({
      summary: `Publish a draft version: it becomes the version in force and the previously published version of its lineage becomes archived (409 lifecycle_conflict unless a draft). Audited.${onlyNote}`,
      action: 'execute',
      body: publishBody,
      errors: ['not_found', 'lifecycle_conflict', ...(only ? ['profile_industry_mismatch' as const] : [])],
      response: transitionResponse,
      handler: async (ctx, kit) => {
        const row = await loadOwn(ctx, kit, ctx.body.id);
        const { published, archived } = await ops(ctx).publish(row);
        return { published: kit.toItem(published), archived: archived ? kit.toItem(archived) : null };
      },
    }),
    [opts.names.rollback]: command({
      summary: `Roll back: the chosen version_id of the lineage of profile version id becomes the one in force, as a new published version whose rollback_of names it; the previous published version is archived. Audited.${onlyNote}`,
      action: 'execute',
      body: rollbackBody,
      errors: ['not_found', ...(only ? ['profile_industry_mismatch' as const] : [])],
      response: transitionResponse,
      handler: async (ctx, kit) => {
        const row = await loadOwn(ctx, kit, ctx.body.id);
        const { published, archived } = await ops(ctx).rollback(row, ctx.body.version_id, ctx.body.change_note);
        return { published: kit.toItem(published), archived: archived ? kit.toItem(archived) : null };
      },
    }),
  };
}

export { lineageOf };
