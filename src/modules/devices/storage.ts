// How a batch of telemetry points reaches the tables: series ids from an in-memory dictionary
// (new series inserted in the batch's transaction), raw points (into telemetry_points, or on
// SQLite into telemetry_points_recent until the settle moves them: recent.ts), and the minute/hour
// roll-ups merged in the same transaction. SQLite runs prepared multi-row statements straight on
// better-sqlite3 (no query builder per batch); PostgreSQL sends each column as one array
// (unnest), so a batch is two statements whatever its size.
import { sql } from 'drizzle-orm';
import type { Database, SqliteStatement } from '../../db/client.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { rollup, rollupConflictClause, ROLLUP_COLUMNS, type Rollup, type RollupInput } from './rollups.js';
import { RESOLUTIONS, STATUS_CODE } from './schema.js';
import type { OpenBucket, SeriesKey } from './open-rollups.js';

const POINT_COLUMNS = ['series_id', 'ts', 'value', 'status', 'latency_ms', 'received_at'] as const;
/** Rows per prepared SQLite statement: big enough to amortise the call, small enough to prepare once. */
const POINT_ROWS = 128;
const ROLLUP_ROWS = 64;
/** The dictionary is a cache: past this many series it starts over (the table stays the truth). */
const SERIES_CACHE_MAX = 100_000;

export type { SeriesKey } from './open-rollups.js';

const keyOf = (p: TelemetryPoint): string => `${p.tenant_id}\u0000${p.site_id ?? ''}\u0000${p.device_id}\u0000${p.metric}\u0000${p.unit ?? ''}`;
const seriesOf = (p: TelemetryPoint): SeriesKey => ({ tenant_id: p.tenant_id, site_id: p.site_id ?? '', device_id: p.device_id, metric: p.metric, unit: p.unit ?? '' });

/** Epoch ms of RFC 3339 text; a batch mostly repeats one receive time, so the last one is remembered. */
function msParser(): (iso: string) => number {
  let lastText = '';
  let lastMs = 0;
  return (iso) => {
    if (iso !== lastText) { lastText = iso; lastMs = Date.parse(iso); }
    return lastMs;
  };
}

interface Engine {
  /** Whether points may wait in telemetry_points_recent (SQLite: a box's flash; PostgreSQL writes them in place). */
  readonly recent: boolean;
  /** The id of a series, creating it (inside the caller's transaction). */
  seriesId(key: SeriesKey): Promise<number>;
  insertPoints(flat: (number | null)[], rows: number, recent: boolean): Promise<void>;
  mergeRollups(rollups: readonly Rollup[]): Promise<void>;
}

export interface BatchResult {
  /** Call once the transaction committed: the new series ids become known to later batches. */
  commit(): void;
}

/** Which roll-ups a batch writes, given its own: all of them (the default), or what the open buckets call for. */
export type RollupChoice = (batch: OpenBucket[]) => readonly Rollup[];

export class TelemetryStorage {
  private readonly series = new Map<string, number>();
  private readonly engine: Engine;

  constructor(db: Database) {
    this.engine = db.prepareSqlite ? sqliteEngine(db.prepareSqlite) : postgresEngine(db);
  }

  /** Whether write() with `recent` appends to telemetry_points_recent (SQLite) rather than telemetry_points. */
  get recent(): boolean {
    return this.engine.recent;
  }

  /**
   * Writes the points and the roll-ups `choose` picks; run it inside the batch's transaction.
   * `recent`: the points go to telemetry_points_recent (on SQLite; in place elsewhere).
   */
  async write(points: readonly TelemetryPoint[], choose: RollupChoice = (all) => all, opts: { recent?: boolean } = {}): Promise<BatchResult> {
    const fresh = new Map<string, number>();
    const keys = new Map<number, SeriesKey>();
    const flat: (number | null)[] = new Array(points.length * POINT_COLUMNS.length);
    const inputs: RollupInput[] = new Array(points.length);
    const tsMs = msParser();
    const receivedMs = msParser();
    let lastKey = '';
    let lastId = 0;
    for (let i = 0; i < points.length; i++) {
      const p = points[i]!;
      const key = keyOf(p);
      let id: number | undefined = key === lastKey ? lastId : (this.series.get(key) ?? fresh.get(key));
      if (id === undefined) {
        id = await this.engine.seriesId(seriesOf(p));
        fresh.set(key, id);
      }
      if (key !== lastKey && !keys.has(id)) keys.set(id, seriesOf(p));
      lastKey = key;
      lastId = id;
      const ts = tsMs(p.ts);
      const o = i * POINT_COLUMNS.length;
      flat[o] = id;
      flat[o + 1] = ts;
      flat[o + 2] = p.value;
      flat[o + 3] = STATUS_CODE[p.status];
      flat[o + 4] = p.latency_ms;
      flat[o + 5] = receivedMs(p.received_at);
      inputs[i] = { series_id: id, ts, value: p.value };
    }
    if (points.length) await this.engine.insertPoints(flat, points.length, opts.recent === true && this.engine.recent);
    const rollups = choose(rollup(inputs).map((r) => ({ ...r, series: keys.get(r.series_id)! })));
    if (rollups.length) await this.engine.mergeRollups(rollups);
    return {
      commit: () => {
        if (this.series.size + fresh.size > SERIES_CACHE_MAX) this.series.clear();
        for (const [k, v] of fresh) this.series.set(k, v);
      },
    };
  }
}

