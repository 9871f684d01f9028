// analytics/summary and analytics/metrics answer from a snapshot (src/modules/analytics/snapshot.ts)
// that is computed again whenever a stored input changes and at the latest when its windows are
// MAX_AGE_MS old. These tests prove the bound: a push is in the very next answer, so is a change
// another process stored (the change stamp is read from the database), an unchanged fleet is
// answered from the held snapshot, and the slide of the windows shows within MAX_AGE_MS. The box's
// clock is a stepped one, so the ages are exact and the test does not wait.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import { SteppedClock } from '../helpers/clock.js';
import type { RunningServer } from '../../src/server.js';
import { dropSnapshot, FRESH_MS, MAX_AGE_MS } from '../../src/modules/analytics/snapshot.js';

const iso = (ms: number) => new Date(ms).toISOString();

describe.each(DIALECTS)('analytics snapshot freshness (master on %s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  let site: Client;
  let seq = 0;
  const clock = new SteppedClock(Date.now());

  const push = async (events: { kind: string; created_at: string; payload: Record<string, unknown> }[]) => {
    const res = await site.post('/api/v1/site-sync/commands/push', { events: events.map((e) => ({ seq: ++seq, ...e })), remaining: 0 });
    expect(res.status).toBe(200);
    expect(res.body.item.accepted).toBe(events.length);
  };
  const raised = (id: string, at = Date.now()) => ({
    kind: 'alarm', created_at: iso(at),
    payload: { kind: 'raised', alarm: { id, site_id: 'site-1', severity: 'critical', state: 'open', title: id, correlation_id: id, raised_at: iso(at) } },
  });
  const summary = async () => {
    const res = await fleet.get('/api/v1/analytics/summary');
    expect(res.status).toBe(200);
    return res.body.item as { open_alarms_total: number; average_latency_ms: number | null; sites_reporting: number; computed_at: string };
  };
  const openAlarms = async (window = '24h') => {
    const res = await fleet.get(`/api/v1/analytics/metrics/list?tenant_id=farm-a&industry_code=poultry&metric=open_alarms&window=${window}`);
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(1);
    return res.body.items[0] as { value: number; computed_at: string };
  };

  const registered = async (tenant_id: string, site_id: string, industry_code: string) => {
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id, site_id, industry_code });
    expect(reg.status).toBe(201);
    return siteClient(master.url, reg.body.item.credential as string, fleet.contract);
  };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' }, { clock });
    fleet = await clientAs(env, master);
    site = await registered('farm-a', 'site-1', 'poultry');
    await push([raised('al-0', Date.now() - 3_600_000)]);
  }, 60_000);
  afterAll(async () => { await env.cleanup(); });

  it('answers an unchanged fleet from the held snapshot: the same cut, the metric rows not rewritten', async () => {
    const first = await summary();
    const rows = await openAlarms();
    expect(first.open_alarms_total).toBe(1);
    expect(rows.value).toBe(1);
    await clock.step(FRESH_MS - 1);
    expect((await summary()).computed_at).toBe(first.computed_at);
    expect((await openAlarms()).computed_at).toBe(rows.computed_at);
  });

  it('puts a push in the very next answer of the summary and of the list, before the snapshot is old', async () => {
    const before = await summary();
    await push([raised('al-1'), { kind: 'heartbeat', created_at: iso(Date.now()), payload: { at: iso(Date.now()), interval_ms: 60_000, rtt_ms: 42 } }]);
    const after = await summary();
    expect(after.open_alarms_total).toBe(before.open_alarms_total + 1);
    expect(after).toMatchObject({ sites_reporting: 1, average_latency_ms: 42 });
    expect(Date.parse(after.computed_at)).toBeGreaterThan(Date.parse(before.computed_at));
    expect((await openAlarms()).value).toBe(2);
    // An acknowledgement (an update, no new row) counts as well.
    await push([{ kind: 'alarm', created_at: iso(Date.now()), payload: { kind: 'acknowledged', alarm: { id: 'al-1', acknowledged_by: 'op' } } }]);
    expect((await summary()).open_alarms_total).toBe(before.open_alarms_total);
    expect((await openAlarms()).value).toBe(1);
  });

  it('puts a change another process stored in the next answer: the stamp is read from the database', async () => {
    const before = await summary();
    const db = master.services.db;
    // What another master process's push does, straight in the shared database: the alarm row, and
    // the site row's event count in the same transaction.
    await db.transaction(async () => {
      await db.run(sql`insert into sync_alarms (tenant_id, alarm_id, site_id, severity, state, title, correlation_id, raised_at, acknowledged_by, updated_at)
        values ('farm-a', 'al-other', 'site-1', 'low', 'open', 'from another process', 'al-other', ${iso(Date.now())}, null, ${iso(Date.now())})`);
      await db.run(sql`update sync_sites set events_received = events_received + 1 where site_id = 'site-1'`);
    });
    expect((await summary()).open_alarms_total).toBe(before.open_alarms_total + 1);
    expect((await openAlarms()).value).toBe(2);
  });

  it('shows the slide of the windows within MAX_AGE_MS, with no change stored', async () => {
    const held = await summary();
    // Past FRESH_MS: the held snapshot answers and a new one is computed behind it.
    await clock.step(FRESH_MS);
    expect((await summary()).computed_at).toBe(held.computed_at);
    await expect.poll(async () => (await summary()).computed_at, { timeout: 10_000 }).not.toBe(held.computed_at);
    // Past MAX_AGE_MS: the read waits for a new cut.
    const next = await summary();
    await new Promise((r) => setTimeout(r, 5));
    await clock.step(MAX_AGE_MS);
    expect(Date.parse((await summary()).computed_at)).toBeGreaterThan(Date.parse(next.computed_at));
    const rows = await openAlarms('1h');
    await new Promise((r) => setTimeout(r, 5));
    await clock.step(MAX_AGE_MS);
    expect(Date.parse((await openAlarms('1h')).computed_at)).toBeGreaterThan(Date.parse(rows.computed_at));
  });

  it('after a push computes again only the sites it changed: their rows get a new cut, the others keep theirs and are not rewritten', async () => {
    const other = await registered('farm-b', 'site-2', 'swine');
    const heartbeat = (at: number, rtt: number) => ({ kind: 'heartbeat', created_at: iso(at), payload: { at: iso(at), interval_ms: 60_000, rtt_ms: rtt } });
    const res = await other.post('/api/v1/site-sync/commands/push', { events: [{ seq: 1, ...heartbeat(Date.now() - 7_200_000, 80) }], remaining: 0 });
    expect(res.status).toBe(200);
    const rowsOf = async (tenant: string) => {
      const list = await fleet.get(`/api/v1/analytics/metrics/list?tenant_id=${tenant}&limit=100`);
      expect(list.status).toBe(200);
      return new Map((list.body.items as { id: string; value: number | null; computed_at: string }[]).map((r) => [r.id, r]));
    };
    const stored = async (tenant: string) => new Map((await master.services.db.read<{ id: string; computed_at: string }>(
      sql`select id, computed_at from analytics_metrics where tenant_id = ${tenant}`)).map((r) => [r.id, r.computed_at]));
    const a0 = await rowsOf('farm-a');
    const b0 = await rowsOf('farm-b');
    expect(b0.get('farm-b:swine:average_latency_ms:24h')?.value).toBe(80);
    await new Promise((r) => setTimeout(r, 5));
    await push([raised('al-2'), heartbeat(Date.now(), 30)]);
    const a1 = await rowsOf('farm-a');
    const b1 = await rowsOf('farm-b');
    // farm-a's rows were cut again and show the push; farm-b's rows are the same rows as before.
    expect(Date.parse(a1.get('farm-a:poultry:open_alarms:24h')!.computed_at)).toBeGreaterThan(Date.parse(a0.get('farm-a:poultry:open_alarms:24h')!.computed_at));
    expect(a1.get('farm-a:poultry:open_alarms:24h')!.value).toBe(a0.get('farm-a:poultry:open_alarms:24h')!.value! + 1);
    expect(b1).toEqual(b0);
    expect(await stored('farm-b')).toEqual(new Map([...b0].map(([id, r]) => [id, r.computed_at])));
    // The updated figures are those a whole computation gives now.
    const updated = await summary();
    dropSnapshot(master.services.db);
    const whole = await summary();
    expect({ ...updated, computed_at: '' }).toEqual({ ...whole, computed_at: '' });
    const rewritten = await rowsOf('farm-a');
    for (const [id, r] of a1) expect({ id, value: rewritten.get(id)?.value }).toEqual({ id, value: r.value });
  });
});
