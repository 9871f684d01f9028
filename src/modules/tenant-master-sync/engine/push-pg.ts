// A push on PostgreSQL in one statement, one round trip: the site's row locked and checked (its
// credential, its tenant's mode), the box's report stored, and, when every event is new, the
// inbox rows, the projections (engine/projection.ts) and the site's high-water mark written, all
// or nothing. The statement by statement path (engine/master.ts applyPush) took a dozen round
// trips a push, each a wait for the server on a busy machine, and built each of them with the
// query builder (docs/request-overhead.md, sync catch-up).
//
// "Every event is new" is checked under the row lock: the site's applied_seq is below the push's
// first seq, and at or above its `after` (the push sent before it is applied). A re-sent batch
// (some or all events already applied) writes nothing here, and the caller applies it statement
// by statement, which filters what is new; so do a push whose `after` is not applied yet and
// refusals (403, 404, 409), which the answer's row lets the caller tell apart. The statement's text never changes:
// it is prepared once per connection of the pool. The row sets come as json, not jsonb: the
// recordset reads the text once, where jsonb first built (and key-sorted) a binary document of
// each set only to take it apart again; a payload column is still stored as jsonb.
import { createHash } from 'node:crypto';
import type { Database } from '../../../db/client.js';
import type { PushBody } from './protocol.js';
import { inboxed, projectionOf, rollupBucketsOf } from './projection.js';
import { ALARM_CHANGE_SET } from './alarms.js';
import { eventsAfter } from './columns.js';

/** The report columns a push or pull may set (master.ts reportOf), with their PostgreSQL types. */
export const REPORT_COLUMNS: Record<string, 'text' | 'bigint' | 'float8' | 'jsonb'> = {
  last_seen_at: 'text', reported_pending: 'bigint', reported_oldest_at: 'text', down_revision: 'text', last_rtt_ms: 'float8',
  industry_code: 'text', held: 'jsonb', app_version: 'text', module_versions: 'jsonb', versions_reported_at: 'text',
  update_version: 'text', previous_version: 'text', update_step: 'text', update_progress: 'float8', update_reason: 'text',
  update_reason_code: 'text', update_at: 'text', update_arch: 'text', run_done_at: 'text',
};

// A column the report names is set from it (JSON null: SQL null, as the query builder binds it);
// one it leaves out keeps its value.
const reportSet = Object.entries(REPORT_COLUMNS).map(([c, type]) => `"${c}" = case when rep.r ? '${c}' then ${type === 'jsonb'
  ? `nullif(rep.r->'${c}', 'null'::jsonb)`
  : `(rep.r->>'${c}')::${type}`} else s."${c}" end`).join(',\n    ');

const set = (table: string, cols: Record<string, string>) => Object.entries(cols).map(([c, e]) => `"${c}" = ${e.replaceAll('"sync_alarms"', `"${table}"`)}`).join(', ');

/**
 * $1 tenant, $2 site, $3 the session's passkey, $4 now, $5 the report (reportOf), $6 the first and
 * $7 the last seq (null: no events), $8 how many, $9 the newest heartbeat's time; JSON arrays:
 * $10 inbox rows, $11 telemetry minutes, $12 heartbeats, $13 roll-up deltas, $14 alarms; $15 the
 * push's `after` (null: none); $16 the push's distinct minutes with their roll-up buckets (a
 * minute that does not parse is left out, and counts in no roll-up).
 */
