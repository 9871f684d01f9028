// The settle: points waiting in telemetry_points_recent move into telemetry_points, oldest id
// first, an hour of them in one transaction, more a slice a transaction (copied and deleted
// together, so a settle stopped by a stop or a crash goes on at the next one; the points keep
// their ids).
//
// Why points wait there (SQLite, a box): telemetry_points has an index by series and time. A
// minute's commit of a site's polled points adds a few entries to every series, and once the
// table holds hours each series' newest entries sit on a leaf of their own: a commit of 180
// points rewrote about a hundred pages of that index in the log, and the checkpoint copied them
// again (bench/flash-site.ts with a day's history: 1.4 GiB a day for a 10-house site, six times
// what a new database shows). In the recent table, which has no index, the minute's points are
// appended: their own pages. Settled once an hour, or when RECENT_MAX points wait, a series'
// hour of entries fills its leaves together. Reads see both tables (the view device_telemetry,
// the KPI): the recent table is at most RECENT_MAX rows, scanned where the other is searched.
//
// A point is as durable in either table: the settle changes no power-cut bound. PostgreSQL (a
// server's database, not a box's flash; several processes may write it) writes every point in
// place and never fills the recent table, so its settle finds nothing to move.
import { sql } from 'drizzle-orm';
import type { Database } from '../../db/client.js';
import { settledAll } from '../../db/settle.js';

/** Past this many waiting points the settle runs at once (a flood, a site of many series): the reads' scan stays short. */
export const RECENT_MAX = 20_000;

/** Points moved a transaction: a settle holds the writer a few milliseconds at a time. */
export const SETTLE_SLICE = 5_000;
/**
 * Up to this many waiting points settle in one transaction (an hour of a 10-house site polled every
 * 10 s is 10,800): each leaf of telemetry_points_series_ts that a series' hour lands on is then
 * written to the log once, where three slices wrote a series' newest leaves and their parents
 * three times (the hour's close: 3,300 log frames against 2,570, 0.90x of a day by the model,
 * bench/flash-hours.ts). It holds the event loop for the whole statement (10,800 points: 47 ms on
 * this machine at load 3.4, 118 ms at load 14; a slice 29 ms at load 9), once an hour; more waiting (a
 * flood, past RECENT_MAX) goes in slices, as before.
 */
export const SETTLE_WHOLE_MAX = 12_000;

/** How many points wait in telemetry_points_recent. */
export async function recentCount(db: Database): Promise<number> {
  const [row] = await db.rows<{ n: number | string }>(sql`select count(*) as n from telemetry_points_recent`);
  return Number(row?.n ?? 0);
}

/** Moves one slice (the oldest ids); resolves with how many points it moved. */
async function settleSlice(db: Database, slice: number): Promise<number> {
  return db.transaction(async () => {
    const [edge] = await db.rows<{ id: number | string | null }>(sql`select max(id) as id from (select id from telemetry_points_recent order by id limit ${sql.raw(String(Math.max(1, Math.floor(slice))))}) s`);
    if (edge?.id === null || edge?.id === undefined) return 0;
    const upTo = Number(edge.id);
    // A point keeps its id, unless something wrote telemetry_points past the sequence meanwhile
    // (rows inserted without an id: tests, a repair by hand): then it takes the next free one,
    // rather than a settle that fails for good and lets the table grow.
    // The SELECT reads the table it inserts into, so it is read whole before the first row goes in.
    const taken = sql`exists (select 1 from telemetry_points p where p.id = r.id)`;
    await db.run(sql`insert into telemetry_points (id, series_id, ts, value, status, latency_ms, received_at)
      select case when ${taken} then last.id + row_number() over (order by r.id) else r.id end,
        r.series_id, r.ts, r.value, r.status, r.latency_ms, r.received_at
      from telemetry_points_recent r,
        (select max(m) as id from (select max(id) as m from telemetry_points union all select max(id) from telemetry_points_recent) u) last
      where r.id <= ${upTo} order by r.id`);
    const [gone] = await db.rows<{ n: number | string }>(sql`select count(*) as n from telemetry_points_recent where id <= ${upTo}`);
    // The last slice deletes by freeing the table's pages (settledAll, src/db/settle.ts).
    await db.run(await settledAll(db, 'telemetry_points_recent', 'id', upTo) ? sql`delete from telemetry_points_recent` : sql`delete from telemetry_points_recent where id <= ${upTo}`);
    return Number(gone?.n ?? 0);
  });
}

/**
 * Moves every point waiting in telemetry_points_recent into telemetry_points: in one transaction
 * when at most SETTLE_WHOLE_MAX wait, otherwise (or with `slice`) a slice a transaction, with a
 * turn of the event loop between slices; `stopped` ends it between slices.
 * Resolves with how many points it moved.
 */
export async function settleRecent(db: Database, opts: { slice?: number; stopped?: () => boolean } = {}): Promise<number> {
  let moved = 0;
  // An hour's points (up to SETTLE_WHOLE_MAX) in one transaction; more in slices.
  const waiting = opts.slice === undefined ? await recentCount(db) : Infinity;
  const slice = opts.slice ?? (waiting <= SETTLE_WHOLE_MAX ? SETTLE_WHOLE_MAX : SETTLE_SLICE);
  for (;;) {
    if (opts.stopped?.()) return moved;
    const n = await settleSlice(db, slice);
    moved += n;
    if (n === 0) return moved;
    await new Promise((resolve) => setImmediate(resolve));
  }
}
