// A box sends its next batch while the master applies the one before (the pull answer's
// push_after), each push naming the batch before it (`after`): the master takes a push only once
// everything up to its `after` is applied, so a batch that failed is never skipped. Checked on
// the master directly (a push past a gap takes nothing, on both paths of the master's push), and
// end to end through a proxy that holds each push until the next one arrives: a box that waited
// for each answer would hold it up. A master older than push_after gets one push at a time.
import { createServer, type Server } from 'node:http';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { catchUpThrough } from '../helpers/sync-catch-up.js';
import type { EventKind, PushBody } from '../../src/modules/tenant-master-sync/engine/protocol.js';
import { push } from '../../src/modules/tenant-master-sync/engine/master.js';

type Pushed = { seq: number; kind: EventKind; created_at: string; payload: Record<string, unknown> };

const at = (i: number) => new Date(Date.UTC(2026, 10, 29, 10, 0, i)).toISOString();
const eventOf = (seq: number): Pushed & { kind: EventKind } => {
  if (seq % 3 === 0) return { seq, kind: 'alarm', created_at: at(seq), payload: { kind: 'raised', alarm: { id: `A-${seq}`, severity: 'high', state: 'open', title: 'hot', raised_at: at(seq) } } };
  if (seq % 3 === 1) return { seq, kind: 'telemetry', created_at: at(seq), payload: { aggregates: [{ device_id: `dev-${seq}`, metric: 'temp', bucket: at(0), points: 2, sum: 40, min: 20, max: 20, last_status: 'online' }] } };
  return { seq, kind: 'heartbeat', created_at: at(seq), payload: { at: at(seq), interval_ms: 60_000, rtt_ms: 5 } };
};
const events = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => eventOf(from + i));

describe.each(DIALECTS)('a push after a batch the master has not applied (master on %s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let site: Client;
  let passkeyId: string;
  const count = async (table: string) => Number((await master.services.db.rows<{ n: unknown }>(sql.raw(`select count(*) as n from ${table} where site_id = 'site-1'`)))[0]!.n);
  const seqs = async () => (await master.services.db.rows<{ seq: unknown }>(sql`select seq from sync_inbox where site_id = 'site-1' order by seq`)).map((r) => Number(r.seq));

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const fleet = await clientAs(env, master);
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
    site = await siteClient(master.url, reg.body.item.credential, fleet.contract);
    passkeyId = reg.body.item.passkey_id;
  });
  afterAll(async () => {
    await env.cleanup();
  });

  it('takes none of its events until the batch named by after is applied, then takes them once', async () => {
    const send = async (body: Record<string, unknown>) => {
      const res = await site.post('/api/v1/site-sync/commands/push', { remaining: 0, ...body });
      expect(res.status).toBe(200);
      return res.body.item as { applied_seq: number; accepted: number; duplicates: number };
    };
    expect((await site.post('/api/v1/site-sync/commands/pull', { remaining: 0 })).body.item.push_after).toBe(true);
    expect(await send({ events: events(1, 3) })).toMatchObject({ applied_seq: 3, accepted: 3, duplicates: 0 });
    const held = { inbox: await count('sync_inbox'), telemetry: await count('sync_telemetry'), alarms: await count('sync_alarms'), beats: await count('sync_heartbeats') };
    // 4..6 did not arrive (yet): 7..9 sent after them are not taken past the gap.
    expect(await send({ events: events(7, 9), after: 6 })).toEqual({ applied_seq: 3, accepted: 0, duplicates: 0, mode: 'auto' });
    expect({ inbox: await count('sync_inbox'), telemetry: await count('sync_telemetry'), alarms: await count('sync_alarms'), beats: await count('sync_heartbeats') }).toEqual(held);
    expect(await send({ events: events(4, 6), after: 3 })).toMatchObject({ applied_seq: 6, accepted: 3, duplicates: 0 });
    expect(await send({ events: events(7, 9), after: 6 })).toMatchObject({ applied_seq: 9, accepted: 3, duplicates: 0 });
    // A batch sent again in part: what is new is taken, what was applied is a duplicate.
    expect(await send({ events: events(8, 10), after: 7 })).toMatchObject({ applied_seq: 10, accepted: 1, duplicates: 2 });
    expect(await send({ events: events(11, 19) })).toMatchObject({ applied_seq: 19, accepted: 9 });
    // The inbox holds every event but telemetry (a telemetry event's record is its per-minute row).
    expect(await seqs()).toEqual(events(1, 19).filter((e) => e.kind !== 'telemetry').map((e) => e.seq));
    expect(await count('sync_alarms')).toBe(6);
    expect(await count('sync_telemetry')).toBe(7);
    expect(await count('sync_heartbeats')).toBe(6);
    // An empty push (the box's report) is taken whatever its after.
    expect(await send({ events: [], after: 99 })).toMatchObject({ applied_seq: 19, accepted: 0 });
  });

  it('takes a push that overtook the one it names once that one, queued behind it in the process, is applied', async () => {
    const caller = { subject: passkeyId, role: 'operator' as const, scope_type: 'tenant' as const, tenant_id: 'farm-a', site_id: 'site-1', session_id: 'test' };
    const pushOf = (from: number, to: number, after?: number) => push(master.services, caller, { events: events(from, to), remaining: 0, ...(after !== undefined ? { after } : {}) } as PushBody);
    // Both reach the site's queue at once, the later batch first (as when it was read, checked
    // and validated sooner on its way in).
    const [later, first] = await Promise.all([pushOf(23, 25, 22), pushOf(20, 22, 19)]);
    expect(first).toMatchObject({ applied_seq: 22, accepted: 3 });
    expect(later).toMatchObject({ applied_seq: 25, accepted: 3, duplicates: 0 });
    expect((await seqs()).slice(-4)).toEqual([20, 21, 23, 24]);
    expect(Number((await master.services.db.rows<{ n: unknown }>(sql`select applied_seq as n from sync_sites where site_id = 'site-1'`))[0]!.n)).toBe(25);
    // Nothing behind it: refused at once.
    expect(await pushOf(30, 31, 29)).toMatchObject({ applied_seq: 25, accepted: 0 });
  });

  it('refuses a push with events while paused, and one of a tenant without a sync record, storing nothing of it', async () => {
    const fleet = await clientAs(env, master);
    const reported = async () => Number((await master.services.db.rows<{ n: unknown }>(sql`select reported_pending as n from sync_sites where site_id = 'site-1'`))[0]!.n);
    const inbox = await count('sync_inbox');
    await fleet.post('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
    const paused = await site.post('/api/v1/site-sync/commands/push', { events: events(26, 27), after: 25, remaining: 77 });
    expect(paused.status).toBe(409);
    expect(paused.body.error.code).toBe('lifecycle_conflict');
    expect([await count('sync_inbox'), await reported()]).toEqual([inbox, 0]);
    // The box's report alone is taken while paused.
    expect((await site.post('/api/v1/site-sync/commands/push', { events: [], remaining: 77 })).status).toBe(200);
    expect(await reported()).toBe(77);
    // Resumed, the same push is taken: the mode is read at every push.
    await fleet.post('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'auto' });
    expect((await site.post('/api/v1/site-sync/commands/push', { events: events(26, 27), after: 25, remaining: 0 })).body.item).toMatchObject({ applied_seq: 27, accepted: 2 });
    await master.services.db.run(sql`delete from sync_tenants where tenant_id = 'farm-a'`);
    const orphan = await site.post('/api/v1/site-sync/commands/push', { events: events(28, 28), remaining: 5 });
    expect(orphan.status).toBe(404);
    expect([await count('sync_inbox'), await reported()]).toEqual([inbox + 2, 0]);
  });
});

