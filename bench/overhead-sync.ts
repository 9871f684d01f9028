// Benchmark (not a test): the sync's catch-up on a master as users run it, against the raw insert
// of the same rows into the master's inbox, on PostgreSQL, each side in its own process:
//  - the master: `node --import tsx src/main.ts serve --mode cloud-multi` on a fresh database,
//  - the edge (the load): a real edge server in a child process (this script, `--edge`), whose
//    outbox is filled with a busy site's mix while its tenant is paused, then resumed,
//  - the baseline: a child process (this script, `--raw`) inserting the same rows with the pg driver into the
//    master's inbox, batches of 500 (the edge's sync_batch_max), one transaction each.
// What each writes for the same events: the raw insert an inbox row an event; the sync its
// per-minute telemetry rows (about 600 upserted a push of 500 events of this mix, a telemetry
// event being its rows only), the few other events' inbox rows, heartbeats, alarms and roll-ups.
// Rounds alternate the two. Catch-up is timed from the resume until the master's applied_seq is
// the last event's; the master's CPU comes from /proc/<pid>/stat, the raw inserter's from its
// own process.cpuUsage() around its inserts. PostgreSQL's CPU is printed apart: the backends of
// the master's database (pg_stat_activity) and the raw inserter's own backend, from /proc (a
// backend that ends during a round is not counted; the pool keeps its connections while busy).
// Usage: npx tsx bench/overhead-sync.ts [--rounds 3] [--events 10000] [--pg postgres://postgres@127.0.0.1:5432/test] [--cpu-prof DIR] [--before DIR]
// (--cpu-prof: the master and the edge each write a V8 CPU profile to DIR when they stop; --before DIR: a second
// master and edge from another tree, with this script and bench/lib/sync-mix.ts copied into it,
// in the same rounds against the same raw insert)
import { execFile, fork, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createServer, type AddressInfo } from 'node:net';
import pg from 'pg';
import { mix } from './lib/sync-mix.js';

const ROOT = join(import.meta.dirname, '..');
const BATCH = 500;
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
};

if (process.argv[2] === '--edge') await edge(process.argv[3]!, process.argv[4]!);
else if (process.argv[2] === '--raw') await rawPg(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
else if (process.argv[2] === '--drizzle') await raw(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
else await main();

/** The edge box: a real server syncing to the master; appends to its outbox when told. */
async function edge(dataDir: string, masterUrl: string): Promise<void> {
  const { loadConfig } = await import('../src/config.js');
  const { startServer } = await import('../src/server.js');
  const server = await startServer(loadConfig({
    data_dir: dataDir, host: '127.0.0.1', http_port: '0', https_port: 'off', rpc_port: 'off', mqtt_broker: 'off', log_level: 'warn',
    sync_master_url: masterUrl, sync_interval_ms: '50', sync_heartbeat_ms: '3600000', sync_batch_max: String(BATCH),
  }, {}));
  const sync = server.services.edgeSync!;
  process.on('message', (m: { append: number }) => {
    void (async () => {
      const events = mix(m.append);
      let last = 0;
      for (let i = 0; i < events.length; i += 5000) last = (await sync.outbox.append(events.slice(i, i + 5000))).at(-1) ?? last;
      process.send!({ last });
    })();
  });
  const stop = () => void server.close().finally(() => process.exit(0));
  process.on('disconnect', stop);
  // An exit, not a death by the signal: a CPU profile (--cpu-prof) is written at exit.
  process.once('SIGTERM', stop);
  process.send!({ ready: true });
}

/**
 * The baseline: the same rows straight into the inbox with the pg driver alone, batches of 500,
 * one transaction each: a multi-row INSERT with its text built once per batch size, values bound.
 */
async function rawPg(url: string, n: number, seq0: number): Promise<void> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const now = new Date().toISOString();
  const rows = mix(n).map((e, i) => ['bench', 'raw', seq0 + i + 1, e.kind, now, now, JSON.stringify(e.payload)]);
  const texts = new Map<number, string>();
  const insert = (k: number) => {
    let text = texts.get(k);
    if (!text) {
      const tuples = Array.from({ length: k }, (_, r) => `(${Array.from({ length: 7 }, (_, c) => `$${r * 7 + c + 1}`).join(', ')})`);
      texts.set(k, (text = `insert into sync_inbox (tenant_id, site_id, seq, kind, created_at, received_at, payload) values ${tuples.join(', ')}`));
    }
    return text;
  };
  const backend = Number((await client.query('select pg_backend_pid() as pid')).rows[0].pid);
  const pg0 = cpuSeconds(backend);
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) {
    const batch = rows.slice(i, i + BATCH);
    await client.query('begin');
    await client.query(insert(batch.length), batch.flat());
    await client.query('commit');
  }
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  const pgUs = (cpuSeconds(backend) - pg0) * 1e6;
  await client.end();
  process.stdout.write(`${JSON.stringify({ ms, cpuUs: cpu.user + cpu.system, pgUs })}\n`);
}

