import { col, defineTable } from '../../db/table.js';

/** Device telemetry points: one row per reading, kept telemetry_retention_days. */
export const deviceTelemetry = defineTable('device_telemetry', {
  id: col.id(),
  tenant_id: col.text({ notNull: true }),
  site_id: col.text(),
  device_id: col.text({ notNull: true }),
  metric: col.text({ notNull: true }),
  value: col.real(),
  unit: col.text(),
  status: col.text({ notNull: true }),
  latency_ms: col.real(),
  ts: col.timestamp({ notNull: true }),
  received_at: col.timestamp({ notNull: true }),
}, {
  indexes: [
    { name: 'device_telemetry_device_ts', columns: ['tenant_id', 'device_id', 'ts'] },
    { name: 'device_telemetry_tenant_ts', columns: ['tenant_id', 'ts'] },
    { name: 'device_telemetry_ts', columns: ['ts'] },
  ],
});

export const DEVICE_STATUSES = ['online', 'warn', 'error'] as const;
export const TELEMETRY_COLUMNS = Object.keys(deviceTelemetry.columns).length;
