// The security log: every login, logout, allow and deny. Entries are buffered and written in
// one transaction per flush, so logging each access decision does not cost a write per request.
//
// When an entry is written (flash wear; what a stop may lose: docs/storage-and-reads.md):
// - an allowed request (category access, result allow: one per API request, a tablet's screen
//   makes a few a second) waits for the whole minute's commit of what nobody waits for
//   (telemetry_hold_ms, heldCommitAt): with a 2 s flush these entries were most of what a site
//   with a tablet wrote to its flash, each flush rewriting a page of the table and of its three
//   indexes. The entries are handed to the readings' group commit when it starts
//   (joinGroupCommit), so the minute is one commit; with no readings held the log commits them
//   itself a moment later (JOIN_SLACK_MS). A power cut loses at most that minute of them;
// - a refusal (result deny) and every authentication or session event (logins, logouts, MQTT
//   connections) within flushMs (2 s), taking the held entries along. Not at once: a flood of
//   refused requests would otherwise be a commit each, a way to wear the flash from the network;
// - at most HELD_MAX entries wait: under load they are written as they reach it.
// An allowed read (GET, HEAD) that repeats a waiting one (the same caller, from the same address,
// the same path: mergeKey) is not an entry of its own: the waiting entry counts it (count,
// last_at). A tablet's screen asks the same read every few seconds; an entry a request was most of
// what such a site wrote to its flash, and it told no more than who read what, from where, how
// often and when first and last in the minute. Changes, refusals and authentication or session
// events are never merged: each is an entry, with its own request id.
// A clean stop writes everything (the server flushes before the database closes); a reader
// flushes first, so a list never misses an entry.
//
// The entries of the table as it was before migration auth/0002 (kept as OLD_TABLE, SQLite) are
// moved into the new one after the start, COPY_CHUNK at a time, oldest first, then the old
// table is dropped: until then a list shows the new entries and those moved so far.
import type { Database } from '../db/client.js';
import type { Logger } from '../kernel/logger.js';
import { isoNow } from '../kernel/clock.js';
import { timeId } from '../kernel/ids.js';
import type { RouteContext } from '../kernel/route-context.js';
import { lt } from 'drizzle-orm';
import type { SqliteStatement } from '../db/client.js';
import { Store } from '../db/store.js';
import { appendGrouped, heldCommitAt, joinGroupCommit } from '../db/group-commit.js';
import { columnOf, tableFor } from '../db/table.js';
import { securityLog } from './tables.js';

export interface SecurityEvent {
  category: 'auth' | 'access' | 'session';
  result: 'allow' | 'deny';
  event: string;
  method: string;
  path: string;
  tenant_id?: string | null;
  subject?: string | null;
  role?: string | null;
  client_address?: string | null;
  reason?: string | null;
  request_id?: string | null;
  route_context?: RouteContext;
}

export interface SecurityLogRow extends Record<string, unknown> {
  id: string;
  at: string;
  category: string;
  result: string;
  event: string;
  method: string;
  path: string;
  tenant_id: string | null;
  subject: string | null;
  role: string | null;
  client_address: string | null;
  reason: string | null;
  request_id: string | null;
  route_context: RouteContext;
  /** How many requests the entry stands for: more than 1 for an allowed read repeated while it waited. */
  count: number;
  /** The last of those requests (null when the entry stands for one: `at` is its time). */
  last_at: string | null;
}

const PURGE_EVERY_MS = 60 * 60_000;
/** The table before migration auth/0002 (SQLite), copied over in the background. */
export const OLD_TABLE = 'auth_security_log_0001';
/** Entries copied a transaction (a few tens of ms of the event loop), and the pause between two. */
const COPY_CHUNK = 2000;
const COPY_PAUSE_MS = 100;
/**
 * Entries held at most: more are written at the end of their turn. Under load (hundreds of
 * requests a second) a minute's entries would otherwise be tens of thousands of objects kept in
 * the heap (the box's memory under 50 clients) and one long transaction; 500 entries are one
 * commit of about 150 KB, as cheap a write per entry as a minute's.
 */
