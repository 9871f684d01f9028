// melioration-alerts: the melioration view of the one industry alarm table. Alerts are raised
// and cleared by the balance evaluation through the industry alarm service (status bridge,
// audit, bus/MQTT), so they are the same events poultry and swine alarms are; here unit_id is
// shown as field_id and rule_id as kind (exactly water_deficit or overwatering).
import { defineResource, type FieldSpec } from '../../kernel/resource.js';
import { alarmAckCommand, alarmResetCommand, alarmShelveCommand, alarmUnshelveCommand } from '../../industry/alarm-commands.js';
import { alarmEventRecord, industryAlarmEvents, INDUSTRY_SEVERITIES, ALARM_EVENT_STATUSES, type AlarmEventRow } from '../../industry/alarm-schema.js';

// The alarm model's state fields, shown as every view of the table shows them (docs/alarms.md).
const STATE_FIELDS = ['condition', 'alarm_state', 'listed', 'latched', 'returned_at', 'shelved', 'shelved_until', 'shelved_by', 'shelve_reason', 'out_of_service', 'comments'] as const;
import { ALERT_KINDS } from './rules.js';

const fields: Record<string, FieldSpec> = {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: { description: 'Master callers only; a tenant caller always sees its own tenant.' } },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true, sortable: true },
  field_id: { type: 'string', label: 'Field', nullable: true, filter: { column: 'unit_id' } },
  kind: { type: 'string', label: 'Kind', enum: ALERT_KINDS, nullable: true, filter: { column: 'rule_id' }, description: 'water_deficit: depletion reached p x TAW (cleared at (p - 0.10) x TAW); overwatering: 10 mm or more above field capacity (cleared at 3 mm or less).', ui: { badge: true } },
  severity: { type: 'string', label: 'Severity', enum: INDUSTRY_SEVERITIES, filter: true, sortable: true, ui: { badge: true } },
  status: { type: 'string', label: 'Status', enum: ALARM_EVENT_STATUSES, readOnly: true, filter: true, sortable: true, description: 'active, acked, or cleared once the condition ended.', ui: { badge: true } },
  title: { type: 'string', label: 'Title', searchable: true, ui: { primary: true } },
  message: { type: 'string', label: 'Message', nullable: true, searchable: true },
  metric: { type: 'string', label: 'Metric', nullable: true },
  value: { type: 'number', label: 'Value', nullable: true, description: 'Depletion (water_deficit) or water above field capacity (overwatering) when raised.', ui: { unit: 'mm' } },
  correlation_id: { type: 'string', label: 'Correlation id', filter: true, searchable: true },
  sla_deadline_at: { type: 'datetime', label: 'SLA deadline', nullable: true, readOnly: true, ui: { countdown: true } },
  raised_at: { type: 'datetime', label: 'Raised', readOnly: true, sortable: true },
  cleared_at: { type: 'datetime', label: 'Cleared', nullable: true, readOnly: true },
  acked_at: { type: 'datetime', label: 'Acknowledged', nullable: true, readOnly: true },
  acked_by: { type: 'string', label: 'Acknowledged by', nullable: true, readOnly: true },
  assignee: { type: 'string', label: 'Assignee', nullable: true, readOnly: true, filter: true },
  details: { type: 'object', label: 'Details', nullable: true },
  ...Object.fromEntries(STATE_FIELDS.map((k) => [k, alarmEventRecord.fields[k]])),
};

export const alertResource = defineResource<AlarmEventRow>({
  name: 'melioration-alerts',
  module: 'melioration',
  title: 'Melioration alerts',
  table: industryAlarmEvents,
  access: { resource: 'melioration-alerts', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  fixed: { industry_code: 'melioration' },
  fields,
  defaultSort: { field: 'raised_at', order: 'desc' },
  toItem: (row) => ({
    id: row.id, tenant_id: row.tenant_id, site_id: row.site_id, field_id: row.unit_id, kind: row.rule_id, severity: row.severity, status: row.status,
    title: row.title, message: row.message, metric: row.metric, value: row.value, correlation_id: row.correlation_id, sla_deadline_at: row.sla_deadline_at,
    raised_at: row.raised_at, cleared_at: row.cleared_at, acked_at: row.acked_at, acked_by: row.acked_by, assignee: row.assignee, details: row.details,
    ...Object.fromEntries(STATE_FIELDS.map((k) => [k, row[k]])),
  }),
  commands: {
    // Operators acknowledge and shelve (action acknowledge, shelve); reset is for admins.
    ack: alarmAckCommand('melioration', 'melioration alert', 'acknowledge'),
    shelve: alarmShelveCommand('melioration', 'melioration alert'),
    unshelve: alarmUnshelveCommand('melioration', 'melioration alert'),
    reset: alarmResetCommand('melioration', 'melioration alert'),
  },
});

export const alertRoutes = alertResource.routes;
