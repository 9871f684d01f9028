// What users trust: a write the server answered with success is stored. The server runs as a real
// child process (`cabinet serve`, the same entry point a box runs) on a temporary data directory;
// several clients write through four paths (a record, an audit entry, a status event, a batched
// telemetry point) until the process is killed with SIGKILL at a random moment. After every
// restart each write answered 2xx in any earlier round must be found, intact. Writes cut off by
// the kill may or may not be there: they were never acknowledged.
import { createSecretKey, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import pg from 'pg';
import { signSession } from '../../src/auth/tokens.js';
import { spawnServe, type ServeChild } from '../helpers/serve-child.js';

const PG_URL = process.env.CABINET_TEST_PG_URL;
const WRITERS = 8;
const KINDS = ['record', 'audit', 'status', 'telemetry'] as const;
type Kind = (typeof KINDS)[number];

type Server = ServeChild;

/** `node <cabinet> serve`: one process, so SIGKILL hits the server itself. */
const startServer = (env: Record<string, string>): Promise<Server> => spawnServe([], { env });

interface Acked { kind: Kind; key: string; n: number; writer: number }

/** Writers loop until `stop()`; each answer with a 2xx status is an acknowledged write. */
function writeLoad(url: string, token: string, round: number) {
  const acked: Acked[] = [];
  let stopped = false;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown): Promise<boolean> => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const text = await res.text();
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${text}`); // not a kill: a real refusal
    return true;
  };
  const one = async (writer: number, n: number): Promise<void> => {
    const kind = KINDS[n % KINDS.length]!;
    const key = `r${round}-w${writer}-${n}`;
    if (kind === 'record') await post('/api/v1/tables', { item: { id: key, n, writer } });
    else if (kind === 'audit') await post('/api/v1/audit/commands/log', { action: 'durability.write', resource: 'durability', result: 'success', correlation_id: key, details: { n } });
    else if (kind === 'status') await post('/api/v1/status/commands/publish', { source: 'durability', event: key, status: 'ok' });
    else await post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: `dur-w${writer}`, metric: `seq-r${round}`, value: n }] });
    acked.push({ kind, key, n, writer });
  };
  const errors: Error[] = [];
  const loops = Array.from({ length: WRITERS }, async (_, writer) => {
    for (let n = writer; !stopped; n += WRITERS) {
      try {
        await one(writer, n);
      } catch (err) {
        // After the kill, a refused connection or a reset is expected; before it, it is a failure.
        if (!stopped) errors.push(err as Error);
        return;
      }
    }
  });
  return { acked, errors, stop: () => { stopped = true; }, done: Promise.all(loops) };
}

async function getAll(url: string, token: string, path: string): Promise<Record<string, unknown>[]> {
  const items: Record<string, unknown>[] = [];
  for (let offset = 0; ; offset += 500) {
    const sep = path.includes('?') ? '&' : '?';
    const res = await fetch(`${url}${path}${sep}limit=500&offset=${offset}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { items: Record<string, unknown>[]; has_more: boolean };
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
    items.push(...body.items);
    if (!body.has_more) return items;
  }
}

/** Every acknowledged write, as the API reads it back; a list of what is missing or wrong. */
async function missing(url: string, token: string, acked: Acked[]): Promise<string[]> {
  const records = new Map((await getAll(url, token, '/api/v1/tables/list')).map((r) => [r.id as string, r]));
  const audit = new Set((await getAll(url, token, '/api/v1/audit/list?resource=durability')).map((r) => r.correlation_id));
  const status = new Set((await getAll(url, token, '/api/v1/status/list?source=durability&since=0')).map((r) => r.event));
  const points = new Set((await getAll(url, token, '/api/v1/devices/telemetry/list')).map((p) => `${p.device_id}/${p.metric}/${p.value}`));
  const lost: string[] = [];
  for (const a of acked) {
    const round = a.key.split('-')[0]!.slice(1);
    const found =
      a.kind === 'record' ? records.get(a.key)?.n === a.n :
      a.kind === 'audit' ? audit.has(a.key) :
      a.kind === 'status' ? status.has(a.key) :
      points.has(`dur-w${a.writer}/seq-r${round}/${a.n}`);
    if (!found) lost.push(`${a.kind} ${a.key}`);
  }
  return lost;
}

