// The box's telemetry columns (engine/columns.ts) mean what the object form means to the master:
// the projection of the columns is the projection of the events, each string is said once, a
// payload given as the outbox's JSON text reads as the object, and the seqs of both parts of a
// push are counted (eventsAfter).
import { describe, expect, it } from 'vitest';
import { eachAggregate, eventsAfter, toColumns } from '../../src/modules/tenant-master-sync/engine/columns.js';
import { projectionOf } from '../../src/modules/tenant-master-sync/engine/projection.js';
import type { PushBody } from '../../src/modules/tenant-master-sync/engine/protocol.js';

const MINUTE = '2026-11-29T10:00:00.000Z';
const telemetry = (seq: number, aggregates: unknown[]) => ({ seq, kind: 'telemetry' as const, created_at: MINUTE, payload: { aggregates } as Record<string, unknown> });
const events = [
  telemetry(1, [{ device_id: 'dev-1', metric: 'temp', site_id: 'site-1', bucket: MINUTE, points: 2, sum: 41.5, min: 20.25, max: 21.25, last_status: 'online' }]),
  telemetry(2, [
    { device_id: 'dev-1', metric: 'temp', bucket: MINUTE, points: 1, sum: -3, min: -3, max: -3, last_status: 'fault' },
    { device_id: 'dev-2', metric: 'temp', bucket: MINUTE, points: 1, sum: 0, min: null, max: null },
    // Skipped by the master in either form: no points, no device.
    { device_id: 'dev-3', metric: 'temp', bucket: MINUTE, points: 0, sum: 1, min: 1, max: 1 },
    { metric: 'temp', bucket: MINUTE, points: 1, sum: 1, min: 1, max: 1 },
    'not an aggregate',
  ]),
  telemetry(3, []),
  { seq: 4, kind: 'telemetry' as const, created_at: MINUTE, payload: { other: true } as Record<string, unknown> },
];

describe('telemetry columns', () => {
  it('project to the rows the object form projects to, each string said once', () => {
    const site = { tenant_id: 't', site_id: 's' };
    // The outbox's JSON text for one event, the object for the others.
    const c = toColumns(events.map((e, i) => ({ seq: e.seq, payload: i === 1 ? JSON.stringify(e.payload) : e.payload })));
    expect(c.seq).toEqual([1, 2, 3, 4]);
    expect(c.count).toEqual([1, 2, 0, 0]);
    expect(c.strings).toEqual(['dev-1', 'temp', MINUTE, 'online', 'fault', 'dev-2']);
    expect(c.min).toEqual([20.25, -3, null]);
    const fromColumns = projectionOf(site, [], 'now', { telemetry: c, after: 0 });
    const fromObjects = projectionOf(site, events, 'now');
    expect(fromColumns.telemetry).toEqual(fromObjects.telemetry);
    expect(fromColumns.telemetry).toEqual([
      { device_id: 'dev-1', metric: 'temp', bucket: MINUTE, points: 3, sum: 38.5, min: -3, max: 21.25, last_status: 'fault' },
      { device_id: 'dev-2', metric: 'temp', bucket: MINUTE, points: 1, sum: 0, min: null, max: null, last_status: 'online' },
    ]);
    // Only the events after `after` count.
    const later: string[] = [];
    eachAggregate(c, 1, (g) => later.push(`${g.device_id}:${g.points}`));
    expect(later).toEqual(['dev-1:1', 'dev-2:1']);
    expect(projectionOf(site, [], 'now', { telemetry: c, after: 1 }).telemetry).toEqual(projectionOf(site, events.slice(1), 'now').telemetry);
  });

  it('counts the events of both parts of a push after a seq', () => {
    const body = { events: [{ seq: 7, kind: 'audit', created_at: MINUTE, payload: {} }, { seq: 2, kind: 'audit', created_at: MINUTE, payload: {} }], telemetry: toColumns([{ seq: 3, payload: {} }, { seq: 9, payload: {} }]) } as Pick<PushBody, 'events' | 'telemetry'>;
    expect(eventsAfter(body)).toEqual({ count: 4, first: 2, last: 9 });
    expect(eventsAfter(body, 3)).toEqual({ count: 2, first: 7, last: 9 });
    expect(eventsAfter(body, 9)).toEqual({ count: 0, first: null, last: null });
    expect(eventsAfter({ events: body.events })).toEqual({ count: 2, first: 2, last: 7 });
  });
});
