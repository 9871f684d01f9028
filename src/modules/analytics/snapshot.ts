// The fleet figures of analytics/summary and analytics/metrics, computed once and then kept
// current by computing again only what changed, instead of recomputed (and the metrics rows
// rewritten) on every read. The metric rows the kit lists are written when a list asks for them,
// and then only the rows whose figures changed, so a summary read never waits for that write.
//
// Freshness, per read:
//  - A change stamp is read first: one query of counts, sums and latest times over the tables the
//    figures come from, in two parts: the sync's site rows (every push that applies events adds
//    to its site's `events_received` in its own transaction) and the master's own alarms, tasks and
//    subscriptions. It is read from the database, so a push or an alarm stored by ANOTHER master
//    process changes it as well.
//  - Stamp unchanged and snapshot younger than MAX_AGE_MS: the snapshot is the answer.
//  - Stamp changed and snapshot younger than MAX_AGE_MS: the snapshot is updated before the
//    answer. Site part changed: the site rows are read again and the sites whose event count moved
//    are computed again, and only they (a few index ranges per site: milliseconds, whatever the
//    fleet). Own part changed: the master's own counts are computed again (its own rows are few).
//    More than MAX_CHANGED_SITES changed sites, or a site gone, and everything is computed again.
//  - Snapshot older than FRESH_MS: a whole new one is computed in the background (the windows
//    slide with time even when nothing arrives), its queries one at a time on one pooled
//    connection, so the reads are not queued behind it.
//  - No snapshot, or one older than MAX_AGE_MS: the read waits for a whole computation.
// So a stored change is in the next read's answer, in every process. What can be out of date is
// the slide of the windows of the sites nothing changed, by at most MAX_AGE_MS: each site's
// figures carry the moment they were cut, and a metric row's `computed_at` is the newest cut of its
// sites. Changes the stamp cannot see (an update that keeps every count and sum, e.g. two sites
// whose reported pending events move by +1 and -1 at once) are likewise in the answer within
// MAX_AGE_MS.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import type { Config } from '../../config.js';
import type { Clock } from '../../kernel/clock.js';
import type { Logger } from '../../kernel/logger.js';
import type { MetricRow } from './schema.js';
import { figureMetricRows, figureSummary, loadFigures, loadOwn, loadRemote, loadSites, siteKey, type FigureSite, type Figures, type Member } from './rollups.js';

/** A snapshot younger than this is served as it is while its stamp holds. */
export const FRESH_MS = 10_000;
/** The longest a snapshot is served (its windows' slide); older ones are recomputed before the answer. */
export const MAX_AGE_MS = 30_000;
/** More sites changed than this (or than a fifth of the fleet) since the snapshot, and a read computes everything again. */
export const MAX_CHANGED_SITES = 100;

interface Stamp {
  sites: string;
  own: string;
  /** Taken before the stamp was read: a snapshot holds every change stored before it, so a higher one holds at least what a lower one promised. */
  seq: number;
}

