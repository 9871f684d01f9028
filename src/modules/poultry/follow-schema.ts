// The state of curve following, one row per house (follow.ts, follow-service.ts): whether the box
// follows the curve, whether it is paused and why, what it wrote last and what the controller was
// last seen holding. The curve itself is the house's published climate phases (versioned).
import { defineRecord } from '../../kernel/record.js';

export const PAUSE_REASONS = ['write_failed', 'changed_at_controller'] as const;
export type PauseReason = (typeof PAUSE_REASONS)[number];

export const followRecord = defineRecord('poultry_curve_follow', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  enabled: { type: 'boolean', label: 'Following', filter: true, ui: { badge: true }, description: 'The box writes the interpolated curve to the house controller by itself.' },
  interval_s: { type: 'integer', label: 'Interval', ui: { unit: 's' }, description: 'At most one comparison (and write) per interval.' },
  deadband: { type: 'object', label: 'Deadband', description: 'Per setpoint key: how far the controller may be from the curve before the box writes.' },
  paused: { type: 'boolean', label: 'Paused', filter: true, ui: { badge: true } },
  pause_reason: { type: 'string', label: 'Paused because', enum: PAUSE_REASONS, nullable: true, ui: { badge: true } },
  pause_message: { type: 'string', label: 'Pause detail', nullable: true },
  alarm_id: { type: 'string', label: 'Alarm', nullable: true, description: 'The curve_follow alarm raised when following paused.' },
  last_check_at: { type: 'datetime', label: 'Last check', nullable: true },
  last_write_at: { type: 'datetime', label: 'Last write', nullable: true, sortable: true },
  last_written: { type: 'object', label: 'Last written', nullable: true, description: 'Setpoint key -> value the box last wrote (verified by read-back).' },
  last_correlation_id: { type: 'string', label: 'Last write correlation id', nullable: true },
  held: { type: 'object', label: 'Held by the controller', nullable: true, description: 'Setpoint key -> value the controller held at the last poll.' },
  held_at: { type: 'datetime', label: 'Held at', nullable: true },
  updated_by: { type: 'string', label: 'Switched by', readOnly: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, {
  indexes: [{ name: 'poultry_curve_follow_house', columns: ['tenant_id', 'house_id'], unique: true }],
});
export type FollowRow = typeof followRecord.row;
