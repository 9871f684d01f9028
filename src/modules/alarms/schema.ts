// The alarm record, declared once: its fields give the table (src/kernel/record.ts), the UI
// scheme, the list filters and the row type.
import { defineRecord } from '../../kernel/record.js';
import { ALARM_CONDITIONS, ALARM_STATES as ISA_STATES } from '../../industry/alarm-schema.js';

export const SEVERITIES = ['critical', 'high', 'medium', 'low', 'info'] as const;
export const ALARM_STATES = ['open', 'acknowledged'] as const;
/** Where an alarm applies: one site, a whole tenant, or the platform (master). */
export const ALARM_SCOPES = ['site', 'tenant', 'master'] as const;

export type Severity = (typeof SEVERITIES)[number];

export const alarmRecord = defineRecord('alarms', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', nullable: true, readOnly: true, filter: { description: 'Master callers only; a tenant caller always sees its own tenant.' } },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  scope: { type: 'string', label: 'Scope', enum: ALARM_SCOPES, readOnly: true, filter: true },
  severity: { type: 'string', label: 'Severity', enum: SEVERITIES, filter: true, sortable: true },
  state: { type: 'string', label: 'State', enum: ALARM_STATES, readOnly: true, filter: true, sortable: true },
  source: { type: 'string', label: 'Source', filter: true, sortable: true, searchable: true },
  title: { type: 'string', label: 'Title', sortable: true, searchable: true },
  message: { type: 'string', label: 'Message', nullable: true, searchable: true },
  title_key: { type: 'string', label: 'Title key', nullable: true, readOnly: true, description: 'The message key of the title when the box wrote it (box.* in the catalogues, GET /app/i18n/{lang}.json): a reader renders it with text_params in their language; title is its English. null for a text a person typed and for alarms stored before keys were kept.' },
  message_key: { type: 'string', label: 'Message key', nullable: true, readOnly: true, description: 'The message key of message when the box wrote it (rendered with text_params); null otherwise.' },
  text_params: { type: 'object', label: 'Text parameters', nullable: true, readOnly: true, description: 'The parameters of title_key and message_key: data (a house number, a value, a unit, a limit, a time as ISO), never worded English.' },
  correlation_id: { type: 'string', label: 'Correlation id', filter: true, searchable: true },
  details: { type: 'object', label: 'Details', nullable: true },
  raised_at: { type: 'datetime', label: 'Raised', readOnly: true, sortable: true },
  acknowledged_by: { type: 'string', label: 'Acknowledged by', nullable: true, readOnly: true },
  acknowledged_at: { type: 'datetime', label: 'Acknowledged', nullable: true, readOnly: true },
  comment: { type: 'string', label: 'Comment', nullable: true, readOnly: true },
  condition: { type: 'string', label: 'Condition', enum: ALARM_CONDITIONS, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'Whether the condition is present (active) or ended (cleared, by commands/clear), whatever the acknowledgement (state).' },
  cleared_at: { type: 'datetime', label: 'Cleared', nullable: true, readOnly: true },
  alarm_state: { type: 'string', label: 'Alarm state', enum: ISA_STATES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'The ISA-18.2 state, as on industry alarms: unacknowledged_active, acknowledged_active, unacknowledged_cleared, normal (a cleared low/info alarm needs no acknowledgement).' },
  annunciated: { type: 'boolean', label: 'Annunciated', readOnly: true, filter: true, description: 'In the annunciator: not acknowledged (active or cleared), as on industry alarms (src/industry/alarm-states.ts).' },
  urgent: { type: 'boolean', label: 'Urgent', readOnly: true, filter: true, description: 'Sounds on the tablets: annunciated, active, and of severity critical or high.' },
  listed: { type: 'boolean', label: 'On the operator\'s list', readOnly: true, filter: true, description: 'The operator\'s default list (listed=true): every alarm not in the normal state.' },
}, {
  indexes: [
    { name: 'alarms_tenant_raised', columns: ['tenant_id', 'raised_at'] },
    { name: 'alarms_state', columns: ['state'] },
    { name: 'alarms_correlation', columns: ['correlation_id'] },
    { name: 'alarms_listed', columns: ['tenant_id', 'listed', 'alarm_state'] },
  ],
});

export const alarms = alarmRecord.table;
export type AlarmRow = typeof alarmRecord.row;
