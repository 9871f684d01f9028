// The fleet view's columns of each site row (status, open P1 alarms, versions against policy,
// whether it holds the master state, attention), computed from what the boxes reported with the
// same rule as the tenant's sync record. They depend on the clock (a site goes out of contact by
// staying silent) and on master-side changes (a new policy), so they are recomputed before every
// read of sync-sites; they are stored so that the resource kit filters and sorts on them in SQL.
// The cost does not grow in queries with the fleet: six reads for every site at once (sites,
// tenant modes, open P1 counts, and downStates' three), then one UPDATE per distinct view among
// the sites whose view changed since the last read (none in a quiet fleet).
import { and, count, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../db/client.js';
import { colOf, tableOf } from '../../../db/sql.js';
import { checkPolicies } from '../../version-policies/check.js';
import { refusalOf, softwarePolicies } from '../../releases/policy.js';
import { syncAlarms, syncSites, syncTenants, type SitePolicyVerdict, type SyncSiteRow, type SyncTenantRow } from '../schema.js';
import { downStates, holdsMasterState, siteKeyOf, type DownState, type SyncTiming } from './master.js';

/** What attention adds up (see the attention field): the highest first in the fleet view. */
export const ATTENTION = { stopped: 8, degraded: 4, openP1: 2, violation: 1 } as const;

export interface SiteView {
  id: string;
  status: 'live' | 'degraded' | 'stopped';
  open_p1: number;
  policy: SitePolicyVerdict;
  policy_violations: string[];
  holds_master_state: boolean;
  attention: number;
}

/**
 * Open P1 alarms per site, one grouped query. A P1 is an alarm of priority P1 (industry alarms);
 * a site alarm has no priority, and its critical severity is the fleet's P1. The sync stores both
 * verdicts on each alarm (engine/alarms.ts: open, p1), so sync-alarms lists what this counts.
 */
async function openP1(db: Database): Promise<Map<string, number>> {
  const c = (n: string) => colOf(syncAlarms, db, n);
  const rows = (await db.orm.select({ tenant_id: c('tenant_id'), site_id: c('site_id'), n: count() }).from(tableOf(syncAlarms, db))
    .where(and(eq(c('open'), true), eq(c('p1'), true)))
    .groupBy(c('tenant_id'), c('site_id'))) as { tenant_id: string; site_id: string; n: number | string }[];
  return new Map(rows.map((r) => [siteKeyOf(r), Number(r.n)]));
}

const parsed = <T>(x: unknown): T | null => (typeof x === 'string' ? (JSON.parse(x) as T) : ((x ?? null) as T | null));

/** The view of one site; pure, so the rule is testable and the same for every caller. */
export function viewOf(site: SyncSiteRow, down: DownState, mode: string, p1: number, timing: SyncTiming, now: number): SiteView {
  const seen = site.last_seen_at ? Date.parse(site.last_seen_at) : null;
  const contact = seen !== null && now - seen <= timing.staleMs;
  const holds = holdsMasterState(site, down);
  const status = mode === 'paused' || !contact ? 'stopped' : Number(site.reported_pending) === 0 && holds ? 'live' : 'degraded';
  const modules = parsed<{ id: string; version: string; industry_code?: string | null }[]>(site.module_versions);
  let policy: SitePolicyVerdict = 'unknown';
  let violations: string[] = [];
  if (modules) {
    const result = checkPolicies(down.version_policies, modules.map((m) => ({ id: m.id, version: m.version, industry_code: m.industry_code ?? null })),
      { industry_code: site.industry_code, tenant_id: site.tenant_id, single_tenant: false });
    violations = result.violations.map((v) => `${v.message} (policy ${v.policy_id})`);
    // The software itself (module id cabinet in a policy): judged as the releases are targeted, pinned winning.
    const software = site.app_version ? refusalOf(softwarePolicies(down.version_policies, site), site.app_version) : null;
    if (software) violations.push(software);
    policy = violations.length ? 'violates' : 'conforms';
  }
  const attention = (status === 'stopped' ? ATTENTION.stopped : status === 'degraded' ? ATTENTION.degraded : 0)
    + (p1 > 0 ? ATTENTION.openP1 : 0) + (policy === 'violates' ? ATTENTION.violation : 0);
  return { id: siteKeyOf(site), status, open_p1: p1, policy, policy_violations: violations, holds_master_state: holds, attention };
}

const same = (row: SyncSiteRow, view: SiteView) =>
  row.id === view.id && row.status === view.status && Number(row.open_p1) === view.open_p1 && row.policy === view.policy
  && Boolean(row.holds_master_state) === view.holds_master_state && row.holds_master_state !== null && Number(row.attention) === view.attention
  && JSON.stringify(parsed<string[]>(row.policy_violations) ?? []) === JSON.stringify(view.policy_violations);

/** Recomputes every site's view and stores the ones that changed; answers how many did. */
export async function refreshSites(db: Database, timing: SyncTiming): Promise<number> {
  const [siteRows, tenantRows, p1] = await Promise.all([db.orm.select().from(tableOf(syncSites, db)), db.orm.select().from(tableOf(syncTenants, db)), openP1(db)]);
  const sites = siteRows as SyncSiteRow[];
  const tenants = tenantRows as SyncTenantRow[];
  const modes = new Map(tenants.map((t) => [t.tenant_id, t.mode]));
  const downs = await downStates(db, sites);
  const now = Date.now();
  const sc = (n: string) => colOf(syncSites, db, n);
  // Sites whose view changed, grouped by the view they now have: views repeat across a fleet
  // (a few statuses, verdicts and counts), so a read after many changed (a restart, a new policy)
  // is a few UPDATEs, not one per site.
  const groups = new Map<string, { view: Omit<SiteView, 'id'>; ids: string[] }>();
  let changed = 0;
  for (const s of sites) {
    const key = siteKeyOf(s);
    const view = viewOf(s, downs.get(key)!, modes.get(s.tenant_id) ?? 'auto', p1.get(key) ?? 0, timing, now);
    if (same(s, view)) continue;
    changed++;
    const { id, ...rest } = view;
    if (s.id !== id) {
      // A row without its id yet (none after the migration; kept for safety): by its key.
      await db.orm.update(tableOf(syncSites, db)).set(view as never).where(and(eq(sc('tenant_id'), s.tenant_id), eq(sc('site_id'), s.site_id)));
      continue;
    }
    const g = JSON.stringify(rest);
    const group = groups.get(g) ?? { view: rest, ids: [] };
    group.ids.push(id);
    groups.set(g, group);
  }
  for (const { view, ids } of groups.values()) {
    for (let i = 0; i < ids.length; i += 500) await db.orm.update(tableOf(syncSites, db)).set(view as never).where(inArray(sc('id'), ids.slice(i, i + 500)));
  }
  return changed;
}

/**
 * Seconds the site is behind: the age of its oldest waiting event, or its silence once it is
 * stopped (the status the read just computed); null when it was never heard from.
 */
export function lagOf(site: Pick<SyncSiteRow, 'last_seen_at' | 'reported_pending' | 'reported_oldest_at' | 'status'>, now = Date.now()): number | null {
  if (!site.last_seen_at) return null;
  let lag = 0;
  if (Number(site.reported_pending) > 0 && site.reported_oldest_at) lag = Math.max(lag, (now - Date.parse(site.reported_oldest_at)) / 1000);
  if (site.status === 'stopped') lag = Math.max(lag, (now - Date.parse(site.last_seen_at)) / 1000);
  return Math.round(lag * 10) / 10;
}
