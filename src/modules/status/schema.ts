import { col, defineTable } from '../../db/table.js';
import { defineRecord } from '../../kernel/record.js';

/**
 * Status events. `id` is an integer allocated from status_sequence in the same transaction as
 * the insert: the row lock on the counter makes ids commit in increasing order on PostgreSQL
 * too, so "every event with id > N" is a complete catch-up (a sequence or autoincrement would
 * let a later id commit before an earlier one).
 */

export const STATUS_VALUES = ['ok', 'warn', 'error'] as const;

export const statusRecord = defineRecord('status_events', {
  id: { type: 'integer', label: 'ID', readOnly: true, column: { primaryKey: true }, sortable: true, description: 'Increasing per database; a stream client resumes with ?since=<last id>.' },
  tenant_id: { type: 'string', label: 'Tenant', nullable: true, readOnly: true, filter: { description: 'Master callers only; a tenant caller always sees its own tenant.' } },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  source: { type: 'string', label: 'Source', filter: true, sortable: true, searchable: true },
  event: { type: 'string', label: 'Event', filter: true, sortable: true, searchable: true },
  status: { type: 'string', label: 'Status', enum: STATUS_VALUES, filter: true, sortable: true, ui: { badge: true } },
  correlation_id: { type: 'string', label: 'Correlation id', nullable: true, filter: true, searchable: true },
  details: { type: 'object', label: 'Details', nullable: true },
  timestamp: { type: 'datetime', label: 'Time', readOnly: true, sortable: true },
}, {
  indexes: [
    { name: 'status_events_tenant_id', columns: ['tenant_id', 'id'] },
    { name: 'status_events_timestamp', columns: ['timestamp'] },
    { name: 'status_events_correlation', columns: ['correlation_id'] },
  ],
});
export const statusEvents = statusRecord.table;

/** Counters owned by the status module (one row: name = 'status_events'). */
export const statusSequence = defineTable('status_sequence', {
  name: col.id(),
  value: col.integer({ notNull: true }),
});

