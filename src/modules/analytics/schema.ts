// Analytics metrics, materialised per tenant, industry, metric and window. They are written from
// the snapshot of the figures (snapshot.ts: the rows a stored change touched, and all of them when
// the windows are cut again), so the list's filters, sort and paging work on stored, current figures.
import { defineRecord } from '../../kernel/record.js';

export const WINDOWS = { '1h': 3_600_000, '24h': 86_400_000, '7d': 7 * 86_400_000 } as const;
export type WindowName = keyof typeof WINDOWS;
export const METRICS = ['open_alarms', 'alarms_raised', 'open_tasks', 'uptime_percent', 'average_latency_ms', 'telemetry_points', 'sync_pending'] as const;
export type MetricName = (typeof METRICS)[number];
export const UNITS: Record<MetricName, string> = {
  open_alarms: 'count', alarms_raised: 'count', open_tasks: 'count', uptime_percent: '%', average_latency_ms: 'ms', telemetry_points: 'count', sync_pending: 'events',
};

export const metricRecord = defineRecord('analytics_metrics', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', filter: true, sortable: true, searchable: true },
  industry_code: { type: 'string', label: 'Industry', nullable: true, filter: true, sortable: true, description: 'Of the sites the figure comes from; null for tenant-level rows with no site.' },
  metric: { type: 'string', label: 'Metric', enum: METRICS, filter: true, sortable: true, searchable: true },
  window: { type: 'string', label: 'Window', enum: Object.keys(WINDOWS), filter: true, sortable: true },
  value: { type: 'number', label: 'Value', nullable: true, sortable: true, description: 'null when there is no data for the window (e.g. no heartbeats yet).' },
  unit: { type: 'string', label: 'Unit' },
  samples: { type: 'integer', label: 'Samples', description: 'Source rows behind the figure.' },
  computed_at: { type: 'datetime', label: 'Computed', readOnly: true, description: 'When the figure\'s window was cut: the newest cut of the sites behind it (sites nothing changed keep theirs, at most 30 s old).' },
}, { indexes: [{ name: 'analytics_metrics_tenant', columns: ['tenant_id', 'metric'] }] });

export const analyticsMetrics = metricRecord.table;
export type MetricRow = typeof metricRecord.row;