const TEXT = `with
o as (
  select "applied_seq", "update_step", "update_version", "app_version" from "sync_sites"
  where "tenant_id" = $1::text and "site_id" = $2::text and "passkey_id" = $3::text for update
),
m as (select "mode" from "sync_tenants" where "tenant_id" = $1::text),
rep as materialized (select $5::jsonb as r),
site as (
  update "sync_sites" s set
    ${reportSet},
    "applied_seq" = coalesce($7::bigint, s."applied_seq"),
    "events_received" = s."events_received" + $8::bigint,
    "last_heartbeat_at" = case when $9::text is not null and (s."last_heartbeat_at" is null or $9::text > s."last_heartbeat_at" collate "C") then $9::text else s."last_heartbeat_at" end
  from o, m, rep
  where s."tenant_id" = $1::text and s."site_id" = $2::text
    and (m."mode" <> 'paused' or $8::bigint = 0) and ($6::bigint is null or o."applied_seq" < $6::bigint)
    and ($15::bigint is null or o."applied_seq" >= $15::bigint)
  returning 1
),
inbox as (
  insert into "sync_inbox" ("tenant_id", "site_id", "seq", "kind", "created_at", "payload", "received_at")
  select $1::text, $2::text, r.seq, r.kind, r.created_at, r.payload, $4::text
  from json_to_recordset($10::json) as r(seq bigint, kind text, created_at text, payload jsonb)
  where exists (select 1 from site)
),
pushed as materialized (
  select * from json_to_recordset($11::json)
    as r(device_id text, metric text, bucket text, points bigint, sum float8, min float8, max float8, last_status text)
),
minutes as materialized (select * from json_to_recordset($16::json) as b(bucket text, rm text, rh text, rd text)),
tel as (
  insert into "sync_telemetry" as t ("tenant_id", "site_id", "device_id", "metric", "bucket", "points", "sum", "min", "max", "last_status")
  select $1::text, $2::text, device_id, metric, bucket, points, sum, min, max, last_status from pushed
  where exists (select 1 from site)
  on conflict ("tenant_id", "site_id", "device_id", "metric", "bucket") do update set
    "points" = t."points" + excluded."points", "sum" = t."sum" + excluded."sum",
    "min" = case when t."min" is null or excluded."min" < t."min" then excluded."min" else t."min" end,
    "max" = case when t."max" is null or excluded."max" > t."max" then excluded."max" else t."max" end,
    "last_status" = excluded."last_status"
  returning "device_id", "metric", "bucket", "points"
),
-- A minute whose stored points are exactly this push's was new: an existing one already held points.
fresh as (select b.rm, b.rh, b.rd from tel join pushed p using ("device_id", "metric", "bucket") join minutes b on b.bucket = p.bucket where tel."points" = p.points),
new_rows as (
  select 'minute' as grain, rm as bucket, count(*) as n from fresh group by rm
  union all select 'hour', rh, count(*) from fresh group by rh
  union all select 'day', rd, count(*) from fresh group by rd
),
beats as (
  insert into "sync_heartbeats" ("tenant_id", "site_id", "seq", "at", "interval_ms", "rtt_ms")
  select $1::text, $2::text, r.seq, r.at, r.interval_ms, r.rtt_ms
  from json_to_recordset($12::json) as r(seq bigint, at text, interval_ms bigint, rtt_ms float8)
  where exists (select 1 from site)
),
rolled as (
  insert into "sync_rollups" as u ("tenant_id", "site_id", "grain", "bucket", "heartbeats", "covered_ms", "rtt_sum", "rtt_count", "first_beat_at", "telemetry_points", "telemetry_rows")
  select $1::text, $2::text, r.grain, r.bucket, r.heartbeats, r.covered_ms, r.rtt_sum, r.rtt_count, r.first_beat_at, r.telemetry_points, coalesce(n.n, 0)
  from json_to_recordset($13::json) as r(grain text, bucket text, heartbeats bigint, covered_ms bigint, rtt_sum float8, rtt_count bigint, first_beat_at text, telemetry_points bigint)
  left join new_rows n on n.grain = r.grain and n.bucket = r.bucket
  where exists (select 1 from site)
  on conflict ("tenant_id", "site_id", "grain", "bucket") do update set
    "heartbeats" = u."heartbeats" + excluded."heartbeats", "covered_ms" = u."covered_ms" + excluded."covered_ms",
    "rtt_sum" = u."rtt_sum" + excluded."rtt_sum", "rtt_count" = u."rtt_count" + excluded."rtt_count",
    "telemetry_points" = u."telemetry_points" + excluded."telemetry_points", "telemetry_rows" = u."telemetry_rows" + excluded."telemetry_rows",
    "first_beat_at" = case when u."first_beat_at" is null or excluded."first_beat_at" < u."first_beat_at" then coalesce(excluded."first_beat_at", u."first_beat_at") else u."first_beat_at" end
),
alarms as (
  insert into "sync_alarms" as a ("tenant_id", "alarm_id", "site_id", "severity", "state", "title", "correlation_id", "raised_at", "acknowledged_by", "updated_at", "priority", "id", "open", "p1", "sort_key")
  select $1::text, r.alarm_id, r.site_id, r.severity, r.state, r.title, r.correlation_id, r.raised_at, r.acknowledged_by, $4::text, r.priority, r.id, r.open, r.p1, r.sort_key
  from json_to_recordset($14::json) as r(alarm_id text, site_id text, severity text, state text, title text, correlation_id text, raised_at text, acknowledged_by text, priority text, id text, open boolean, p1 boolean, sort_key text)
  where exists (select 1 from site)
  on conflict ("tenant_id", "alarm_id") do update set ${set('a', ALARM_CHANGE_SET)}
)
select o."applied_seq", o."update_step", o."update_version", o."app_version", (select "mode" from m) as "mode", exists (select 1 from site) as "done" from o`;

