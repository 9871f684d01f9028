// Applies the master-owned state a pull returned; the edge calls it whenever what the box holds
// differs from what the master sends (engine/held.ts). The conflict rule for master-owned records
// (version policies): the master wins. A policy the box changed locally is replaced by the
// master's version of the same id on the next pull, whether or not the master changed it since,
// and the discarded local version is written to the audit log (action sync.conflict, which also
// reaches the master); policies the master does not know (local ids) are kept; a master policy
// the master deleted is deleted on the box. Module site policies the master set for the site are
// applied the same way: the master's value wins, and a value someone on the box set (not the
// sync) is audited as sync.conflict (resource modules/site-policy). Records the box owns (its alarms and acknowledgements, tasks,
// telemetry) are only ever changed on the box, so they never conflict.
//
// Published industry profiles come down the same way (applyProfiles): each one becomes the
// published version of its lineage in the box's own profile store (a new version, the previous
// published one archived), with the master's content and content_sha256 unchanged. A lineage
// whose published version already has the master's content_sha256 is left alone, so applying
// the same state twice adds nothing. A version the box published itself in a lineage the master
// owns is replaced, and the discarded local version is audited (sync.conflict, resource
// industry-profiles); lineages the master does not have are not touched. Profiles are checked on
// every pull, not only when the revision changed, so a local change is replaced at the next cycle.
import { randomUUID } from 'node:crypto';
import { eq } from 'drizzle-orm';
import type { Services } from '../../../kernel/context.js';
import { colOf, tableOf } from '../../../db/sql.js';
import { versionPolicies, type VersionPolicyRow } from '../../version-policies/schema.js';
import type { PullAnswer } from './protocol.js';
import { registryOf } from '../../core/registry/runtime.js';
import { lineageOf, profileVersions, type ProfileRow } from '../../../industry/profiles.js';

/** The actor of everything the sync changes on the box; versions it adds carry it as created_by. */
export const SYNC_ACTOR = 'system:sync';

const RULES = ['scope', 'industry_code', 'tenant_id', 'module_id', 'allowed_major', 'min_version', 'max_version', 'pinned_version'] as const;
const sameRules = (a: VersionPolicyRow, b: VersionPolicyRow) => RULES.every((k) => (a[k] ?? null) === (b[k] ?? null));

type Pulled = Pick<PullAnswer, 'version_policies' | 'revision' | 'site_policies' | 'tenant_id' | 'site_id' | 'industry_profiles'>;

export async function applyDownState(services: Services, pulled: Pulled): Promise<{ conflicts: string[] }> {
  const { db } = services;
  const t = tableOf(versionPolicies, db);
  const id = colOf(versionPolicies, db, 'id');
  const conflicts: { local: VersionPolicyRow; master: VersionPolicyRow }[] = [];
  await db.transaction(async () => {
    const local = new Map(((await db.orm.select().from(t)) as VersionPolicyRow[]).map((r) => [r.id, r]));
    const wanted = new Map(pulled.version_policies.map((p) => [p.id, p]));
    for (const p of wanted.values()) {
      const row: VersionPolicyRow = { ...p, origin: 'master' };
      const mine = local.get(p.id);
      if (mine && mine.origin === 'local' && !sameRules(mine, row)) conflicts.push({ local: mine, master: row });
      if (mine) await db.orm.update(t).set(row as never).where(eq(id, p.id));
      else await db.orm.insert(t).values(row as never);
    }
    for (const r of local.values()) if (r.origin === 'master' && !wanted.has(r.id)) await db.orm.delete(t).where(eq(id, r.id));
  });
  // Module site policies the master set for this site: the master's value wins, modules it did
  // not set stay as the box has them. Keyed by the site's tenant, as tenant sessions on the box see them.
  const registry = registryOf(services);
  const sitePolicyConflicts: string[] = [];
  const held = pulled.site_policies.length ? await registry.sitePolicies(pulled.tenant_id, pulled.site_id) : [];
  for (const p of pulled.site_policies) {
    const current = held.find((r) => r.module_id === p.module_id);
    if (current?.enabled === p.enabled) continue;
    try {
      const applied = await registry.setSitePolicy(pulled.tenant_id, pulled.site_id, p.module_id, p.enabled, { subject: SYNC_ACTOR, tenant_id: pulled.tenant_id });
      if (current && current.updated_by !== SYNC_ACTOR) {
        sitePolicyConflicts.push(p.module_id);
        await services.audit.record({
          actor: SYNC_ACTOR, action: 'sync.conflict', resource: 'modules/site-policy', result: 'success', tenant_id: pulled.tenant_id,
          details: { id: `${pulled.site_id}/${p.module_id}`, site_id: pulled.site_id, module_id: p.module_id, rule: 'master_wins', discarded_local: current, applied_master: { ...p, applied_at: applied.updated_at }, revision: pulled.revision },
        });
        services.log.warn('sync conflict: the master site policy replaced a local change', { module: p.module_id, site_id: pulled.site_id });
      }
    } catch (err) {
      // A module this build does not have, or a core module: reported, the rest still applies.
      services.log.warn('site policy from the master not applied', { module: p.module_id, error: (err as Error).message });
    }
  }
  for (const c of conflicts) {
    await services.audit.record({
      actor: SYNC_ACTOR, action: 'sync.conflict', resource: 'version-policies', result: 'success',
      details: { id: c.local.id, rule: 'master_wins', discarded_local: c.local, applied_master: c.master, revision: pulled.revision },
    });
    services.log.warn('sync conflict: the master version replaced a local change', { policy: c.local.id });
  }
  const profiles = await applyProfiles(services, pulled);
  return { conflicts: [...conflicts.map((c) => c.local.id), ...sitePolicyConflicts, ...profiles.conflicts] };
}

