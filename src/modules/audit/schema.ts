import { col, defineTable } from '../../db/table.js';

/** Who did what: one row per audited action, newest first by (created_at, id). */
export const auditRecords = defineTable('audit_records', {
  id: col.id(),
  tenant_id: col.text(),
  actor: col.text({ notNull: true }),
  action: col.text({ notNull: true }),
  resource: col.text({ notNull: true }),
  result: col.text({ notNull: true }),
  correlation_id: col.text({ notNull: true }),
  details: col.json(),
  recorded_by: col.text({ notNull: true }),
  created_at: col.timestamp({ notNull: true }),
}, {
  indexes: [
    { name: 'audit_records_tenant_created', columns: ['tenant_id', 'created_at'] },
    { name: 'audit_records_created', columns: ['created_at'] },
    { name: 'audit_records_correlation', columns: ['correlation_id'] },
  ],
});

export interface AuditRow extends Record<string, unknown> {
  id: string;
  tenant_id: string | null;
  actor: string;
  action: string;
  resource: string;
  result: 'success' | 'denied' | 'error';
  correlation_id: string;
  details: Record<string, unknown> | null;
  recorded_by: string;
  created_at: string;
}