const placeholders = (rows: number, cols: number) => Array.from({ length: rows }, () => `(${Array.from({ length: cols }, () => '?').join(',')})`).join(',');

/** Runs `flat` (rows × width values) through full-size statements and one-row statements for the rest. */
function chunked(full: SqliteStatement, one: SqliteStatement, perStatement: number, width: number) {
  return (flat: readonly unknown[], rows: number) => {
    let r = 0;
    for (; r + perStatement <= rows; r += perStatement) full.run(...flat.slice(r * width, (r + perStatement) * width));
    for (; r < rows; r++) one.run(...flat.slice(r * width, (r + 1) * width));
  };
}

function sqliteEngine(prepare: (text: string) => SqliteStatement): Engine {
  // Ids given here, from one sequence for both tables (a point keeps its id when settled): past
  // the largest of either, read per batch inside its transaction (the rightmost key of each: two
  // page reads), so rows inserted by anything else never collide.
  const columns = ['id', ...POINT_COLUMNS];
  const insertSql = (table: string, rows: number) => `insert into ${table} (${columns.join(',')}) values ${placeholders(rows, columns.length)}`;
  const into = (table: string) => chunked(prepare(insertSql(table, POINT_ROWS)), prepare(insertSql(table, 1)), POINT_ROWS, columns.length);
  const toPoints = into('telemetry_points');
  const toRecent = into('telemetry_points_recent');
  const lastId = prepare('select max(coalesce((select max(id) from telemetry_points), 0), coalesce((select max(id) from telemetry_points_recent), 0)) as n');
  const conflict = rollupConflictClause('sqlite');
  const rollupSql = (rows: number) => `insert into telemetry_rollups (${ROLLUP_COLUMNS.map((c) => `"${c}"`).join(',')}) values ${placeholders(rows, ROLLUP_COLUMNS.length)} ${conflict}`;
  const rollups = chunked(prepare(rollupSql(ROLLUP_ROWS)), prepare(rollupSql(1)), ROLLUP_ROWS, ROLLUP_COLUMNS.length);
  const addSeries = prepare('insert into telemetry_series (tenant_id, site_id, device_id, metric, unit) values (?, ?, ?, ?, ?) on conflict do nothing');
  const findSeries = prepare('select id from telemetry_series where tenant_id = ? and device_id = ? and metric = ? and site_id = ? and unit = ?');
  return {
    recent: true,
    async seriesId(k) {
      addSeries.run(k.tenant_id, k.site_id, k.device_id, k.metric, k.unit);
      return (findSeries.get(k.tenant_id, k.device_id, k.metric, k.site_id, k.unit) as { id: number }).id;
    },
    async insertPoints(flat, rows, recent) {
      let id = Number((lastId.get() as { n: number }).n);
      const w = POINT_COLUMNS.length;
      const withIds: (number | null)[] = new Array(rows * (w + 1));
      for (let r = 0; r < rows; r++) {
        withIds[r * (w + 1)] = ++id;
        for (let c = 0; c < w; c++) withIds[r * (w + 1) + 1 + c] = flat[r * w + c]!;
      }
      (recent ? toRecent : toPoints)(withIds, rows);
    },
    async mergeRollups(list) {
      const flat: (number | null)[] = [];
      for (const g of list) for (const c of ROLLUP_COLUMNS) flat.push(g[c]);
      rollups(flat, list.length);
    },
  };
}