/** The former baseline, printed beside it: the same rows through the project's own Drizzle insert. */
async function raw(url: string, n: number, seq0: number): Promise<void> {
  const { openDatabase } = await import('../src/db/client.js');
  const { rowsPerInsert, tableOf } = await import('../src/db/sql.js');
  const { syncInbox } = await import('../src/modules/tenant-master-sync/schema.js');
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-raw-'));
  const db = await openDatabase({ databaseUrl: url, dataDir: dir });
  const t = tableOf(syncInbox, db);
  const now = new Date().toISOString();
  const rows = mix(n).map((e, i) => ({ tenant_id: 'bench', site_id: 'raw', seq: seq0 + i + 1, kind: e.kind, created_at: now, received_at: now, payload: e.payload }));
  const per = Math.min(BATCH, rowsPerInsert(7));
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < rows.length; i += per) await db.transaction(async () => { await db.orm.insert(t).values(rows.slice(i, i + per) as never); });
  const ms = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  process.stdout.write(`${JSON.stringify({ ms, cpuUs: cpu.user + cpu.system })}\n`);
}

function cpuSeconds(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return 0; // a backend that ended
  }
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

interface Side {
  name: string;
  master: ChildProcess;
  edge: ChildProcess;
  db: string;
  q: pg.Client;
  dirs: string[];
  call(path: string, body: unknown): Promise<{ item: Record<string, unknown> }>;
  next(): Promise<Record<string, number>>;
}

/**
 * A master (on a database of its own) and an edge syncing to it, both from `tree`: this checkout,
 * or another revision's with this script and bench/lib/sync-mix.ts copied in (the edge runs it).
 */
