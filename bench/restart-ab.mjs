#!/usr/bin/env node
// Benchmark (not a test): restarts of two or more built executables, interleaved, beside a bare
// Node `http` server of the shipped version (.cache/node) in the same run. Each executable gets
// its own data directory, migrated by two starts first; every listener on a free port (MQTT over
// TLS too: its default 8883 may be another process's, and a start whose port is taken skips that
// listener's work); then per round: the bare server's
// spawn-to-listening, and each executable's `serve` spawn-to-/ready (polled every 5 ms), with
// the CPU time (user + system, all threads; from schedstat to the nanosecond, and from
// /proc/<pid>/stat in 10 ms ticks as earlier figures were) and minor page faults by then.
// Prints medians and ranges and the ratios to the bare server (the restart guard is a ratio).
// The guard's CPU is the process's CPU clock (clock_gettime of the child's process clock, read by
// a python3 helper: Node has no call for another process's clock), which counts threads that have
// ended too. The sum of the live threads' schedstat misses them: Node 24 parses its bundled root
// certificates on a thread of its own as soon as node:tls loads, and that thread is gone by /ready
// (a bare `require('tls')` process: 54 ms of CPU by its clock, 38 ms in its live threads). The
// schedstat sum is printed beside it, as earlier figures were.
//   node bench/restart-ab.mjs [--runs 9] [--no-tls] BIN_BEFORE BIN_AFTER ...
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:net';
import { join } from 'node:path';
const argv = process.argv.slice(2);
const ri = argv.indexOf('--runs');
const runs = ri < 0 ? 9 : Number(argv.splice(ri, 2)[1]);
// --no-tls: HTTPS and MQTT over TLS off (a box or master that serves neither), else both on free ports.
const ni = argv.indexOf('--no-tls');
const tlsPort = ni < 0 ? '0' : (argv.splice(ni, 1), 'off');
const bins = argv;
if (bins.length === 0) throw new Error('usage: node bench/restart-ab.mjs [--runs 9] BIN ...');
const nodeDir = join(import.meta.dirname, '..', '.cache', 'node');
const NODE = join(nodeDir, readdirSync(nodeDir).find((d) => d.startsWith(`node-linux-${process.arch}`)) ?? '', 'bin', 'node');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2; };
const stat = (pid) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
const cpu = (pid) => { const f = stat(pid); return (Number(f[11]) + Number(f[12])) * 10; }; // USER_HZ 100
const faults = (pid) => Number(stat(pid)[7]);
// The same to the nanosecond: /proc/<pid>/stat counts in ticks of 10 ms, as coarse as a bare
// server's whole start on a fast machine. schedstat's first field is a thread's time on a CPU;
// summed over the live threads (a thread that ended before the reading is missing: none do by then).
const cpuNs = (pid) => readdirSync(`/proc/${pid}/task`).reduce((sum, t) => { try { return sum + Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]); } catch { return sum; } }, 0);
// The child's process CPU clock, MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) = (~pid << 3) | 2, in ns.
const clockHelper = spawn('python3', ['-u', '-c', 'import sys, time\nfor line in sys.stdin:\n    try:\n        print(time.clock_gettime_ns(((~int(line)) << 3) | 2))\n    except OSError:\n        print(-1)'], { stdio: ['pipe', 'pipe', 'inherit'] });
clockHelper.stdout.setEncoding('utf8');
const clockWaiters = []; let clockOut = '';
clockHelper.stdout.on('data', (d) => { clockOut += d; let i; while ((i = clockOut.indexOf('\n')) >= 0) { const v = Number(clockOut.slice(0, i)); clockOut = clockOut.slice(i + 1); clockWaiters.shift()(v); } });
const procCpuMs = (pid) => new Promise((res) => { clockWaiters.push((ns) => res(ns < 0 ? NaN : ns / 1e6)); clockHelper.stdin.write(`${pid}\n`); });
process.on('exit', () => clockHelper.kill());
const freePort = () => new Promise((res) => { const s = createServer(); s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => res(port)); }); });
const work = mkdtempSync(join(tmpdir(), 'cabinet-restart-ab-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8', CABINET_CACHE_DIR: join(work, 'cache') };
async function start(bin, dataDir) {
  const port = await freePort();
  const t0 = process.hrtime.bigint();
  const child = spawn(bin, ['serve', '--http-port', String(port), '--rpc-port', '0', '--mqtt-port', '0', '--https-port', tlsPort, '--mqtt-tls-port', tlsPort, '--host', '127.0.0.1', '--data-dir', dataDir, '--log-level', 'warn'], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = ''; child.stderr.on('data', (d) => (err += d));
  for (;;) {
    if (child.exitCode !== null) throw new Error(`exited ${child.exitCode}: ${err}`);
    try { const r = await fetch(`http://127.0.0.1:${port}/ready`); await r.arrayBuffer(); if (r.status === 200) break; } catch {}
    await sleep(5);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const out = { ms, procMs: await procCpuMs(child.pid), cpu: cpu(child.pid), cpuMs: cpuNs(child.pid) / 1e6, faults: faults(child.pid) };
  const ex = new Promise((r) => child.once('exit', r)); child.kill('SIGTERM'); await ex;
  return out;
}
async function bare() {
  const t0 = process.hrtime.bigint();
  const child = spawn(NODE, ['-e', "require('http').createServer().listen(0,()=>console.log('L'))"], { stdio: ['ignore', 'pipe', 'ignore'] });
  await new Promise((r) => child.stdout.once('data', r));
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  const out = { ms, procMs: await procCpuMs(child.pid), cpu: cpu(child.pid), cpuMs: cpuNs(child.pid) / 1e6, faults: faults(child.pid) };
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
const b = { ms: median(res.bare.map((x) => x.ms)), cpu: median(res.bare.map((x) => x.cpu)), cpuMs: median(res.bare.map((x) => x.cpuMs)), procMs: median(res.bare.map((x) => x.procMs)) };
const range = (xs, f, d = 0) => `${median(xs.map(f)).toFixed(d)} (${Math.min(...xs.map(f)).toFixed(d)}-${Math.max(...xs.map(f)).toFixed(d)})`;
const fmt = (xs) => `wall median ${range(xs, (x) => x.ms)} ms, cpu (process clock) median ${range(xs, (x) => x.procMs, 1)} ms (live threads' schedstat ${range(xs, (x) => x.cpuMs, 1)} ms; ticks ${range(xs, (x) => x.cpu)} ms)`;
console.log(`load ${readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}, runs ${runs}`);
console.log(`bare: ${fmt(res.bare)}`);
for (const bin of bins) { const xs = res[bin]; console.log(`${bin}: ${fmt(xs)}  => ${(median(xs.map((x) => x.ms)) / b.ms).toFixed(2)}x wall, ${(median(xs.map((x) => x.procMs)) / b.procMs).toFixed(2)}x cpu (schedstat ${(median(xs.map((x) => x.cpuMs)) / b.cpuMs).toFixed(2)}x, ticks ${(median(xs.map((x) => x.cpu)) / b.cpu).toFixed(2)}x); page faults median ${median(xs.map((x) => x.faults))} (bare ${median(res.bare.map((x) => x.faults))})`); }
clockHelper.stdin.end();
