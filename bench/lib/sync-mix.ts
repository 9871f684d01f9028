// A busy site's outbox for the sync benchmarks (bench/sync.ts, bench/overhead-sync.ts): 200
// devices reporting every 10 s (telemetry batches every 200 ms, each one event of per-minute
// aggregates: 4 points -> about 4 aggregates), 300 alarms with their acks and bridged status
// events, 5,000 audit records, a heartbeat a minute.
import type { EventKind } from '../../src/modules/tenant-master-sync/engine/protocol.js';

export const DAY_MIX: Record<EventKind, number> = { telemetry: 432_000, status: 2_000, alarm: 600, audit: 5_000, heartbeat: 1_440 };
export const dayTotal = Object.values(DAY_MIX).reduce((a, b) => a + b, 0);

function eventOf(kind: EventKind, i: number): Record<string, unknown> {
  const at = new Date(Date.now() - (dayTotal - i) * 200).toISOString();
  switch (kind) {
    case 'telemetry':
      return { aggregates: Array.from({ length: 4 }, (_, d) => ({ device_id: `dev-${(i * 4 + d) % 200}`, metric: 'temp', site_id: 'site-1', bucket: `${at.slice(0, 16)}:00.000Z`, points: 1, sum: 21.5, min: 21.5, max: 21.5, last_status: 'online' })) };
    case 'alarm':
      return { kind: i % 2 ? 'acknowledged' : 'raised', alarm: { id: `A-${Math.floor(i / 2)}`, tenant_id: 'farm-a', site_id: 'site-1', severity: 'high', state: i % 2 ? 'acknowledged' : 'open', source: 'rules', title: 'House 3 temperature high', correlation_id: `c-${i}`, acknowledged_by: i % 2 ? 'op' : null, comment: null } };
    case 'status':
      return { id: i, tenant_id: 'farm-a', site_id: 'site-1', source: 'alarms:rules', event: 'alarm_raised', status: 'error', correlation_id: `c-${i}`, details: { alarm_id: `A-${i}` }, timestamp: at };
    case 'audit':
      return { actor: 'op', action: 'alarm.ack', resource: 'alarms', result: 'success', correlation_id: `c-${i}`, details: { id: `A-${i}` }, tenant_id: 'farm-a', at };
    case 'heartbeat':
      return { at, interval_ms: 60_000, rtt_ms: 12.5, uptime_s: i };
  }
}

/** n events in the day's proportions, interleaved as they would be queued. */
export function mix(n: number): { kind: EventKind; payload: Record<string, unknown> }[] {
  const kinds = Object.entries(DAY_MIX) as [EventKind, number][];
  const out: { kind: EventKind; payload: Record<string, unknown> }[] = [];
  const acc = kinds.map(() => 0);
  for (let i = 0; i < n; i++) {
    // Pick the kind furthest behind its share: a deterministic, even interleaving.
    let best = 0;
    for (let k = 1; k < kinds.length; k++) if (acc[k]! / kinds[k]![1] < acc[best]! / kinds[best]![1]) best = k;
    acc[best]!++;
    out.push({ kind: kinds[best]![0], payload: eventOf(kinds[best]![0], i) });
  }
  return out;
}