async function startSide(name: string, tree: string, admin: pg.Client, base: string, prof: string[], children: ChildProcess[], sides: Side[]): Promise<Side> {
  const db = `cabinet_overhead_${process.pid}_${sides.length}`;
  await admin.query(`create database ${db}`);
  const u = new URL(base);
  u.pathname = `/${db}`;
  const url = u.toString();
  const masterDir = mkdtempSync(join(tmpdir(), 'cabinet-master-'));
  const edgeDir = mkdtempSync(join(tmpdir(), 'cabinet-edge-'));
  const q = new pg.Client({ connectionString: url });
  const port = await freePort();
  const master = spawn(process.execPath, [...prof, '--import', 'tsx', 'src/main.ts', 'serve', '--mode', 'cloud-multi', '--database-url', url, '--data-dir', masterDir,
    '--host', '127.0.0.1', '--http-port', String(port), '--rpc-port', 'off', '--mqtt-broker', 'off'], { cwd: tree, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(master);
  const side = { name, master, db, q, dirs: [masterDir, edgeDir] } as Partial<Side>;
  sides.push(side as Side);
  const masterUrl = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${masterUrl}/ready`).catch(() => undefined))?.status === 200) break;
    if (i > 600) throw new Error('the master did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  await q.connect();
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', 'token', '--role', 'admin', '--scope-type', 'master', '--data-dir', masterDir, '--database-url', url], { cwd: tree, encoding: 'utf8' });
  const token = stdout.trim();
  side.call = async (path: string, body: unknown) => {
    const res = await fetch(`${masterUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
    return (await res.json()) as { item: Record<string, unknown> };
  };
  const reg = await side.call('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
  writeFileSync(join(edgeDir, 'site-credential'), String(reg.item.credential), { mode: 0o600 });
  await side.call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
  const edge = fork(join(tree, 'bench', 'overhead-sync.ts'), ['--edge', edgeDir, masterUrl], { cwd: tree, execArgv: [...prof, '--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  children.push(edge);
  side.edge = edge;
  side.next = () => new Promise<Record<string, number>>((resolve) => edge.once('message', (m) => resolve(m as Record<string, number>)));
  await side.next();
  return side as Side;
}

/** CPU seconds of each PostgreSQL backend of the side's database but the bench's own connection. */
async function backends(side: Side): Promise<Map<number, number>> {
  const { rows } = await side.q.query('select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()');
  return new Map(rows.map((r: { pid: number }) => [r.pid, cpuSeconds(r.pid)]));
}

/** One catch-up of n events: the events wait in the edge's outbox while paused, then the clock runs from the resume to the master's applied_seq reaching the last. */
async function catchUp(side: Side, n: number) {
  await side.call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
  await new Promise((r) => setTimeout(r, 300));
  side.edge.send({ append: n });
  const { last } = await side.next();
  const applied = async () => Number((await side.q.query(`select applied_seq as s from sync_sites where site_id = 'site-1'`)).rows[0]?.s ?? 0);
  const cpu0 = cpuSeconds(side.master.pid!);
  const edge0 = cpuSeconds(side.edge.pid!);
  const pg0 = await backends(side);
  const t0 = performance.now();
  await side.call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'auto' });
  while ((await applied()) < last!) await new Promise((r) => setTimeout(r, 20));
  const ms = performance.now() - t0;
  const masterUs = ((cpuSeconds(side.master.pid!) - cpu0) * 1e6) / n;
  const edgeUs = ((cpuSeconds(side.edge.pid!) - edge0) * 1e6) / n;
  let pg = 0;
  for (const [pid, s] of await backends(side)) pg += s - (pg0.get(pid) ?? 0);
  return { rate: (n / ms) * 1000, masterUs, edgeUs, pgUs: (pg * 1e6) / n };
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '3'));
  const n = Number(arg('events', '10000'));
  const base = arg('pg', 'postgres://postgres@127.0.0.1:5432/test');
  const beforeTree = process.argv.includes('--before') ? arg('before', '') : undefined;
  const prof = process.argv.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${arg('cpu-prof', join(ROOT, 'prof'))}`] : [];
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  const children: ChildProcess[] = [];
  const sides: Side[] = [];
  try {
    await startSide('sync         ', ROOT, admin, base, prof, children, sides);
    if (beforeTree) await startSide('sync, before ', beforeTree, admin, base, [], children, sides);
    const rawUrl = new URL(base);
    rawUrl.pathname = `/${sides[0]!.db}`;
    console.log(`sync catch-up vs raw inbox insert, PostgreSQL ${(await sides[0]!.q.query('show server_version')).rows[0].server_version}, ${n} events a round, ${rounds} rounds, node ${process.version}; master, edge and raw inserter each in its own process${beforeTree ? `; "before" is the tree in ${beforeTree} (its own master, edge and database)` : ''}`);
    let rawSeq = 0;
    const ratios = new Map<string, number[]>(sides.map((s) => [s.name, []]));
    for (let round = 1; round <= rounds; round++) {
      const got = new Map<string, Awaited<ReturnType<typeof catchUp>>>();
      // The order turns every round; the raw insert comes between or after.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      for (const side of order) got.set(side.name, await catchUp(side, n));
      const inserter = async (mode: '--raw' | '--drizzle') => {
        const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join('bench', 'overhead-sync.ts'), mode, rawUrl.toString(), String(n), String(rawSeq)], { cwd: ROOT, encoding: 'utf8' });
        rawSeq += n;
        return JSON.parse(stdout.trim().split('\n').at(-1)!) as { ms: number; cpuUs: number; pgUs?: number };
      };
      const r = await inserter('--raw');
      const d = await inserter('--drizzle');
      const rawRate = (n / r.ms) * 1000;
      console.log(`round ${round} (load average ${loadavg()[0]!.toFixed(1)}): raw pg insert ${Math.round(rawRate)} rows/s, inserter CPU ${Math.round(r.cpuUs / n)} us/row, PostgreSQL ${Math.round((r.pgUs ?? 0) / n)} us/row; the same through Drizzle (the former baseline) ${Math.round((n / d.ms) * 1000)} rows/s, ${Math.round(d.cpuUs / n)} us/row`);
      for (const side of sides) {
        const s = got.get(side.name)!;
        ratios.get(side.name)!.push(s.rate / rawRate);
        console.log(`  ${side.name}: ${Math.round(s.rate)} events/s, master CPU ${Math.round(s.masterUs)} us/event (edge ${Math.round(s.edgeUs)}, PostgreSQL ${Math.round(s.pgUs)}); sync / raw ${(s.rate / rawRate).toFixed(2)}x`);
      }
    }
    for (const side of sides) {
      const sorted = [...ratios.get(side.name)!].sort((a, b) => a - b);
      console.log(`${side.name.trim()} / raw: ${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}x (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}x)`);
    }
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))));
    for (const side of sides) {
      await side.q.end().catch(() => undefined);
      await admin.query(`drop database if exists ${side.db} with (force)`).catch(() => undefined);
      for (const d of side.dirs) rmSync(d, { recursive: true, force: true });
    }
    await admin.end();
  }
}
