// Industry profiles: the versioned documents of every industry (a poultry house's climate curve,
// feed/water thresholds and alarm rules; a swine room's climate targets; a melioration field's
// irrigation plan), kept in one store on top of the one versioning mechanism
// (src/industry/versions.ts) and exchanged as YAML.
//
// A profile's lineage is tenant + site + industry_code + equipment_profile + name: every import,
// publish or rollback adds a version to it. The store does not interpret `content`; an industry
// may register a validator for its documents (registerProfileContent), which import runs.
//
// The YAML document (schema_version v1):
//   schema_version: v1
//   kind: industry-profile
//   industry_code: swine
//   equipment_profile: fattener-room
//   name: Room 3 climate
//   change_note: ...        (optional)
//   content: { ... }        (the industry's document, any JSON-compatible mapping)
// Export writes exactly this (plus the exported version's version_id and state, which import
// ignores), so export -> import -> export gives the same content, byte for byte.
import { createHash, randomUUID } from 'node:crypto';
import { parseDocument, stringify } from 'yaml';
import * as v from 'valibot';
import { and, desc, eq, inArray } from 'drizzle-orm';
import { defineRecord } from '../kernel/record.js';
import { ApiError, type ErrorDetail } from '../kernel/errors.js';
import type { Caller, Services } from '../kernel/context.js';
import { contentOf, versionFields, versioned } from './versions.js';
import { INDUSTRY_CODES } from './alarm-schema.js';
import { colOf, tableOf } from '../db/sql.js';

export type IndustryCode = (typeof INDUSTRY_CODES)[number];

export const profileRecord = defineRecord('industry_profiles', {
  id: { type: 'string', label: 'ID', readOnly: true, description: 'Identifies one version of the profile.' },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', filter: true, sortable: true, description: 'The site the profile applies to; empty for every site of the tenant.' },
  industry_code: { type: 'string', label: 'Industry', enum: INDUSTRY_CODES, filter: true, sortable: true, ui: { badge: true } },
  equipment_profile: { type: 'string', label: 'Equipment profile', filter: true, sortable: true, searchable: true, description: 'The equipment the profile is written for (for example broiler-tunnel-house, fattener-room); import refuses a document for other equipment.' },
  name: { type: 'string', label: 'Name', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  content: { type: 'object', label: 'Content', description: 'The industry document (climate phases, feed/water thresholds, alarm rules, ...).' },
  content_sha256: { type: 'string', label: 'Content digest', readOnly: true, description: 'SHA-256 of the content in canonical JSON: equal digests mean equal documents.', ui: { hidden: true } },
  ...versionFields,
}, {
  indexes: [
    { name: 'industry_profiles_lineage_version', columns: ['tenant_id', 'site_id', 'industry_code', 'equipment_profile', 'name', 'version_id'], unique: true },
    { name: 'industry_profiles_state', columns: ['tenant_id', 'industry_code', 'state'] },
  ],
});

export const industryProfiles = profileRecord.table;
export type ProfileRow = typeof profileRecord.row;

export const PROFILE_LINEAGE = ['tenant_id', 'site_id', 'industry_code', 'equipment_profile', 'name'] as const;
export const profileVersions = versioned<ProfileRow>(industryProfiles, PROFILE_LINEAGE);

export const lineageOf = (row: Pick<ProfileRow, (typeof PROFILE_LINEAGE)[number]>) => ({
  tenant_id: row.tenant_id, site_id: row.site_id, industry_code: row.industry_code, equipment_profile: row.equipment_profile, name: row.name,
});

// ---- per-industry content validators -------------------------------------------------------

/** Checks an industry's profile content; returns the problems (field paths under `content`). */
export type ContentValidator = (content: Record<string, unknown>, meta: { equipment_profile: string }) => ErrorDetail[];

const validators = new Map<string, ContentValidator>();

/** An industry declares what its profile documents must hold; import refuses others with 400. */
export function registerProfileContent(industry: IndustryCode, validator: ContentValidator): void {
  validators.set(industry, validator);
}

/** A validator from a valibot schema, with issue paths as `content.<path>`. */
export function valibotContent(schema: v.GenericSchema): ContentValidator {
  return (content) => {
    const r = v.safeParse(schema, content);
    if (r.success) return [];
    return r.issues.map((i) => ({ field: ['content', ...(i.path ?? []).map((p) => String(p.key))].join('.'), reason: i.message }));
  };
}

// ---- YAML codec ---------------------------------------------------------------------------

export const PROFILE_SCHEMA_VERSION = 'v1';
const name = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));

