// The transactional outbox under SIGKILL: a box process (SQLite) syncing to a real master process
// (PostgreSQL with CABINET_TEST_PG_URL, else SQLite) takes writes from several clients (alarms,
// status events, audit records, telemetry) and is killed with SIGKILL at a random moment, round
// after round, then restarted. At the end, once the box has pushed everything, every write the
// box answered 2xx is on the master exactly once, and so is every record the box holds (a write
// cut off by the kill may be on both or on neither, never on one side only).
import { join } from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../helpers/server.js';
import { api, killAll, masterWithSite, waitFor, type Proc } from '../sync/procs.js';

const PG = Boolean(process.env.CABINET_TEST_PG_URL);
const ROUNDS = 5;
const WRITERS = 4;
const KINDS = ['alarm', 'status', 'audit', 'telemetry'] as const;
type Kind = (typeof KINDS)[number];
interface Acked { kind: Kind; key: string }

/** Writers loop until stopped; a 2xx answer is an acknowledged write (its key: what the master must hold). */
function writeLoad(box: Proc, token: string, round: number) {
  const acked: Acked[] = [];
  const errors: string[] = [];
  let stopped = false;
  const one = async (writer: number, n: number) => {
    const kind = KINDS[n % KINDS.length]!;
    const key = `r${round}-w${writer}-${n}`;
    let r: { status: number; body: any }; // eslint-disable-line @typescript-eslint/no-explicit-any
    if (kind === 'alarm') r = await api(box, token, 'POST', '/api/v1/alarms/commands/raise', { severity: 'low', source: 'rules', title: key });
    else if (kind === 'status') r = await api(box, token, 'POST', '/api/v1/status/commands/publish', { source: 'outbox', event: key, status: 'ok' });
    else if (kind === 'audit') r = await api(box, token, 'POST', '/api/v1/audit/commands/log', { action: 'outbox.write', resource: 'outbox', result: 'success', correlation_id: key });
    else r = await api(box, token, 'POST', '/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: `w${writer}`, metric: `r${round}`, value: n }] });
    if (r.status >= 300) throw new Error(`${kind}: ${r.status} ${JSON.stringify(r.body)}`);
    acked.push({ kind, key: kind === 'alarm' ? (r.body.item.id as string) : kind === 'telemetry' ? `w${writer}/r${round}` : key });
  };
  const loops = Array.from({ length: WRITERS }, async (_, writer) => {
    for (let n = writer; !stopped; n += WRITERS) {
      try {
        await one(writer, n);
      } catch (err) {
        // After the kill a refused or reset connection is expected; before it, it is a failure.
        if (!stopped) errors.push((err as Error).message);
        return;
      }
    }
  });
  return { acked, errors, stop: () => { stopped = true; }, done: Promise.all(loops) };
}

describe(`acknowledged box writes reach the master exactly once across SIGKILLs (master on ${PG ? 'PostgreSQL' : 'SQLite'})`, () => {
  let masterEnv: TestEnv;
  let boxEnv: TestEnv;
  let master: Proc;
  let box: Proc;
  let fleet: string;

  /** Rows of the master's database (the test reads its sync tables directly). */
  const masterRows = async <T,>(query: string): Promise<T[]> => {
    if (PG) {
      const c = new pg.Client({ connectionString: masterEnv.databaseUrl });
      await c.connect();
      try { return (await c.query(query)).rows as T[]; } finally { await c.end(); }
    }
    const db = new Database(join(masterEnv.dataDir, 'cabinet.sqlite'), { readonly: true });
    try { return db.prepare(query).all() as T[]; } finally { db.close(); }
  };
  const boxSeq = () => {
    const db = new Database(join(boxEnv.dataDir, 'cabinet.sqlite'), { readonly: true });
    try { return Number((db.prepare("select value from sync_state where key = 'outbox_seq'").get() as { value: string }).value); } finally { db.close(); }
  };
  const getAll = async (token: string, path: string) => {
    const items: Record<string, unknown>[] = [];
    for (let offset = 0; ; offset += 500) {
      const r = await api(box, token, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=500&offset=${offset}`);
      expect(r.status).toBe(200);
      items.push(...(r.body.items as Record<string, unknown>[]));
      if (!r.body.has_more) return items;
    }
  };

  beforeAll(async () => {
    ({ masterEnv, boxEnv, master, box, fleet } = await masterWithSite({
      sync_interval_ms: '50', sync_heartbeat_ms: '60000', sync_backoff_max_ms: '400', sync_batch_max: '20', sync_request_timeout_ms: '3000',
    }));
  }, 120_000);

  afterAll(async () => {
    await box?.stop();
    await master?.stop();
    killAll();
    await boxEnv?.cleanup();
    await masterEnv?.cleanup();
  });

  it(`loses and duplicates nothing over ${ROUNDS} SIGKILLs of the box under write load`, async () => {
    const acked: Acked[] = [];
    const perRound: number[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      await box.start();
      const token = await box.token({ role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a', site_id: 'site-1' });
      const load = writeLoad(box, token, round);
      // A random moment once every kind has been answered (the box pushes all the while).
      const started = Date.now();
      while (!KINDS.every((k) => load.acked.some((a) => a.kind === k)) && !load.errors.length && Date.now() - started < 30_000) await new Promise((r) => setTimeout(r, 10));
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 400)));
      const killed = box.kill9(); // sends SIGKILL before it returns
      load.stop();
      await killed;
      await load.done;
      expect(load.errors).toEqual([]);
      perRound.push(load.acked.length);
      acked.push(...load.acked);
    }
    await box.start();
    const token = await box.token({ role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a', site_id: 'site-1' });
    await waitFor('every numbered event on the master', async () => {
      const r = (await api(master, fleet, 'GET', '/api/v1/tenant-master-sync/farm-a')).body.item;
      return r?.pending_up === 0 && r.events_received === boxSeq() ? r : undefined;
    }, 60_000);

    // What the master received, by key, with how often.
    const inbox = await masterRows<{ kind: string; payload: unknown }>("select kind, payload from sync_inbox where kind in ('alarm', 'status', 'audit')");
    const onMaster = new Map<string, number>();
    for (const row of inbox) {
      const p = (typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload) as Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
      const key = row.kind === 'alarm' && p.kind === 'raised' ? `alarm ${p.alarm.id}` : row.kind === 'status' && p.source === 'outbox' ? `status ${p.event}` : row.kind === 'audit' && p.action === 'outbox.write' ? `audit ${p.correlation_id}` : undefined;
      if (key) onMaster.set(key, (onMaster.get(key) ?? 0) + 1);
    }
    // What the box holds, by the same keys (acknowledged writes and ones the kill cut off).
    const onBox = new Set([
      ...(await getAll(token, '/api/v1/alarms/list?source=rules')).map((a) => `alarm ${a.id}`),
      ...(await getAll(token, '/api/v1/status/list?source=outbox&since=0')).map((s) => `status ${s.event}`),
      ...(await getAll(token, '/api/v1/audit/list?resource=outbox')).map((a) => `audit ${a.correlation_id}`),
    ]);
    const records = acked.filter((a) => a.kind !== 'telemetry').map((a) => `${a.kind} ${a.key}`);
    expect(records.filter((k) => !onBox.has(k))).toEqual([]); // the box kept every acknowledged write
    expect(records.filter((k) => onMaster.get(k) !== 1)).toEqual([]); // each reached the master once
    expect([...onMaster].filter(([, n]) => n !== 1)).toEqual([]); // no duplicates
    expect([...onBox].filter((k) => !onMaster.has(k))).toEqual([]); // nothing the box holds is missing
    expect([...onMaster.keys()].filter((k) => !onBox.has(k))).toEqual([]); // nothing the box lost is there

    // Telemetry arrives as per-minute aggregates: per series, the master counts as many points as the box stores.
    const points = new Map<string, number>();
    for (const p of await getAll(token, '/api/v1/devices/telemetry/list')) points.set(`${p.device_id}/${p.metric}`, (points.get(`${p.device_id}/${p.metric}`) ?? 0) + 1);
    const sums = new Map((await masterRows<{ device_id: string; metric: string; n: number | string }>('select device_id, metric, sum(points) as n from sync_telemetry group by device_id, metric'))
      .map((r) => [`${r.device_id}/${r.metric}`, Number(r.n)]));
    const series = [...new Set(acked.filter((a) => a.kind === 'telemetry').map((a) => a.key))];
    expect(series.length).toBeGreaterThan(0);
    for (const s of series) expect(points.get(s) ?? 0).toBeGreaterThanOrEqual(acked.filter((a) => a.key === s).length);
    expect(Object.fromEntries(sums)).toEqual(Object.fromEntries(points));
    console.log(`outbox durability: ${acked.length} acknowledged writes over ${ROUNDS} SIGKILLs (per round: ${perRound.join(', ')}); ${onMaster.size} records and ${[...points.values()].reduce((a, b) => a + b, 0)} points on the master, each once`);
  }, 300_000);
});
