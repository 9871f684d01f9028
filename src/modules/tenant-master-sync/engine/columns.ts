// A push's telemetry events as columns (protocol.ts telemetryColumnsSchema), both ends: the box
// turns the telemetry events it read from its outbox into them (toColumns), the master reads the
// aggregates back out (eachAggregate) and counts a push's events over both parts of the body.
//
// Why: 98 % of a busy site's events are telemetry, each {seq, kind, created_at, payload:
// {aggregates: [{device_id, metric, site_id, bucket, points, sum, min, max, last_status}, ...]}}.
// In that form a push of 500 events was about 366 KB, nearly all of it the same keys and strings
// said again; the master's JSON.parse built an object per aggregate, and validation copied every
// event, which left it garbage to collect (docs/request-overhead.md, sync catch-up). As columns
// the same aggregates are arrays of numbers and one table of the push's strings.
import type { PushBody, TelemetryColumns } from './protocol.js';

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The columns of telemetry events, in the order given (the box's seq order). Each payload is an
 * object or its JSON text (the outbox's column as SQLite answers it). An aggregate the master
 * would skip in the object form (no device, metric or bucket, no points) is left out; what it
 * would read as a default is sent as that default (sum 0, last_status online), so both forms mean
 * the same rows.
 */
export function toColumns(events: readonly { seq: number; payload: unknown }[]): TelemetryColumns {
  const c: TelemetryColumns = { seq: [], count: [], strings: [], device: [], metric: [], bucket: [], status: [], points: [], sum: [], min: [], max: [] };
  const index = new Map<string, number>();
  const at = (s: string) => {
    let i = index.get(s);
    if (i === undefined) {
      index.set(s, (i = c.strings.length));
      c.strings.push(s);
    }
    return i;
  };
  for (const e of events) {
    const p = typeof e.payload === 'string' ? (JSON.parse(e.payload) as unknown) : e.payload;
    const aggregates = p && typeof p === 'object' && Array.isArray((p as { aggregates?: unknown }).aggregates) ? (p as { aggregates: unknown[] }).aggregates : [];
    let n = 0;
    for (const x of aggregates) {
      if (!x || typeof x !== 'object') continue;
      const g = x as Record<string, unknown>;
      const device = str(g.device_id);
      const metric = str(g.metric);
      const bucket = str(g.bucket);
      const points = num(g.points);
      if (!device || !metric || !bucket || !points) continue;
      c.device.push(at(device));
      c.metric.push(at(metric));
      c.bucket.push(at(bucket));
      c.status.push(at(str(g.last_status) ?? 'online'));
      c.points.push(points);
      c.sum.push(num(g.sum) ?? 0);
      c.min.push(num(g.min));
      c.max.push(num(g.max));
      n++;
    }
    c.seq.push(e.seq);
    c.count.push(n);
  }
  return c;
}

/** One telemetry aggregate of a push, in either form (the object form's fields; projection.ts reads both). */
export interface Aggregate {
  device_id: string;
  metric: string;
  bucket: string;
  points: number;
  sum: number;
  min: number | null;
  max: number | null;
  last_status: string;
}

/** Calls `fn` with each aggregate of the events after seq `after`, in order (as projectionOf reads the object form's). */
export function eachAggregate(c: TelemetryColumns, after: number, fn: (g: Aggregate) => void): void {
  let k = 0;
  for (let i = 0; i < c.seq.length; i++) {
    const n = c.count[i]!;
    if (c.seq[i]! > after) {
      for (let j = k; j < k + n; j++) {
        const device = c.strings[c.device[j]!]!;
        const metric = c.strings[c.metric[j]!]!;
        const bucket = c.strings[c.bucket[j]!]!;
        const points = c.points[j]!;
        if (!device || !metric || !bucket || !points) continue;
        fn({ device_id: device, metric, bucket, points, sum: c.sum[j]!, min: c.min[j]!, max: c.max[j]!, last_status: c.strings[c.status[j]!]! });
      }
    }
    k += n;
  }
}

/** How many of a push's events (both parts) come after seq `after`, and the last of them (null: none). */
export function eventsAfter(body: Pick<PushBody, 'events' | 'telemetry'>, after = 0): { count: number; first: number | null; last: number | null } {
  let count = 0;
  let first: number | null = null;
  let last: number | null = null;
  const see = (seq: number) => {
    if (seq <= after) return;
    count++;
    if (first === null || seq < first) first = seq;
    if (last === null || seq > last) last = seq;
  };
  for (const e of body.events) see(e.seq);
  for (const seq of body.telemetry?.seq ?? []) see(seq);
  return { count, first, last };
}
