// analytics/metrics/scheme|list|{id} (recomputed before every read from the roll-ups the sync
// keeps on ingest), analytics/summary and operability/pilot-summary.
import { defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import type { Database } from '../../db/client.js';
import { sql } from 'drizzle-orm';
import { colOf, tableOf } from '../../db/sql.js';
import { analyticsMetrics, metricRecord, type MetricRow } from './schema.js';
import { figureMetricRows, figureSummary, loadFigures } from './rollups.js';
import { pilotSummary, PILOT_SUMMARY_SHAPE } from './pilot.js';

/** One recomputation at a time per database; concurrent readers share it. */
const inFlight = new WeakMap<Database, Promise<void>>();

async function refresh(db: Database, config: Parameters<typeof figureMetricRows>[1]): Promise<void> {
  const running = inFlight.get(db);
  if (running) return running;
  const run = (async () => {
    const rows = figureMetricRows(await loadFigures(db), config);
    await db.transaction(async () => {
      const t = tableOf(analyticsMetrics, db);
      await db.orm.delete(t);
      // Another master process may be refreshing at the same moment: the later values win, no
      // duplicate-key failure.
      const ex = (n: string) => sql.raw(`excluded."${n}"`);
      const set = Object.fromEntries(['tenant_id', 'industry_code', 'metric', 'window', 'value', 'unit', 'samples', 'computed_at'].map((n) => [n, ex(n)]));
      for (let i = 0; i < rows.length; i += 500) {
        await db.orm.insert(t).values(rows.slice(i, i + 500) as never).onConflictDoUpdate({ target: colOf(analyticsMetrics, db, 'id') as never, set: set as never });
      }
    });
  })().finally(() => inFlight.delete(db));
  inFlight.set(db, run);
  return run;
}

export const metricsResource = defineResource<MetricRow>({
  name: 'analytics/metrics',
  module: 'analytics',
  title: 'Analytics metrics',
  record: metricRecord,
  access: { resource: 'analytics', scope: 'master' },
  defaultSort: { field: 'tenant_id', order: 'asc' },
  sortable: ['id'],
  toItem: (row) => ({ ...row, value: row.value === null ? null : Number(row.value) }),
  beforeRead: async (ctx) => refresh(ctx.services.db, ctx.services.config),
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
    description: 'Computed on every call from the roll-ups per site and minute, hour and day that the sync keeps on ingest, and less than a minute of raw rows at the start of the window. Uptime and latency are null while no site has sent a heartbeat in the last 24 hours.',
    access: { resource: 'analytics', action: 'read', scope: 'master' },
    response: { kind: 'single', item: summaryItem },
    handler: async ({ services }) => figureSummary(await loadFigures(services.db), services.config),
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
