// The alarm events of every industry, in one table: poultry-alarms, industry-alarms, swine and
// melioration alerts are views of it (by industry_code), so raising, acknowledging, escalating
// and clearing is one mechanism. `unit_id` is the industry's unit (a poultry house, a swine room
// or pen, a melioration field); resources show it under their own noun.
import { defineRecord } from '../kernel/record.js';

export const INDUSTRY_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const PRIORITIES = ['P1', 'P2'] as const;
export const ALARM_EVENT_STATUSES = ['active', 'acked', 'cleared'] as const;
export const INDUSTRY_CODES = ['poultry', 'swine', 'melioration'] as const;
/** The condition of the process (OPC UA Part 9 ActiveState), apart from its acknowledgement. */
export const ALARM_CONDITIONS = ['active', 'cleared'] as const;
/** The four states of ISA-18.2 / IEC 62682 (see docs/alarms.md and alarm-states.ts). */
export const ALARM_STATES = ['unacknowledged_active', 'acknowledged_active', 'unacknowledged_cleared', 'normal'] as const;

export type IndustrySeverity = (typeof INDUSTRY_SEVERITIES)[number];
export type Priority = (typeof PRIORITIES)[number];
export type AlarmEventStatus = (typeof ALARM_EVENT_STATUSES)[number];
export type AlarmCondition = (typeof ALARM_CONDITIONS)[number];
export type AlarmState = (typeof ALARM_STATES)[number];

