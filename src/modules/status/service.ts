// Status events are stored first (id from the counter row, same transaction), then published
// on the bus. Publication is serialised in this process so the bus sees ids in order.
import { and, asc, eq, gt, lt, max, sql, type SQL } from 'drizzle-orm';
import type { Caller, Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { StatusEvent, StatusInput } from '../../realtime/bus.js';
import { colOf, tableOf } from '../../db/sql.js';
import { statusEvents, statusSequence } from './schema.js';
import { preparedQuery } from '../../db/prepared.js';
import { storeFor } from '../../db/store.js';

const SEQ = 'status_events';

export type { StatusInput };

/** Which events a stream or list caller may see. */
export interface StatusScope {
  tenant_id?: string;
  site_id?: string;
}

/** Writes a status event inside the caller's transaction; it is put on the bus once that transaction has committed. */
export type StatusWriter = (input: StatusInput) => Promise<StatusEvent>;

export interface StatusService {
  publish(input: StatusInput): Promise<StatusEvent>;
  /**
   * For a change that stores its status events in its own transaction (an alarm raise: one
   * commit for the alarm, its audit record and its status event). `work` opens that transaction
   * and writes through `write`; the events go on the bus after `work` has resolved (committed),
   * in id order, under the same serialisation as publish(). Nothing is emitted when it throws.
   */
  publishWith<T>(work: (write: StatusWriter) => Promise<T>): Promise<T>;
  /** Stored events with id > after, oldest first, within the scope. */
  after(after: number, scope: StatusScope, limit: number): Promise<StatusEvent[]>;
  /** The highest stored id within the scope (0 when none). */
  lastId(scope: StatusScope): Promise<number>;
  purge(before: Date): Promise<void>;
}

declare module '../../kernel/context.js' {
  interface Services {
    status?: StatusService;
  }
}

export function scopeOf(caller: Caller, site?: string): StatusScope {
  const scope: StatusScope = {};
  if (caller.scope_type === 'tenant') scope.tenant_id = caller.tenant_id;
  const s = caller.site_id ?? site;
  if (s) scope.site_id = s;
  return scope;
}

export const inScope = (e: StatusEvent, scope: StatusScope) =>
  (scope.tenant_id === undefined || e.tenant_id === scope.tenant_id) && (scope.site_id === undefined || e.site_id === scope.site_id);

function serialised() {
  let tail: Promise<unknown> = Promise.resolve();
  return <T>(fn: () => Promise<T>): Promise<T> => {
    const run = tail.then(fn, fn);
    tail = run.catch(() => undefined);
    return run;
  };
}

/** The next id of a counter (src/db/prepared.ts: built once; a status event is published on every alarm change). */
const nextValue = preparedQuery<{ name: string }, { value: number | string }[]>((db, orm, p) => orm.update(tableOf(statusSequence, db))
  .set({ value: sql`${colOf(statusSequence, db, 'value')} + 1` } as never).where(eq(colOf(statusSequence, db, 'name'), p('name'))).returning());

export async function createStatusService(services: Services): Promise<StatusService> {
  const { db } = services;
  const events = tableOf(statusEvents, db);
  const seq = tableOf(statusSequence, db);
  const c = (n: string) => colOf(statusEvents, db, n);
  const lock = serialised();

  // The counter row starts at the highest stored id (a database restored without it goes on).
  const [top] = (await db.orm.select({ m: max(c('id')) }).from(events)) as { m: number | string | null }[];
  await db.transaction(async () => {
    await db.orm.insert(seq).values({ name: SEQ, value: Number(top?.m ?? 0) } as never).onConflictDoNothing();
  });

  const where = (scope: StatusScope, extra: SQL[]) => {
    const parts = [...extra];
    if (scope.tenant_id !== undefined) parts.push(eq(c('tenant_id'), scope.tenant_id));
    if (scope.site_id !== undefined) parts.push(eq(c('site_id'), scope.site_id));
    return parts.length ? and(...parts) : undefined;
  };

  /** Inside a transaction: the event's id from the counter row, the event, its sync outbox entry. */
  const store = async (input: StatusInput): Promise<StatusEvent> => {
    const [next] = await nextValue(db, { name: SEQ });
    const item: StatusEvent = {
      id: Number(next!.value),
      tenant_id: input.tenant_id,
      site_id: input.site_id ?? null,
      source: input.source,
      event: input.event,
      status: input.status,
      correlation_id: input.correlation_id ?? null,
      details: input.details ?? null,
      timestamp: new Date().toISOString(),
    };
    // Its id is new (the counter's): one prepared INSERT on SQLite, no query built per event.
    await storeFor<StatusEvent & Record<string, unknown>>(db, statusEvents).append(item as StatusEvent & Record<string, unknown>);
    await need(services, 'bus').stage('status', item);
    return item;
  };

  return {
    publish(input) {
      return lock(async () => {
        const row = await db.transaction(() => store(input));
        need(services, 'bus').emit('status', row);
        return row;
      });
    },
    publishWith(work) {
      return lock(async () => {
        const written: StatusEvent[] = [];
        const out = await work(async (input) => {
          if (!db.inTransaction()) throw new Error('publishWith: write a status event inside the transaction of its change');
          const item = await store(input);
          written.push(item);
          return item;
        });
        for (const item of written) need(services, 'bus').emit('status', item);
        return out;
      });
    },
    async after(after, scope, limit) {
      const rows = (await db.orm.select().from(events).where(where(scope, [gt(c('id'), after)])).orderBy(asc(c('id'))).limit(limit)) as StatusEvent[];
      return rows.map((r) => ({ ...r, id: Number(r.id) }));
    },
    async lastId(scope) {
      const [r] = (await db.orm.select({ m: max(c('id')) }).from(events).where(where(scope, []))) as { m: number | string | null }[];
      return Number(r?.m ?? 0);
    },
    async purge(before) {
      await db.transaction(async () => {
        await db.orm.delete(events).where(lt(c('timestamp'), before.toISOString()));
      });
    },
  };
}