const documentSchema = v.object({
  schema_version: v.literal(PROFILE_SCHEMA_VERSION),
  kind: v.optional(v.literal('industry-profile')),
  industry_code: v.picklist(INDUSTRY_CODES),
  equipment_profile: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200), v.regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'letters, digits, dot, dash and underscore')),
  name,
  change_note: v.optional(v.nullable(v.pipe(v.string(), v.maxLength(2000)))),
  site_id: v.optional(v.unknown()),
  version_id: v.optional(v.unknown()),
  state: v.optional(v.unknown()),
  content: v.custom<Record<string, unknown>>((c) => c !== null && typeof c === 'object' && !Array.isArray(c), 'content must be a mapping'),
});

export interface ProfileDocument {
  industry_code: IndustryCode;
  equipment_profile: string;
  name: string;
  change_note: string | null;
  content: Record<string, unknown>;
}

/** Parses a profile YAML document; 400 validation_error naming the line or the field. */
export function decodeProfileYaml(text: string): ProfileDocument {
  const doc = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (doc.errors.length) {
    throw new ApiError('validation_error', `the YAML document cannot be read: ${doc.errors[0]!.message}`,
      doc.errors.slice(0, 10).map((e) => ({ field: 'yaml', reason: `${e.code}${e.linePos ? ` at line ${e.linePos[0].line}` : ''}` })));
  }
  const parsed = v.safeParse(documentSchema, doc.toJS({ maxAliasCount: 100 }));
  if (!parsed.success) {
    throw new ApiError('validation_error', 'the YAML document is not an industry profile (schema_version v1)',
      parsed.issues.map((i) => ({ field: ['yaml', ...(i.path ?? []).map((p) => String(p.key))].join('.'), reason: i.message })));
  }
  const d = parsed.output;
  if (!isJsonCompatible(d.content)) {
    throw new ApiError('validation_error', 'profile content must be plain data (mappings, lists, strings, finite numbers, booleans, null)', [{ field: 'yaml.content', reason: 'not_plain_data' }]);
  }
  return { industry_code: d.industry_code, equipment_profile: d.equipment_profile, name: d.name, change_note: d.change_note ?? null, content: d.content };
}

/** The YAML of one profile version (what export answers and import reads back). */
export function encodeProfileYaml(row: ProfileRow): string {
  return stringify({
    schema_version: PROFILE_SCHEMA_VERSION,
    kind: 'industry-profile',
    industry_code: row.industry_code,
    equipment_profile: row.equipment_profile,
    name: row.name,
    site_id: row.site_id,
    version_id: row.version_id,
    state: row.state,
    change_note: row.change_note,
    content: row.content,
  }, { lineWidth: 0, aliasDuplicateObjects: false });
}

function isJsonCompatible(value: unknown, depth = 0): boolean {
  if (depth > 64) return false;
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  if (Array.isArray(value)) return value.every((x) => isJsonCompatible(x, depth + 1));
  if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) return Object.values(value).every((x) => isJsonCompatible(x, depth + 1));
  return false;
}

/** Canonical JSON (sorted keys) digest, so equal documents have equal digests whatever their key order. */
export function contentDigest(content: unknown): string {
  const canon = (x: unknown): unknown => Array.isArray(x) ? x.map(canon)
    : x !== null && typeof x === 'object' ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, canon((x as Record<string, unknown>)[k])])) : x;
  return createHash('sha256').update(JSON.stringify(canon(content))).digest('hex');
}

// ---- operations (each one audited) ----------------------------------------------------------

/** Which industries this installation serves: its one industry in edge-single, installed industry modules in cloud-multi. */
export function servesIndustry(services: Services, industry: string): boolean {
  if (services.config.mode === 'edge-single') return industry === services.config.industry;
  return services.modules.isInstalled(industry);
}

export interface ImportTarget {
  /** The profile (any version of its lineage) the document must be a version of. */
  profile?: ProfileRow;
  industry_code?: string;
  equipment_profile?: string;
}

/**
 * Refuses (409 profile_incompatible) a document whose industry or equipment profile does not
 * match the target the caller named, the profile it is imported into, or this installation.
 */
export function checkCompatible(services: Services, doc: ProfileDocument, target: ImportTarget): void {
  const problems: ErrorDetail[] = [];
  const want = { industry_code: target.profile?.industry_code ?? target.industry_code, equipment_profile: target.profile?.equipment_profile ?? target.equipment_profile };
  if (want.industry_code !== undefined && doc.industry_code !== want.industry_code) problems.push({ field: 'industry_code', reason: `document is ${doc.industry_code}, target is ${want.industry_code}` });
  if (want.equipment_profile !== undefined && doc.equipment_profile !== want.equipment_profile) problems.push({ field: 'equipment_profile', reason: `document is ${doc.equipment_profile}, target is ${want.equipment_profile}` });
  if (target.profile && doc.name !== target.profile.name) problems.push({ field: 'name', reason: `document is ${doc.name}, target is ${target.profile.name}` });
  if (!servesIndustry(services, doc.industry_code)) {
    problems.push({ field: 'industry_code', reason: services.config.mode === 'edge-single' ? `this edge-single box runs ${services.config.industry}` : `the ${doc.industry_code} module is not installed` });
  }
  if (problems.length) {
    throw new ApiError('profile_incompatible', `profile ${doc.industry_code}/${doc.equipment_profile}/${doc.name} is not compatible with the target: ${problems.map((p) => `${p.field} (${p.reason})`).join('; ')}`, problems);
  }
}

