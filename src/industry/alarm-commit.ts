// One commit for an alarm change: the alarm row (its derived columns, its sync outbox entry), its
// audit records and its status events are written in the change's transaction, then announced.
// They were three to four commits a raise or clear (the alarm, the audit record, the status
// event), kept apart so that an audit failure could not undo an alarm. That property is kept with
// savepoints: the audit record and the status event are each written inside one, a failure rolls
// back to it (the alarm's own writes stay), is logged, and is written again after the commit on
// its own, as before. Nothing announces the change (bus, status stream, notifications, the siren
// relay, which all listen to the bus) before the commit.
import type { AuditEntry, Services } from '../kernel/context.js';
import type { Database } from '../db/client.js';
import { insertAudit, toAuditRow } from '../modules/audit/service.js';
import type { StatusInput, StatusWriter } from '../modules/status/service.js';

/** What a change writes besides its rows, inside its transaction. */
export interface ChangeWrites {
  audit(entry: AuditEntry): Promise<void>;
  status(input: StatusInput): Promise<void>;
}

let savepoints = 0;

/**
 * Runs fn inside a savepoint of the open transaction: when it throws, its writes are undone and
 * the transaction goes on (on PostgreSQL a failed statement would otherwise abort it whole).
 * The same raw statements on both engines (SQLite, PostgreSQL and PGlite).
 */
export async function inSavepoint<T>(db: Pick<Database, 'exec'>, fn: () => Promise<T>): Promise<T> {
  const name = `alarm_sp${++savepoints % 1_000_000}`;
  await db.exec(`SAVEPOINT ${name}`);
  try {
    const out = await fn();
    await db.exec(`RELEASE SAVEPOINT ${name}`);
    return out;
  } catch (err) {
    await db.exec(`ROLLBACK TO SAVEPOINT ${name}`);
    await db.exec(`RELEASE SAVEPOINT ${name}`);
    throw err;
  }
}

/**
 * `bridged`: the change may write a status event (it then takes the status service's turn before
 * the writer, as publish() does, so status events reach the bus in id order). `announce` runs
 * after the commit, before the status events are emitted (the alarm's bus event first, as before).
 */
export function changeCommitter(services: Services) {
  return async function commitChange<T>(bridged: boolean, work: (writes: ChangeWrites) => Promise<T>, announce: (out: T) => void): Promise<T> {
    const { db, log } = services;
    const auditAgain: AuditEntry[] = [];
    const statusAgain: StatusInput[] = [];
    const run = async (write: StatusWriter | undefined): Promise<T> => {
      const writes: ChangeWrites = {
        async audit(entry) {
          try {
            await inSavepoint(db, () => insertAudit(services, toAuditRow(entry)));
          } catch (err) {
            log.warn('alarm audit record not stored with its change; written again after the commit', { action: entry.action, correlation_id: entry.correlation_id, error: (err as Error).message });
            auditAgain.push(entry);
          }
        },
        async status(input) {
          if (!write) return;
          try {
            await inSavepoint(db, () => write(input));
          } catch (err) {
            log.warn('alarm status event not stored with its change; published again after the commit', { event: input.event, correlation_id: input.correlation_id, error: (err as Error).message });
            statusAgain.push(input);
          }
        },
      };
      const out = await db.transaction(() => work(writes));
      announce(out);
      return out;
    };
    const status = services.status;
    const out = bridged && status ? await status.publishWith(run) : await run(undefined);
    // The second try, each in a commit of its own; the audit service logs a record it cannot store.
    for (const entry of auditAgain) await services.audit.record(entry);
    for (const input of statusAgain) await status?.publish(input).catch((err: Error) => log.error('alarm status event could not be published', { event: input.event, correlation_id: input.correlation_id, error: err.message }));
    return out;
  };
}
