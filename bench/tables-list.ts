// Benchmark (not a test): GET /api/v1/tables/list through the whole kit (session token, access
// guard, security log, paging, envelope) against a bare Hono handler serving the same prepared
// SQLite query, both measured in this run by autocannon in a separate process. Both servers run
// in this process, one under load at a time, so this process's CPU time per answered request is
// printed too: on a shared machine it moves less than the request rates do.
// Usage: npx tsx bench/tables-list.ts [seconds=10] [connections=16]
// Both servers share this process, which flatters the kit: bench/overhead.ts measures it as users
// run it (the real server, the bare handler and autocannon each in its own process).
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import BetterSqlite3 from 'better-sqlite3';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';

const seconds = Number(process.argv[2] ?? 10);
const connections = Number(process.argv[3] ?? 16);
const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-'));

interface Result { requests: { average: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }
/** Asynchronous: the servers under load run in this process. */
async function load(url: string, headers: Record<string, string> = {}): Promise<Result> {
  const args = ['-j', '-d', String(seconds), '-c', String(connections), ...Object.entries(headers).flatMap(([k, v]) => ['-H', `${k}=${v}`]), url];
  const { stdout } = await promisify(execFile)(join(process.cwd(), 'node_modules', '.bin', 'autocannon'), args, { encoding: 'utf8', maxBuffer: 1 << 26 });
  return JSON.parse(stdout) as Result;
}

const server = await startServer(loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, rpc_port: '0', log_level: 'error' }, {}), { log: createLogger('error') });
const token = (await server.services.sessions.issue({ subject: 'bench', role: 'admin', scope_type: 'master' })).token;
for (let i = 0; i < 200; i++) {
  await fetch(`${server.url}/api/v1/tables`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ item: { id: `row-${i}`, name: `House ${i}`, temp: 20 + (i % 7) } }) });
}

// The baseline: the same query, prepared once on a second connection, in a bare Hono handler.
const raw = new BetterSqlite3(join(dir, 'cabinet.sqlite'), { readonly: true });
const stmt = raw.prepare('select id, tenant_id, data, created_at, updated_at from tables_items order by created_at desc, id desc limit ? offset ?');
const count = raw.prepare('select count(*) as n from tables_items');
const bare = new Hono();
bare.get('/list', (c) => {
  const rows = stmt.all(50, 0) as { id: string; data: string; created_at: string; updated_at: string }[];
  const items = rows.map((r) => ({ ...JSON.parse(r.data), id: r.id, resource: 'tables', created_at: r.created_at, updated_at: r.updated_at }));
  return c.json({ items, offset: 0, limit: 50, total: (count.get() as { n: number }).n, has_more: true });
});
const bareServer = serve({ fetch: bare.fetch, port: 0, hostname: '127.0.0.1' });
await new Promise((r) => bareServer.once('listening', r));
const barePort = (bareServer.address() as AddressInfo).port;

/** The load's result and this process's CPU microseconds per answered request. */
async function measure(url: string, headers: Record<string, string> = {}): Promise<Result & { cpuUs: number }> {
  const before = process.cpuUsage();
  const r = await load(url, headers);
  const used = process.cpuUsage(before);
  return { ...r, cpuUs: (used.user + used.system) / Math.max(r.requests.average * seconds, 1) };
}
const base = await measure(`http://127.0.0.1:${barePort}/list`);
const kit = await measure(`${server.url}/api/v1/tables/list`, { authorization: `Bearer ${token}` });
const fmt = (r: Result & { cpuUs: number }) => `${Math.round(r.requests.average).toString().padStart(6)} req/s   p50 ${String(r.latency.p50).padStart(3)} ms   p99 ${String(r.latency.p99).padStart(3)} ms   non-2xx ${r.non2xx}   CPU ${Math.round(r.cpuUs)} us/req`;
console.log(`tables/list, 50 rows a page, ${seconds}s x ${connections} connections, node ${process.version}`);
console.log(`bare Hono + prepared query : ${fmt(base)}`);
console.log(`cabinet kit (token, guard) : ${fmt(kit)}`);
console.log(`ratio kit/bare             : ${(kit.requests.average / base.requests.average).toFixed(2)}x throughput, ${(kit.latency.p99 / Math.max(base.latency.p99, 1)).toFixed(1)}x p99, ${(kit.cpuUs / base.cpuUs).toFixed(2)}x CPU per request`);
bareServer.close();
raw.close();
await server.close();
rmSync(dir, { recursive: true, force: true });
