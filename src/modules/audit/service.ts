// The SQL-backed audit service: every module records who did what through services.audit.
// It replaces the kernel's log-only default when the audit runtime starts. A failed write is
// logged as an error and does not fail the business operation that was being audited.
import { randomUUID } from 'node:crypto';
import { lt } from 'drizzle-orm';
import { columnOf } from '../../db/table.js';
import { Store } from '../../db/store.js';
import type { AuditEntry, AuditService, Services } from '../../kernel/context.js';
import { timeId } from '../../kernel/ids.js';
import { tableOf } from '../../db/sql.js';
import { auditRecords, type AuditRow } from './schema.js';

export function toAuditRow(entry: AuditEntry & { recorded_by?: string }): AuditRow {
  return {
    id: timeId(),
    tenant_id: entry.tenant_id ?? null,
    actor: entry.actor,
    action: entry.action,
    resource: entry.resource,
    result: entry.result,
    correlation_id: entry.correlation_id ?? randomUUID(),
    details: entry.details ?? null,
    recorded_by: entry.recorded_by ?? entry.actor,
    created_at: new Date().toISOString(),
  };
}

/** One store per database, so its prepared insert is built once. */
const stores = new WeakMap<Services['db'], Store<AuditRow>>();

export async function insertAudit(services: Services, row: AuditRow): Promise<AuditRow> {
  const { db } = services;
  let store = stores.get(db);
  if (!store) stores.set(db, (store = new Store<AuditRow>(db, auditRecords)));
  const s = store;
  // With the sync on (a box naming its master) the outbox event commits with the record.
  const bus = services.bus;
  if (bus?.staging('audit')) {
    await db.transaction(async () => {
      await s.append(row);
      await bus.stage('audit', row);
    });
    return row;
  }
  // SQLite with no transaction of anyone open on its one connection (writerIdle): the single
  // insert commits by itself (an implicit transaction, as durable as BEGIN ... COMMIT) and runs
  // synchronously, so nothing can interleave; this skips two statements and the writer lock's
  // queue on every audited field write. Otherwise (PostgreSQL, or a writer busy) transaction().
  if (db.writerIdle?.()) await s.append(row);
  else await db.transaction(() => s.append(row));
  return row;
}

export function createSqlAudit(services: Services): AuditService {
  return {
    async record(entry) {
      const row = toAuditRow(entry);
      try {
        await insertAudit(services, row);
      } catch (err) {
        services.log.error('audit record could not be stored', { ...row, error: (err as Error).message });
      }
    },
  };
}

/** Deletes audit records older than `before` (audit_retention_days). */
export async function purgeAudit(services: Pick<Services, 'db'>, before: Date): Promise<void> {
  const { db } = services;
  await db.transaction(async () => {
    await db.orm.delete(tableOf(auditRecords, db)).where(lt(columnOf(auditRecords, db.dialect, 'created_at'), before.toISOString()));
  });
}
