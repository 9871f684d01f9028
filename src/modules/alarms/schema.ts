import { col, defineTable } from '../../db/table.js';

export const alarms = defineTable('alarms', {
  id: col.id(),
  tenant_id: col.text(),
  site_id: col.text(),
  scope: col.text({ notNull: true }),
  severity: col.text({ notNull: true }),
  state: col.text({ notNull: true }),
  source: col.text({ notNull: true }),
  title: col.text({ notNull: true }),
  message: col.text(),
  correlation_id: col.text({ notNull: true }),
  details: col.json(),
  raised_at: col.timestamp({ notNull: true }),
  acknowledged_by: col.text(),
  acknowledged_at: col.timestamp(),
  comment: col.text(),
}, {
  indexes: [
    { name: 'alarms_tenant_raised', columns: ['tenant_id', 'raised_at'] },
    { name: 'alarms_state', columns: ['state'] },
    { name: 'alarms_correlation', columns: ['correlation_id'] },
  ],
});

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const ALARM_STATES = ['open', 'acknowledged'] as const;
/** Where an alarm applies: one site, a whole tenant, or the platform (master). */
export const ALARM_SCOPES = ['site', 'tenant', 'master'] as const;

export type Severity = (typeof SEVERITIES)[number];

export interface AlarmRow extends Record<string, unknown> {
  id: string;
  tenant_id: string | null;
  site_id: string | null;
  scope: (typeof ALARM_SCOPES)[number];
  severity: Severity;
  state: (typeof ALARM_STATES)[number];
  source: string;
  title: string;
  message: string | null;
  correlation_id: string;
  details: Record<string, unknown> | null;
  raised_at: string;
  acknowledged_by: string | null;
  acknowledged_at: string | null;
  comment: string | null;
}