const HELD_MAX = 500;
const COLUMNS = Object.keys(securityLog.columns) as (keyof SecurityLogRow & string)[];
/** OLD_TABLE's columns (it is older than count and last_at, migration auth/0003). */
const OLD_COLUMNS = COLUMNS.filter((c) => c !== 'count' && c !== 'last_at');
/** Allowed requests that read: repeated ones are merged while they wait. */
const READS = new Set(['GET', 'HEAD']);

/** What two allowed reads share to be one entry: everything but their time and request. */
function mergeKey(e: SecurityEvent): string | undefined {
  if (e.category !== 'access' || e.result !== 'allow' || !READS.has(e.method)) return undefined;
  return JSON.stringify([e.tenant_id ?? null, e.subject ?? null, e.role ?? null, e.client_address ?? null, e.method, e.path, e.event, e.reason ?? null]);
}
/**
 * The log's own commit of held entries comes this long after the readings' held commit, which
 * takes them along when it runs (both are set for the same moment; the group's goes first).
 */
const JOIN_SLACK_MS = 250;

export class SecurityLog {
  private buffer: SecurityLogRow[] = [];
  /** The buffer's allowed reads by mergeKey (cleared with the buffer: a handed entry is never changed). */
  private readonly merging = new Map<string, SecurityLogRow>();
  private lastPurge = 0;
  private timer: NodeJS.Timeout | undefined;
  /** When the armed timer fires (an entry due sooner brings it forward). */
  private timerAt = 0;
  private flushing: Promise<void> = Promise.resolve();
  private readonly store: Store<SecurityLogRow>;
  /** SQLite: one prepared single-row insert, run per entry inside the flush's transaction. */
  private insertOne: SqliteStatement | undefined;
  /** Entries handed to a group commit and not yet committed (a reader waits for them). */
  private readonly handed = new Set<Promise<void>>();

  constructor(
    private readonly db: Database,
    private readonly log: Logger,
    private readonly retentionDays = 90,
    // Refusals and authentication events are written at most this long after they happen; allowed
    // requests wait for the minute's commit (above). A power cut loses at most this long of them.
    private readonly flushMs = 2000,
  ) {
    this.store = new Store<SecurityLogRow>(db, securityLog);
    joinGroupCommit(db, () => this.handOver());
    if (db.prepareSqlite) this.copying = this.copyOld();
  }

  /** The background copy of OLD_TABLE (tests wait for it). */
  readonly copying: Promise<void> | undefined;

  /**
   * Moves OLD_TABLE's entries into the table, COPY_CHUNK a transaction in the old table's order
   * (rowid: the order they were written), each chunk copied and deleted in one transaction, so a
   * copy stopped midway (a stop, a crash) goes on at the next start with what is left; then drops
   * OLD_TABLE, empty by then (dropping it whole held the event loop as long as it freed pages).
   */
  private async copyOld(): Promise<void> {
    const sqlite = this.db.prepareSqlite!;
    const cols = OLD_COLUMNS.map((c) => `"${c}"`).join(', ');
    try {
      if (!sqlite(`select 1 from sqlite_master where type = 'table' and name = ?`).get(OLD_TABLE)) return;
      const last = sqlite(`select coalesce((select rowid from "${OLD_TABLE}" order by rowid limit 1 offset ${COPY_CHUNK - 1}), (select max(rowid) from "${OLD_TABLE}")) as r`);
      // `or ignore`: an entry already in the table (written there by hand) does not stop the move.
      const copy = sqlite(`insert or ignore into "${securityLog.name}" (${cols}) select ${cols} from "${OLD_TABLE}" where rowid <= ?`);
      const drop = sqlite(`delete from "${OLD_TABLE}" where rowid <= ?`);
      let moved = 0;
      for (;;) {
        const upTo = await this.db.transaction(async () => {
          const r = (last.get() as { r: number | null }).r;
          if (r !== null) {
            moved += Number((copy.run(r) as { changes: number }).changes);
            drop.run(r);
          }
          return r;
        });
        if (upTo === null) break;
        await new Promise((resolve) => setTimeout(resolve, COPY_PAUSE_MS));
      }
      await this.db.exec(`drop table "${OLD_TABLE}"`);
      if (moved) this.log.info('security log: entries from before the update copied', { entries: moved });
    } catch (err) {
      // The database closed meanwhile (a stop): the next start goes on with what is left.
      this.log.warn('security log: copy of the entries from before the update stopped', { error: (err as Error).message });
    }
  }