const audit = (services: Services, caller: Caller, action: string, row: ProfileRow, correlationId: string, details: Record<string, unknown> = {}, resource = 'industry-profiles') =>
  services.audit.record({
    actor: caller.subject, action, resource, result: 'success', correlation_id: correlationId, tenant_id: row.tenant_id,
    details: { id: row.id, industry_code: row.industry_code, equipment_profile: row.equipment_profile, name: row.name, site_id: row.site_id, version_id: row.version_id, state: row.state, ...details },
  });

export interface ProfileOps {
  /** Stores a document as the next version of its lineage (a draft, or published with publish=true). */
  importDocument(input: { doc: ProfileDocument; tenant_id: string; site_id: string; target: ImportTarget; publish?: boolean; change_note?: string | null }): Promise<{ version: ProfileRow; archived: ProfileRow | undefined }>;
  export(row: ProfileRow): Promise<{ yaml: string }>;
  publish(row: ProfileRow): Promise<{ published: ProfileRow; archived: ProfileRow | undefined }>;
  rollback(row: ProfileRow, version_id: number, change_note?: string | null): Promise<{ published: ProfileRow; archived: ProfileRow | undefined }>;
}

/** The profile operations for one caller; `resource` names the audit trail (industry-profiles or poultry-profiles). */
export function profileOps(services: Services, caller: Caller, correlationId: string, resource = 'industry-profiles'): ProfileOps {
  const { db } = services;
  return {
    async importDocument({ doc, tenant_id, site_id, target, publish, change_note }) {
      checkCompatible(services, doc, target);
      const problems = validators.get(doc.industry_code)?.(doc.content, { equipment_profile: doc.equipment_profile }) ?? [];
      if (problems.length) throw new ApiError('validation_error', `the ${doc.industry_code} profile content is invalid`, problems);
      const content = { tenant_id, site_id, industry_code: doc.industry_code, equipment_profile: doc.equipment_profile, name: doc.name, content: doc.content, content_sha256: contentDigest(doc.content) };
      const before = publish ? await profileVersions.published(db, lineageOf(content)) : undefined;
      const version = await profileVersions.add(db, content, { id: randomUUID(), actor: caller.subject, publish, change_note: change_note ?? doc.change_note });
      await audit(services, caller, 'profile.import', version, correlationId, { published: Boolean(publish), archived_version_id: before?.version_id ?? null, content_sha256: version.content_sha256 }, resource);
      return { version, archived: before };
    },
    async export(row) {
      const yaml = encodeProfileYaml(row);
      await audit(services, caller, 'profile.export', row, correlationId, { content_sha256: row.content_sha256 }, resource);
      return { yaml };
    },
    async publish(row) {
      const out = await profileVersions.publish(db, row);
      await audit(services, caller, 'profile.publish', out.published, correlationId, { archived_version_id: out.archived?.version_id ?? null }, resource);
      return out;
    },
    async rollback(row, version_id, change_note) {
      const rolled = await profileVersions.rollback(db, lineageOf(row), version_id, { id: randomUUID(), actor: caller.subject, change_note });
      // `archived` is the version that was in force, read before the same transaction archived it.
      const out = { published: rolled.published, archived: rolled.archived ? { ...rolled.archived, state: 'archived' as const } : undefined };
      await audit(services, caller, 'profile.rollback', out.published, correlationId, { rollback_of: version_id, archived_version_id: out.archived?.version_id ?? null }, resource);
      return out;
    },
  };
}

/**
 * The newest published profile of an industry whose content holds a list under `key`, for a site: the site's
 * own profile first, then the tenant-wide one (site_id ''). What placement and the alarm rules
 * read (a poultry profile's climate_phases, alarm_rules).
 */
export async function profileInForce(services: Services, q: { tenant: string; site: string | null; industry: IndustryCode; key: string }): Promise<ProfileRow | undefined> {
  const c = (n: string) => colOf(industryProfiles, services.db, n);
  const published = (await services.db.orm.select().from(tableOf(industryProfiles, services.db)).where(and(
    eq(c('tenant_id'), q.tenant), eq(c('industry_code'), q.industry), eq(c('state'), 'published'), inArray(c('site_id'), q.site ? [q.site, ''] : ['']),
  )).orderBy(desc(c('published_at')))) as ProfileRow[];
  return [...published.filter((p) => p.site_id === q.site), ...published.filter((p) => p.site_id === '')].find((p) => Array.isArray(p.content[q.key]));
}

export { contentOf };
