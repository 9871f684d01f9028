// The tenant-master event and the whitelists of its event_type and status (the contract leaves
// them to the implementation: section 6, "not shown"). Values outside them are refused with 409
// event_not_whitelisted / status_not_whitelisted, never stored.
import { defineRecord } from '../../kernel/record.js';

export const EVENT_TYPES = [
  'tenant.provisioned', 'tenant.updated', 'tenant.suspended', 'tenant.resumed', 'tenant.offboarded',
  'subscription.changed', 'sla.changed', 'policy.updated', 'site.registered',
  'sync.requested', 'sync.completed', 'sync.failed', 'alarm.escalated',
] as const;
export const EVENT_STATUSES = ['accepted', 'in_progress', 'completed', 'failed', 'rejected'] as const;

export const tenantEventRecord = defineRecord('tenant_master_events', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', filter: true, sortable: true, searchable: true },
  event_type: { type: 'string', label: 'Event type', enum: EVENT_TYPES, filter: true, sortable: true },
  status: { type: 'string', label: 'Status', enum: EVENT_STATUSES, filter: true, sortable: true },
  correlation_id: { type: 'string', label: 'Correlation id', filter: true, searchable: true, description: 'Kept end to end: the audit record and the bridged status event carry the same id.' },
  payload: { type: 'object', label: 'Payload', nullable: true },
  created_by: { type: 'string', label: 'Published by', readOnly: true },
  created_at: { type: 'datetime', label: 'Published', readOnly: true, sortable: true },
}, {
  indexes: [
    { name: 'tenant_master_events_tenant', columns: ['tenant_id', 'created_at'] },
    { name: 'tenant_master_events_correlation', columns: ['correlation_id'] },
  ],
});

export const tenantEvents = tenantEventRecord.table;
export type TenantEventRow = typeof tenantEventRecord.row;
