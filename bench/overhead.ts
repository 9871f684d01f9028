// Benchmark (not a test): the kit's request overhead measured as users run it. Three processes:
//  - the real server, started as `npm start` starts it (`node --import tsx src/main.ts serve`,
//    the same Node 24 the executable carries; defaults but ports, so the access log at info goes
//    to stdout, read here through a pipe as journald would),
//  - the bare baseline: a Hono handler on @hono/node-server running the same prepared query on
//    the same SQLite file (this script, started again with `--bare`),
//  - the load generator: autocannon, 16 connections, `GET /api/v1/tables/list?limit=50`.
// The two servers are loaded in turn, several rounds alternated. Each server's CPU time comes from
// /proc/<pid>/stat (utime + stime, all its threads) before and after its load.
// Usage: npx tsx bench/overhead.ts [--rounds 4] [--seconds 8] [--connections 16] [--threads] [--cpu-prof DIR] [--binary FILE] [--before DIR|FILE]
// (--binary FILE: the server is the built single executable, `FILE serve`, as a box runs it
// (`npm run build` makes dist/cabinet), instead of the source tree under tsx)
// (--before DIR|FILE: also a server from another tree, e.g. `git archive <rev> | tar -x -C DIR` with
// node_modules and dist linked in, or another revision's executable, measured in the same rounds:
// before and after in one run)
// (--cpu-prof with an executable: NODE_OPTIONS=--cpu-prof, which the executable honours; build it
// with CABINET_BUILD_MINIFY=0 for readable names)
// (--threads: each server's CPU by thread)
// (--cpu-prof: both servers write V8 CPU profiles, DIR/kit and DIR/bare, when they stop)
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
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
function startUntil(cmd: string, args: string[], ready?: RegExp, cwd = ROOT, env: NodeJS.ProcessEnv = process.env): Promise<{ proc: ChildProcess; match: RegExpExecArray; bytes: () => number }> {
  const proc = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'inherit'] });
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

interface Kit { name: string; proc: ChildProcess; url: string; auth: Record<string, string>; bytes: () => number; dir: string }

/**
 * A cabinet server from `tree` (this checkout, or another revision's), or a built executable when
 * `tree` is a file, on a data directory of its own with 200 rows.
 */
async function startKit(name: string, tree: string, extra: string[], profile: string[], env: NodeJS.ProcessEnv = process.env): Promise<Kit> {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-overhead-'));
  const httpPort = await freePort();
  const ports = [...extra, '--http-port', String(httpPort), '--https-port', '0', '--rpc-port', '0', '--mqtt-port', '0', '--mqtt-tls-port', '0', '--host', '127.0.0.1', '--data-dir', dir];
  const binary = statSync(tree).isFile();
  // The executable takes Node's options from NODE_OPTIONS (its SEA configuration lets it).
  const cli = (args: string[], prof: string[] = []) => (binary ? { cmd: tree, args } : { cmd: process.execPath, args: [...prof, '--import', 'tsx', 'src/main.ts', ...args] });
  const cwd = binary ? ROOT : tree;
  const serveEnv = binary && profile.length ? { ...env, NODE_OPTIONS: profile.join(' ') } : env;
  const serve = cli(['serve', ...ports], profile);
  const started = await startUntil(serve.cmd, serve.args, undefined, cwd, serveEnv);
  const url = `http://127.0.0.1:${httpPort}`;
  await until(async () => (await fetch(`${url}/ready`).catch(() => undefined))?.status === 200);
  const token = cli(['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dir]);
  const { stdout } = await promisify(execFile)(token.cmd, token.args, { cwd, encoding: 'utf8' });
  const auth = { authorization: `Bearer ${stdout.trim()}` };
  for (let i = 0; i < 200; i++) {
    const res = await fetch(`${url}/api/v1/tables`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ item: { id: `row-${i}`, name: `House ${i}`, temp: 20 + (i % 7) } }) });
    if (res.status !== 201) throw new Error(`seeding: ${res.status} ${await res.text()}`);
  }
  return { name, proc: started.proc, url, auth, bytes: started.bytes, dir };
}

