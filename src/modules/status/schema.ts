import { col, defineTable } from '../../db/table.js';

/**
 * Status events. `id` is an integer allocated from status_sequence in the same transaction as
 * the insert: the row lock on the counter makes ids commit in increasing order on PostgreSQL
 * too, so "every event with id > N" is a complete catch-up (a sequence or autoincrement would
 * let a later id commit before an earlier one).
 */
export const statusEvents = defineTable('status_events', {
  id: { kind: 'integer', primaryKey: true, notNull: true },
  tenant_id: col.text(),
  site_id: col.text(),
  source: col.text({ notNull: true }),
  event: col.text({ notNull: true }),
  status: col.text({ notNull: true }),
  correlation_id: col.text(),
  details: col.json(),
  timestamp: col.timestamp({ notNull: true }),
}, {
  indexes: [
    { name: 'status_events_tenant_id', columns: ['tenant_id', 'id'] },
    { name: 'status_events_timestamp', columns: ['timestamp'] },
    { name: 'status_events_correlation', columns: ['correlation_id'] },
  ],
});

/** Counters owned by the status module (one row: name = 'status_events'). */
export const statusSequence = defineTable('status_sequence', {
  name: col.id(),
  value: col.integer({ notNull: true }),
});

export const STATUS_VALUES = ['ok', 'warn', 'error'] as const;
