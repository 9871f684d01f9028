// Tables of the edge-to-master sync. Master side: one record per tenant (the contract's sync
// record, its computed columns refreshed before every read), one row per registered site (its
// credential's passkey, the highest event sequence applied, what the box last reported about
// its outbox), the inbox of every event received, and projections the fleet views read (alarms,
// heartbeats, telemetry aggregates). Edge side: the outbox and a small key/value state.
import { defineRecord } from '../../kernel/record.js';
import { col, defineTable } from '../../db/table.js';
import { INDUSTRY_SEVERITIES, PRIORITIES } from '../../industry/alarm-schema.js';

export const SYNC_STATUSES = ['live', 'degraded', 'stopped'] as const;
export const SYNC_MODES = ['auto', 'manual', 'paused'] as const;
export type SyncMode = (typeof SYNC_MODES)[number];

export const syncRecord = defineRecord('sync_tenants', {
  id: { type: 'string', label: 'ID', readOnly: true, column: false, description: 'The tenant id (one sync record per tenant).' },
  tenant_id: { type: 'string', label: 'Tenant', column: { primaryKey: true }, filter: true, sortable: true, searchable: true },
  status: { type: 'string', label: 'Status', enum: SYNC_STATUSES, readOnly: true, filter: true, sortable: true },
  mode: { type: 'string', label: 'Mode', enum: SYNC_MODES, filter: true, sortable: true },
  lag_seconds: { type: 'number', label: 'Lag', readOnly: true, sortable: true, ui: { unit: 's' }, description: 'Age of the oldest event still waiting in a site outbox (0 when none).' },
  pending_up: { type: 'integer', label: 'Pending up', readOnly: true, description: 'Events waiting in the sites\' outboxes, as last reported by the boxes.' },
  pending_down: { type: 'integer', label: 'Pending down', readOnly: true, description: 'Sites that have not applied the current master-owned state (policies).' },
  pending: { type: 'integer', label: 'Pending', readOnly: true, sortable: true },
  sites: { type: 'integer', label: 'Sites', readOnly: true },
  sites_live: { type: 'integer', label: 'Sites live', readOnly: true },
  events_received: { type: 'integer', label: 'Events received', readOnly: true },
  last_seen_at: { type: 'datetime', label: 'Last contact', nullable: true, readOnly: true, sortable: true },
  run_requested_at: { type: 'datetime', label: 'Run requested', nullable: true, readOnly: true, description: 'When commands/run last asked the sites to push (the request the sites complete).' },
  sites_run_done: { type: 'integer', label: 'Sites done with the run', nullable: true, readOnly: true, description: 'Sites that have completed the last forced run (run_requested_at): each pushed everything its outbox held when it took the request and holds the master-owned state. A site that never reported a completed run (a box older than this report) counts once it reported an empty outbox after the request. The run is complete when this equals sites; null when no run was requested.' },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true },
});
export const syncTenants = syncRecord.table;
export type SyncTenantRow = typeof syncRecord.row;

export const SITE_POLICY_VERDICTS = ['conforms', 'violates', 'unknown'] as const;
export type SitePolicyVerdict = (typeof SITE_POLICY_VERDICTS)[number];

/**
 * One row per registered site: its credential, the highest event sequence applied and what the box
 * last reported (outbox, held digests, versions), plus the fleet view's columns (status, open_p1,
 * policy, holds_master_state, attention), computed from those reports before every read of
 * sync-sites (engine/sites.ts) and stored so that the kit filters and sorts on them in SQL. The
 * internal fields are bookkeeping the sync-sites item does not show.
 */
