// analytics/metrics/scheme|list|{id} and analytics/summary, answered from one snapshot of the
// figures (snapshot.ts: computed from the roll-ups the sync keeps on ingest, the sites a stored
// change touched computed again, the others' windows at most 30 s old), and operability/pilot-summary.
import { defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import type { Services } from '../../kernel/context.js';
import { metricRecord, type MetricRow } from './schema.js';
import { currentSnapshot, rowsForList } from './snapshot.js';
import { pilotSummary, PILOT_SUMMARY_SHAPE } from './pilot.js';

const snapshotOf = (services: Services) => currentSnapshot({ db: services.db, config: services.config, clock: services.clock, log: services.log });

export const metricsResource = defineResource<MetricRow>({
  name: 'analytics/metrics',
  module: 'analytics',
  title: 'Analytics metrics',
  record: metricRecord,
  access: { resource: 'analytics', scope: 'master' },
  defaultSort: { field: 'tenant_id', order: 'asc' },
  sortable: ['id'],
  toItem: (row) => ({ ...row, value: row.value === null ? null : Number(row.value) }),
  // The kit pages the stored rows; after a change only the rows whose figures changed are rewritten.
  beforeRead: async (ctx) => rowsForList(ctx.services.db, await snapshotOf(ctx.services)),
});

const summaryItem = {
  type: 'object',
  required: ['tenants_count', 'industries_count', 'average_uptime_percent', 'average_latency_ms', 'open_alarms_total', 'open_tasks_total'],
  properties: {
    tenants_count: { type: 'integer' }, industries_count: { type: 'integer' },
    average_uptime_percent: { anyOf: [{ type: 'number' }, { type: 'null' }] }, average_latency_ms: { anyOf: [{ type: 'number' }, { type: 'null' }] },
    open_alarms_total: { type: 'integer' }, open_tasks_total: { type: 'integer' }, window: { type: 'string' }, sites_reporting: { type: 'integer' },
    computed_at: { type: 'string', format: 'date-time' },
  },
};

export const analyticsRoutes: AnyRoute[] = [
  ...metricsResource.routes,
  defineRoute({
    method: 'get', path: '/api/v1/analytics/summary', module: 'analytics', tags: ['analytics'],
    summary: 'Fleet summary: tenants, industries, uptime and latency from site heartbeats (24 h), open alarms and tasks',
    description: 'Computed from the roll-ups per site and minute, hour and day that the sync keeps on ingest, and less than a minute of raw rows at the start of the window. Kept per site: when a push, alarm, task or subscription is stored, the sites and counts it changed are computed again before the next answer, so every stored change is in it. The other sites\' windows are at most 30 s old; `computed_at` is the newest cut. Uptime and latency are null while no site has sent a heartbeat in the last 24 hours.',
    access: { resource: 'analytics', action: 'read', scope: 'master' },
    response: { kind: 'single', item: summaryItem },
    handler: async ({ services }) => (await snapshotOf(services)).summary,
  }),
  defineRoute({
    method: 'get', path: '/api/v1/operability/pilot-summary', module: 'analytics', tags: ['operability'],
    summary: 'Normalised pilot summary: deployment, modules, sites and sync, alarms, tasks, uptime and latency, and named checks',
    description: `${PILOT_SUMMARY_SHAPE} A tenant session sees its own tenant's figures only.`,
    access: { resource: 'analytics', action: 'read', scope: 'any' },
    response: { kind: 'single', item: { type: 'object', required: ['generated_at', 'deployment', 'modules', 'sites', 'sync', 'alarms', 'tasks', 'service', 'checks'] } },
    handler: async ({ services, caller }) => pilotSummary(services, caller?.scope_type === 'tenant' ? caller.tenant_id : undefined),
  }),
];
