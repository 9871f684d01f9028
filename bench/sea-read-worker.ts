// Benchmark (not a test): `npx tsx bench/sea-read-worker.ts [records] [rounds]` after `npm run build`.
// What the read worker costs inside the single executable (dist/cabinet): it starts the binary on
// a temp data dir, logs `records` audit records, then measures, in the same run:
//   - RSS before any long read (the baseline) and after the worker started and answered `rounds` lists;
//   - the first list (it starts the worker) and p50/p99 of the next `rounds` lists (page of 50 +
//     total, in the worker) beside p50/p99 of GET /api/v1/auth/me (main thread) as the baseline.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { runCommand } from '../test/helpers/run.js';

const RECORDS = Number(process.argv[2] ?? 2000);
const ROUNDS = Number(process.argv[3] ?? 100);
const binary = resolve(import.meta.dirname, '..', process.arch === 'arm64' ? 'dist/cabinet-arm64' : 'dist/cabinet');
const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-bench-sea-'));
const env: NodeJS.ProcessEnv = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CABINET_')));
env.CABINET_CACHE_DIR = join(dataDir, 'cache');

const child = spawn(binary, ['serve', '--http-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--mqtt-broker', 'off', '--rpc-port', 'off'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
const base = await new Promise<string>((ok, fail) => {
  let buf = '';
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    const m = /"url":"(http:\/\/[^"]+)"/.exec(buf);
    if (m) ok(m[1]!);
  });
  child.once('exit', (c) => fail(new Error(`cabinet exited with ${String(c)}`)));
});
try {
  const token = (await runCommand(binary, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dataDir], { env })).stdout.trim().split('\n').pop()!;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const get = async (path: string) => {
    const t = performance.now();
    const res = await fetch(`${base}${path}`, { headers });
    const body = (await res.json()) as { item?: { persistence: { read_worker?: string; worker_reads?: number }; runtime: { rss_bytes: number } } };
    if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
    return { ms: performance.now() - t, body };
  };
  for (let i = 0; i < RECORDS; i += 50) {
    await Promise.all(Array.from({ length: Math.min(50, RECORDS - i) }, (_, j) =>
      fetch(`${base}/api/v1/audit/commands/log`, { method: 'POST', headers, body: JSON.stringify({ actor: `a${i + j}`, action: 'bench', resource: 'r', result: 'success' }) }).then((r) => r.arrayBuffer())));
  }
  const snapshot = async () => (await get('/api/v1/operability/runtime')).body.item!;
  const before = await snapshot();
  const first = await get('/api/v1/audit/list?limit=50');
  const q = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!.toFixed(1);
  const lists: number[] = [];
  const me: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    lists.push((await get(`/api/v1/audit/list?limit=50&offset=${(i * 50) % RECORDS}`)).ms);
    me.push((await get('/api/v1/auth/me')).ms);
  }
  const after = await snapshot();
  const mb = (b: number) => (b / 1048576).toFixed(1);
  console.log(`read_worker: ${after.persistence.read_worker}, worker_reads: ${before.persistence.worker_reads} -> ${after.persistence.worker_reads}`);
  console.log(`RSS: ${mb(before.runtime.rss_bytes)} MiB before any long read (baseline), ${mb(after.runtime.rss_bytes)} MiB after ${ROUNDS + 1} lists in the worker`);
  console.log(`first list (starts the worker): ${first.ms.toFixed(1)} ms`);
  console.log(`list page of 50 + total over ${RECORDS} records (worker): p50 ${q(lists, 0.5)} ms, p99 ${q(lists, 0.99)} ms`);
  console.log(`auth/me (main thread, baseline): p50 ${q(me, 0.5)} ms, p99 ${q(me, 0.99)} ms`);
} finally {
  const exited = new Promise((ok) => child.once('exit', ok));
  child.kill('SIGTERM');
  await exited;
  rmSync(dataDir, { recursive: true, force: true });
}
