// The audit record, declared once: its fields give the table, the UI scheme, the list filters
// and the row type. Who did what: one row per audited action, newest first by (created_at, id).
import { defineRecord } from '../../kernel/record.js';

export const RESULTS = ['success', 'denied', 'error'] as const;

export const auditRecord = defineRecord('audit_records', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', nullable: true, readOnly: true, filter: { description: 'Master callers only; a tenant caller always sees its own tenant.' } },
  actor: { type: 'string', label: 'Actor', filter: true, sortable: true, searchable: true },
  action: { type: 'string', label: 'Action', filter: true, sortable: true, searchable: true },
  resource: { type: 'string', label: 'Resource', filter: true, sortable: true, searchable: true },
  result: { type: 'string', label: 'Result', enum: RESULTS, filter: true, sortable: true },
  correlation_id: { type: 'string', label: 'Correlation id', filter: true, searchable: true, description: 'Traces one operation across modules; the request id when the caller gives none.' },
  details: { type: 'object', label: 'Details', nullable: true },
  recorded_by: { type: 'string', label: 'Recorded by', readOnly: true, description: 'The authenticated subject (or module) that wrote the record.' },
  created_at: { type: 'datetime', label: 'Time', readOnly: true, sortable: true },
}, {
  indexes: [
    { name: 'audit_records_tenant_created', columns: ['tenant_id', 'created_at'] },
    { name: 'audit_records_created', columns: ['created_at'] },
    { name: 'audit_records_correlation', columns: ['correlation_id'] },
  ],
});

export const auditRecords = auditRecord.table;
export type AuditRow = typeof auditRecord.row;
