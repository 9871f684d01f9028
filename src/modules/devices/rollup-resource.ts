// devices/telemetry-rollups/scheme|list: the per-minute and per-hour aggregates of each series,
// read-only, one resolution per request (a chart asks for one). `from`/`to` bound the bucket
// start; a 42-day hourly chart of one sensor is 1008 buckets, read from the roll-up's primary key
// in one page (up to 2,000 buckets a page here: a chart is one request, not three).
import { defineResource } from '../../kernel/resource.js';
import type { AnyRoute } from '../../kernel/route.js';
import { RESOLUTIONS, telemetryRollupsView, type Resolution } from './schema.js';
import { withOpenBuckets } from './open-rollup-list.js';

type RollupRow = {
  series_id: number; tenant_id: string; site_id: string | null; device_id: string; metric: string; unit: string | null;
  resolution: number; bucket: number; count: number; value_count: number; sum: number;
  min: number | null; max: number | null; last: number | null; last_ts: number;
} & Record<string, unknown>;

const NAMES = Object.fromEntries(Object.entries(RESOLUTIONS).map(([name, seconds]) => [seconds, name])) as Record<number, Resolution>;
const iso = (ms: number) => new Date(Number(ms)).toISOString();
const epochMs = (value: string | number | boolean) => Date.parse(String(value));

export const rollupResource = defineResource<RollupRow>({
  name: 'devices/telemetry-rollups',
  module: 'devices',
  title: 'Device telemetry roll-ups',
  table: telemetryRollupsView,
  access: { resource: 'devices', scope: 'any' },
  tenantColumn: 'tenant_id',
  fields: {
    tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
    site_id: { type: 'string', label: 'Site', nullable: true, readOnly: true },
    device_id: { type: 'string', label: 'Device', readOnly: true },
    metric: { type: 'string', label: 'Metric', readOnly: true },
    unit: { type: 'string', label: 'Unit', nullable: true, readOnly: true },
    resolution: { type: 'string', label: 'Resolution', enum: Object.keys(RESOLUTIONS), readOnly: true },
    bucket: { type: 'datetime', label: 'Bucket start', readOnly: true },
    count: { type: 'integer', label: 'Points', readOnly: true },
    value_count: { type: 'integer', label: 'Points with a value', readOnly: true },
    sum: { type: 'number', label: 'Sum', readOnly: true },
    avg: { type: 'number', label: 'Average', nullable: true, readOnly: true, description: 'sum / value_count; null when no point of the bucket had a value.' },
    min: { type: 'number', label: 'Minimum', nullable: true, readOnly: true },
    max: { type: 'number', label: 'Maximum', nullable: true, readOnly: true },
    last: { type: 'number', label: 'Last value', nullable: true, readOnly: true, description: 'Value of the bucket\'s latest point (by measurement time).' },
    last_ts: { type: 'datetime', label: 'Last point at', readOnly: true },
  },
  filters: {
    resolution: { type: 'string', enum: Object.keys(RESOLUTIONS), required: true, description: 'minute or hour buckets.', encode: (v) => RESOLUTIONS[v as Resolution] },
    device_id: { type: 'string' },
    metric: { type: 'string' },
    site_id: { type: 'string' },
    tenant_id: { type: 'string', description: 'Master callers only; a tenant caller always sees its own tenant.' },
    from: { type: 'string', format: 'date-time', column: 'bucket', op: 'gte', defaultOrder: 'asc', encode: epochMs, description: 'Buckets starting at or after this time.' },
    to: { type: 'string', format: 'date-time', column: 'bucket', op: 'lt', encode: epochMs, description: 'Buckets starting before this time.' },
  },
  sortable: ['bucket', 'device_id', 'metric'],
  defaultSort: { field: 'bucket', order: 'desc' },
  search: ['device_id', 'metric', 'site_id'],
  maxLimit: 2000,
  toItem: (r) => ({
    tenant_id: r.tenant_id, site_id: r.site_id, device_id: r.device_id, metric: r.metric, unit: r.unit,
    resolution: NAMES[Number(r.resolution)], bucket: iso(r.bucket), count: Number(r.count), value_count: Number(r.value_count),
    sum: r.sum, avg: Number(r.value_count) > 0 ? r.sum / Number(r.value_count) : null, min: r.min, max: r.max, last: r.last, last_ts: iso(r.last_ts),
  }),
});

/** Roll-ups are not addressable one by one: the /{id} route is left out; the list adds the open buckets. */
export const rollupRoutes: AnyRoute[] = rollupResource.routes
  .filter((r) => !(r.method === 'get' && r.path.endsWith('/{id}')))
  .map((r) => (r.method === 'get' && r.path.endsWith('/list') ? withOpenBuckets(r) : r));

