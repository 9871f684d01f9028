// Tables owned by the kernel itself (not by a module).
import { col, defineTable } from '../db/table.js';

/** First answers of POSTs sent with an Idempotency-Key, replayed for a repeated key. */
export const idempotencyKeys = defineTable('idempotency_keys', {
  key: col.text({ notNull: true }),
  principal: col.text({ notNull: true }),
  fingerprint: col.text({ notNull: true }),
  status: col.integer({ notNull: true }),
  body: col.text({ notNull: true }),
  created_at: col.timestamp({ notNull: true }),
}, { primaryKey: ['key', 'principal'], indexes: [{ name: 'idempotency_keys_created_at', columns: ['created_at'] }] });

export const kernelTables = [idempotencyKeys];
