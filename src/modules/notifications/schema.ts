// Notification off site: channels (an SMTP server or a webhook), rules (who is told of which
// alarms, by priority, severity and escalation level) and the deliveries, which are also the
// durable queue: a pending delivery is a row, so a restart loses nothing and the worker resumes it.
// On a master, cursors remember how far the alarm events each site pushed have been read.
import { defineRecord } from '../../kernel/record.js';

export const CHANNEL_KINDS = ['email', 'webhook'] as const;
export const TLS_MODES = ['starttls', 'tls', 'none'] as const;
/** suppressed: never sent, the alarm was shelved or its unit out of service (see SUPPRESSIONS). */
export const DELIVERY_STATUSES = ['pending', 'sent', 'failed', 'suppressed'] as const;
/** Why a delivery was not sent: the alarm was not annunciated (ISA-18.2 suppression). */
export const SUPPRESSIONS = ['out_of_service', 'shelved'] as const;
export type Suppression = (typeof SUPPRESSIONS)[number];
export const NOTIFY_EVENTS = ['raised', 'escalated', 'acknowledged', 'cleared'] as const;
export type NotifyEvent = (typeof NOTIFY_EVENTS)[number];

export const channelRecord = defineRecord('notification_channels', {
  id: { type: 'string', label: 'Channel', sortable: true, searchable: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  name: { type: 'string', label: 'Name', sortable: true, searchable: true, ui: { primary: true } },
  kind: { type: 'string', label: 'Kind', enum: CHANNEL_KINDS, filter: true, ui: { badge: true } },
  enabled: { type: 'boolean', label: 'Enabled', filter: true },
  smtp_host: { type: 'string', label: 'SMTP host', nullable: true },
  smtp_port: { type: 'integer', label: 'SMTP port', nullable: true },
  smtp_tls: { type: 'string', label: 'SMTP TLS', enum: TLS_MODES, nullable: true, description: 'starttls (port 587, TLS required), tls (port 465) or none (a relay on the site LAN or loopback only).' },
  smtp_user: { type: 'string', label: 'SMTP user', nullable: true },
  smtp_from: { type: 'string', label: 'From', nullable: true },
  webhook_url: { type: 'string', label: 'Webhook URL', nullable: true, description: 'Shown without user info or query, which are write-only (they often carry a token).' },
  recipients: { type: 'array', items: 'string', label: 'Recipients', description: 'E-mail channels: the addresses its messages go to when a rule names none of its own (and its test message). Empty for a webhook.' },
  secret_enc: { type: 'string', label: 'Secret (encrypted)', nullable: true, internal: true },
  has_secret: { type: 'boolean', label: 'Secret set', readOnly: true, description: 'Whether an SMTP password or webhook key is stored. The secret itself is write-only: no answer ever carries it.' },
  site_name: { type: 'string', label: 'Site name', nullable: true, description: 'How messages name the site (else its id).' },
  link_url: { type: 'string', label: 'Link', nullable: true, description: 'Address of the box (or master) web shell, put in every message when set.' },
  language: { type: 'string', label: 'Language', nullable: true, description: 'The language its messages are written in: a language the box offers (GET /app/i18n/languages.json: en, ru, es or one the site added); empty: the site\'s default (setting site_language).' },
  retry_max_attempts: { type: 'integer', label: 'Attempts', description: 'Attempts per delivery before it is failed.' },
  retry_base_ms: { type: 'integer', label: 'First retry after', ui: { unit: 'ms' }, description: 'Wait before the 2nd attempt; it doubles after each failure, at most one hour.' },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, { indexes: [{ name: 'notification_channels_tenant', columns: ['tenant_id'] }] });

export const ruleRecord = defineRecord('notification_rules', {
  id: { type: 'string', label: 'Rule', sortable: true, searchable: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true, description: 'Only alarms of this site; empty: every site of the tenant.' },
  name: { type: 'string', label: 'Name', sortable: true, searchable: true, ui: { primary: true } },
  channel_id: { type: 'string', label: 'Channel', filter: true },
  recipients: { type: 'array', items: 'string', label: 'Recipients', description: 'E-mail addresses (e-mail channels); empty: the channel\'s recipients; always empty for a webhook.' },
  priorities: { type: 'array', items: 'string', label: 'Priorities', description: 'P1, P2; empty: any, also alarms without a priority.' },
  severities: { type: 'array', items: 'string', label: 'Severities', description: 'critical, high, medium, low, info; empty: any.' },
  unit_ids: { type: 'array', items: 'string', label: 'Units', description: 'Only alarms of these houses, rooms or fields (their unit ids); empty: every unit, and alarms of no unit.' },
  min_escalation_level: { type: 'integer', label: 'From escalation level', description: '0: from the raise; 1: from the first escalation (SLA breached unacknowledged).' },
  max_escalation_level: { type: 'integer', label: 'Up to escalation level', nullable: true, description: 'Empty: no upper bound.' },
  on_raise: { type: 'boolean', label: 'On raise' },
  on_escalation: { type: 'boolean', label: 'On escalation' },
  on_clear: { type: 'boolean', label: 'On clear', description: 'Tell the recipients the alarm ended, when they were told of it (its level reached min_escalation_level).' },
  on_ack: { type: 'boolean', label: 'On acknowledgement', description: 'Tell the recipients someone acknowledged the alarm (who, and when), when they were told of it (its level reached min_escalation_level).' },
  enabled: { type: 'boolean', label: 'Enabled', filter: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, { indexes: [{ name: 'notification_rules_tenant', columns: ['tenant_id', 'enabled'] }] });

export const deliveryRecord = defineRecord('notification_deliveries', {
  id: { type: 'string', label: 'Delivery', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, readOnly: true, filter: true },
  rule_id: { type: 'string', label: 'Rule', readOnly: true, filter: true },
  channel_id: { type: 'string', label: 'Channel', readOnly: true, filter: true },
  kind: { type: 'string', label: 'Kind', enum: CHANNEL_KINDS, readOnly: true, filter: true },
  recipient: { type: 'string', label: 'Recipient', readOnly: true, searchable: true, filter: true, description: 'The e-mail address, or the webhook URL without its query.' },
  alarm_id: { type: 'string', label: 'Alarm', readOnly: true, filter: true },
  event: { type: 'string', label: 'Event', enum: NOTIFY_EVENTS, readOnly: true, filter: true },
  escalation_level: { type: 'integer', label: 'Escalation level', readOnly: true },
  priority: { type: 'string', label: 'Priority', nullable: true, readOnly: true, filter: true },
  severity: { type: 'string', label: 'Severity', readOnly: true },
  subject: { type: 'string', label: 'Subject', readOnly: true, searchable: true, ui: { primary: true } },
  text: { type: 'string', label: 'Message', readOnly: true },
  payload: { type: 'object', label: 'Webhook body', readOnly: true },
  status: { type: 'string', label: 'Status', enum: DELIVERY_STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true }, description: 'pending (queued or retrying), sent, failed (attempts spent), or suppressed: not sent because the alarm was shelved or its unit out of service (see suppressed).' },
  suppressed: { type: 'string', label: 'Suppressed', enum: SUPPRESSIONS, nullable: true, readOnly: true, filter: true, description: 'Why it was not sent: out_of_service (its unit was out of service) or shelved, at the event; or the raise those told of it never got was suppressed so (an acknowledgement or clear). A raise held so is sent when its unit returns to service (or its shelve ends) while it is still active and unacknowledged.' },
  attempts: { type: 'integer', label: 'Attempts', readOnly: true },
  next_attempt_at: { type: 'datetime', label: 'Next attempt', nullable: true, readOnly: true, sortable: true },
  claimed_until: { type: 'datetime', label: 'Claimed until', nullable: true, internal: true },
  last_error: { type: 'string', label: 'Last error', nullable: true, readOnly: true },
  created_at: { type: 'datetime', label: 'Queued', readOnly: true, sortable: true },
  sent_at: { type: 'datetime', label: 'Sent', nullable: true, readOnly: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, {
  indexes: [
    { name: 'notification_deliveries_due', columns: ['status', 'next_attempt_at'] },
    { name: 'notification_deliveries_tenant', columns: ['tenant_id', 'created_at'] },
  ],
});

/** Master only: the last sync_inbox seq read per site. */
export const cursorRecord = defineRecord('notification_cursors', {
  tenant_id: { type: 'string', label: 'Tenant' },
  site_id: { type: 'string', label: 'Site' },
  seq: { type: 'integer', label: 'Last seq read' },
}, { primaryKey: ['tenant_id', 'site_id'] });

export type ChannelRow = typeof channelRecord.row;
export type RuleRow = typeof ruleRecord.row;
export type DeliveryRow = typeof deliveryRecord.row;
export type CursorRow = typeof cursorRecord.row;

export const NOTIFICATION_TABLES = [channelRecord.table, ruleRecord.table, deliveryRecord.table, cursorRecord.table];