/**
 * Makes each master profile the published version of its lineage on the box. Answers the box
 * versions it added and the ids of the local versions it replaced.
 */
export async function applyProfiles(services: Services, pulled: Pick<Pulled, 'tenant_id' | 'revision' | 'industry_profiles'>): Promise<{ applied: ProfileRow[]; conflicts: string[] }> {
  const { db } = services;
  const applied: ProfileRow[] = [];
  const conflicts: string[] = [];
  for (const master of pulled.industry_profiles ?? []) {
    // The lineage is the site's tenant's, whatever tenant id the row names.
    const lineage = lineageOf({ ...master, tenant_id: pulled.tenant_id });
    const current = await profileVersions.published(db, lineage);
    if (current && current.content_sha256 === master.content_sha256) continue;
    const version = await profileVersions.add(db, { ...lineage, content: master.content, content_sha256: master.content_sha256 }, {
      id: randomUUID(), actor: SYNC_ACTOR, publish: true,
      change_note: `master version ${master.version_id}${master.change_note ? `: ${master.change_note}` : ''}`,
    });
    applied.push(version);
    const base = { industry_code: version.industry_code, equipment_profile: version.equipment_profile, name: version.name, site_id: version.site_id };
    const fromMaster = { id: master.id, version_id: master.version_id, content_sha256: master.content_sha256, published_at: master.published_at };
    // A version the sync put there is simply superseded; one the box published itself is a conflict.
    if (current && current.created_by !== SYNC_ACTOR) {
      conflicts.push(current.id);
      await services.audit.record({
        actor: SYNC_ACTOR, action: 'sync.conflict', resource: 'industry-profiles', result: 'success', tenant_id: version.tenant_id,
        details: { id: current.id, ...base, rule: 'master_wins', discarded_local: { ...current, state: 'archived' }, applied_master: { ...fromMaster, content: master.content }, box_version_id: version.version_id, revision: pulled.revision },
      });
      services.log.warn('sync conflict: the master profile replaced a local version', { profile: `${base.industry_code}/${base.equipment_profile}/${base.name}`, site_id: base.site_id, local_version_id: current.version_id });
    }
    await services.audit.record({
      actor: SYNC_ACTOR, action: 'profile.sync', resource: 'industry-profiles', result: 'success', tenant_id: version.tenant_id,
      details: { id: version.id, ...base, version_id: version.version_id, state: version.state, content_sha256: version.content_sha256, archived_version_id: current?.version_id ?? null, master: fromMaster, revision: pulled.revision },
    });
  }
  return { applied, conflicts };
}