export interface Snapshot {
  stamp: Stamp;
  /** When its whole computation began, on the box's clock (its age decides freshness). */
  at: number;
  /** The cut of that whole computation (epoch ms): the oldest cut of any figure in it. */
  base: number;
  figures: Figures;
  /** Each site's event count, read before its figures. */
  events: Map<string, number>;
  summary: ReturnType<typeof figureSummary>;
  rows: MetricRow[];
  /** A whole computation: all its rows are written, and older ones deleted. */
  whole: boolean;
  /** Computed by the background refresh, which writes its rows itself. */
  background?: boolean;
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
/** The computation or update under way per database, with the stamp it started from; concurrent readers share it. */
const running = new WeakMap<Database, { stamp: Stamp; done: Promise<Snapshot> }>();
/** The background refresh under way per database (at most one). */
const refreshing = new WeakMap<Database, Promise<Snapshot>>();

const sameStamp = (a: Stamp, b: Stamp) => a.sites === b.sites && a.own === b.own;

/** What changes whenever a figure's input is stored (see the header). */
let stampSeq = 0;

export async function changeStamp(db: Database): Promise<Stamp> {
  const seq = ++stampSeq;
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
  const text = (keys: string[]) => keys.map((k) => { const v = row?.[k]; return v === null || v === undefined ? '' : String(v); }).join('|');
  return { sites: text(['sites', 'events', 'pending', 'industries']), own: text(['alarms', 'raised', 'open', 'critical', 'tasks', 'tasks_at', 'subs', 'subs_at']), seq };
}

const COLUMNS = ['id', 'tenant_id', 'industry_code', 'metric', 'window', 'value', 'unit', 'samples', 'computed_at'] as const;

/** Rows per statement of a whole write: each commits alone, so the table is never locked whole (another process's update waits for one batch at most). */
const WRITE_BATCH = 400;

/**
 * Upserts metric rows for the kit's list in one statement (the rows as one JSON parameter: a tenth
 * of the time of multi-row inserts of bound values at 3,150 rows). A later cut written meanwhile
 * (by an update of this process, or by another process) is kept: rows are replaced only by a cut
 * at least as recent. `gone`: ids of groups that are gone, deleted in the same transaction.
 */
async function store(db: Database, rows: MetricRow[], gone: string[] = []): Promise<void> {
  const cols = sql.raw(COLUMNS.map((c) => `"${c}"`).join(', '));
  const set = sql.raw(COLUMNS.filter((c) => c !== 'id').map((c) => `"${c}" = excluded."${c}"`).join(', '));
  const json = JSON.stringify(rows.map((r) => Object.fromEntries(COLUMNS.map((c) => [c, r[c]]))));
  const source = db.engine === 'postgresql'
    ? sql`select ${cols} from json_populate_recordset(null::analytics_metrics, ${json}::json)`
    : sql`select ${sql.raw(COLUMNS.map((c) => `json_extract(value, '$.${c}')`).join(', '))} from json_each(${json}) where true`;
  await db.transaction(async () => {
    if (gone.length) await db.run(sql`delete from analytics_metrics where id in (${sql.join(gone.map((id) => sql`${id}`), sql`, `)})`);
    if (rows.length) {
      await db.run(sql`insert into analytics_metrics (${cols}) ${source}
        on conflict ("id") do update set ${set} where analytics_metrics.computed_at <= excluded.computed_at`);
    }
  });
}

const eventsOf = (sites: FigureSite[]) => new Map(sites.map((s) => [siteKey(s.tenant_id, s.site_id), Number(s.events_received)]));

function keep(snap: Snapshot, db: Database): Snapshot {
  // A slower computation from an older start must not replace a newer snapshot.
  const held = snapshots.get(db);
  if (!held || held.at <= snap.at) snapshots.set(db, snap);
  return snap;
}

function share(db: Database, stamp: Stamp, work: () => Promise<Snapshot>): Promise<Snapshot> {
  const done = work().finally(() => { if (running.get(db)?.done === done) running.delete(db); });
  running.set(db, { stamp, done });
  return done;
}

/** A whole computation. `background`: a refresh nobody waits for, which also stores its rows so a later list need not. */
async function compute(deps: Deps, stamp: Stamp, background = false): Promise<Snapshot> {
  const { db, config, clock } = deps;
  const at = clock.now();
  // The cut before any row is read: a row written later with an older cut (an update, in this or
  // another process) then read its data after everything this computation read.
  const cut = Date.now();
  // The site rows before the figures: a push stored between the two shows as a changed event
  // count at the next read, which computes that site again.
  const sites = await loadSites(db);
  // A background refresh runs its queries one at a time: it must not hold the pool from the reads.
  const figures = await loadFigures(db, undefined, cut, { inTurn: background, sites });
  const snap = keep({
    stamp, at, base: figures.now, figures, events: eventsOf(sites), whole: true, background,
    summary: figureSummary(figures, config), rows: figureMetricRows(figures, config),
  }, db);
  if (background) await storedRows(db, snap);
  return snap;
}

const sameCounts = (a: Member, b: Member) => JSON.stringify([a.windows, a.firstBeat, a.openAlarms, a.criticalOpen, a.openTasks, a.listed]) ===
  JSON.stringify([b.windows, b.firstBeat, b.openAlarms, b.criticalOpen, b.openTasks, b.listed]);

/** Members computed again replace the held ones, except where nothing changed: those keep their (older) cut. */
function merge(held: Map<string, Member>, fresh: Map<string, Member>, dropped: Iterable<string>): { members: Map<string, Member>; changed: boolean } {
  const members = new Map(held);
  let changed = false;
  for (const k of dropped) if (!fresh.has(k) && members.delete(k)) changed = true;
  for (const [k, m] of fresh) {
    const old = held.get(k);
    if (old && sameCounts(old, m)) continue;
    members.set(k, m);
    changed = true;
  }
  return { members, changed };
}

/** The held snapshot with what changed since computed again (see the header); a whole computation when too much changed. */
async function update(deps: Deps, held: Snapshot, stamp: Stamp): Promise<Snapshot> {
  const { db, config } = deps;
  const now = Date.now();
  let sites = held.figures.sites;
  let events = held.events;
  let changedSites: FigureSite[] = [];
  if (held.stamp.sites !== stamp.sites) {
    sites = await loadSites(db);
    events = eventsOf(sites);
    changedSites = sites.filter((s) => held.events.get(siteKey(s.tenant_id, s.site_id)) !== Number(s.events_received));
    const gone = [...held.events.keys()].some((k) => !events.has(k));
    if (gone || changedSites.length > Math.max(MAX_CHANGED_SITES, sites.length / 5)) return compute(deps, stamp);
  }
  const [remote, own] = await Promise.all([
    changedSites.length ? loadRemote(db, now, { sites: changedSites }) : null,
    held.stamp.own !== stamp.own ? loadOwn(db, now, undefined) : null,
  ]);
  const r = remote ? merge(held.figures.remote, remote, changedSites.map((s) => siteKey(s.tenant_id, s.site_id))) : { members: held.figures.remote, changed: false };
  const o = own ? merge(held.figures.own, own.own, held.figures.own.keys()) : { members: held.figures.own, changed: false };
  const figures: Figures = {
    now: r.changed || o.changed ? now : held.figures.now,
    remote: r.members, own: o.members, sites, ownTenants: own?.ownTenants ?? held.figures.ownTenants,
  };
  // A row whose figure changed is cut now (after the stamp was read), whatever moved it (a site's
  // counts, its pending events or its industry); the others stay the held rows.
  const heldRows = new Map(held.rows.map((r) => [r.id, r]));
  const cutNow = new Date(now).toISOString();
  const rows = figureMetricRows(figures, config, held.base).map((r) => {
    const h = heldRows.get(r.id);
    return h && h.value === r.value && h.samples === r.samples && h.industry_code === r.industry_code ? h : { ...r, computed_at: cutNow };
  });
  const snap: Snapshot = {
    stamp, at: held.at, base: held.base, figures, events, whole: false,
    summary: figureSummary(figures, config), rows,
  };
  // Kept only if no newer whole computation replaced the snapshot meanwhile; the answer is right either way.
  if (snapshots.get(db) === held) snapshots.set(db, snap);
  return snap;
}

/** The snapshot to answer from, per the rules in the header. */
export async function currentSnapshot(deps: Deps): Promise<Snapshot> {
  const { db, clock } = deps;
  const stamp = await changeStamp(db);
  const held = snapshots.get(db);
  const age = held ? clock.now() - held.at : Infinity;
  const inFlight = running.get(db);
  // A computation that started from this stamp read its rows after the stamp: it sees the change.
  if (inFlight && sameStamp(inFlight.stamp, stamp)) return inFlight.done;
  if (!held || age >= MAX_AGE_MS) return share(db, stamp, () => compute(deps, stamp));
  if (age >= FRESH_MS && !refreshing.has(db)) {
    const refresh = compute(deps, stamp, true).finally(() => refreshing.delete(db));
    refreshing.set(db, refresh);
    refresh.catch((err: Error) => deps.log?.warn('analytics refresh failed', { error: err.message }));
  }
  if (sameStamp(held.stamp, stamp)) return held;
  return share(db, stamp, () => update(deps, held, stamp));
}

/** The ids and figures this process last wrote to the metrics table, per database: an update writes only the rows that differ. */
const lastWritten = new WeakMap<Database, Map<string, string>>();
/** The stamp of the last snapshot whose rows were all written: the table holds its figures. */
const writtenStamp = new WeakMap<Database, Stamp>();
/** Writes of one database, one after another: each diff is taken against what is committed. */
const writes = new WeakMap<Database, Promise<unknown>>();
const signature = (r: MetricRow) => `${r.value}|${r.samples}|${r.computed_at}|${r.industry_code}`;

async function writeRows(db: Database, snap: Snapshot): Promise<void> {
  // A snapshot older than one already written has nothing to add: the table holds every change
  // it promised (and its rows of groups since gone or added must not undo the newer ones).
  const newer = writtenStamp.get(db);
  if (newer && newer.seq > snap.stamp.seq) return;
  const known = lastWritten.get(db);
  const sigs = new Map(snap.rows.map((r) => [r.id, signature(r)]));
  try {
    if (snap.whole || !known) {
      // In batches, so the table's rows are not all locked at once. Rows of groups that are gone
      // go last, by their older cut: until then a list sees each row from one cut or the other.
      for (let i = 0; i < snap.rows.length; i += WRITE_BATCH) await store(db, snap.rows.slice(i, i + WRITE_BATCH));
      await db.run(sql`delete from analytics_metrics where computed_at < ${new Date(snap.base).toISOString()}`);
    } else {
      const dirty = snap.rows.filter((r) => known.get(r.id) !== sigs.get(r.id));
      const gone = [...known.keys()].filter((id) => !sigs.has(id));
      if (dirty.length || gone.length) await store(db, dirty, gone);
    }
    lastWritten.set(db, sigs);
    writtenStamp.set(db, snap.stamp);
  } catch (err) {
    // The next write is a whole one.
    lastWritten.delete(db);
    writtenStamp.delete(db);
    throw err;
  }
}

/**
 * The snapshot's metric rows in the table the kit lists, filters and pages, written once per
 * snapshot and only when a list asks (a summary read never waits for them, and never competes
 * with their write), or by the background refresh: after an update, only the rows whose figures
 * changed. A failed write is the list's error; the next list tries again, writing every row.
 */
export function storedRows(db: Database, snap: Snapshot): Promise<void> {
  if (!snap.written) {
    const written = (writes.get(db) ?? Promise.resolve()).catch(() => undefined).then(() => writeRows(db, snap));
    writes.set(db, written);
    snap.written = written;
    written.catch(() => { snap.written = undefined; });
  }
  return snap.written;
}

/**
 * What a list waits for before it reads the table: the snapshot's rows written, except while a
 * background refresh writes rows of the same stamp the table already holds (they differ only by
 * the windows' slide, within the freshness bound).
 */
export async function rowsForList(db: Database, snap: Snapshot): Promise<void> {
  const written = storedRows(db, snap);
  if (snap.background && writtenStamp.get(db) && sameStamp(writtenStamp.get(db)!, snap.stamp)) {
    written.catch(() => undefined);
    return;
  }
  await written;
}

/** Forgets the snapshots (tests: the next read computes). */
export function dropSnapshot(db: Database): void {
  snapshots.delete(db);
  lastWritten.delete(db);
  writtenStamp.delete(db);
}
