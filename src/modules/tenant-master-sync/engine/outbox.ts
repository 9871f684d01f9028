// The edge's durable outbox: events are numbered by a counter row updated in the same
// transaction as the insert, so sequence numbers only grow, across restarts and after delivered
// rows are deleted (a rowid would be reused, and the master would take the new event for a
// duplicate). Rows are deleted only after the master has answered that it applied them.
import { asc, count, eq, gt, lte, max, min, sql } from 'drizzle-orm';
import type { Database, SqliteStatement } from '../../../db/client.js';
import { colOf, tableOf } from '../../../db/sql.js';
import { syncOutbox, syncState } from '../schema.js';
import type { EventKind, OutboxEvent, WireEvent } from './protocol.js';

const SEQ_KEY = 'outbox_seq';

/** An outbox event as peekWire answers it: its payload's JSON text, and the whole event's. */
export interface WireText {
  seq: number;
  kind: string;
  payload: string;
  text: string;
}

export class Outbox {
  private wireStatement: SqliteStatement | undefined;
  private countStatement: SqliteStatement | undefined;

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

  /**
   * peek() as the push sends it: each event's JSON text, built around its payload as stored (the
   * column's JSON text on SQLite; an engine that answers it parsed has it serialised), so a push
   * parses and serialises no payload (but a telemetry event's, when the master takes columns:
   * engine/columns.ts). Also the created_at of the first event left behind (null:
   * none), read in the same query.
   */
  async peekWire(max: number, maxBytes: number, after = 0): Promise<{ events: WireText[]; nextAt: string | null }> {
    const db = this.db;
    const c = (n: string) => colOf(syncOutbox, db, n);
    type Row = { seq: number | string; kind: string; created_at: string; payload: unknown };
    // On SQLite a statement of its own, its rows as they are (Drizzle's mapping of 500 rows cost
    // the box more than the read).
    const rows = db.prepareSqlite
      ? ((this.wireStatement ??= db.prepareSqlite(`select "seq", "kind", "created_at", "payload" from "${syncOutbox.name}" where "seq" > ? order by "seq" limit ?`)).all(after, max + 1) as Row[])
      : ((await db.orm.select({ seq: c('seq'), kind: c('kind'), created_at: c('created_at'), payload: sql<unknown>`${c('payload')}` })
        .from(tableOf(syncOutbox, db)).where(after > 0 ? gt(c('seq'), after) : undefined).orderBy(asc(c('seq'))).limit(max + 1)) as Row[]);
    const events: WireText[] = [];
    let bytes = 0;
    let nextAt: string | null = null;
    for (const r of rows) {
      const payload = typeof r.payload === 'string' ? r.payload : JSON.stringify(r.payload);
      const text = `{"seq":${Number(r.seq)},"kind":${JSON.stringify(r.kind)},"created_at":${JSON.stringify(r.created_at)},"payload":${payload}}`;
      if (events.length === max || (events.length && bytes + text.length > maxBytes)) {
        nextAt = r.created_at;
        break;
      }
      bytes += text.length;
      events.push({ seq: Number(r.seq), kind: r.kind, payload, text });
    }
    return { events, nextAt };
  }

  /** Forgets the events the master has applied. */
  async ack(upTo: number): Promise<void> {
    const db = this.db;
    await db.transaction(async () => {
      await db.orm.delete(tableOf(syncOutbox, db)).where(lte(colOf(syncOutbox, db, 'seq'), upTo));
    });
  }

  /**
   * How many events come after `seq`, read at the two ends of the key instead of counted along it
   * (a count of what is left behind each batch read most of a catch-up's outbox again, every
   * push). The outbox's seqs are one run: append numbers its rows on from the counter in the
   * transaction that inserts them (a rolled-back append takes its numbers back with it), and rows
   * leave only as a prefix (ack). Only advanceTo skips numbers, after ack() emptied the outbox up
   * to them; the count is then exact again once the events before the skip are acknowledged.
   */
  async countAfter(seq: number): Promise<number> {
    const db = this.db;
    const t = tableOf(syncOutbox, db);
    const c = colOf(syncOutbox, db, 'seq');
    type Ends = { lo: number | string | null; hi: number | string | null } | undefined;
    // On SQLite a statement of its own on the writer's connection, like peekWire's (a read handed
    // to the reader thread cost more than the count it replaces).
    const r = (db.prepareSqlite
      ? (this.countStatement ??= db.prepareSqlite(`select (select min("seq") from "${syncOutbox.name}" where "seq" > ?) as lo, (select max("seq") from "${syncOutbox.name}") as hi`)).get(seq)
      : (await db.rows<NonNullable<Ends>>(sql`select (select min(${c}) from ${t} where ${c} > ${seq}) as lo, (select max(${c}) from ${t}) as hi`))[0]) as Ends;
    return r?.lo === null || r?.lo === undefined ? 0 : Number(r.hi) - Number(r.lo) + 1;
  }

  /** The lowest and highest seq waiting (null: the outbox is empty). */
  async ends(): Promise<{ first: number | null; last: number | null }> {
    const db = this.db;
    const c = colOf(syncOutbox, db, 'seq');
    const [r] = (await db.orm.select({ lo: min(c), hi: max(c) }).from(tableOf(syncOutbox, db))) as { lo: number | string | null; hi: number | string | null }[];
    return { first: r?.lo === null || r?.lo === undefined ? null : Number(r.lo), last: r?.hi === null || r?.hi === undefined ? null : Number(r.hi) };
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
