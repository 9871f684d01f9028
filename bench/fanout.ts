// Benchmark (not a test): status fan-out from a master to many tablets. The server runs in a
// child process; 2,000 authenticated WebSocket clients of one tenant (plus 10 % of another
// tenant, who must receive nothing) live in two client processes; N events are published through
// POST status/commands/publish one after another, and for each the time from sending the request
// to its arrival at the last of the 2,000 clients is taken. Baseline in the same run: a bare `ws`
// server that serialises the same payload once and sends it to 2,000 clients.
// Usage: npx tsx bench/fanout.ts [clients=2000] [events=200] [gap_ms=100]
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { post, startChild, type Child } from './lib/child.js';

const CLIENTS = Number(process.argv[2] ?? 2000);
const EVENTS = Number(process.argv[3] ?? 200);
const GAP_MS = Number(process.argv[4] ?? 100);
const PROCESSES = 2;
const TENANT = 'farm-1';

interface Report { events: Record<string, { count: number; last: string }>; foreign: number }

function startClients(url: string, tokens: string[], tenant: string | null): Promise<ChildProcess> {
  const proc = fork(join(import.meta.dirname, 'lib', 'ws-clients.ts'), [], { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  proc.send({ url, tokens, tenant });
  return new Promise((resolve, reject) => {
    proc.once('message', () => resolve(proc));
    proc.once('exit', (code) => reject(new Error(`client process exited with ${code}`)));
  });
}

const report = (proc: ChildProcess): Promise<Report> => new Promise((resolve) => {
  proc.once('message', (m) => resolve(m as Report));
  proc.send('report');
});

const q = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;

async function run(name: string, server: Child, tokens: string[], foreignTokens: string[]) {
  const rssIdle = await server.rss();
  const per = Math.ceil(tokens.length / PROCESSES);
  const procs = await Promise.all([
    ...Array.from({ length: PROCESSES }, (_, i) => startClients(server.url, tokens.slice(i * per, (i + 1) * per), foreignTokens.length ? TENANT : null)),
    ...(foreignTokens.length ? [startClients(server.url, foreignTokens, 'farm-2')] : []),
  ]);
  const rssConnected = await server.rss();
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const sentAt: Record<string, bigint> = {};
  const answered: number[] = [];
  const publisher = tokens[0] ?? '';
  for (let i = 0; i < EVENTS; i++) {
    const event = `bench-${i}`;
    const body = JSON.stringify({ source: 'fanout-bench', event, status: i % 10 ? 'ok' : 'warn', details: { house: `H${i % 8}`, temp_c: 21.5 + (i % 5) } });
    sentAt[event] = process.hrtime.bigint();
    await post(agent, `${server.url}/api/v1/status/commands/publish`, body, publisher ? { authorization: `Bearer ${publisher}` } : {}).catch((err: Error) => {
      // 201 is the publish answer; post() throws on anything but 200, so read the status from the message.
      if (!/^HTTP 201/.test(err.message)) throw err;
    });
    answered.push(Number(process.hrtime.bigint() - sentAt[event]!) / 1e6);
    await new Promise((r) => setTimeout(r, GAP_MS));
  }
  await new Promise((r) => setTimeout(r, 1000));
  const rss = await server.rss();
  const reports = await Promise.all(procs.map(report));
  const own = reports.slice(0, PROCESSES);
  const latencies: number[] = [];
  let incomplete = 0;
  for (const [event, t0] of Object.entries(sentAt)) {
    const got = own.map((r) => r.events[event]);
    const count = got.reduce((n, g) => n + (g?.count ?? 0), 0);
    if (count !== tokens.length) { incomplete++; continue; }
    const last = got.reduce((m, g) => (BigInt(g!.last) > m ? BigInt(g!.last) : m), 0n);
    latencies.push(Number(last - t0) / 1e6);
  }
  const foreign = reports.reduce((n, r) => n + r.foreign, 0) + (foreignTokens.length ? Object.values(reports[PROCESSES]!.events).reduce((n, e) => n + e.count, 0) : 0);
  for (const p of procs) p.disconnect();
  agent.destroy();
  latencies.sort((a, b) => a - b);
  answered.sort((a, b) => a - b);
  const ms = (v: number) => `${v.toFixed(1).padStart(6)} ms`;
  console.log(`${name.padEnd(34)} p50 ${ms(q(latencies, 0.5))}  p95 ${ms(q(latencies, 0.95))}  p99 ${ms(q(latencies, 0.99))}  max ${ms(latencies.at(-1) ?? NaN)}  `
    + `publish answered p50 ${ms(q(answered, 0.5))}  server RSS ${(rssIdle / 2 ** 20).toFixed(0)} MiB idle, ${(rssConnected / 2 ** 20).toFixed(0)} MiB connected, ${(rss / 2 ** 20).toFixed(0)} MiB after${incomplete ? `  ${incomplete} events NOT delivered to every client` : ''}${foreignTokens.length ? `  foreign deliveries ${foreign}` : ''}`);
  return latencies;
}

const children: Child[] = [];
try {
  console.log(`status fan-out: ${CLIENTS} WebSocket clients in ${PROCESSES} processes, ${EVENTS} events ${GAP_MS} ms apart, latency from the publish request to the last client, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  const bare = await startChild({ mode: 'bare-ws' });
  children.push(bare);
  await run('bare ws, broadcast once-serialised', bare, Array.from({ length: CLIENTS }, () => ''), []);
  await bare.stop();
  const foreignCount = Math.round(CLIENTS / 10);
  const cabinet = await startChild({
    config: { mode: 'cloud-multi', mqtt_broker: 'off' },
    tokens: [{ role: 'operator', scope_type: 'tenant', tenant_id: TENANT, count: CLIENTS }, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-2', count: foreignCount }],
  }, process.env.CHILD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CHILD_PROF}`] : []);
  children.push(cabinet);
  await run(`cabinet (+${foreignCount} farm-2 clients)`, cabinet, cabinet.tokens.slice(0, CLIENTS), cabinet.tokens.slice(CLIENTS));
  console.log(`load average after: ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
} finally {
  for (const c of children) await c.stop();
}
process.exit(0);