  /**
   * A group commit starts: what is buffered joins it when the log's own write is due within
   * JOIN_SLACK_MS (the minute's commit; a swine site's readings committed every 2 s do not take
   * the minute's entries along, which would rewrite the log's last page every 2 s).
   */
  private handOver(): void {
    if (!this.buffer.length || !this.timer || this.timerAt - Date.now() > JOIN_SLACK_MS) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.buffer;
    this.buffer = [];
    this.merging.clear();
    for (const row of rows) {
      const p = appendGrouped(this.db, this.store, row, { gatherMs: this.flushMs })
        .catch((err: unknown) => this.log.error('security log write failed', { error: (err as Error).message, entries: 1 }))
        .finally(() => this.handed.delete(p));
      this.handed.add(p);
    }
    if (Date.now() - this.lastPurge > PURGE_EVERY_MS) void this.flush();
  }

  record(e: SecurityEvent): void {
    const key = mergeKey(e);
    const waiting = key === undefined ? undefined : this.merging.get(key);
    if (waiting) {
      // Its timer is armed already: the entry is written when it would have been.
      waiting.count++;
      waiting.last_at = isoNow();
      return;
    }
    // A time-ordered id: one entry per request goes into this table, and a random key put each
    // entry on a page of its own in the key's index (a flush of hundreds wrote as many pages).
    const row: SecurityLogRow = {
      id: timeId(), at: isoNow(), category: e.category, result: e.result, event: e.event,
      method: e.method, path: e.path, tenant_id: e.tenant_id ?? null, subject: e.subject ?? null, role: e.role ?? null,
      client_address: e.client_address ?? null, reason: e.reason ?? null, request_id: e.request_id ?? null, route_context: e.route_context ?? {},
      count: 1, last_at: null,
    };
    this.buffer.push(row);
    if (key !== undefined) this.merging.set(key, row);
    if (e.result === 'deny') this.log.warn('security deny', { event: e.event, path: e.path, reason: e.reason, subject: e.subject, request_id: e.request_id });
    const now = Date.now();
    const held = e.result === 'allow' && e.category === 'access' ? heldCommitAt(this.db, now) : undefined;
    const at = this.buffer.length >= HELD_MAX ? now : held !== undefined ? held + JOIN_SLACK_MS : now + this.flushMs;
    if (this.timer) {
      if (at >= this.timerAt) return;
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(() => void this.flush(), at - now);
  }

  /** Writes what is buffered; readers call it first so a list never misses a recorded event. */
  flush(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const rows = this.buffer;
    this.buffer = [];
    this.merging.clear();
    const handed = [...this.handed];
    this.flushing = this.flushing.then(async () => {
      await Promise.all(handed);
      if (!rows.length && Date.now() - this.lastPurge <= PURGE_EVERY_MS) return;
      try {
        await this.db.transaction(async () => {
          if (this.db.prepareSqlite) {
            // SQLite: a prepared statement per entry costs less than building a multi-row insert.
            this.insertOne ??= this.db.prepareSqlite(`insert into "${securityLog.name}" (${COLUMNS.map((c) => `"${c}"`).join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
            for (const row of rows) this.insertOne.run(...COLUMNS.map((c) => (c === 'route_context' ? JSON.stringify(row[c]) : row[c])));
          } else {
            // Multi-row inserts: one statement per 200 entries, not one per entry.
            for (let i = 0; i < rows.length; i += 200) await this.db.orm.insert(this.storeTable()).values(rows.slice(i, i + 200) as never);
          }
          if (Date.now() - this.lastPurge > PURGE_EVERY_MS) {
            this.lastPurge = Date.now();
            const cutoff = new Date(Date.now() - this.retentionDays * 86_400_000).toISOString();
            await this.db.orm.delete(this.storeTable()).where(lt(columnOf(securityLog, this.db.dialect, 'at'), cutoff));
          }
        });
      } catch (err) {
        this.log.error('security log write failed', { error: (err as Error).message, entries: rows.length });
      }
    });
    return this.flushing;
  }

  private storeTable() {
    return tableFor(securityLog, this.db.dialect);
  }

  get rows(): Store<SecurityLogRow> {
    return this.store;
  }
}
