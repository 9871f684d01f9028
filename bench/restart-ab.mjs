#!/usr/bin/env node
// Benchmark (not a test): restarts of two or more built executables, interleaved, beside a bare
// Node `http` server of the shipped version (.cache/node) in the same run. Each executable gets
// its own data directory, migrated by two starts first; then per round: the bare server's
// spawn-to-listening, and each executable's `serve` spawn-to-/ready (polled every 5 ms), with
// the CPU time (user + system, all threads) and minor page faults the process used by then.
// Prints medians and ranges and the ratios to the bare server (the restart guard is a ratio).
//   node bench/restart-ab.mjs [--runs 9] BIN_BEFORE BIN_AFTER ...
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
const argv = process.argv.slice(2);
const ri = argv.indexOf('--runs');
const runs = ri < 0 ? 9 : Number(argv.splice(ri, 2)[1]);
const bins = argv;
if (bins.length === 0) throw new Error('usage: node bench/restart-ab.mjs [--runs 9] BIN ...');
const nodeDir = join(import.meta.dirname, '..', '.cache', 'node');
const NODE = join(nodeDir, readdirSync(nodeDir).find((d) => d.startsWith(`node-linux-${process.arch}`)) ?? '', 'bin', 'node');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
const cpu = (pid) => { const f = stat(pid); return (Number(f[11]) + Number(f[12])) * 10; }; // USER_HZ 100
const faults = (pid) => Number(stat(pid)[7]);
const freePort = () => new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); }); });
const work = mkdtempSync(join(tmpdir(), 'cabinet-restart-ab-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8', CABINET_CACHE_DIR: join(work, 'cache') };
async function start(bin, dataDir) {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const child = spawn(bin, ['serve', '--http-port', String(port), '--rpc-port', '0', '--mqtt-port', '0', '--https-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--log-level', 'warn'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = ''; child.stderr.on('data', (d) => (err += d));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${err}`);
    try { const r = await fetch(`http://127.0.0.1:${port}/ready`); await r.arrayBuffer(); if (r.status === 200) break; } catch {}
    await sleep(5);
  }
  const out = { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: cpu(child.pid), faults: faults(child.pid) };
  const ex = new Promise((r) => child.once('exit', r)); child.kill('SIGTERM'); await ex;
  return out;
}
async function bare() {
  const t0 = process.hrtime.bigint();
  const child = spawn(NODE, ['-e', "require('http').createServer().listen(0,()=>console.log('L'))"], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((r) => child.stdout.once('data', r));
  const out = { ms: Number(process.hrtime.bigint() - t0) / 1e6, cpu: cpu(child.pid), faults: faults(child.pid) };
  const ex = new Promise((r) => child.once('exit', r)); child.kill('SIGTERM'); await ex;
  return out;
}
const dirs = bins.map((b, i) => join(work, `d${i}`));
for (let i = 0; i < bins.length; i++) { await start(bins[i], dirs[i]); await start(bins[i], dirs[i]); }
const res = { bare: [], ...Object.fromEntries(bins.map((b) => [b, []])) };
for (let r = 0; r < runs; r++) {
  res.bare.push(await bare());
  for (let i = 0; i < bins.length; i++) res[bins[i]].push(await start(bins[i], dirs[i]));
}
const b = { ms: median(res.bare.map((x) => x.ms)), cpu: median(res.bare.map((x) => x.cpu)) };
const fmt = (xs) => `wall median ${Math.round(median(xs.map((x) => x.ms)))} ms (${Math.round(Math.min(...xs.map((x) => x.ms)))}-${Math.round(Math.max(...xs.map((x) => x.ms)))}), cpu median ${median(xs.map((x) => x.cpu))} ms (${Math.min(...xs.map((x) => x.cpu))}-${Math.max(...xs.map((x) => x.cpu))})`;
console.log(`load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}, runs ${runs}`);
console.log(`bare: ${fmt(res.bare)}`);
for (const bin of bins) { const xs = res[bin]; console.log(`${bin}: ${fmt(xs)}  => ${(median(xs.map((x) => x.ms)) / b.ms).toFixed(2)}x wall, ${(median(xs.map((x) => x.cpu)) / b.cpu).toFixed(2)}x cpu; page faults median ${median(xs.map((x) => x.faults))} (bare ${median(res.bare.map((x) => x.faults))})`); }
