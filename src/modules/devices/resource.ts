// devices/telemetry/scheme|list, devices/telemetry/kpi, devices/telemetry/commands/ingest and
// devices/telemetry-rollups/scheme|list (rollup-resource.ts). Both lists read views (schema.ts) whose times are epoch
// ms; items carry them as RFC 3339 UTC text like every other timestamp of the API.
import { command, defineResource } from '../../kernel/resource.js';
import { defineRoute, type AnyRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { deviceTelemetryView, DEVICE_STATUSES } from './schema.js';
import { rollupRoutes } from './rollup-resource.js';
import { ingestBody, toPoint } from './points.js';
import { ownerTenant } from '../../kernel/tenancy.js';
import { need } from '../../kernel/context.js';

const filters = {
  device_id: { type: 'string' },
  site_id: { type: 'string' },
  status: { type: 'string', enum: DEVICE_STATUSES },
  metric: { type: 'string' },
  tenant_id: { type: 'string', description: 'Master callers only; a tenant caller always sees its own tenant.' },
} as const;

/** A stored row of the device_telemetry view. */
type PointRow = Omit<TelemetryPoint, 'ts' | 'received_at'> & { id: number; ts: number; received_at: number } & Record<string, unknown>;

const iso = (ms: number) => new Date(Number(ms)).toISOString();

export const telemetryResource = defineResource<PointRow>({
  name: 'devices/telemetry',
  module: 'devices',
  title: 'Device telemetry',
  table: deviceTelemetryView,
  access: { resource: 'devices', scope: 'any' },
  tenantColumn: 'tenant_id',
  fields: {
    id: { type: 'string', label: 'ID', readOnly: true },
    tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
    site_id: { type: 'string', label: 'Site', nullable: true },
    device_id: { type: 'string', label: 'Device' },
    metric: { type: 'string', label: 'Metric' },
    value: { type: 'number', label: 'Value', nullable: true },
    unit: { type: 'string', label: 'Unit', nullable: true },
    status: { type: 'string', label: 'Device status', enum: DEVICE_STATUSES },
    latency_ms: { type: 'number', label: 'Latency (ms)', nullable: true },
    ts: { type: 'datetime', label: 'Measured at' },
    received_at: { type: 'datetime', label: 'Received at', readOnly: true },
  },
  filters,
  sortable: ['ts', 'received_at', 'device_id', 'metric', 'status', 'value'],
  defaultSort: { field: 'ts', order: 'desc' },
  search: ['device_id', 'metric', 'site_id'],
  toItem: (row) => ({ ...row, id: String(row.id), ts: iso(row.ts), received_at: iso(row.received_at) }),
  // Points held for the whole minute's commit (telemetry_hold_ms) are written first: a list shows every point taken in.
  beforeRead: async (ctx) => { await ctx.services.telemetry?.writer.flushHeld(); },
  commands: {
    ingest: command({
      summary: 'Ingest telemetry points (batched with MQTT intake; answers once they are stored)',
      action: 'ingest',
      body: ingestBody,
      bodyJsonSchema: {
        type: 'object', required: ['points'], additionalProperties: false,
        properties: {
          site_id: { type: 'string', description: 'Default site of the points.' },
          tenant_id: { type: 'string', description: 'Required for master callers; tenant callers ingest into their own tenant.' },
          points: {
            type: 'array', minItems: 1, maxItems: 5000,
            items: {
              type: 'object', required: ['metric', 'value'], additionalProperties: false,
              properties: {
                device_id: { type: 'string' }, site_id: { type: 'string' }, metric: { type: 'string' }, value: { type: ['number', 'null'] },
                unit: { type: 'string' }, status: { enum: [...DEVICE_STATUSES], default: 'online' }, latency_ms: { type: 'number', minimum: 0 },
                ts: { type: 'string', format: 'date-time', description: 'Measurement time; the receive time when absent.' },
              },
            },
          },
        },
      },
      response: { type: 'object', required: ['accepted'], properties: { accepted: { type: 'integer' } } },
      handler: async (ctx) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const tenant = ownerTenant(caller, b.tenant_id);
        if (!tenant) throw new ApiError('validation_error', 'a master caller names the tenant of the points', [{ field: 'tenant_id', reason: 'required' }]);
        const site = caller.site_id ?? b.site_id ?? null;
        const now = new Date().toISOString();
        const points = b.points.map((p, i) => {
          if (!p.device_id) throw new ApiError('validation_error', `points.${i}.device_id is required`, [{ field: `points.${i}.device_id`, reason: 'required' }]);
          if (caller.site_id && p.site_id && p.site_id !== caller.site_id) throw new ApiError('tenant_boundary_denied', `this session is bound to site ${caller.site_id}`);
          return toPoint(p, { tenant_id: tenant, site_id: site }, now);
        });
        // The client waits for its answer: its points are written at the end of this turn, not
        // gathered with a trickle of MQTT points for telemetry_flush_ms.
        await need(ctx.services, 'telemetry').ingest(points, { now: true });
        return { accepted: points.length };
      },
    }),
  },
});

const kpiItem = {
  type: 'object',
  required: ['devices', 'online', 'warn', 'error', 'total_points', 'average_latency_ms'],
  properties: {
    devices: { type: 'integer', description: 'Devices with at least one point within the filters.' },
    online: { type: 'integer' }, warn: { type: 'integer' }, error: { type: 'integer' },
    total_points: { type: 'integer', description: 'Points within the filters.' },
    average_latency_ms: { type: ['number', 'null'], description: 'Average latency_ms of the devices\' last points (null when none carries one).' },
  },
};

export const kpiRoute: AnyRoute = defineRoute({
  method: 'get', path: '/api/v1/devices/telemetry/kpi', module: 'devices', tags: ['devices'],
  summary: 'Online/warn/error device counts, total points and average latency from the last known state of each device',
  access: { resource: 'devices', action: 'read', scope: 'any' },
  query: { ...filters, q: { type: 'string', description: 'Case-insensitive substring of device_id, metric or site_id.' } },
  response: { kind: 'single', item: kpiItem },
  handler: async ({ services, caller, query }) => {
    const f: Record<string, string | undefined> = {};
    for (const k of ['device_id', 'site_id', 'status', 'metric', 'q', 'tenant_id']) f[k] = query[k] as string | undefined;
    if (caller?.scope_type === 'tenant') f.tenant_id = caller.tenant_id;
    return need(services, 'telemetry').kpi(f);
  },
});

// The KPI route comes before the resource's /{id} so /kpi is never read as an id; single points
// are not addressable (the /{id} route is left out).
export const deviceRoutes: AnyRoute[] = [kpiRoute, ...telemetryResource.routes.filter((r) => !(r.method === 'get' && r.path.endsWith('/{id}'))), ...rollupRoutes];