/**
 * A proxy in front of the master that records the site's pushes and forwards them one at a time.
 * `hold`: each push with events waiting behind it is forwarded only when the next push arrives
 * (or after 10 s, counted in late); `fail` the n-th push: answered 503 without reaching the
 * master. `old`: pull answers without push_after, as an older master's.
 */
function proxyOf(target: () => string, opts: { hold?: boolean; fail?: number; old?: boolean }) {
  const log = { pushes: [] as { after?: number; seqs: number[]; answer?: { accepted: number; applied_seq: number } | { status: number } }[], inFlight: 0, maxInFlight: 0, late: 0 };
  let held: (() => void) | undefined;
  let order = Promise.resolve();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      const isPush = req.url === '/api/v1/site-sync/commands/push';
      const parsed = isPush ? (JSON.parse(body.toString()) as { events: Pushed[]; telemetry?: { seq: number[] }; after?: number; remaining: number }) : undefined;
      // A push's seqs: its events' and those of its telemetry columns.
      const pushed = parsed ? [...parsed.events.map((e) => e.seq), ...(parsed.telemetry?.seq ?? [])].sort((a, b) => a - b) : [];
      const entry: (typeof log.pushes)[number] | undefined = pushed.length ? { after: parsed!.after, seqs: pushed } : undefined;
      if (entry) log.pushes.push(entry);
      log.inFlight++;
      log.maxInFlight = Math.max(log.maxInFlight, log.inFlight);
      let answered = () => undefined as void;
      const answer = (status: number, headers: Record<string, string>, bytes: Buffer) => {
        log.inFlight--;
        res.writeHead(status, headers).end(bytes);
        answered();
      };
      const send = () => {
        if (entry && log.pushes.indexOf(entry) + 1 === opts.fail) {
          entry.answer = { status: 503 };
          answer(503, { 'content-type': 'application/json' }, Buffer.from('{"error":{"code":"unavailable","message":"proxy"}}'));
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
        fetch(`${target()}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body }).then(async (r) => {
          let bytes = Buffer.from(await r.arrayBuffer());
          if (entry && r.status === 200) entry.answer = (JSON.parse(bytes.toString()) as { item: { accepted: number; applied_seq: number } }).item;
          if (opts.old && req.url === '/api/v1/site-sync/commands/pull' && r.status === 200) {
            const doc = JSON.parse(bytes.toString()) as { item: Record<string, unknown> };
            delete doc.item.push_after;
            bytes = Buffer.from(JSON.stringify(doc));
          }
          const out: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'application/json' };
          const cookie = r.headers.get('set-cookie');
          if (cookie) out['set-cookie'] = cookie;
          answer(r.status, out, bytes);
        }, () => answer(502, {}, Buffer.alloc(0)));
      };
      // The site's pushes reach the master one after the other, in the order they came: which of
      // two at once the master takes first would otherwise be chance.
      const forward = () => {
        if (!entry) { send(); return; }
        order = order.then(() => new Promise<void>((done) => { answered = done; send(); }));
      };
      if (entry) {
        held?.();
        held = undefined;
      }
      if (opts.hold && entry && parsed!.remaining > 0) {
        let done = false;
        const release = () => { if (!done) { done = true; forward(); } };
        held = release;
        setTimeout(() => { if (!done) { log.late++; release(); } }, 10_000).unref();
        return;
      }
      forward();
    });
  });
  return { server, log };
}

describe.each(DIALECTS)('a box sends its next batch before the answer (master on %s)', (dialect) => {
  let masterEnv: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  const started: { env: TestEnv; proxy: Server }[] = [];

  beforeAll(async () => {
    masterEnv = await createTestEnv(dialect);
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    fleet = await clientAs(masterEnv, master);
  });
  afterAll(async () => {
    for (const s of started) {
      await s.env.cleanup();
      s.proxy.close();
    }
    await masterEnv.cleanup();
  });

  /** A box syncing through a proxy; 60 events wait in its outbox while its tenant is paused, then it catches up. */
  async function catchUp(tenant: string, opts: Parameters<typeof proxyOf>[1]) {
    const { server: proxy, log } = proxyOf(() => master.url, opts);
    const { last, telemetry } = await catchUpThrough({ fleet, master, tenant, proxy, queued: events(1, 60), batchMax: 5, started });
    const inbox = (await master.services.db.rows<{ seq: unknown }>(sql`select seq from sync_inbox where tenant_id = ${tenant} order by seq`)).map((r) => Number(r.seq));
    // Every event once, in order, none skipped (but telemetry, whose record is its per-minute rows).
    expect(inbox).toEqual(Array.from({ length: last }, (_, i) => i + 1).filter((seq) => !telemetry.has(seq)));
    const points = Number((await master.services.db.rows<{ n: unknown }>(sql`select coalesce(sum(points), 0) as n from sync_telemetry where tenant_id = ${tenant}`))[0]!.n);
    expect(points).toBe(2 * telemetry.size);
    // The catch-up's pushes (the box may push events of its own after them, in a later cycle).
    return { ...log, pushes: log.pushes.filter((p) => p.seqs[0]! <= last) };
  }

  it('names the batch before in each push and sends it before that batch\'s answer', async () => {
    const { pushes, late } = await catchUp('farm-p', { hold: true });
    expect(pushes.length).toBeGreaterThanOrEqual(12);
    // The first push of the catch-up names nothing; each later one the last seq of the one before.
    pushes.slice(1).forEach((p, i) => expect(p.after).toBe(pushes[i]!.seqs.at(-1)));
    expect(late).toBe(0);
  });

  it('sends again from the oldest event when a batch fails: the batch sent after it is not taken', async () => {
    const log = await catchUp('farm-q', { hold: true, fail: 3 });
    const failed = log.pushes[2]!;
    expect(failed.answer).toEqual({ status: 503 });
    const next = log.pushes[3]!;
    expect(next.after).toBe(failed.seqs.at(-1));
    expect(next.answer).toMatchObject({ accepted: 0 });
    // The failed batch's events came again (the proxy fails the third push only).
    expect(log.pushes.slice(4).some((p) => p.seqs[0] === failed.seqs[0] && p.after === undefined)).toBe(true);
  });

  it('waits for each answer from a master older than push_after', async () => {
    const log = await catchUp('farm-r', { old: true });
    expect(log.pushes.length).toBeGreaterThanOrEqual(12);
    expect(log.pushes.every((p) => p.after === undefined)).toBe(true);
    expect(log.maxInFlight).toBe(1);
  });
});