async function main(): Promise<void> {
  const rounds = Number(arg('rounds', '4'));
  const seconds = Number(arg('seconds', '8'));
  const connections = Number(arg('connections', '16'));
  const beforeTree = process.argv.includes('--before') ? arg('before', '') : undefined;
  const profDir = process.argv.includes('--cpu-prof') ? arg('cpu-prof', join(ROOT, 'prof')) : undefined;
  const prof = (who: string) => (profDir ? ['--cpu-prof', `--cpu-prof-dir=${join(profDir, who)}`] : []);
  // Anything after `--` goes to `serve` (e.g. `-- --log-level warn`), to see what a setting costs.
  const extra = process.argv.includes('--') ? process.argv.slice(process.argv.indexOf('--') + 1) : [];
  const children: ChildProcess[] = [];
  const kits: Kit[] = [];
  try {
    kits.push(await startKit(process.argv.includes('--binary') ? 'executable   ' : 'cabinet serve', process.argv.includes('--binary') ? arg('binary', join(ROOT, 'dist', 'cabinet')) : ROOT, extra, prof('kit')));
    if (beforeTree) kits.push(await startKit('same, before ', beforeTree, extra, prof('before')));
    // --also NAME=DIR[:VAR=VALUE]: more servers (variants, for experiments), each with its tree and one environment variable.
    for (let i = process.argv.indexOf('--also'); i >= 0; i = process.argv.indexOf('--also', i + 1)) {
      const m = /^([^=]+)=([^:]+)(?::(\w+)=(.*))?$/.exec(process.argv[i + 1] ?? '');
      if (!m) throw new Error('--also NAME=DIR[:VAR=VALUE]');
      kits.push(await startKit(m[1]!.padEnd(13), m[2]!, extra, prof(m[1]!), m[3] ? { ...process.env, [m[3]]: m[4] } : process.env));
    }
    children.push(...kits.map((k) => k.proc));
    const bare = await startUntil(process.execPath, [...prof('bare'), '--import', 'tsx', join('bench', 'overhead.ts'), '--bare', join(kits[0]!.dir, 'cabinet.sqlite')], /listening (\d+)/);
    children.push(bare.proc);
    const sides = [...kits.map((k) => ({ name: k.name, url: `${k.url}/api/v1/tables/list?limit=50`, pid: k.proc.pid!, headers: k.auth })),
      { name: 'bare Hono    ', url: `http://127.0.0.1:${bare.match[1]}/api/v1/tables/list?limit=50`, pid: bare.proc.pid!, headers: {} }];
    // Warm each (JIT, statement caches) before anything is counted.
    for (const side of sides) await load(side.url, side.pid, 2, connections, side.headers);

    console.log(`GET /api/v1/tables/list?limit=50 (200 rows), ${rounds} rounds of ${seconds} s x ${connections} connections, each server in its own process, autocannon in a third; node ${process.version}${beforeTree ? `; "before" is the tree in ${beforeTree}` : ''}`);
    const fmt = (r: Load) => `${Math.round(r.rps).toString().padStart(6)} req/s  p50 ${String(r.p50).padStart(2)} ms  p99 ${String(r.p99).padStart(3)} ms  CPU ${Math.round(r.cpuUs).toString().padStart(4)} us/req${r.non2xx || r.errors ? `  non-2xx ${r.non2xx} errors ${r.errors}` : ''}`;
    const ratios = new Map<string, { rps: number[]; cpu: number[] }>(kits.map((k) => [k.name, { rps: [], cpu: [] }]));
    for (let round = 1; round <= rounds; round++) {
      // The order turns every round, so a drift of the machine's load does not favour one side.
      const order = sides.map((_, i) => sides[(i + round) % sides.length]!);
      const got = new Map<string, Load>();
      for (const side of order) got.set(side.name, await load(side.url, side.pid, seconds, connections, side.headers));
      const b = got.get('bare Hono    ')!;
      console.log(`round ${round} (load average ${loadavg()[0]!.toFixed(1)})`);
      for (const side of sides) console.log(`  ${side.name} : ${fmt(got.get(side.name)!)}${process.argv.includes('--threads') ? `  [${got.get(side.name)!.threads}]` : ''}`);
      for (const k of kits) {
        const r = got.get(k.name)!;
        ratios.get(k.name)!.rps.push(r.rps / b.rps);
        ratios.get(k.name)!.cpu.push(r.cpuUs / b.cpuUs);
        console.log(`  ${k.name} / bare : ${(r.rps / b.rps).toFixed(2)}x throughput, ${(r.cpuUs / b.cpuUs).toFixed(2)}x the CPU per request`);
      }
    }
    const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const span = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}x (median ${med(xs).toFixed(2)}x)`;
    for (const k of kits) console.log(`${k.name.trim()}: throughput ${span(ratios.get(k.name)!.rps)} of the bare handler's; CPU per request ${span(ratios.get(k.name)!.cpu)}; stdout ${k.bytes()} bytes`);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    await Promise.all(children.map((c) => (c.exitCode !== null ? Promise.resolve() : new Promise((r) => c.once('exit', r)))));
    for (const k of kits) rmSync(k.dir, { recursive: true, force: true });
  }
}
