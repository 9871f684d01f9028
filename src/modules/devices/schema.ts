// Telemetry storage, laid out as a time series for a box that runs for years:
// - telemetry_series: one row per (tenant, site, device, metric, unit), so a point carries a small
//   integer instead of five strings ('' stands for "no site" / "no unit": unique keys and NULLs
//   do not mix in either engine);
// - telemetry_points: raw points with epoch-millisecond integers, kept telemetry_retention_days;
// - telemetry_rollups: per-minute and per-hour aggregates of each series, maintained in the same
//   transaction as the points and kept far longer (telemetry_{minute,hour}_retention_days).
// The API reads the views device_telemetry and device_telemetry_rollups (created by the
// migration), which join the series back and name the columns as the API does.
import { col, defineTable } from '../../db/table.js';

export const telemetrySeries = defineTable('telemetry_series', {
  id: col.integer({ primaryKey: true, notNull: true }),
  tenant_id: col.text({ notNull: true }),
  site_id: col.text({ notNull: true }),
  device_id: col.text({ notNull: true }),
  metric: col.text({ notNull: true }),
  unit: col.text({ notNull: true }),
}, {
  // device_id leads: the lists' device filter finds a device's series without naming the tenant first.
  indexes: [{ name: 'telemetry_series_key', columns: ['device_id', 'metric', 'tenant_id', 'site_id', 'unit'], unique: true }],
});

/** Raw points. Two indexes: a series' points by time (charts, device filters) and time alone (purge, newest first). */
export const telemetryPoints = defineTable('telemetry_points', {
  id: col.integer({ primaryKey: true, notNull: true }),
  series_id: col.integer({ notNull: true }),
  ts: col.integer({ notNull: true }),
  value: col.real(),
  status: col.integer({ notNull: true }),
  latency_ms: col.real(),
  received_at: col.integer({ notNull: true }),
}, {
  indexes: [
    { name: 'telemetry_points_series_ts', columns: ['series_id', 'ts'] },
    { name: 'telemetry_points_ts', columns: ['ts'] },
  ],
});

/**
 * The newest points, before they are settled into telemetry_points (recent.ts): the same columns,
 * no index, appended in arrival order. On a box the minute's commit of a site's polled points
 * rewrote a leaf of telemetry_points_series_ts per series (and their parents), tens of pages of
 * the log for a few hundred points; appended here it writes about the points' own pages, and the
 * settle writes each series' hour of index entries together, once an hour. Reads see both tables
 * (the view device_telemetry, the KPI); the id comes from one sequence for both.
 */
export const telemetryPointsRecent = defineTable('telemetry_points_recent', {
  id: col.integer({ primaryKey: true, notNull: true }),
  series_id: col.integer({ notNull: true }),
  ts: col.integer({ notNull: true }),
  value: col.real(),
  status: col.integer({ notNull: true }),
  latency_ms: col.real(),
  received_at: col.integer({ notNull: true }),
});

/**
 * resolution is the bucket width in seconds (60 or 3600); bucket its start in epoch ms. The
 * primary key is the only index: a chart reads one series' range of it, and the purge goes
 * series by series through it.
 */
const bucketColumns = {
  resolution: col.integer({ notNull: true }),
  bucket: col.integer({ notNull: true }),
  count: col.integer({ notNull: true }),
  value_count: col.integer({ notNull: true }),
  sum: col.real({ notNull: true }),
  min: col.real(),
  max: col.real(),
  last: col.real(),
  last_ts: col.integer({ notNull: true }),
};

export const telemetryRollups = defineTable('telemetry_rollups', {
  series_id: col.integer({ notNull: true }),
  ...bucketColumns,
}, {
  primaryKey: ['series_id', 'resolution', 'bucket'],
});

/** The view the telemetry list and KPI read (not a table: not migrated from this declaration). */
export const deviceTelemetryView = defineTable('device_telemetry', {
  id: col.integer({ primaryKey: true, notNull: true }),
  tenant_id: col.text({ notNull: true }),
  site_id: col.text(),
  device_id: col.text({ notNull: true }),
  metric: col.text({ notNull: true }),
  value: col.real(),
  unit: col.text(),
  status: col.text({ notNull: true }),
  latency_ms: col.real(),
  ts: col.integer({ notNull: true }),
  received_at: col.integer({ notNull: true }),
});

/** The view the roll-up list reads. */
export const telemetryRollupsView = defineTable('device_telemetry_rollups', {
  series_id: col.integer({ notNull: true }),
  tenant_id: col.text({ notNull: true }),
  site_id: col.text(),
  device_id: col.text({ notNull: true }),
  metric: col.text({ notNull: true }),
  unit: col.text(),
  ...bucketColumns,
}, { primaryKey: ['series_id', 'resolution', 'bucket'] });

export const DEVICE_STATUSES = ['online', 'warn', 'error'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];
/** Stored status codes: the index in DEVICE_STATUSES. */
export const STATUS_CODE: Record<DeviceStatus, number> = { online: 0, warn: 1, error: 2 };

export const RESOLUTIONS = { minute: 60, hour: 3600 } as const;
export type Resolution = keyof typeof RESOLUTIONS;
