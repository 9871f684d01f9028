// The fleet figures of analytics/summary and analytics/metrics, computed once and served until
// their inputs change, instead of recomputed (and the metrics rows rewritten) on every read. The
// metric rows the kit lists are written once per snapshot, when a list first asks for them (or by
// the background refresh below), so a summary read never waits for that write. A background
// refresh runs at most once per FRESH_MS while reads come, its queries one at a time (one pooled
// connection, so the reads are not queued behind it).
//
// Freshness, per read:
//  - A change stamp is read first: one query of counts, sums and latest times over the tables the
//    figures come from (the sync's site rows, which every push that applies events updates in its
//    own transaction; the master's own alarms, tasks and subscriptions). It is read from the
//    database, so a push or an alarm stored by ANOTHER master process changes it as well.
//  - Stamp unchanged and snapshot younger than FRESH_MS: the snapshot is the answer.
//  - Stamp unchanged and snapshot younger than MAX_AGE_MS: the snapshot is the answer and a new one
//    is computed in the background (the windows slide with time even when nothing arrives).
//  - Otherwise (a change, an old or no snapshot): the read waits for a new computation.
// So a stored change is in the next read's answer, in every process; what can be out of date is
// only the slide of the windows, by at most MAX_AGE_MS (`computed_at` says when they were cut).
// Changes the stamp cannot see (an update that keeps every count and sum, e.g. two sites whose
// reported pending events move by +1 and -1 at once) are likewise in the answer within MAX_AGE_MS.
// Under steady ingest (pushes with events every few seconds) nearly every read follows a change
// and waits for a computation: what is not done yet is keeping the snapshot itself current on
// ingest (applying a push's additions to it).
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../kernel/clock.js';
import type { Logger } from '../../kernel/logger.js';
import type { MetricRow } from './schema.js';
import { figureMetricRows, figureSummary, loadFigures } from './rollups.js';

/** A snapshot younger than this is served as it is while its stamp holds. */
export const FRESH_MS = 10_000;
/** The longest a snapshot is served (its windows' slide); older ones are recomputed before the answer. */
export const MAX_AGE_MS = 30_000;

export interface Snapshot {
  stamp: string;
  /** When it was computed, on the box's clock (its age decides freshness). */
  at: number;
  summary: ReturnType<typeof figureSummary>;
  rows: MetricRow[];
  /** The rows stored for the kit's list: written when a list first needs them (storedRows), never for the summary. */
  written?: Promise<void>;
}

interface Deps {
  db: Database;
  config: Pick<Config, 'mode' | 'industry'>;
  clock: Pick<Clock, 'now'>;
  log?: Pick<Logger, 'warn'>;
}

const snapshots = new WeakMap<Database, Snapshot>();
/** The computation under way per database, with the stamp it started from; concurrent readers share it. */
const running = new WeakMap<Database, { stamp: string; done: Promise<Snapshot> }>();

/** What changes whenever a figure's input is stored (see the header). */
export async function changeStamp(db: Database): Promise<string> {
  // One pass over each table (1,000 site rows at 1,000 sites; the master's own rows are few). Only
  // what a figure reads: a pull that reports nothing new (last_seen_at alone) keeps the snapshot;
  // a site's industry by the length of its code (poultry, swine and melioration differ).
  const [row] = await db.read<Record<string, unknown>>(sql`select * from
    (select count(*) as sites, sum(events_received) as events, sum(reported_pending) as pending, sum(length(coalesce(industry_code, ''))) as industries from sync_sites) s,
    (select count(*) as alarms, max(raised_at) as raised, sum(case when state = 'open' then 1 else 0 end) as open,
      sum(case when state = 'open' and severity = 'critical' then 1 else 0 end) as critical from alarms) a,
    (select count(*) as tasks, max(updated_at) as tasks_at from tasks) t,
    (select count(*) as subs, max(updated_at) as subs_at from subscriptions) u`);
  // Drivers differ in how they type counts (bigint text, number); the stamp compares text.
  return Object.values(row ?? {}).map((v) => (v === null || v === undefined ? '' : String(v))).join('|');
}

