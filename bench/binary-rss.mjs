// Benchmark (not a test): peak RSS of built executables under 50 API clients, interleaved so that
// each sees the same machine load (scripts/measure-binary.mjs measures one binary at a time).
// Each run: serve on a fresh data directory, 50 rows created, then 50 autocannon connections on
// GET /api/v1/tables/list?limit=50 for the given seconds, VmRSS sampled every 50 ms.
// Usage: node bench/binary-rss.mjs <rounds> <seconds> <binary> [<binary> ...]
//   e.g. node bench/binary-rss.mjs 2 10 /tmp/cabinet-before dist/cabinet
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
const [rounds, secs, ...bins] = process.argv.slice(2);
const rss = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
async function one(bin) {
  const dir = mkdtempSync(join(tmpdir(), 'perf-rss-'));
  const env = { PATH: process.env.PATH, HOME: dir, CABINET_CACHE_DIR: join(dir, 'cache') };
  const port = 20000 + Math.floor(Math.random() * 30000);
  const c = spawn(bin, ['serve', '--http-port', String(port), '--rpc-port', '0', '--mqtt-port', '0', '--https-port', '0', '--host', '127.0.0.1', '--data-dir', join(dir, 'data'), '--log-level', 'error'], { env, stdio: 'ignore' });
  const base = `http://127.0.0.1:${port}`;
  for (;;) { try { const r = await fetch(`${base}/ready`); await r.text(); if (r.status === 200) break; } catch {} await new Promise((r) => setTimeout(r, 20)); }
  const token = spawnSync(bin, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', join(dir, 'data')], { env, encoding: 'utf8' }).stdout.trim().split('\n').pop();
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  for (let i = 0; i < 50; i++) await (await fetch(`${base}/api/v1/tables`, { method: 'POST', headers, body: JSON.stringify({ item: { id: `m-${i}`, name: `row ${i}` } }) })).text();
  await new Promise((r) => setTimeout(r, 2000));
  const before = rss(c.pid);
  let peak = 0;
  const t = setInterval(() => (peak = Math.max(peak, rss(c.pid))), 50);
  const r = await autocannon({ url: `${base}/api/v1/tables/list?limit=50`, headers, connections: 50, duration: Number(secs), timeout: 30 });
  clearInterval(t);
  c.kill('SIGTERM'); await new Promise((res) => c.once('exit', res));
  return `${bin}: peak ${peak.toFixed(1)} MiB (before ${before.toFixed(1)}), ${Math.round(r.requests.average)} req/s, non2xx ${r.non2xx}, errors ${r.errors}, load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`;
}
for (let i = 0; i < Number(rounds); i++) for (const b of bins) console.log(await one(b));
