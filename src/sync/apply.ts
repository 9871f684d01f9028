// Applies the master-owned state a pull returned. The conflict rule for master-owned records
// (version policies): the master wins. A policy the box changed locally while disconnected is
// replaced by the master's version of the same id on the next pull, and the discarded local
// version is written to the audit log (action sync.conflict, which also reaches the master);
// policies the master does not know (local ids) are kept; a master policy the master deleted
// is deleted on the box. Module site policies the master set for the site are applied the same
// way (the master's value wins). Records the box owns (its alarms and acknowledgements, tasks,
// telemetry) are only ever changed on the box, so they never conflict.
import { eq } from 'drizzle-orm';
import type { Services } from '../kernel/context.js';
import { colOf, tableOf } from '../realtime/sql.js';
import { versionPolicies, type VersionPolicyRow } from '../modules/version-policies/schema.js';
import type { PullAnswer } from './protocol.js';
import { registryOf } from '../registry/runtime.js';

const RULES = ['scope', 'industry_code', 'tenant_id', 'module_id', 'allowed_major', 'min_version', 'max_version', 'pinned_version'] as const;
const sameRules = (a: VersionPolicyRow, b: VersionPolicyRow) => RULES.every((k) => (a[k] ?? null) === (b[k] ?? null));

export async function applyDownState(services: Services, pulled: Pick<PullAnswer, 'version_policies' | 'revision' | 'site_policies' | 'tenant_id' | 'site_id'>): Promise<{ conflicts: string[] }> {
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
  for (const p of pulled.site_policies) {
    const current = (await registry.sitePolicies(pulled.tenant_id, pulled.site_id)).find((r) => r.module_id === p.module_id);
    if (current?.enabled === p.enabled) continue;
    try {
      await registry.setSitePolicy(pulled.tenant_id, pulled.site_id, p.module_id, p.enabled, { subject: 'system:sync', tenant_id: pulled.tenant_id });
    } catch (err) {
      // A module this build does not have, or a core module: reported, the rest still applies.
      services.log.warn('site policy from the master not applied', { module: p.module_id, error: (err as Error).message });
    }
  }
  for (const c of conflicts) {
    await services.audit.record({
      actor: 'system:sync', action: 'sync.conflict', resource: 'version-policies', result: 'success',
      details: { id: c.local.id, rule: 'master_wins', discarded_local: c.local, applied_master: c.master, revision: pulled.revision },
    });
    services.log.warn('sync conflict: the master version replaced a local change', { policy: c.local.id });
  }
  return { conflicts: conflicts.map((c) => c.local.id) };
}
