// Group commit of appended rows (readings). A commit is the costliest step of a reading: on
// SQLite in WAL mode each one writes its pages to the WAL (about 0.2 ms on a loaded box, more
// than the INSERT), on PostgreSQL it is a round trip and a WAL flush. Readings that arrive
// together (several controllers, MQTT publishers or HTTP clients at once) are stored in one
// transaction: each caller's promise settles only once the transaction holding its row has
// committed, so a reading acknowledged to its sender is stored, as before.
//
// A batch is what was appended during one turn of the event loop (flushed by setImmediate), or,
// while a commit is under way (PostgreSQL), what arrived meanwhile. A row nobody waits on
// (`gatherMs`: a device poll's reading, an MQTT reading) may wait that long for others: on a quiet
// site every reading was a commit of its own, and each commit writes every page it touched to the
// flash (a 10-house site polled every 10 s wrote 50 KiB per reading, bench/flash-site.ts). A row
// appended without it (an HTTP client waiting for its answer) takes the waiting ones along at the
// end of its turn. A batch that fails is retried
// row by row, so one bad row fails alone. A caller inside a transaction appends in it: the row
// commits (or rolls back) with the caller's transaction, and waiting for the group could not end
// (the group needs the writer that transaction holds).
//
// Held rows (telemetry_hold_ms, configureGroupCommit): a row that may wait, of a table whose reads
// add the rows not yet committed (holdRowsOf, pendingRows: the poultry climate readings), waits
// for the whole minute's commit instead of telemetry_flush_ms: one commit a minute for a site's
// polled readings instead of one per poll round. A power cut loses at most that minute of them.
//
// Joiners (joinGroupCommit): what else waits for that commit without being a row of the group
// (the security log's allowed requests) hands its rows over when a group's commit starts, so the
// minute is one commit, not one per writer: each commit rewrites the database header, the log
// index (-shm) and the log's last partly written block (bench/flash-site.ts).
import type { Database } from './client.js';
import type { Store } from './store.js';

/** A minute's last seconds still join its commit: a poll round that straddles the minute goes in one commit. */
const HOLD_GRACE_MS = 2000;

/** At most this many rows per transaction: a burst is several commits, not one that holds the writer long. */
export const GROUP_COMMIT_MAX_ROWS = 256;

interface Pending {
  store: Store<Record<string, unknown>>;
  row: Record<string, unknown>;
  resolve(): void;
  reject(err: unknown): void;
}

interface Group {
  queue: Pending[];
  /** The rows of the commit under way (pendingRows still shows them). */
  committing: Pending[];
  scheduled: boolean;
  /** The gather timer, while the queue holds only rows that may wait; timerAt: when it fires. */
  timer: NodeJS.Timeout | undefined;
  timerAt: number;
  running: boolean;
  /** Transactions committed by this group (tests and benchmarks read it). */
  commits: number;
}

const groups = new WeakMap<Database, Group>();
const groupOf = (db: Database): Group => {
  let g = groups.get(db);
  if (!g) groups.set(db, (g = { queue: [], committing: [], scheduled: false, timer: undefined, timerAt: 0, running: false, commits: 0 }));
  return g;
};

const holds = new WeakMap<Database, number>();
const joiners = new WeakMap<Database, Set<() => void>>();

/**
 * `handOver` runs when a timed commit of the group on `db` starts (before it takes its queue): it
 * may append rows (appendGrouped with gatherMs) that then share that commit. Returns the undo.
 */
export function joinGroupCommit(db: Database, handOver: () => void): () => void {
  let set = joiners.get(db);
  if (!set) joiners.set(db, (set = new Set()));
  set.add(handOver);
  return () => set.delete(handOver);
}

function handOvers(db: Database): void {
  for (const fn of joiners.get(db) ?? []) fn();
}
const heldTables = new Set<string>();

/** How long rows that may wait, of the tables that allow it, are held on `db` (telemetry_hold_ms; 0: they gather for their gatherMs). */
export function configureGroupCommit(db: Database, opts: { holdMs: number }): void {
  holds.set(db, opts.holdMs);
}

/** The reads of `table` add its rows not yet committed (pendingRows), so its rows that may wait can be held. */
export function holdRowsOf(table: string): void {
  heldTables.add(table);
}

