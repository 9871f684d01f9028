// One commit for an alarm change: the alarm row (its derived columns, its sync outbox entry), its
// audit records and its status events (the contract's alarm_raised / alarm_cleared of a severe
// alarm, and the alarm view's alarm_changed of every change) are written in the change's
// transaction, then announced. They were four commits a raise or clear (the alarm, the audit
// record, two status events), kept apart so that an audit failure could not undo an alarm. That property is kept with
// savepoints: the audit record and the status event are each written inside one, a failure rolls
// back to it (the alarm's own writes stay), is logged, and is written again after the commit on
// its own, as before. Nothing announces the change (bus, status stream, notifications, the siren
// relay, which all listen to the bus) before the commit.
import type { AuditEntry, Services } from '../../kernel/context.js';
import type { Database } from '../../db/client.js';
import type { AlarmEvent } from '../../realtime/bus.js';
import { insertAudit, toAuditRow } from '../audit/service.js';
import type { StatusInput, StatusWriter } from '../status/service.js';
import { alarmChangesBridged, changedStatus, markStoredWithChange } from './bridge.js';
import { alarmEventOf } from '../../industry/alarm-items.js';

export type { ChangeWrites } from '../../industry/alarm-change.js';
import type { ChangeWrites, CommitChange } from '../../industry/alarm-change.js';

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
 * A change that may write status events takes the status service's turn before the writer, as
 * publish() does, so status events reach the bus in id order. After the commit the alarm's bus
 * events are emitted first, then the status events (as before: the bridge published alarm_changed
 * on the alarm's bus event, alarm_raised after it).
 */
export function changeCommitter(services: Services): CommitChange {
  return async function commitChange<T>(work: (writes: ChangeWrites) => Promise<T>): Promise<T> {
    const { db, log } = services;
    const auditAgain: AuditEntry[] = [];
    const statusAgain: StatusInput[] = [];
    const run = async (write: StatusWriter | undefined): Promise<T> => {
      const events: AlarmEvent[] = [];
      const bridged = write !== undefined && alarmChangesBridged(services.bus);
      const storeStatus = async (input: StatusInput): Promise<boolean> => {
        try {
          await inSavepoint(db, () => write!(input));
          return true;
        } catch (err) {
          log.warn('alarm status event not stored with its change; published after the commit', { event: input.event, correlation_id: input.correlation_id, error: (err as Error).message });
          return false;
        }
      };
      const writes: ChangeWrites = {
        async changed(kind, row) {
          const event = alarmEventOf(kind, row);
          events.push(event);
          const input = bridged ? changedStatus(event) : undefined;
          // Not stored: the bridge publishes it on the bus event, as it did for every change.
          if (input && (await storeStatus(input))) markStoredWithChange(event);
        },
        async audit(entry) {
          try {
            await inSavepoint(db, () => insertAudit(services, toAuditRow(entry)));
          } catch (err) {
            log.warn('alarm audit record not stored with its change; written again after the commit', { action: entry.action, correlation_id: entry.correlation_id, error: (err as Error).message });
            auditAgain.push(entry);
          }
        },
        async status(input) {
          if (write && !(await storeStatus(input))) statusAgain.push(input);
        },
      };
      const out = await db.transaction(() => work(writes));
      for (const event of events) services.bus?.emit('alarm', event);
      return out;
    };
    const status = services.status;
    const out = status ? await status.publishWith(run) : await run(undefined);
    // The second try, each in a commit of its own; the audit service logs a record it cannot store.
    for (const entry of auditAgain) await services.audit.record(entry);
    for (const input of statusAgain) await status?.publish(input).catch((err: Error) => log.error('alarm status event could not be published', { event: input.event, correlation_id: input.correlation_id, error: err.message }));
    return out;
  };
}
