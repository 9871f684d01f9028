// Three cloud-multi processes on one PostgreSQL database behind a round-robin with no
// stickiness (every request of a box, login included, goes to the next process). Site boxes
// (protocol clients, test/sync/fleet.ts) push under load; one master is killed with SIGKILL in
// the middle; the boxes retry at another. At the end every event a box saw acknowledged is in the
// master's inbox exactly once and in its projections exactly once, and the two survivors still
// share their caches (module registry) and status streams. Needs a PostgreSQL server.
import WebSocket from 'ws';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { api, killAll, proc, waitFor, type Proc } from './procs.js';
import { Recorder, RoundRobin, SimBox } from './fleet.js';

const PG = Boolean(process.env.CABINET_TEST_PG_URL);
const SITES = 6;

describe.runIf(PG)('three master processes on one PostgreSQL, one killed under load', () => {
  let env: TestEnv;
  let masters: Proc[] = [];
  let token: string;
  let db: pg.Client;

  beforeAll(async () => {
    env = await createTestEnv('postgres');
    const secret = randomBytes(32).toString('hex');
    const flags = { mode: 'cloud-multi', data_dir: env.dataDir, database_url: env.databaseUrl };
    masters = await Promise.all(['master-a', 'master-b', 'master-c'].map((n) => proc(n, flags, { secret })));
    // Started at the same moment, as an orchestrator starts replicas: migrations must not race.
    await Promise.all(masters.map((m) => m.start()));
    token = await masters[0]!.token();
    db = new pg.Client({ connectionString: env.databaseUrl });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all(masters.map((m) => m.stop()));
    killAll();
    await env?.cleanup();
  });

  it('loses and doubles nothing when a master is killed mid-load, and the survivors stay in step', async () => {
    const [a, b, c] = masters as [Proc, Proc, Proc];
    const rec = new Recorder();
    const lb = new RoundRobin(masters.map((m) => m.url));
    const boxes: SimBox[] = [];
    for (let i = 0; i < SITES; i++) {
      const reg = await api(masters[i % 3]!, token, 'POST', '/api/v1/tenant-master-sync/commands/register-site', { tenant_id: `farm-${i % 2}`, site_id: `site-${i}`, industry_code: 'poultry' });
      expect(reg.status).toBe(201);
      boxes.push(new SimBox(`farm-${i % 2}`, `site-${i}`, reg.body.item.credential, lb, rec, undefined, 5_000));
    }

    // A status stream on each survivor, open through the whole run.
    const streams = [b, c].map((m) => {
      const ws = new WebSocket(`${m.url.replace('http', 'ws')}/api/v1/status/stream`, { headers: { authorization: `Bearer ${token}` } });
      const got: { type: string; data?: { id: number; correlation_id: string | null } }[] = [];
      ws.on('message', (x) => got.push(JSON.parse(String(x))));
      return { ws, got };
    });
    await waitFor('the streams to be ready', async () => streams.every((s) => s.got.some((m) => m.type === 'ready')), 10_000);

    // Load: every box queues a burst of its site day (3 simulated minutes per 100 ms) and syncs
    // in a closed loop, so pushes are in flight at every master when one dies.
    let simulated = Date.now() - 3_600_000;
    let loading = true;
    const producer = (async () => {
      while (loading) {
        for (const box of boxes) box.generate(simulated, simulated + 180_000);
        simulated += 180_000;
        await new Promise((r) => setTimeout(r, 100));
      }
    })();
    const loops = boxes.map(async (box) => {
      while (loading) {
        await box.cycle(200);
        await new Promise((r) => setTimeout(r, 10));
      }
    });
    await waitFor('load on every master', async () => rec.pushes >= 15, 20_000);
    const ackedBefore = rec.acked;
    const failuresBefore = rec.failures;
    await a.kill9();
    const pushesAtKill = rec.pushes;
    await waitFor('load on the survivors', async () => rec.pushes >= pushesAtKill + 15, 20_000);
    loading = false;
    await producer;
    await Promise.all(loops);
    // The boxes drain their outboxes through the round-robin, the dead master still in it.
    for (const box of boxes) await box.cycle(200);

    expect(rec.failures).toBeGreaterThan(failuresBefore);
    expect(rec.acked).toBeGreaterThan(ackedBefore);
    for (const box of boxes) {
      expect(box.outbox).toHaveLength(0);
      expect(box.acked).toBe(box.seq);
      const { rows: [inbox] } = await db.query<{ n: string; distinct_seq: string; sum: string }>(
        'select count(*) as n, count(distinct seq) as distinct_seq, coalesce(sum(seq), 0) as sum from sync_inbox where tenant_id = $1 and site_id = $2', [box.tenant, box.site]);
      // Every acknowledged event the inbox keeps (all but telemetry, whose record is its
      // per-minute rows, checked below), each once: no gap, no double.
      expect({ n: Number(inbox!.n), distinct: Number(inbox!.distinct_seq), sum: Number(inbox!.sum) }).toEqual({ n: box.inboxed, distinct: box.inboxed, sum: box.inboxedSeqSum });
      const { rows: [site] } = await db.query<{ applied_seq: string; events_received: string }>('select applied_seq, events_received from sync_sites where tenant_id = $1 and site_id = $2', [box.tenant, box.site]);
      expect([Number(site!.applied_seq), Number(site!.events_received)]).toEqual([box.seq, box.seq]);
      // The projections applied each event once: telemetry points and heartbeats add up.
      const { rows: [t] } = await db.query<{ points: string }>('select coalesce(sum(points), 0) as points from sync_telemetry where tenant_id = $1 and site_id = $2', [box.tenant, box.site]);
      expect(Number(t!.points)).toBe(box.points);
      const { rows: [h] } = await db.query<{ n: string }>('select count(*) as n from sync_heartbeats where tenant_id = $1 and site_id = $2', [box.tenant, box.site]);
      expect(Number(h!.n)).toBe(box.heartbeats);
    }

    // A push whose answer was lost, retried at another master: all duplicates, nothing applied twice.
    const box = boxes[0]!;
    const { rows: again } = await db.query<{ seq: string; kind: 'status'; created_at: Date; payload: Record<string, unknown> }>(
      "select seq, kind, created_at, payload from sync_inbox where tenant_id = $1 and site_id = $2 and kind = 'status' order by seq desc limit 5", [box.tenant, box.site]);
    const replay = await box.resend(again.map((r) => ({ seq: Number(r.seq), kind: r.kind, created_at: new Date(r.created_at).toISOString(), payload: r.payload })));
    expect(replay).toMatchObject({ accepted: 0, duplicates: again.length, applied_seq: box.seq });

    // Both survivors compute the same sync records from the database.
    const received = async (m: Proc) => ((await api(m, token, 'GET', '/api/v1/tenant-master-sync/list?sort=tenant_id')).body.items as { tenant_id: string; events_received: number }[])
      .map((x) => [x.tenant_id, x.events_received] as const);
    const [fromB, fromC] = [await received(b), await received(c)];
    expect(fromB).toEqual(fromC);
    expect(fromB.reduce((s, [, n]) => s + n, 0)).toBe(boxes.reduce((s, x) => s + x.seq, 0));

    // Caches: an uninstall through one survivor is seen by the other, without a restart.
    expect((await api(b, token, 'POST', '/api/v1/modules/commands/uninstall', { id: 'tasks' })).status).toBe(200);
    await waitFor('c to drop tasks', async () => (await api(c, token, 'GET', '/api/v1/tasks/list')).status === 404, 10_000);

    // Status streams: an event published through one survivor reaches both streams, once each.
    const published = await api(c, token, 'POST', '/api/v1/status/commands/publish', { source: 'test', event: 'door_open', status: 'warn', correlation_id: 'three-masters-1' });
    expect(published.status).toBe(201);
    for (const s of streams) await waitFor('the event on every survivor stream', async () => s.got.some((m) => m.data?.correlation_id === 'three-masters-1'), 10_000);
    await new Promise((r) => setTimeout(r, 200));
    for (const s of streams) {
      expect(s.got.filter((m) => m.data?.correlation_id === 'three-masters-1').map((m) => m.data?.id)).toEqual([published.body.item.id]);
      s.ws.close();
    }

    // The killed master comes back knowing what changed while it was down.
    await a.start();
    expect((await api(a, token, 'GET', '/api/v1/tasks/list')).status).toBe(404);
    expect((await api(a, token, 'POST', '/api/v1/modules/commands/install', { id: 'tasks' })).status).toBe(200);
    await waitFor('b and c to serve tasks again', async () => (await api(b, token, 'GET', '/api/v1/tasks/list')).status === 200 && (await api(c, token, 'GET', '/api/v1/tasks/list')).status === 200, 10_000);
  }, 90_000);
});
