// An SLA profile: response and resolution targets and the escalation policy; only an active
// profile can be assigned to a subscription.
import { defineRecord } from '../../kernel/record.js';

export const SLA_STATES = ['active', 'retired'] as const;

export const slaProfileRecord = defineRecord('sla_profiles', {
  id: { type: 'string', label: 'Profile', sortable: true, searchable: true },
  name: { type: 'string', label: 'Name', sortable: true, searchable: true },
  response_minutes: { type: 'integer', label: 'Response', sortable: true, ui: { unit: 'min' } },
  resolution_minutes: { type: 'integer', label: 'Resolution', sortable: true, ui: { unit: 'min' } },
  escalation_policy: { type: 'string', label: 'Escalation policy', searchable: true, description: 'Who is escalated to, in order (free text such as "on-call, then site manager after 30 min").' },
  status: { type: 'string', label: 'Status', enum: SLA_STATES, filter: true, sortable: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, { indexes: [{ name: 'sla_profiles_status', columns: ['status'] }] });

export const slaProfiles = slaProfileRecord.table;
export type SlaProfileRow = typeof slaProfileRecord.row;
