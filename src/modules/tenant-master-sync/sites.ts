// sync-sites/scheme|list|{id}: the fleet view, one read-only record per registered site (its id is
// site@tenant), master scope only. The columns the kit filters and sorts on are recomputed before
// every read (engine/sites.ts); lag is computed at the read from what the box reported.
import { defineResource } from '../../kernel/resource.js';
import { refreshSites, lagOf } from './engine/sites.js';
import { siteRecord, type SyncSiteRow } from './schema.js';
import { STATUS_RULE } from './resource.js';

const shown = Object.entries(siteRecord.fields).filter(([, f]) => !('internal' in f && f.internal)).map(([name]) => name);
const timing = (s: { config: { sync_stale_ms: number } }) => ({ staleMs: s.config.sync_stale_ms });
const json = (x: unknown) => (typeof x === 'string' ? (JSON.parse(x) as unknown) : x);

export const SITE_RULE = `One record per registered site, id site@tenant. Sync status per site, the tenant rule applied to one site: live when it was heard from within sync_stale_ms, has an empty outbox and holds the current master-owned state; stopped when its tenant's sync is paused or it was not heard from within sync_stale_ms (or never); degraded otherwise. policy: conforms or violates (policy_violations in words) when the box reported its module versions, judged as the box's own version-policies/commands/check would by the policies the master sends it, and its app version by the policies naming module_id cabinet (pinned winning); unknown from a box that does not report them. open_p1: open alarms of priority P1, or of severity critical where the alarm has no priority. The default order is attention, highest first (stopped 8, degraded 4, open P1 2, version outside policy 1). (${STATUS_RULE})`;

export const sitesResource = defineResource<SyncSiteRow>({
  name: 'sync-sites',
  module: 'tenant-master-sync',
  title: 'Sites in the fleet',
  record: siteRecord,
  access: { resource: 'sync-sites', scope: 'master' },
  defaultSort: { field: 'attention', order: 'desc' },
  beforeRead: async (ctx) => { await refreshSites(ctx.services.db, timing(ctx.services)); },
  toItem: (row) => {
    const item: Record<string, unknown> = {};
    for (const name of shown) item[name] = row[name] ?? null;
    return {
      ...item,
      events_received: Number(row.events_received), reported_pending: Number(row.reported_pending),
      open_p1: row.open_p1 === null ? null : Number(row.open_p1), attention: row.attention === null ? null : Number(row.attention),
      holds_master_state: row.holds_master_state === null ? null : Boolean(row.holds_master_state),
      module_versions: json(row.module_versions) ?? null, policy_violations: json(row.policy_violations) ?? null,
      lag_seconds: lagOf(row),
      running_version: row.app_version ?? null, update_hold: Boolean(row.update_hold),
      update_progress: row.update_progress === null || row.update_progress === undefined ? null : Number(row.update_progress),
    };
  },
});

for (const r of sitesResource.routes) if (r.path.endsWith('/list') || r.path.endsWith('/{id}')) r.description = SITE_RULE;