export const alarmEventRecord = defineRecord('industry_alarm_events', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  industry_code: { type: 'string', label: 'Industry', enum: INDUSTRY_CODES, filter: true, sortable: true },
  unit_id: { type: 'string', label: 'Unit', nullable: true, description: 'House, room/pen or field the alarm is about.' },
  batch_id: { type: 'string', label: 'Batch', nullable: true },
  rule_id: { type: 'string', label: 'Rule', nullable: true, description: 'The alarm rule that raised it; empty when published by hand.' },
  metric: { type: 'string', label: 'Metric', nullable: true },
  value: { type: 'number', label: 'Value', nullable: true, description: 'The reading that raised the alarm.' },
  severity: { type: 'string', label: 'Severity', enum: INDUSTRY_SEVERITIES, filter: true, sortable: true, ui: { badge: true } },
  priority: { type: 'string', label: 'Priority', enum: PRIORITIES, nullable: true, filter: true, sortable: true, ui: { badge: true } },
  status: { type: 'string', label: 'Status', enum: ALARM_EVENT_STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'The contract\'s status: cleared once the condition is cleared, else acked once acknowledged, else active. condition and alarm_state tell acknowledgement and condition apart.' },
  condition: { type: 'string', label: 'Condition', enum: ALARM_CONDITIONS, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'Whether the condition is present (active) or returned to normal (cleared), whatever the acknowledgement. A latched alarm stays active after its process returned (returned_at) until an admin resets it.' },
  alarm_state: { type: 'string', label: 'Alarm state', enum: ALARM_STATES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'The ISA-18.2 state: unacknowledged_active, acknowledged_active, unacknowledged_cleared, or normal (cleared and acknowledged; or cleared unacknowledged with no priority and severity low/info, which needs no acknowledgement).' },
  listed: { type: 'boolean', label: 'On the operator\'s list', readOnly: true, filter: true, description: 'The operator\'s default list (listed=true): every alarm not in the normal state. An alarm leaves it when acknowledged and cleared; a cleared P1/P2 (or critical/high/medium) stays until acknowledged.' },
  annunciated: { type: 'boolean', label: 'Annunciated', readOnly: true, filter: true, description: 'In the annunciator (the top bar\'s count): not acknowledged, neither shelved nor out of service; active or back to normal. Decided with alarm_state in the transaction of every change (src/industry/alarm-states.ts).' },
  urgent: { type: 'boolean', label: 'Urgent', readOnly: true, filter: true, description: 'Sounds (the tablets\' tone and banner): annunciated, its condition active, and P1 (or critical/high without a priority). A returned unacknowledged alarm is annunciated but not urgent.' },
  latched: { type: 'boolean', label: 'Latched', readOnly: true, filter: true, description: 'Stays active after its condition returned to normal, until an admin resets it (commands/reset).' },
  resettable: { type: 'boolean', label: 'Resettable', readOnly: true, description: 'An admin may end its condition by commands/reset (audited).' },
  returned_at: { type: 'datetime', label: 'Process returned', nullable: true, readOnly: true, description: 'Latched alarms: when the readings showed the condition ended; the alarm stays active until reset.' },
  shelved: { type: 'boolean', label: 'Shelved', readOnly: true, filter: true, description: 'Shelved by an operator until shelved_until: listed as such, not annunciated, not escalated.' },
  shelved_until: { type: 'datetime', label: 'Shelved until', nullable: true, readOnly: true, ui: { countdown: true }, description: 'While shelved: when it comes back by itself. Empty once unshelved.' },
  shelved_at: { type: 'datetime', label: 'Last shelved', nullable: true, readOnly: true, description: 'When it was last shelved; with shelved_by and shelve_reason it stays after the shelve ended, for the alarm\'s history.' },
  shelved_by: { type: 'string', label: 'Shelved by', nullable: true, readOnly: true, description: 'Who shelved it last (kept after the shelve ended).' },
  shelve_reason: { type: 'string', label: 'Shelve reason', nullable: true, readOnly: true, description: 'Why it was shelved last (kept after the shelve ended).' },
  out_of_service: { type: 'boolean', label: 'Out of service', readOnly: true, filter: true, description: 'Its unit is out of service for maintenance (commands/out-of-service): listed as such, not annunciated, not escalated.' },
  raise_count: { type: 'integer', label: 'Raised', readOnly: true, sortable: true, ui: { unit: 'times' }, description: 'How many raises this alarm stands for: above 1 a chattering rule was grouped into it (alarm_flood_count raises within alarm_flood_window_min).' },
  last_raised_at: { type: 'datetime', label: 'Last raised', readOnly: true, sortable: true },
  source: { type: 'string', label: 'Source', searchable: true },
  title: { type: 'string', label: 'Title', searchable: true, sortable: true, ui: { primary: true } },
  message: { type: 'string', label: 'Message', nullable: true, searchable: true },
  title_key: { type: 'string', label: 'Title key', nullable: true, readOnly: true, description: 'The message key of the title when the box wrote it (box.* in the catalogues, GET /app/i18n/{lang}.json): a reader renders it with text_params in their language; title is its English. null for a text a person typed and for alarms stored before keys were kept.' },
  message_key: { type: 'string', label: 'Message key', nullable: true, readOnly: true, description: 'The message key of message when the box wrote it (rendered with text_params); null otherwise.' },
  text_params: { type: 'object', label: 'Text parameters', nullable: true, readOnly: true, description: 'The parameters of title_key and message_key: data (a house number, a value, a unit, a limit, a time as ISO), never worded English.' },
  correlation_id: { type: 'string', label: 'Correlation id', filter: true, searchable: true },
  sla_target_sec: { type: 'integer', label: 'SLA target', nullable: true, ui: { unit: 's' } },
  sla_deadline_at: { type: 'datetime', label: 'SLA deadline', nullable: true, readOnly: true, sortable: true, ui: { countdown: true } },
  sla_breached: { type: 'boolean', label: 'SLA breached', readOnly: true },
  escalation_level: { type: 'integer', label: 'Escalation level', readOnly: true },
  bridged_to_status: { type: 'boolean', label: 'Bridged to status', readOnly: true },
  assignee: { type: 'string', label: 'Assignee', nullable: true, readOnly: true },
  reset_at: { type: 'datetime', label: 'Reset', nullable: true, readOnly: true, description: 'When an admin ended the condition by commands/reset (cleared_at is the same instant).' },
  reset_by: { type: 'string', label: 'Reset by', nullable: true, readOnly: true },
  acked_by: { type: 'string', label: 'Acknowledged by', nullable: true, readOnly: true },
  acked_at: { type: 'datetime', label: 'Acknowledged', nullable: true, readOnly: true },
  escalated_at: { type: 'datetime', label: 'Last escalated', nullable: true, readOnly: true },
  cleared_at: { type: 'datetime', label: 'Cleared', nullable: true, readOnly: true },
  raised_at: { type: 'datetime', label: 'Raised', readOnly: true, sortable: true },
  comments: { type: 'array', items: 'object', label: 'Comments', nullable: true, readOnly: true, description: 'What people noted on the alarm (commands/comment), oldest first: {text, by, at}. Empty (null) until the first comment; at most 50 are kept on the alarm (the oldest then leave it; every comment stays in the audit, alarm.comment).' },
  details: { type: 'object', label: 'Details', nullable: true },
}, {
  indexes: [
    { name: 'industry_alarm_events_tenant_raised', columns: ['tenant_id', 'raised_at'] },
    { name: 'industry_alarm_events_open_rule', columns: ['tenant_id', 'industry_code', 'unit_id', 'rule_id', 'status'] },
    { name: 'industry_alarm_events_deadline', columns: ['status', 'sla_deadline_at'] },
    { name: 'industry_alarm_events_correlation', columns: ['correlation_id'] },
    { name: 'industry_alarm_events_listed', columns: ['tenant_id', 'listed', 'alarm_state'] },
    { name: 'industry_alarm_events_annunciated', columns: ['tenant_id', 'annunciated', 'urgent'] },
  ],
});

export const industryAlarmEvents = alarmEventRecord.table;
export type AlarmEventRow = typeof alarmEventRecord.row;

/** One entry of an alarm's comments (commands/comment). */
export interface AlarmComment { text: string; by: string; at: string }

/** Units out of service for maintenance: their alarms are raised and kept, but marked and not annunciated. */
export const outOfServiceRecord = defineRecord('industry_alarm_out_of_service', {
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  industry_code: { type: 'string', label: 'Industry', enum: INDUSTRY_CODES },
  unit_id: { type: 'string', label: 'Unit' },
  site_id: { type: 'string', label: 'Site', nullable: true },
  reason: { type: 'string', label: 'Reason' },
  since: { type: 'datetime', label: 'Since' },
  by: { type: 'string', label: 'By' },
}, { primaryKey: ['tenant_id', 'industry_code', 'unit_id'] });
export type OutOfServiceRow = typeof outOfServiceRecord.row;