/** Rows of `table` appended on `db` and not yet committed, oldest first. */
export function pendingRows<Row extends Record<string, unknown>>(db: Database, table: string): Row[] {
  const g = groups.get(db);
  if (!g) return [];
  const out: Row[] = [];
  for (const p of [...g.committing, ...g.queue]) if (p.store.table.name === table) out.push(p.row as Row);
  return out;
}

/** When a row held now is committed: the next whole period, plus the grace. */
const holdUntil = (now: number, period: number) => (Math.floor((now - HOLD_GRACE_MS) / period) + 1) * period + HOLD_GRACE_MS;

/**
 * When something held on `db` now is committed: the next whole period of telemetry_hold_ms plus the
 * grace (the moment the held readings and telemetry are committed, so whatever else nobody waits
 * for can be written at the same time), or undefined when nothing is held (telemetry_hold_ms 0).
 */
export function heldCommitAt(db: Database, now = Date.now()): number | undefined {
  const hold = holds.get(db) ?? 0;
  return hold > 0 ? holdUntil(now, hold) : undefined;
}

/** How many group transactions have committed on `db` (for tests and benchmarks). */
export const groupCommits = (db: Database): number => groups.get(db)?.commits ?? 0;

/**
 * Appends `row` through `store`; resolves once the transaction that holds it has committed.
 * `gatherMs`: the row may wait that long for others to share its commit (nobody waits for its answer).
 */
export function appendGrouped<Row extends Record<string, unknown>>(db: Database, store: Store<Row>, row: Row, opts: { gatherMs?: number } = {}): Promise<void> {
  if (db.inTransaction()) return store.append(row);
  const g = groupOf(db);
  return new Promise<void>((resolve, reject) => {
    g.queue.push({ store: store as unknown as Store<Record<string, unknown>>, row, resolve, reject });
    if (g.running) return; // the commit under way takes it next
    const gather = opts.gatherMs ?? 0;
    if (gather > 0) {
      const hold = heldTables.has(store.table.name) ? (holds.get(db) ?? 0) : 0;
      const now = Date.now();
      const at = hold > 0 ? holdUntil(now, hold) : now + gather;
      // A row that may wait less than the timer set brings it forward (a gathered row behind held ones).
      if (!g.scheduled || (g.timer && at < g.timerAt)) {
        if (g.timer) clearTimeout(g.timer);
        g.scheduled = true;
        g.timerAt = at;
        g.timer = setTimeout(() => { g.timer = undefined; handOvers(db); void run(db, g); }, at - now);
      }
      return;
    }
    if (g.timer) {
      clearTimeout(g.timer);
      g.timer = undefined;
      g.scheduled = false;
    }
    if (!g.scheduled) {
      g.scheduled = true;
      setImmediate(() => void run(db, g));
    }
  });
}

/** Commits what is gathered now (the server calls it before the database closes). */
export async function flushGrouped(db: Database): Promise<void> {
  const g = groups.get(db);
  // Inside a transaction a group's commit would wait for this one: nothing to wait for here.
  if (!g || db.inTransaction()) return;
  for (;;) {
    // A row gathered meanwhile arms the timer again: run it now too, rather than wait for it.
    if (g.timer) {
      clearTimeout(g.timer);
      g.timer = undefined;
      handOvers(db);
      await run(db, g);
    } else if (g.running || g.scheduled) {
      await new Promise((resolve) => setImmediate(resolve));
    } else {
      return;
    }
  }
}

async function run(db: Database, g: Group): Promise<void> {
  g.scheduled = false;
  g.running = true;
  try {
    while (g.queue.length) {
      g.committing = g.queue.splice(0, GROUP_COMMIT_MAX_ROWS);
      await commit(db, g, g.committing);
      g.committing = [];
    }
  } finally {
    g.running = false;
    g.committing = [];
  }
}

const appendAll = async (batch: Pending[]) => {
  for (const p of batch) await p.store.append(p.row);
};

async function commit(db: Database, g: Group, batch: Pending[]): Promise<void> {
  try {
    // SQLite with nobody's transaction open: one row commits by itself (no BEGIN/COMMIT statements).
    if (batch.length === 1 && db.writerIdle?.()) await appendAll(batch);
    else await db.transaction(() => appendAll(batch));
    g.commits++;
  } catch (err) {
    if (batch.length === 1) {
      batch[0]!.reject(err);
      return;
    }
    for (const p of batch) {
      try {
        await db.transaction(() => appendAll([p]));
        g.commits++;
        p.resolve();
      } catch (one) {
        p.reject(one);
      }
    }
    return;
  }
  for (const p of batch) p.resolve();
}
