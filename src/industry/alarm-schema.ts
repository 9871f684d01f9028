// The alarm events of every industry, in one table: poultry-alarms, industry-alarms, swine and
// melioration alerts are views of it (by industry_code), so raising, acknowledging, escalating
// and clearing is one mechanism. `unit_id` is the industry's unit (a poultry house, a swine room
// or pen, a melioration field); resources show it under their own noun.
import { defineRecord } from '../kernel/record.js';

export const INDUSTRY_SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const PRIORITIES = ['P1', 'P2'] as const;
export const ALARM_EVENT_STATUSES = ['active', 'acked', 'cleared'] as const;
export const INDUSTRY_CODES = ['poultry', 'swine', 'melioration'] as const;

export type IndustrySeverity = (typeof INDUSTRY_SEVERITIES)[number];
export type Priority = (typeof PRIORITIES)[number];
export type AlarmEventStatus = (typeof ALARM_EVENT_STATUSES)[number];

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
  status: { type: 'string', label: 'Status', enum: ALARM_EVENT_STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  source: { type: 'string', label: 'Source', searchable: true },
  title: { type: 'string', label: 'Title', searchable: true, sortable: true, ui: { primary: true } },
  message: { type: 'string', label: 'Message', nullable: true, searchable: true },
  correlation_id: { type: 'string', label: 'Correlation id', filter: true, searchable: true },
  sla_target_sec: { type: 'integer', label: 'SLA target', nullable: true, ui: { unit: 's' } },
  sla_deadline_at: { type: 'datetime', label: 'SLA deadline', nullable: true, readOnly: true, sortable: true, ui: { countdown: true } },
  sla_breached: { type: 'boolean', label: 'SLA breached', readOnly: true },
  escalation_level: { type: 'integer', label: 'Escalation level', readOnly: true },
  bridged_to_status: { type: 'boolean', label: 'Bridged to status', readOnly: true },
  assignee: { type: 'string', label: 'Assignee', nullable: true, readOnly: true },
  acked_by: { type: 'string', label: 'Acknowledged by', nullable: true, readOnly: true },
  acked_at: { type: 'datetime', label: 'Acknowledged', nullable: true, readOnly: true },
  escalated_at: { type: 'datetime', label: 'Last escalated', nullable: true, readOnly: true },
  cleared_at: { type: 'datetime', label: 'Cleared', nullable: true, readOnly: true },
  raised_at: { type: 'datetime', label: 'Raised', readOnly: true, sortable: true },
  details: { type: 'object', label: 'Details', nullable: true },
}, {
  indexes: [
    { name: 'industry_alarm_events_tenant_raised', columns: ['tenant_id', 'raised_at'] },
    { name: 'industry_alarm_events_open_rule', columns: ['tenant_id', 'industry_code', 'unit_id', 'rule_id', 'status'] },
    { name: 'industry_alarm_events_deadline', columns: ['status', 'sla_deadline_at'] },
    { name: 'industry_alarm_events_correlation', columns: ['correlation_id'] },
  ],
});

export const industryAlarmEvents = alarmEventRecord.table;
export type AlarmEventRow = typeof alarmEventRecord.row;
