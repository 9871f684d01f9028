// Benchmark (not a test): the sync's catch-up on a master as users run it, against the raw insert
// of the same rows into the master's inbox, on PostgreSQL, each side in its own process:
//  - the master: `node --import tsx src/main.ts serve --mode cloud-multi` on a fresh database,
//  - the edge (the load): a real edge server in a child process (this script, `--edge`), whose
//    outbox is filled with a busy site's mix while its tenant is paused, then resumed,
//  - the baseline: a child process (this script, `--raw`) inserting the same rows into the
//    master's inbox, batches of 500 (the edge's sync_batch_max), one transaction each.
// Rounds alternate the two. Catch-up is timed from the resume until the master's applied_seq is
// the last event's; the master's CPU comes from /proc/<pid>/stat, the raw inserter's from its
// own process.cpuUsage() around its inserts (PostgreSQL's own CPU is in neither).
// Usage: npx tsx bench/overhead-sync.ts [--rounds 3] [--events 10000] [--pg postgres://postgres@127.0.0.1:5432/test] [--cpu-prof DIR]
// (--cpu-prof: the master writes a V8 CPU profile to DIR when it stops)
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
else if (process.argv[2] === '--raw') await raw(process.argv[3]!, Number(process.argv[4]), Number(process.argv[5]));
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
  process.on('disconnect', () => void server.close().finally(() => process.exit(0)));
  process.send!({ ready: true });
}

/** The baseline: the same rows straight into the inbox, batches of 500, one transaction each. */
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
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
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

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '3'));
  const n = Number(arg('events', '10000'));
  const base = arg('pg', 'postgres://postgres@127.0.0.1:5432/test');
  const name = `cabinet_overhead_${process.pid}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const u = new URL(base);
  u.pathname = `/${name}`;
  const url = u.toString();
  const masterDir = mkdtempSync(join(tmpdir(), 'cabinet-master-'));
  const edgeDir = mkdtempSync(join(tmpdir(), 'cabinet-edge-'));
  const children: ChildProcess[] = [];
  const q = new pg.Client({ connectionString: url });
  try {
    const port = await freePort();
    const prof = process.argv.includes('--cpu-prof') ? ['--cpu-prof', `--cpu-prof-dir=${arg('cpu-prof', join(ROOT, 'prof'))}`] : [];
    const master = spawn(process.execPath, [...prof, '--import', 'tsx', 'src/main.ts', 'serve', '--mode', 'cloud-multi', '--database-url', url, '--data-dir', masterDir,
      '--host', '127.0.0.1', '--http-port', String(port), '--rpc-port', 'off', '--mqtt-broker', 'off'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    children.push(master);
    const masterUrl = `http://127.0.0.1:${port}`;
    for (let i = 0; ; i++) {
      if ((await fetch(`${masterUrl}/ready`).catch(() => undefined))?.status === 200) break;
      if (i > 600) throw new Error('the master did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    await q.connect();
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'src/main.ts', 'token', '--role', 'admin', '--scope-type', 'master', '--data-dir', masterDir, '--database-url', url], { cwd: ROOT, encoding: 'utf8' });
    const token = stdout.trim();
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${masterUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (res.status >= 300) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as { item: Record<string, unknown> };
    };
    const reg = await call('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
    writeFileSync(join(edgeDir, 'site-credential'), String(reg.item.credential), { mode: 0o600 });
    await call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
    const edgeProc = fork(join(import.meta.dirname, 'overhead-sync.ts'), ['--edge', edgeDir, masterUrl], { cwd: ROOT, execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    children.push(edgeProc);
    const next = () => new Promise<Record<string, number>>((resolve) => edgeProc.once('message', (m) => resolve(m as Record<string, number>)));
    await next();
    const applied = async () => Number((await q.query(`select applied_seq as s from sync_sites where site_id = 'site-1'`)).rows[0]?.s ?? 0);

    console.log(`sync catch-up vs raw inbox insert, PostgreSQL ${(await q.query('show server_version')).rows[0].server_version}, ${n} events a round, ${rounds} rounds, node ${process.version}; master, edge and raw inserter each in its own process`);
    let rawSeq = 0;
    const ratios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      await call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
      await new Promise((r) => setTimeout(r, 300));
      edgeProc.send({ append: n });
      const { last } = await next();
      const cpu0 = cpuSeconds(master.pid!);
      const edge0 = cpuSeconds(edgeProc.pid!);
      const t0 = performance.now();
      await call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'auto' });
      while ((await applied()) < last!) await new Promise((r) => setTimeout(r, 20));
      const ms = performance.now() - t0;
      const masterUs = (cpuSeconds(master.pid!) - cpu0) * 1e6;
      const edgeUs = (cpuSeconds(edgeProc.pid!) - edge0) * 1e6;
      const { stdout: rawOut } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join('bench', 'overhead-sync.ts'), '--raw', url, String(n), String(rawSeq)], { cwd: ROOT, encoding: 'utf8' });
      rawSeq += n;
      const r = JSON.parse(rawOut.trim().split('\n').at(-1)!) as { ms: number; cpuUs: number };
      const syncRate = (n / ms) * 1000;
      const rawRate = (n / r.ms) * 1000;
      ratios.push(syncRate / rawRate);
      console.log(`round ${round} (load average ${loadavg()[0]!.toFixed(1)}): sync ${Math.round(syncRate)} events/s, master CPU ${Math.round(masterUs / n)} us/event (edge ${Math.round(edgeUs / n)}); raw insert ${Math.round(rawRate)} rows/s, inserter CPU ${Math.round(r.cpuUs / n)} us/row; sync / raw ${(syncRate / rawRate).toFixed(2)}x`);
    }
    const sorted = [...ratios].sort((a, b) => a - b);
    console.log(`sync / raw: ${sorted[0]!.toFixed(2)}-${sorted.at(-1)!.toFixed(2)}x (median ${sorted[Math.floor(sorted.length / 2)]!.toFixed(2)}x)`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))));
    await q.end().catch(() => undefined);
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
    rmSync(masterDir, { recursive: true, force: true });
    rmSync(edgeDir, { recursive: true, force: true });
  }
}
