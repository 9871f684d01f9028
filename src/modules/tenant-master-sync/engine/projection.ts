// What a push's fresh events become in the typed views the fleet reads, computed in JS once and
// written by either path (engine/master.ts statement by statement, engine/push-pg.ts in one
// statement): heartbeat rows, per-minute telemetry aggregates (the push's partial aggregates of a
// minute added up first), the latest state of each alarm, and the heartbeats' roll-up deltas.
import type { PushBody, TelemetryColumns } from './protocol.js';
import { eachAggregate, type Aggregate } from './columns.js';

export type { Aggregate };
import { bucketOf, RollupBatch } from './rollup.js';
import { derivedOf } from './alarms.js';
import { ROLLUP_GRAINS } from '../schema.js';

export type Fresh = PushBody['events'];

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);


export interface HeartbeatRow {
  tenant_id: string;
  site_id: string;
  seq: number;
  at: string;
  interval_ms: number;
  rtt_ms: number | null;
}

/** A synced alarm as stored, with its derived columns (engine/alarms.ts). */
export interface AlarmRow {
  tenant_id: string;
  alarm_id: string;
  site_id: string;
  severity: string;
  state: string;
  title: string;
  correlation_id: string;
  raised_at: string;
  acknowledged_by: string | null;
  updated_at: string;
  priority: string | null;
  id: string;
  open: boolean;
  p1: boolean;
  sort_key: string;
}

export interface Projection {
  heartbeats: HeartbeatRow[];
  telemetry: Aggregate[];
  /**
   * One row per alarm, as the push leaves it: the row its first event would insert, with the
   * state and acknowledgement of its last event. Stored with an upsert that, for an alarm already
   * held, changes only what a state change changes (state, acknowledged_by, updated_at, open and
   * the sort key): what applying its events one by one (update, else insert) would leave.
   */
  alarms: AlarmRow[];
  /** The heartbeats' roll-up deltas; the telemetry's are added once the upsert says which rows are new. */
  rollups: RollupBatch;
  newestBeat: string | null;
}

const lower = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.min(a, b));
const higher = (a: number | null, b: number | null) => (a === null ? b : b === null ? a : Math.max(a, b));

/**
 * The events a push keeps in the inbox: all but telemetry. A telemetry event (98 % of a busy
 * site's) is partial per-minute aggregates; once added to sync_telemetry, nothing reads it back
 * (the fleet reads the per-minute rows and their roll-ups, notifications read alarm events,
 * retention drops months of both), and a push that also wrote it to the inbox cost PostgreSQL
 * about twice the work. Exactly once does not rest on the inbox (its key holds received_at): the
 * site's applied_seq, moved under its row lock in the same transaction, refuses an event twice.
 * See the decision "Telemetry events on the master are their per-minute rows".
 */
export const inboxed = (events: Fresh): Fresh => events.filter((e) => e.kind !== 'telemetry');

export const telemetryKey = (r: { device_id: string; metric: string; bucket: string }) => `${r.device_id}\n${r.metric}\n${r.bucket}`;

/**
 * `columns`: the push's telemetry events as columns (PushBody.telemetry), of which those after seq
 * `after` count (the events of the object form are given already filtered).
 */
export function projectionOf(site: { tenant_id: string; site_id: string }, events: Fresh, now: string, columns?: { telemetry: TelemetryColumns; after: number }): Projection {
  const tenant = site.tenant_id;
  const heartbeats: HeartbeatRow[] = [];
  const telemetry = new Map<string, Aggregate>();
  const add = (next: Aggregate) => {
    const key = telemetryKey(next);
    const old = telemetry.get(key);
    if (!old) { telemetry.set(key, next); return; }
    old.points += next.points;
    old.sum += next.sum;
    old.min = lower(old.min, next.min);
    old.max = higher(old.max, next.max);
    old.last_status = next.last_status;
  };
  if (columns) eachAggregate(columns.telemetry, columns.after, add);
  const alarms = new Map<string, AlarmRow>();
  const rollups = new RollupBatch();
  let newestBeat: string | null = null;
  for (const e of events) {
    const p = e.payload;
    if (e.kind === 'heartbeat') {
      const beat = { tenant_id: tenant, site_id: site.site_id, seq: e.seq, at: str(p.at) ?? e.created_at, interval_ms: Math.round(num(p.interval_ms) ?? 60_000), rtt_ms: num(p.rtt_ms) };
      heartbeats.push(beat);
      if (!newestBeat || beat.at > newestBeat) newestBeat = beat.at;
      rollups.heartbeat(beat.at, beat.interval_ms, beat.rtt_ms);
    } else if (e.kind === 'alarm') {
      const a = (p.alarm ?? {}) as Record<string, unknown>;
      const id = str(a.id);
      if (!id) continue;
      const state = p.kind === 'acknowledged' ? 'acknowledged' : str(a.state) ?? 'open';
      const held = alarms.get(id);
      if (held) {
        // A later event of the same alarm in this push changes what a state change changes.
        const { open, sort_key } = derivedOf({ ...held, state });
        Object.assign(held, { state, acknowledged_by: str(a.acknowledged_by), open, sort_key });
        continue;
      }
      const row = {
        tenant_id: tenant, alarm_id: id, site_id: str(a.site_id) ?? site.site_id, severity: str(a.severity) ?? 'info', state,
        title: str(a.title) ?? '', correlation_id: str(a.correlation_id) ?? '', raised_at: str(a.raised_at) ?? e.created_at,
        acknowledged_by: str(a.acknowledged_by), updated_at: now, priority: str(a.priority),
      };
      alarms.set(id, { ...row, ...derivedOf(row) });
    } else if (e.kind === 'telemetry') {
      const aggregates = Array.isArray(p.aggregates) ? (p.aggregates as Record<string, unknown>[]) : [];
      for (const g of aggregates) {
        const device = str(g.device_id);
        const metric = str(g.metric);
        const bucket = str(g.bucket);
        const points = num(g.points);
        if (!device || !metric || !bucket || !points) continue;
        add({ device_id: device, metric, bucket, points, sum: num(g.sum) ?? 0, min: num(g.min), max: num(g.max), last_status: str(g.last_status) ?? 'online' });
      }
    }
  }
  return { heartbeats, telemetry: [...telemetry.values()], alarms: [...alarms.values()], rollups, newestBeat };
}

/**
 * The roll-up buckets (minute, hour, day) a telemetry minute counts in, or null for a bucket that
 * does not parse (RollupBatch skips those too). A push's rows share a few minutes: each is
 * worked out once.
 */
export function rollupBucketsOf(): (bucket: string) => string[] | null {
  const seen = new Map<string, string[] | null>();
  return (bucket) => {
    let got = seen.get(bucket);
    if (got === undefined) {
      const ms = Date.parse(bucket);
      got = Number.isFinite(ms) ? ROLLUP_GRAINS.map((g) => bucketOf(g, ms)!) : null;
      seen.set(bucket, got);
    }
    return got;
  };
}
