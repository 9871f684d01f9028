// Benchmark (not a test): the kit's request overhead measured as users run it. Three processes:
//  - the real server, started as `npm start` starts it (`node --import tsx src/main.ts serve`,
//    the same Node 24 the executable carries; defaults but ports, so the access log at info goes
//    to stdout, read here through a pipe as journald would),
//  - the bare baseline: a Hono handler on @hono/node-server running the same prepared query on
//    the same SQLite file (this script, started again with `--bare`),
//  - the load generator: autocannon, 16 connections, `GET /api/v1/tables/list?limit=50`.
// The two servers are loaded in turn, several rounds alternated. Each server's CPU time comes from
// /proc/<pid>/stat (utime + stime, all its threads) before and after its load.
// Usage: npx tsx bench/overhead.ts [--rounds 4] [--seconds 8] [--connections 16] [--threads] [--cpu-prof DIR]
// (--threads: each server's CPU by thread)
// (--cpu-prof: both servers write V8 CPU profiles, DIR/kit and DIR/bare, when they stop)
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { AddressInfo } from 'node:net';

const ROOT = join(import.meta.dirname, '..');
const arg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i < 0 ? fallback : (process.argv[i + 1] ?? fallback);
};
const LIST_SQL = 'select id, tenant_id, data, created_at, updated_at from tables_items order by created_at desc, id desc limit ? offset ?';

if (process.argv[2] === '--bare') {
  // The baseline server: the same query, prepared once, in a bare Hono handler.
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
  const raw = new BetterSqlite3(process.argv[3]!, { readonly: true });
  const stmt = raw.prepare(LIST_SQL);
  const count = raw.prepare('select count(*) as n from tables_items');
  const app = new Hono();
  app.get('/api/v1/tables/list', (c) => {
    const limit = Number(c.req.query('limit') ?? 50);
    const rows = stmt.all(limit, 0) as { id: string; data: string; created_at: string; updated_at: string }[];
    const items = rows.map((r) => ({ ...JSON.parse(r.data), id: r.id, resource: 'tables', created_at: r.created_at, updated_at: r.updated_at }));
    const total = (count.get() as { n: number }).n;
    return c.json({ items, offset: 0, limit, total, has_more: limit < total });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  server.once('listening', () => process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`));
  // An exit of its own, so that --cpu-prof writes the profile.
  process.on('SIGTERM', () => process.exit(0));
} else {
  await main();
}

/** utime + stime of a process, in seconds. */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // fields 14 and 15 of proc(5); CLK_TCK is 100 on Linux
}

/** CPU seconds of each thread of a process, by thread name (/proc/<pid>/task/<tid>/comm). */
function threadSeconds(pid: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const name = readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim();
      const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      out.set(name, (out.get(name) ?? 0) + (Number(f[11]) + Number(f[12])) / 100);
    } catch { /* the thread ended */ }
  }
  return out;
}

/** Starts a process and resolves with it once a stdout line matches; the rest of stdout is drained and counted. */
function startUntil(cmd: string, args: string[], ready?: RegExp): Promise<{ proc: ChildProcess; match: RegExpExecArray; bytes: () => number }> {
  const proc = spawn(cmd, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  let bytes = 0;
  let pending = '';
  return new Promise((resolve, reject) => {
    if (!ready) {
      proc.stdout!.on('data', (chunk: Buffer) => void (bytes += chunk.length));
      return resolve({ proc, match: [] as unknown as RegExpExecArray, bytes: () => bytes });
    }
    proc.once('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}`)));
    proc.stdout!.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (pending === null) return;
      pending += chunk.toString();
      const m = ready.exec(pending);
      if (m) {
        pending = null as unknown as string;
        resolve({ proc, match: m, bytes: () => bytes });
      }
    });
  });
}

/** A port free right now (the server is told it, so the log level does not matter for finding it). */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}