/** The statement's name, made at the first push (a start hashes nothing it does not need). */
let name: string | undefined;
const statementName = () => (name ??= `cabinet_sync_push_${createHash('sha256').update(TEXT).digest('hex').slice(0, 12)}`);

export interface OnePush {
  /** Null: no site row for this session's credential (403). */
  before: { applied_seq: number; update_step: string | null; update_version: string | null; app_version: string | null } | null;
  /** Null: the tenant has no sync record (404). */
  mode: string | null;
  /** The site's applied_seq once the push was applied; null: refused, or some events were applied before. */
  applied_seq: number | null;
}

interface Row { applied_seq: string | number; update_step: string | null; update_version: string | null; app_version: string | null; mode: string | null; done: boolean }

/** Whether this database runs the one-statement push (PostgreSQL and PGlite, outside a transaction). */
export const onePushFits = (db: Database) => db.dialect === 'postgres' && !db.inTransaction();

export async function pushInOne(db: Database, key: { tenant_id: string; site_id: string; passkey_id: string }, body: PushBody, report: Record<string, unknown>, now: string): Promise<OnePush> {
  const events = body.events.length > 1 ? [...body.events].sort((a, b) => a.seq - b.seq) : body.events;
  // Both parts of the body: the events, and the telemetry events as columns (engine/columns.ts).
  const all = eventsAfter(body);
  const p = projectionOf(key, events, now, body.telemetry ? { telemetry: body.telemetry, after: 0 } : undefined);
  // A push's rows share a few minutes: their points are added to the roll-ups once a minute, and
  // each minute's roll-up buckets are sent once, not with every row.
  const bucketsOf = rollupBucketsOf();
  const minutes = new Map<string, { points: number; buckets: string[] | null }>();
  for (const r of p.telemetry) {
    let m = minutes.get(r.bucket);
    if (!m) minutes.set(r.bucket, (m = { points: 0, buckets: bucketsOf(r.bucket) }));
    m.points += r.points;
  }
  const buckets: { bucket: string; rm: string; rh: string; rd: string }[] = [];
  for (const [bucket, m] of minutes) {
    p.rollups.telemetry(m.buckets, m.points, false);
    if (m.buckets) buckets.push({ bucket, rm: m.buckets[0]!, rh: m.buckets[1]!, rd: m.buckets[2]! });
  }
  const rollups = [...p.rollups.buckets].map(([k, d]) => {
    const cut = k.indexOf('\n');
    return { grain: k.slice(0, cut), bucket: k.slice(cut + 1), ...d };
  });
  const values = [
    key.tenant_id, key.site_id, key.passkey_id, now, JSON.stringify(report),
    all.first, all.last, all.count, p.newestBeat || null,
    // The events the inbox keeps, as validated: {seq, kind, created_at, payload} (the recordset
    // ignores any other key); a telemetry event's record is its per-minute rows (inboxed()).
    JSON.stringify(inboxed(events)),
    JSON.stringify(p.telemetry), JSON.stringify(p.heartbeats), JSON.stringify(rollups), JSON.stringify(p.alarms), body.after ?? null,
    JSON.stringify(buckets),
  ];
  const rows = await query(db, values);
  const r = rows[0];
  if (!r) return { before: null, mode: null, applied_seq: null };
  const before = { applied_seq: Number(r.applied_seq), update_step: r.update_step, update_version: r.update_version, app_version: r.app_version };
  return { before, mode: r.mode, applied_seq: r.done ? (all.last ?? before.applied_seq) : null };
}

/**
 * The pool's client (node-postgres: a named statement, prepared once per connection) or PGlite's;
 * the query builder would render the statement again at every push and cannot name it.
 */
async function query(db: Database, values: unknown[]): Promise<Row[]> {
  const client = (db.orm as unknown as { $client: { query(q: unknown, v?: unknown[]): Promise<{ rows: Row[] }> } }).$client;
  const res = db.engine === 'postgresql' ? await client.query({ name: statementName(), text: TEXT, values }) : await client.query(TEXT, values);
  return res.rows;
}