function postgresEngine(db: Database): Engine {
  const column = <T>(rows: number, width: number, flat: readonly T[], at: number): T[] => {
    const out = new Array<T>(rows);
    for (let r = 0; r < rows; r++) out[r] = flat[r * width + at]!;
    return out;
  };
  const conflict = sql.raw(rollupConflictClause('postgres'));
  return {
    // A server's database is not a box's flash, and several processes may write it: points go
    // straight to telemetry_points with the identity's ids (the recent table stays empty).
    recent: false,
    async seriesId(k) {
      await db.run(sql`insert into telemetry_series (tenant_id, site_id, device_id, metric, unit) values (${k.tenant_id}, ${k.site_id}, ${k.device_id}, ${k.metric}, ${k.unit}) on conflict do nothing`);
      const [row] = await db.rows<{ id: string | number }>(sql`select id from telemetry_series where tenant_id = ${k.tenant_id} and device_id = ${k.device_id} and metric = ${k.metric} and site_id = ${k.site_id} and unit = ${k.unit}`);
      return Number(row!.id);
    },
    async insertPoints(flat, rows) {
      const w = POINT_COLUMNS.length;
      const c = (i: number) => sql.param(column(rows, w, flat, i));
      await db.run(sql`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at)
        select * from unnest(${c(0)}::bigint[], ${c(1)}::bigint[], ${c(2)}::float8[], ${c(3)}::bigint[], ${c(4)}::float8[], ${c(5)}::bigint[])`);
    },
    async mergeRollups(list) {
      if (!list.length) return;
      const c = (name: (typeof ROLLUP_COLUMNS)[number]) => sql.param(list.map((g) => g[name]));
      await db.run(sql`insert into telemetry_rollups ("series_id", "resolution", "bucket", "count", "value_count", "sum", "min", "max", "last", "last_ts")
        select * from unnest(${c('series_id')}::bigint[], ${c('resolution')}::bigint[], ${c('bucket')}::bigint[], ${c('count')}::bigint[], ${c('value_count')}::bigint[],
          ${c('sum')}::float8[], ${c('min')}::float8[], ${c('max')}::float8[], ${c('last')}::float8[], ${c('last_ts')}::bigint[]) ${conflict}`);
    },
  };
}

/**
 * After an unclean stop: the roll-ups of the last two hours (by the newest stored point not ahead
 * of `now`), recomputed from the raw points and stored in place of what was stored. The open
 * buckets of the run that stopped were in its memory only; every other bucket was written in the
 * transaction of its points, and the points are the truth, so rows that agree are left alone.
 * Resolves with the rows written.
 */
export async function recoverRollups(db: Database, now: number): Promise<number> {
  const [row] = await db.rows<{ t: number | string | null }>(sql`select max(ts) as t from telemetry_points where ts <= ${sql.raw(String(Math.floor(now)))}`);
  if (row?.t === null || row?.t === undefined) return 0;
  const hour = RESOLUTIONS.hour * 1000;
  const since = (Math.floor(Number(row.t) / hour) - 1) * hour;
  let written = 0;
  for (const seconds of [RESOLUTIONS.minute, RESOLUTIONS.hour]) {
    const w = sql.raw(String(seconds * 1000));
    const rows = await db.rows<{ n: number }>(sql`insert into telemetry_rollups (series_id, resolution, bucket, count, value_count, sum, min, max, last, last_ts)
      select g.series_id, ${sql.raw(String(seconds))}, g.b, g.n, g.vn, g.s, g.lo, g.hi,
        (select q.value from telemetry_points q where q.series_id = g.series_id and q.ts >= g.b and q.ts < g.b + ${w} order by q.ts desc, q.id desc limit 1),
        g.last_ts
      from (select p.series_id, (p.ts / ${w}) * ${w} as b, count(*) as n, count(p.value) as vn, coalesce(sum(p.value), 0) as s,
          min(p.value) as lo, max(p.value) as hi, max(p.ts) as last_ts
        from telemetry_points p where p.ts >= ${sql.raw(String(since))} group by p.series_id, (p.ts / ${w}) * ${w}) g
      where true
      on conflict (series_id, resolution, bucket) do update set count = excluded.count, value_count = excluded.value_count, sum = excluded.sum,
        min = excluded.min, max = excluded.max, last = excluded.last, last_ts = excluded.last_ts
      where telemetry_rollups.count <> excluded.count or telemetry_rollups.sum <> excluded.sum or telemetry_rollups.last_ts <> excluded.last_ts
      returning 1 as n`);
    written += rows.length;
  }
  return written;
}