export const siteRecord = defineRecord('sync_sites', {
  tenant_id: { type: 'string', label: 'Tenant', filter: true, sortable: true, searchable: true },
  site_id: { type: 'string', label: 'Site', filter: true, sortable: true, searchable: true },
  passkey_id: { type: 'string', label: 'Credential', internal: true },
  industry_code: { type: 'string', label: 'Industry', nullable: true, filter: true, sortable: true },
  registered_at: { type: 'datetime', label: 'Registered', readOnly: true },
  last_seen_at: { type: 'datetime', label: 'Last contact', nullable: true, readOnly: true, sortable: true, description: 'When the box last pulled or pushed (its last request to the master).' },
  applied_seq: { type: 'integer', label: 'Applied sequence', internal: true },
  events_received: { type: 'integer', label: 'Events received', readOnly: true },
  reported_pending: { type: 'integer', label: 'Pending events', readOnly: true, sortable: true, description: 'Events waiting in the box\'s outbox, as it last reported.' },
  lag_seconds: { type: 'number', label: 'Lag', nullable: true, readOnly: true, column: false, ui: { unit: 's' }, description: 'Seconds the site is behind: the age of the oldest event in its outbox, or its silence once it is stopped; null when it was never heard from. Computed at the read.' },
  reported_oldest_at: { type: 'datetime', label: 'Oldest pending event', nullable: true, readOnly: true },
  down_revision: { type: 'string', label: 'Applied revision', nullable: true, internal: true },
  last_rtt_ms: { type: 'number', label: 'Round trip', nullable: true, readOnly: true, ui: { unit: 'ms' } },
  /** What the box reported it holds of the master-owned state, a digest per kind (null: a box that does not report it). */
  held: { type: 'object', label: 'Held digests', nullable: true, internal: true },
  // ---- reported by the box (since the box reports its versions; null from an older box)
  app_version: { type: 'string', label: 'Version', nullable: true, readOnly: true, description: 'The cabinet version the box runs, as it last reported (null: a box that does not report it).' },
  module_versions: { type: 'array', items: 'object', label: 'Module versions', nullable: true, readOnly: true, description: 'The box\'s installed modules as it last reported them: id, version, industry_code.' },
  versions_reported_at: { type: 'datetime', label: 'Versions reported', nullable: true, readOnly: true },
  run_done_at: { type: 'datetime', label: 'Last forced run completed', nullable: true, readOnly: true, description: 'The request (the tenant\'s run_requested_at) of the newest forced run the box completed: it pushed everything its outbox held when it took that request. Null: it reported none (a box older than this report, or none asked since it reports them), or the box has since reported without the field (it was downgraded to an older version): its runs are then judged by an empty outbox reported after the request.' },
  last_heartbeat_at: { type: 'datetime', label: 'Last heartbeat', nullable: true, readOnly: true, sortable: true, description: 'The newest heartbeat the master applied from this box (the time the box wrote on it).' },
  // ---- the box's self-update (module releases on the master, updates on the box): the master's
  // offer, written at each pull, and the box's report (update_state in its pushes and pulls)
  running_version: { type: 'string', label: 'Running version', nullable: true, readOnly: true, column: false, description: 'The cabinet version the box runs (app_version, as it last reported).' },
  target_version: { type: 'string', label: 'Target version', nullable: true, readOnly: true, filter: true, sortable: true, description: 'The release the master offered the box at its last pull (its version policies and the rollout that reached it); null: none (it runs its target, none is published for it, it is held, or it does not report its update state).' },
  target_rollout_id: { type: 'string', label: 'Rollout', nullable: true, readOnly: true, filter: true, description: 'The rollout the offered release came through.' },
  previous_version: { type: 'string', label: 'Previous version', nullable: true, readOnly: true, description: 'The version the box ran before its current or last update (the one it goes back to).' },
  update_version: { type: 'string', label: 'Update of', nullable: true, readOnly: true, description: 'The version the box\'s update step is about, as it reported.' },
  update_step: { type: 'string', label: 'Update', nullable: true, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'The box\'s update step as it last reported: idle, downloading, verified, waiting_for_window, installing, proving, done, rolled_back, failed; null from a box that does not report it.' },
  update_progress: { type: 'number', label: 'Update progress', nullable: true, readOnly: true, description: '0..1: the download\'s progress while downloading; 1 once verified.' },
  update_reason: { type: 'string', label: 'Update reason', nullable: true, readOnly: true, description: 'Why the box is where it is, in its words (a rollback\'s cause, what it waits for).' },
  update_reason_code: { type: 'string', label: 'Update reason code', nullable: true, readOnly: true, filter: true, description: 'A stable code of the reason (no_release_key, bad_signature, proof_timeout, ...).' },
  update_at: { type: 'datetime', label: 'Update step since', nullable: true, readOnly: true, sortable: true, description: 'When the box entered the step (its clock).' },
  update_arch: { type: 'string', label: 'Architecture', nullable: true, readOnly: true, filter: true, description: 'The box\'s Debian architecture (amd64, arm64): the package it is offered.' },
  update_hold: { type: 'boolean', label: 'Updates held', nullable: true, readOnly: true, description: 'Held by the fleet team (tenant-master-sync/commands/hold-updates): the box is offered no release and no rollout counts it; null or false: not held.' },
  update_hold_reason: { type: 'string', label: 'Why held', nullable: true, readOnly: true },
  update_hold_by: { type: 'string', label: 'Held by', nullable: true, readOnly: true },
  update_hold_at: { type: 'datetime', label: 'Held since', nullable: true, readOnly: true },
  // ---- the fleet view, computed before every read (engine/sites.ts); null until the first read
  id: { type: 'string', label: 'ID', readOnly: true, column: { unique: true, notNull: false }, description: 'site@tenant (an id may not hold @, so it is unambiguous).' },
  status: { type: 'string', label: 'Sync', enum: SYNC_STATUSES, nullable: true, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  open_p1: { type: 'integer', label: 'Open P1 alarms', nullable: true, readOnly: true, sortable: true, description: 'Open (not acknowledged, not cleared) alarms of priority P1, or of severity critical where an alarm has no priority.' },
  policy: { type: 'string', label: 'Versions against policy', enum: SITE_POLICY_VERDICTS, nullable: true, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  policy_violations: { type: 'array', items: 'string', label: 'Policy violations', nullable: true, readOnly: true, description: 'The violations in words, one per module and rule (empty unless policy is violates).' },
  holds_master_state: { type: 'boolean', label: 'Holds the master state', nullable: true, readOnly: true, filter: true },
  attention: { type: 'integer', label: 'Attention', nullable: true, readOnly: true, sortable: true, description: 'How urgently the site needs the fleet team, a sum: stopped 8, degraded 4, an open P1 alarm 2, a version outside policy 1 (0: nothing to do). The default sort, highest first.' },
}, { primaryKey: ['tenant_id', 'site_id'] });
export const syncSites = siteRecord.table;

export interface ReportedModule {
  id: string;
  version: string;
  industry_code: string | null;
}

export interface SyncSiteRow extends Record<string, unknown> {
  tenant_id: string;
  site_id: string;
  passkey_id: string;
  industry_code: string | null;
  registered_at: string;
  last_seen_at: string | null;
  applied_seq: number;
  events_received: number;
  reported_pending: number;
  reported_oldest_at: string | null;
  down_revision: string | null;
  last_rtt_ms: number | null;
  held?: Record<string, string> | null;
  app_version?: string | null;
  module_versions?: ReportedModule[] | null;
  versions_reported_at?: string | null;
  last_heartbeat_at?: string | null;
  run_done_at?: string | null;
  target_version?: string | null;
  target_rollout_id?: string | null;
  previous_version?: string | null;
  update_version?: string | null;
  update_step?: string | null;
  update_progress?: number | null;
  update_reason?: string | null;
  update_reason_code?: string | null;
  update_at?: string | null;
  update_arch?: string | null;
  update_hold?: boolean | null;
  update_hold_reason?: string | null;
  update_hold_by?: string | null;
  update_hold_at?: string | null;
  id?: string | null;
  status?: string | null;
  open_p1?: number | null;
  policy?: SitePolicyVerdict | null;
  policy_violations?: string[] | null;
  holds_master_state?: boolean | null;
  attention?: number | null;
}

/**
 * Every event received from a site, once: (tenant, site, seq) is the idempotency key, kept by the
 * site's applied_seq high-water mark under its row lock (engine/master.ts). The primary key also
 * holds received_at because PostgreSQL partitions the table by it (engine/partitions.ts), and a
 * key of a partitioned table must include the partition key.
 */
export const syncInbox = defineTable('sync_inbox', {
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  seq: col.integer({ notNull: true }),
  kind: col.text({ notNull: true }),
  created_at: col.timestamp({ notNull: true }),
  received_at: col.timestamp({ notNull: true }),
  payload: col.json({ notNull: true }),
}, { primaryKey: ['tenant_id', 'site_id', 'seq', 'received_at'], indexes: [{ name: 'sync_inbox_kind', columns: ['kind', 'created_at'] }] });

/** Alarm states a box reports that are still open there: a site alarm (open) or an industry alarm (active). */
export const OPEN_ALARM_STATES = ['open', 'active'] as const;

/**
 * The sites' alarms as the fleet sees them (raised, then acknowledged or cleared at the farm): the
 * sync-alarms record. id, open, p1 and sort_key are derived from the others when the master
 * applies an alarm event (engine/alarms.ts) and stored, so the resource kit filters, sorts and
 * reads by id in SQL on indexes; they are nullable as columns only because they were added to a
 * table that already held rows (the migration fills them).
 */
export const alarmRecord = defineRecord('sync_alarms', {
  id: { type: 'string', label: 'ID', readOnly: true, column: { unique: true, notNull: false }, description: 'alarm@tenant: the alarm id on the box and its tenant (an id may not hold @, so it is unambiguous).' },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true, sortable: true, searchable: true },
  alarm_id: { type: 'string', label: 'Alarm id', readOnly: true, description: 'The alarm\'s id on the box that raised it.' },
  site_id: { type: 'string', label: 'Site', readOnly: true, filter: true, sortable: true, searchable: true },
  site: { type: 'string', label: 'Site record', readOnly: true, column: false, description: 'The sync-sites id of the site the alarm is on (site@tenant).' },
  site_label: { type: 'string', label: 'Where', readOnly: true, column: false, description: 'The farm in words, as the fleet view heads the site\'s card: "site · tenant" (a site has no name of its own on the master).' },
  severity: { type: 'string', label: 'Severity', enum: INDUSTRY_SEVERITIES, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  priority: { type: 'string', label: 'Priority', enum: PRIORITIES, nullable: true, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'P1 or P2 for an industry alarm; null for a site alarm (alarms module), which has a severity only.' },
  state: { type: 'string', label: 'State', readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'The state the box last reported: open (a site alarm) or active (an industry alarm) until acknowledged; acknowledged once someone at the farm acknowledged it; cleared once an industry alarm\'s condition ended. A site alarm keeps its state when its condition clears.' },
  title: { type: 'string', label: 'Alarm', readOnly: true, searchable: true },
  correlation_id: { type: 'string', label: 'Correlation id', readOnly: true, filter: true },
  raised_at: { type: 'datetime', label: 'Raised', readOnly: true, sortable: true },
  acknowledged_by: { type: 'string', label: 'Acknowledged by', nullable: true, readOnly: true, description: 'Who acknowledged it at the farm (the box\'s subject); null while it is not acknowledged.' },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true, description: 'When the master last applied a change of this alarm from the box.' },
  open: { type: 'boolean', label: 'Open', readOnly: true, column: { notNull: false }, filter: true, description: 'Neither acknowledged nor cleared at the farm (state open or active), as the fleet view counts open alarms.' },
  p1: { type: 'boolean', label: 'P1 for the fleet', readOnly: true, column: { notNull: false }, filter: true, description: 'Priority P1, or severity critical where the alarm has no priority (a site alarm): the alarms a site card counts in open_p1.' },
  /** open, then p1, then raised_at in one text column ('1' '1' '2026-…'): the default order, descending, on one index. */
  sort_key: { type: 'string', label: 'Order', internal: true, column: { notNull: false } },
}, {
  primaryKey: ['tenant_id', 'alarm_id'],
  // By site: the analytics compute again the few sites a push changed (analytics/snapshot.ts).
  // sort_key: the default order; open/p1/sort_key: the open P1s a master's annunciator counts.
  indexes: [
    { name: 'sync_alarms_state', columns: ['state'] }, { name: 'sync_alarms_raised', columns: ['raised_at'] }, { name: 'sync_alarms_site', columns: ['tenant_id', 'site_id', 'raised_at'] },
    { name: 'sync_alarms_order', columns: ['sort_key'] }, { name: 'sync_alarms_open', columns: ['open', 'p1', 'sort_key'] },
  ],
});
export const syncAlarms = alarmRecord.table;
export type SyncAlarmRow = typeof alarmRecord.row;

/** Heartbeats of the sites; partitioned by `at` on PostgreSQL, hence `at` in the key. */
export const syncHeartbeats = defineTable('sync_heartbeats', {
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  seq: col.integer({ notNull: true }),
  at: col.timestamp({ notNull: true }),
  interval_ms: col.integer({ notNull: true }),
  rtt_ms: col.real(),
}, { primaryKey: ['tenant_id', 'site_id', 'seq', 'at'], indexes: [{ name: 'sync_heartbeats_at', columns: ['at'] }] });

/** Per-minute telemetry aggregates per device and metric, merged from the sites' batches; partitioned by bucket on PostgreSQL. */
export const syncTelemetry = defineTable('sync_telemetry', {
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  device_id: col.text({ notNull: true }),
  metric: col.text({ notNull: true }),
  bucket: col.timestamp({ notNull: true }),
  points: col.integer({ notNull: true }),
  sum: col.real({ notNull: true }),
  min: col.real(),
  max: col.real(),
  last_status: col.text({ notNull: true }),
}, { primaryKey: ['tenant_id', 'site_id', 'device_id', 'metric', 'bucket'], indexes: [{ name: 'sync_telemetry_bucket', columns: ['bucket'] }] });

export const ROLLUP_GRAINS = ['minute', 'hour', 'day'] as const;
export type RollupGrain = (typeof ROLLUP_GRAINS)[number];

/**
 * What the fleet analytics add up, per site and time bucket, kept current by each push in its
 * transaction (engine/rollup.ts): heartbeats (count, the intervals they cover, round trips, the
 * earliest) and telemetry aggregates (points, and the per-minute rows they are). Three grains so
 * that a sliding window reads at most 59 minute rows, 23 hour rows and 8 day rows per site.
 */
export const syncRollups = defineTable('sync_rollups', {
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  grain: col.text({ notNull: true }),
  bucket: col.timestamp({ notNull: true }),
  heartbeats: col.integer({ notNull: true }),
  covered_ms: col.integer({ notNull: true }),
  rtt_sum: col.real({ notNull: true }),
  rtt_count: col.integer({ notNull: true }),
  first_beat_at: col.timestamp(),
  telemetry_points: col.integer({ notNull: true }),
  telemetry_rows: col.integer({ notNull: true }),
}, { primaryKey: ['tenant_id', 'site_id', 'grain', 'bucket'], indexes: [{ name: 'sync_rollups_grain_bucket', columns: ['grain', 'bucket'] }] });

// ---------------------------------------------------------------- edge side

/** Events waiting to be pushed, in seq order; a row is deleted once the master has applied it. */
export const syncOutbox = defineTable('sync_outbox', {
  seq: col.integer({ primaryKey: true, notNull: true }),
  kind: col.text({ notNull: true }),
  created_at: col.timestamp({ notNull: true }),
  payload: col.json({ notNull: true }),
});

export const syncState = defineTable('sync_state', {
  key: col.text({ primaryKey: true, notNull: true }),
  value: col.json({ notNull: true }),
});

export const SYNC_TABLES = [syncTenants, syncSites, syncInbox, syncAlarms, syncHeartbeats, syncTelemetry, syncRollups, syncOutbox, syncState];
