// The edge's durable outbox: events are numbered by a counter row updated in the same
// transaction as the insert, so sequence numbers only grow, across restarts and after delivered
// rows are deleted (a rowid would be reused, and the master would take the new event for a
// duplicate). Rows are deleted only after the master has answered that it applied them.
import { asc, count, eq, gt, lte, min, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.js';
import { colOf, tableOf } from '../../../db/sql.js';
import { syncOutbox, syncState } from '../schema.js';
import type { EventKind, OutboxEvent, WireEvent } from './protocol.js';

const SEQ_KEY = 'outbox_seq';

export class Outbox {
  constructor(private readonly db: Database) {}

  async init(): Promise<void> {
    const db = this.db;
    await db.transaction(async () => {
      const [top] = (await db.orm.select({ m: sql<number>`max(${colOf(syncOutbox, db, 'seq')})` }).from(tableOf(syncOutbox, db))) as { m: number | string | null }[];
      await db.orm.insert(tableOf(syncState, db)).values({ key: SEQ_KEY, value: Number(top?.m ?? 0) } as never).onConflictDoNothing();
    });
  }

  /** Appends events in one transaction; returns their sequence numbers. */
  async append(events: { kind: EventKind; payload: Record<string, unknown>; created_at?: string }[]): Promise<number[]> {
    if (!events.length) return [];
    const db = this.db;
    return db.transaction(async () => {
      const st = tableOf(syncState, db);
      const key = colOf(syncState, db, 'key');
      const [row] = (await db.orm.select().from(st).where(eq(key, SEQ_KEY))) as { value: unknown }[];
      const first = Number(row?.value ?? 0) + 1;
      const seqs = events.map((_, i) => first + i);
      await db.orm.update(st).set({ value: first + events.length - 1 } as never).where(eq(key, SEQ_KEY));
      const now = new Date().toISOString();
      await db.orm.insert(tableOf(syncOutbox, db)).values(events.map((e, i) => ({ seq: seqs[i], kind: e.kind, created_at: e.created_at ?? now, payload: e.payload })) as never);
      return seqs;
    });
  }

  /** Makes the next sequence number larger than `seq` (a no-op when it already is). */
  async advanceTo(seq: number): Promise<void> {
    const db = this.db;
    await db.transaction(async () => {
      const st = tableOf(syncState, db);
      const key = colOf(syncState, db, 'key');
      const [row] = (await db.orm.select().from(st).where(eq(key, SEQ_KEY))) as { value: unknown }[];
      if (Number(row?.value ?? 0) < seq) await db.orm.update(st).set({ value: seq } as never).where(eq(key, SEQ_KEY));
    });
  }

  /** The oldest events (after `after`), at most `max` of them and about `maxBytes` of JSON (always at least one). */
  async peek(max: number, maxBytes: number, after = 0): Promise<WireEvent[]> {
    const db = this.db;
    const seq = colOf(syncOutbox, db, 'seq');
    const rows = (await db.orm.select().from(tableOf(syncOutbox, db)).where(after > 0 ? gt(seq, after) : undefined).orderBy(asc(seq)).limit(max)) as OutboxEvent[];
    const out: WireEvent[] = [];
    let bytes = 0;
    for (const r of rows) {
      const size = JSON.stringify(r.payload).length + 100;
      if (out.length && bytes + size > maxBytes) break;
      bytes += size;
      out.push({ seq: Number(r.seq), kind: r.kind, created_at: r.created_at, payload: r.payload });
    }
    return out;
  }

  /** Forgets the events the master has applied. */
  async ack(upTo: number): Promise<void> {
    const db = this.db;
    await db.transaction(async () => {
      await db.orm.delete(tableOf(syncOutbox, db)).where(lte(colOf(syncOutbox, db, 'seq'), upTo));
    });
  }

  /** How many events come after `seq`: along the key, without reading the rows before it. */
  async countAfter(seq: number): Promise<number> {
    const db = this.db;
    const [r] = (await db.orm.select({ n: count() }).from(tableOf(syncOutbox, db)).where(gt(colOf(syncOutbox, db, 'seq'), seq))) as { n: number | string }[];
    return Number(r?.n ?? 0);
  }

  async stats(): Promise<{ pending: number; oldest_at: string | null }> {
    const db = this.db;
    const [r] = (await db.orm.select({ n: count(), oldest: min(colOf(syncOutbox, db, 'created_at')) }).from(tableOf(syncOutbox, db))) as { n: number | string; oldest: string | null }[];
    return { pending: Number(r?.n ?? 0), oldest_at: r?.oldest ?? null };
  }

  async getState<T>(key: string): Promise<T | undefined> {
    const db = this.db;
    const [row] = (await db.orm.select().from(tableOf(syncState, db)).where(eq(colOf(syncState, db, 'key'), key))) as { value: T }[];
    return row?.value;
  }

  async setState(key: string, value: unknown): Promise<void> {
    const db = this.db;
    await db.transaction(async () => {
      const st = tableOf(syncState, db);
      await db.orm.delete(st).where(eq(colOf(syncState, db, 'key'), key));
      await db.orm.insert(st).values({ key, value } as never);
    });
  }
}