const COLUMNS = ['id', 'tenant_id', 'industry_code', 'metric', 'window', 'value', 'unit', 'samples', 'computed_at'] as const;

/**
 * Writes the metric rows for the kit's list in one statement (the rows as one JSON parameter: a
 * tenth of the time of multi-row inserts of bound values at 3,150 rows). A later cut written
 * meanwhile by another process is kept: rows are replaced only by a cut at least as recent, and
 * only rows older than this cut (groups that are gone) are deleted.
 */
async function store(db: Database, rows: MetricRow[], computedAt: string): Promise<void> {
  const cols = sql.raw(COLUMNS.map((c) => `"${c}"`).join(', '));
  const set = sql.raw(COLUMNS.filter((c) => c !== 'id').map((c) => `"${c}" = excluded."${c}"`).join(', '));
  const json = JSON.stringify(rows.map((r) => Object.fromEntries(COLUMNS.map((c) => [c, r[c]]))));
  const source = db.engine === 'postgresql'
    ? sql`select ${cols} from json_populate_recordset(null::analytics_metrics, ${json}::json)`
    : sql`select ${sql.raw(COLUMNS.map((c) => `json_extract(value, '$.${c}')`).join(', '))} from json_each(${json}) where true`;
  await db.transaction(async () => {
    await db.run(sql`delete from analytics_metrics where computed_at < ${computedAt}`);
    await db.run(sql`insert into analytics_metrics (${cols}) ${source}
      on conflict ("id") do update set ${set} where analytics_metrics.computed_at <= excluded.computed_at`);
  });
}

/** `background`: a refresh nobody waits for, which also stores its rows so a later list need not. */
function compute(deps: Deps, stamp: string, background = false): Promise<Snapshot> {
  const { db, config, clock } = deps;
  const started = clock.now();
  const done = (async () => {
    // A background refresh runs its queries one at a time: it must not hold the pool from the reads.
    const figures = await loadFigures(db, undefined, Date.now(), { inTurn: background });
    const summary = figureSummary(figures, config);
    const snap: Snapshot = { stamp, at: started, summary, rows: figureMetricRows(figures, config) };
    // A slower computation from an older stamp must not replace a newer snapshot.
    const held = snapshots.get(db);
    if (!held || held.at <= snap.at) snapshots.set(db, snap);
    if (background) await storedRows(db, snap);
    return snap;
  })().finally(() => { if (running.get(db)?.done === done) running.delete(db); });
  running.set(db, { stamp, done });
  return done;
}

/** The snapshot to answer from, per the rules in the header. */
export async function currentSnapshot(deps: Deps): Promise<Snapshot> {
  const { db, clock } = deps;
  const stamp = await changeStamp(db);
  const held = snapshots.get(db);
  const age = held ? clock.now() - held.at : Infinity;
  const inFlight = running.get(db);
  if (held && held.stamp === stamp && age < MAX_AGE_MS) {
    if (age >= FRESH_MS && !inFlight) {
      void compute(deps, stamp, true).catch((err: Error) => deps.log?.warn('analytics refresh failed', { error: err.message }));
    }
    return held;
  }
  // A computation that started from this stamp read its rows after the stamp: it sees the change.
  if (inFlight && inFlight.stamp === stamp) return inFlight.done;
  return compute(deps, stamp);
}

/**
 * The snapshot's metric rows in the table the kit lists, filters and pages, written once per
 * snapshot and only when a list asks (a summary read never waits for them, and never competes
 * with their write). A failed write is the list's error; the next list tries again.
 */
export function storedRows(db: Database, snap: Snapshot): Promise<void> {
  if (!snap.written) {
    snap.written = store(db, snap.rows, snap.summary.computed_at);
    snap.written.catch(() => { snap.written = undefined; });
  }
  return snap.written;
}

/** Forgets the snapshots (tests: the next read computes). */
export function dropSnapshot(db: Database): void {
  snapshots.delete(db);
}