const dialects: { name: string; rounds: number; database: () => Promise<{ url: string; drop(): Promise<void> }> }[] = [
  { name: 'sqlite', rounds: 6, database: async () => ({ url: '', drop: async () => undefined }) },
  {
    // The machine's PostgreSQL when the suite is given one (CI), else PGlite on a directory.
    name: PG_URL ? 'postgres' : 'pglite',
    rounds: 5,
    database: async () => {
      if (!PG_URL) return { url: `pglite:${mkdtempSync(join(tmpdir(), 'cabinet-durability-pglite-'))}`, drop: async () => undefined };
      const name = `cabinet_dur_${randomBytes(6).toString('hex')}`;
      const admin = async (sql: string) => { const c = new pg.Client({ connectionString: PG_URL }); await c.connect(); try { await c.query(sql); } finally { await c.end(); } };
      await admin(`create database ${name}`);
      const u = new URL(PG_URL);
      u.pathname = `/${name}`;
      return { url: u.toString(), drop: () => admin(`drop database if exists ${name} with (force)`) };
    },
  },
];

const cleanups: (() => Promise<void>)[] = [];
afterAll(async () => { for (const c of cleanups) await c(); });

describe.each(dialects)('acknowledged writes survive SIGKILL under load ($name)', ({ rounds, database }) => {
  it(`finds every acknowledged write after each of ${rounds} kills`, async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-durability-'));
    const db = await database();
    let server: Server | undefined;
    cleanups.push(async () => {
      if (server && server.proc.exitCode === null && server.proc.signalCode === null) { server.proc.kill('SIGKILL'); await server.exited; }
      await db.drop();
      rmSync(dataDir, { recursive: true, force: true });
      if (db.url.startsWith('pglite:')) rmSync(db.url.slice('pglite:'.length), { recursive: true, force: true });
    });
    const secret = randomBytes(32).toString('hex');
    const env = {
      CABINET_DATA_DIR: dataDir, CABINET_DATABASE_URL: db.url, CABINET_SESSION_SECRET: secret,
      CABINET_HOST: '127.0.0.1', CABINET_HTTP_PORT: '0', CABINET_RPC_PORT: '0', CABINET_MQTT_BROKER: 'off',
      CABINET_LOG_LEVEL: 'info', // the "cabinet listening" line, with the port, is an info line
    };
    const { token } = await signSession(createSecretKey(Buffer.from(secret)), { subject: 'durability', role: 'admin', scope_type: 'tenant', tenant_id: 'tD', ttlMinutes: 60 });
    const acked: Acked[] = [];
    const perRound: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      server = await startServer(env);
      // every write acknowledged before any earlier kill is still there
      expect(await missing(server.url, token, acked)).toEqual([]);
      const load = writeLoad(server.url, token, round);
      // Kill at a random moment once every kind of write has been answered at least once (on a
      // loaded machine a fixed delay could end a round before a batched telemetry write is answered).
      const started = Date.now();
      while (!KINDS.every((k) => load.acked.some((a) => a.kind === k))) {
        if (load.errors.length || Date.now() - started > 60_000) break;
        await new Promise((r) => setTimeout(r, 10));
      }
      await new Promise((r) => setTimeout(r, Math.floor(Math.random() * 500)));
      server.proc.kill('SIGKILL');
      load.stop();
      await server.exited;
      await load.done;
      expect(load.errors.map((e) => e.message)).toEqual([]);
      expect(new Set(load.acked.map((a) => a.kind))).toEqual(new Set(KINDS));
      perRound.push(load.acked.length);
      acked.push(...load.acked);
    }
    server = await startServer(env);
    expect(await missing(server.url, token, acked)).toEqual([]);
    expect(new Set(acked.map((a) => a.kind))).toEqual(new Set(KINDS));
    server.proc.kill('SIGTERM');
    await server.exited;
    console.log(`durability: ${acked.length} acknowledged writes over ${rounds} SIGKILLs (per round: ${perRound.join(', ')}), all found`);
  }, 600_000);
});
