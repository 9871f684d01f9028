// What "the box holds the master's state" means, per kind of master-owned record, as a digest
// both sides compute from the same canonical form: the master from what it would send, the box
// from what its tables hold. The box reports its digests with every pull and push; the master
// calls a site in sync (live) only when they equal its own, so a local change the box made, or a
// state the box failed to apply, shows as pending_down instead of being hidden by a counter.
//
// The kinds: version policies (the box's rows of origin master; a policy changed on the box turns
// local and leaves the set), module site policies (the box's value of each module the master set
// for the site) and published industry profiles (the content digest in force in each lineage the
// master publishes to the site). The modules and lineages the master last sent are the basis the
// box computes over; it keeps them in its sync state, so a restart reports the same thing.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import type { Services } from '../../../kernel/context.js';
import { colOf, tableOf } from '../../../db/sql.js';
import { eq } from 'drizzle-orm';
import { versionPolicies, type VersionPolicyRow } from '../../version-policies/schema.js';
import { registryOf } from '../../core/registry/runtime.js';
import { lineageOf, profileVersions, type ProfileRow } from '../../../industry/profiles.js';

export const HELD_KINDS = ['version_policies', 'site_policies', 'industry_profiles'] as const;
export type HeldKind = (typeof HELD_KINDS)[number];
export type Held = Record<HeldKind, string>;

const digest = (form: unknown) => createHash('sha256').update(JSON.stringify(form)).digest('hex').slice(0, 32);
const digestText = v.pipe(v.string(), v.maxLength(64));
/** Not strict: a later box may report more kinds, which this master ignores. */
export const heldSchema = v.object({ version_policies: digestText, site_policies: digestText, industry_profiles: digestText });

const RULES = ['scope', 'industry_code', 'tenant_id', 'module_id', 'allowed_major', 'min_version', 'max_version', 'pinned_version'] as const;
const num = (x: unknown) => (x === null || x === undefined ? null : Number(x));
const policyForm = (rows: Pick<VersionPolicyRow, 'id' | (typeof RULES)[number]>[]) =>
  rows.map((r) => [r.id, ...RULES.map((k) => (k === 'allowed_major' ? num(r[k]) : (r[k] ?? null)))]).sort((a, b) => String(a[0]).localeCompare(String(b[0])));

type ProfileKey = Pick<ProfileRow, 'site_id' | 'industry_code' | 'equipment_profile' | 'name'>;
const lineageKey = (p: ProfileKey) => [p.site_id, p.industry_code, p.equipment_profile, p.name].join('\n');

/** The parts of a pull answer the digests are computed from. */
export interface MasterState {
  version_policies: Pick<VersionPolicyRow, 'id' | (typeof RULES)[number]>[];
  site_policies: { module_id: string; enabled: boolean }[];
  industry_profiles?: (ProfileKey & { content_sha256: string })[];
}

function digests(policies: MasterState['version_policies'], site: { module_id: string; enabled: boolean | null }[], profiles: (ProfileKey & { content_sha256: string | null })[]): Held {
  return {
    version_policies: digest(policyForm(policies)),
    site_policies: digest(site.map((p) => [p.module_id, p.enabled]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))),
    industry_profiles: digest(profiles.map((p) => [lineageKey(p), p.content_sha256]).sort((a, b) => String(a[0]).localeCompare(String(b[0])))),
  };
}

/** The digests of the state the master sends (both sides compute them from a pull answer). */
export function masterDigests(state: MasterState): Held {
  return digests(state.version_policies, state.site_policies, state.industry_profiles ?? []);
}

/** The modules and lineages the master sent last: what the box's held state is read over. */
export interface HeldBasis {
  tenant_id: string;
  site_id: string;
  modules: string[];
  lineages: ProfileKey[];
}

export const basisOf = (pulled: MasterState & { tenant_id: string; site_id: string }): HeldBasis => ({
  tenant_id: pulled.tenant_id, site_id: pulled.site_id, modules: pulled.site_policies.map((p) => p.module_id),
  lineages: (pulled.industry_profiles ?? []).map((p) => ({ site_id: p.site_id, industry_code: p.industry_code, equipment_profile: p.equipment_profile, name: p.name })),
});

/** What the box holds of the master-owned state, over the basis the master last sent. */
export async function heldDigests(services: Services, basis: HeldBasis | undefined): Promise<Held> {
  const { db } = services;
  const policies = (await db.orm.select().from(tableOf(versionPolicies, db)).where(eq(colOf(versionPolicies, db, 'origin'), 'master'))) as VersionPolicyRow[];
  if (!basis) return digests(policies, [], []);
  const site = basis.modules.length ? await registryOf(services).sitePolicies(basis.tenant_id, basis.site_id) : [];
  const values = basis.modules.map((m) => ({ module_id: m, enabled: site.find((r) => r.module_id === m)?.enabled ?? null }));
  const profiles = [];
  for (const l of basis.lineages) {
    const current = await profileVersions.published(db, lineageOf({ ...l, tenant_id: basis.tenant_id }));
    profiles.push({ ...l, content_sha256: current?.content_sha256 ?? null });
  }
  return digests(policies, values, profiles);
}

/** The kinds whose digests differ (all of them when the box did not report). */
export function differing(held: Partial<Held> | null | undefined, want: Held): HeldKind[] {
  return HELD_KINDS.filter((k) => held?.[k] !== want[k]);
}
