// A telemetry event's record on the master is its per-minute rows (sync_telemetry), not an inbox
// row as well (engine/projection.ts inboxed): the other kinds stay in the inbox. Exactly once
// rests on the site's applied_seq: a replayed push (whole or in part) adds nothing to a minute,
// two pushes of partial aggregates of one minute add up, and a push that names a seq twice is
// refused. On both engines, and on PostgreSQL on both paths of a push (one statement when every
// event is new, statement by statement for a batch sent again in part).
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import type { EventKind } from '../../src/modules/tenant-master-sync/engine/protocol.js';

type Pushed = { seq: number; kind: EventKind; created_at: string; payload: Record<string, unknown> };

const MINUTE = '2026-11-29T10:00:00.000Z';
const at = (i: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, i)).toISOString();
/** A partial aggregate of dev-1's temp in MINUTE: what a box's telemetry batch of a few points is. */
const partial = (seq: number, points: number, values: number[]): Pushed => ({
  seq, kind: 'telemetry', created_at: at(seq),
  payload: { aggregates: [{ device_id: 'dev-1', metric: 'temp', bucket: MINUTE, points, sum: values.reduce((a, b) => a + b, 0), min: Math.min(...values), max: Math.max(...values), last_status: `s${seq}` }] },
});
const beat = (seq: number): Pushed => ({ seq, kind: 'heartbeat', created_at: at(seq), payload: { at: at(seq), interval_ms: 60_000, rtt_ms: 5 } });
const audit = (seq: number): Pushed => ({ seq, kind: 'audit', created_at: at(seq), payload: { actor: 'op', action: `a-${seq}`, resource: 'x', result: 'success', at: at(seq) } });

describe.each(DIALECTS)('telemetry events stored as their per-minute rows (master on %s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let site: Client;

  const send = async (events: Pushed[]) => {
    const res = await site.post('/api/v1/site-sync/commands/push', { events, remaining: 0 });
    expect(res.status).toBe(200);
    return res.body.item as { applied_seq: number; accepted: number; duplicates: number };
  };
  const minute = async () => {
    const [r] = await master.services.db.rows<Record<string, unknown>>(sql`select points, sum, min, max, last_status from sync_telemetry where site_id = 'site-1' and device_id = 'dev-1'`);
    return r && { points: Number(r.points), sum: Number(r.sum), min: Number(r.min), max: Number(r.max), last_status: r.last_status };
  };
  const rollup = async () => {
    const [r] = await master.services.db.rows<Record<string, unknown>>(sql`select telemetry_points as p, telemetry_rows as n from sync_rollups where site_id = 'site-1' and grain = 'minute' and bucket = ${MINUTE}`);
    return r && { points: Number(r.p), rows: Number(r.n) };
  };
  const inbox = async () => (await master.services.db.rows<{ seq: unknown; kind: string }>(sql`select seq, kind from sync_inbox where site_id = 'site-1' order by seq`))
    .map((r) => `${Number(r.seq)} ${r.kind}`);
  const received = async () => Number((await master.services.db.rows<{ n: unknown }>(sql`select events_received as n from sync_sites where site_id = 'site-1'`))[0]!.n);

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const fleet = await clientAs(env, master);
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
    site = await siteClient(master.url, reg.body.item.credential, fleet.contract);
  });
  afterAll(async () => {
    await env.cleanup();
  });

  it('adds the partial aggregates of a minute across pushes, keeps the other kinds in the inbox and no telemetry event', async () => {
    expect(await send([partial(1, 2, [20, 22]), beat(2)])).toMatchObject({ applied_seq: 2, accepted: 2 });
    expect(await send([partial(3, 3, [10, 25, 30]), audit(4)])).toMatchObject({ applied_seq: 4, accepted: 2 });
    expect(await minute()).toEqual({ points: 5, sum: 107, min: 10, max: 30, last_status: 's3' });
    expect(await rollup()).toEqual({ points: 5, rows: 1 });
    expect(await inbox()).toEqual(['2 heartbeat', '4 audit']);
    expect(await received()).toBe(4);
  });

  it('adds nothing for a push sent again, whole or in part (the new events of it once)', async () => {
    // Sent again whole: every event a duplicate (on PostgreSQL the one statement writes nothing, the statement path filters).
    expect(await send([partial(3, 3, [10, 25, 30]), audit(4)])).toMatchObject({ applied_seq: 4, accepted: 0, duplicates: 2 });
    expect(await send([partial(1, 2, [20, 22])])).toMatchObject({ applied_seq: 4, accepted: 0, duplicates: 1 });
    expect(await minute()).toEqual({ points: 5, sum: 107, min: 10, max: 30, last_status: 's3' });
    // In part: 3 and 4 again with 5 new.
    expect(await send([partial(3, 3, [10, 25, 30]), audit(4), partial(5, 1, [40])])).toMatchObject({ applied_seq: 5, accepted: 1, duplicates: 2 });
    expect(await minute()).toEqual({ points: 6, sum: 147, min: 10, max: 40, last_status: 's5' });
    expect(await rollup()).toEqual({ points: 6, rows: 1 });
    expect(await inbox()).toEqual(['2 heartbeat', '4 audit']);
    expect(await received()).toBe(5);
  });

  it('refuses a push that names a seq twice, storing nothing of it', async () => {
    const res = await site.post('/api/v1/site-sync/commands/push', { events: [partial(6, 2, [1, 1]), partial(6, 2, [1, 1])], remaining: 0 });
    expect(res.status).toBe(400);
    expect(await minute()).toEqual({ points: 6, sum: 147, min: 10, max: 40, last_status: 's5' });
    expect(await received()).toBe(5);
    // The same event once is taken.
    expect(await send([partial(6, 2, [1, 1])])).toMatchObject({ applied_seq: 6, accepted: 1 });
    expect(await minute()).toMatchObject({ points: 8, sum: 149, min: 1 });
  });

  it('counts a push\'s new minutes once in the roll-ups, beside a minute it adds to', async () => {
    const next = '2026-11-29T10:01:00.000Z';
    const two: Pushed = { seq: 7, kind: 'telemetry', created_at: at(7), payload: { aggregates: [
      { device_id: 'dev-1', metric: 'temp', bucket: MINUTE, points: 1, sum: 2, min: 2, max: 2, last_status: 'online' },
      { device_id: 'dev-2', metric: 'temp', bucket: next, points: 4, sum: 8, min: 2, max: 2, last_status: 'online' },
      { device_id: 'dev-3', metric: 'temp', bucket: next, points: 1, sum: 2, min: 2, max: 2, last_status: 'online' },
    ] } };
    expect(await send([two])).toMatchObject({ applied_seq: 7, accepted: 1 });
    const rollups = async (grain: string) => (await master.services.db.rows<{ b: string; p: unknown; n: unknown }>(sql`select bucket as b, telemetry_points as p, telemetry_rows as n from sync_rollups where site_id = 'site-1' and grain = ${grain} and telemetry_points > 0 order by bucket`))
      .map((r) => [r.b, Number(r.p), Number(r.n)]);
    expect(await rollups('minute')).toEqual([[MINUTE, 9, 1], [next, 5, 2]]);
    expect(await rollups('hour')).toEqual([['2026-11-29T10:00:00.000Z', 14, 3]]);
    expect(await rollups('day')).toEqual([['2026-11-29T00:00:00.000Z', 14, 3]]);
  });
});