async function until(ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error('the server did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
}

interface Load { rps: number; p50: number; p99: number; non2xx: number; errors: number; cpuUs: number; threads: string }

async function load(url: string, pid: number, seconds: number, connections: number, headers: Record<string, string>): Promise<Load> {
  const args = ['-j', '-d', String(seconds), '-c', String(connections), ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]), url];
  const before = cpuSeconds(pid);
  const threadsBefore = threadSeconds(pid);
  const { stdout } = await promisify(execFile)(join(ROOT, 'node_modules', '.bin', 'autocannon'), args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  const used = cpuSeconds(pid) - before;
  const threads = [...threadSeconds(pid)].map(([name, sec]) => [name, sec - (threadsBefore.get(name) ?? 0)] as const).filter(([, sec]) => sec > 0).sort((a, b) => b[1] - a[1]);
  const r = JSON.parse(stdout) as { requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number };
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, cpuUs: (used * 1e6) / Math.max(r.requests.total, 1), threads: threads.map(([n, sec]) => `${n} ${Math.round((sec / used) * 100)}%`).join(', ') };
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '4'));
  const seconds = Number(arg('seconds', '8'));
  const connections = Number(arg('connections', '16'));
  const profDir = process.argv.includes('--cpu-prof') ? arg('cpu-prof', join(ROOT, 'prof')) : undefined;
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-overhead-'));
  const node = process.execPath;
  const prof = (who: string) => (profDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profDir, who)}`] : []);
  const cli = (...a: string[]) => [...prof('kit'), '--import', 'tsx', 'src/main.ts', ...a];
  // Anything after `--` goes to `serve` (e.g. `-- --log-level warn`), to see what a setting costs.
  const extra = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
  const httpPort = await freePort();
  const ports = [...extra, '--http-port', String(httpPort), '--https-port', '0', '--rpc-port', '0', '--mqtt-port', '0', '--mqtt-tls-port', '0', '--host', '127.0.0.1', '--data-dir', dir];
  const children: ChildProcess[] = [];
  try {
    const kit = await startUntil(node, cli('serve', ...ports));
    children.push(kit.proc);
    const url = `http://127.0.0.1:${httpPort}`;
    await until(async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200);
    const { stdout: tokenOut } = await promisify(execFile)(node, ['--import', 'tsx', 'src/main.ts', 'token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dir], { cwd: ROOT, encoding: 'utf8' });
    const auth = { authorization: `Bearer ${tokenOut.trim()}` };
    for (let i = 0; i < 200; i++) {
      const res = await fetch(`${url}/api/v1/tables`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ item: { id: `row-${i}`, name: `House ${i}`, temp: 20 + (i % 7) } }) });
      if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
    }
    const bare = await startUntil(node, [...prof('bare'), '--import', 'tsx', join('bench', 'overhead.ts'), '--bare', join(dir, 'cabinet.sqlite')], /listening (\d+)/);
    children.push(bare.proc);
    const bareUrl = `http://127.0.0.1:${bare.match[1]}/api/v1/tables/list?limit=50`;
    const kitUrl = `${url}/api/v1/tables/list?limit=50`;
    // Warm both (JIT, statement caches) before anything is counted.
    await load(kitUrl, kit.proc.pid!, 2, connections, auth);
    await load(bareUrl, bare.proc.pid!, 2, connections, {});

    console.log(`GET /api/v1/tables/list?limit=50 (200 rows), ${rounds} rounds of ${seconds} s x ${connections} connections, each server in its own process, autocannon in a third; node ${process.version}`);
    const fmt = (r: Load) => `${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${String(r.p50).padStart(2)} ms  p99 ${String(r.p99).padStart(3)} ms  CPU ${Math.round(r.cpuUs).toString().padStart(4)} us/req${r.non2xx || r.errors ? `  non-2xx ${r.non2xx} errors ${r.errors}` : ''}`;
    const ratios: number[] = [];
    const cpuRatios: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      // Alternate which goes first, so a drift of the machine's load does not favour one side.
      const order = round % 2 ? ['kit', 'bare'] as const : ['bare', 'kit'] as const;
      const got: Partial<Record<'kit' | 'bare', Load>> = {};
      for (const which of order) {
        got[which] = which === 'kit' ? await load(kitUrl, kit.proc.pid!, seconds, connections, auth) : await load(bareUrl, bare.proc.pid!, seconds, connections, {});
      }
      const k = got.kit!;
      const b = got.bare!;
      ratios.push(k.rps / b.rps);
      cpuRatios.push(k.cpuUs / b.cpuUs);
      console.log(`round ${round} (load average ${loadavg()[0]!.toFixed(1)})`);
      console.log(`  cabinet serve : ${fmt(k)}`);
      console.log(`  bare Hono     : ${fmt(b)}`);
      if (process.argv.includes('--threads')) console.log(`  threads: kit ${k.threads}; bare ${b.threads}`);
      console.log(`  kit / bare    : ${(k.rps / b.rps).toFixed(2)}x throughput, ${(b.cpuUs / k.cpuUs).toFixed(2)}x by CPU per request (bare CPU / kit CPU)`);
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    console.log(`throughput ratio ${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)}x (median ${med(ratios).toFixed(2)}x); CPU per request ${Math.min(...cpuRatios).toFixed(2)}-${Math.max(...cpuRatios).toFixed(2)}x the bare handler's (median ${med(cpuRatios).toFixed(2)}x); server stdout ${kit.bytes()} bytes`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))));
    rmSync(dir, { recursive: true, force: true });
  }
}
