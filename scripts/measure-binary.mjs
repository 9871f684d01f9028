#!/usr/bin/env node
// Figures for the README, measured on the built single executable:
//   binary size (x64, arm64, and gzip -6 of x64 as a download would be),
//   spawn-to-/ready: the first start (empty addon cache, empty data directory: extraction and all
//   migrations) and restarts (warm cache, migrated database), over several runs,
//   RSS of the idle service after /ready (VmRSS and VmHWM from /proc),
//   RSS under load: --clients concurrent API clients (autocannon, in this process) on an
//   authenticated list route (GET /api/v1/tables/list, 50 rows, admin token) for
//   --load-ms; peak VmRSS sampled every 50 ms and VmHWM, with the requests answered;
//   `cabinet version` and `cabinet --help`: spawn to exit, median of --runs,
//   baselines, same run, of the same Node version (the build's download,
//   .cache/node/node-linux-<arch>-<version>/bin/node): that node printing its version
//   (`node -e "console.log(process.version)"`: a Node start that runs JavaScript), and a bare
//   `http.createServer().listen(0)`: its spawn-to-listening and idle RSS. Each figure is printed
//   beside its baseline with the ratio (the start targets are ratios to the same-run baseline).
//   node scripts/measure-binary.mjs [--binary dist/cabinet] [--runs 5] [--idle-ms 5000]
//        [--clients 50] [--load-ms 10000] [--json]
import { spawn, spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createGzip } from 'node:zlib';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({
  options: {
    binary: { type: 'string', default: 'dist/cabinet' },
    runs: { type: 'string', default: '5' },
    'idle-ms': { type: 'string', default: '5000' },
    clients: { type: 'string', default: '50' },
    'load-ms': { type: 'string', default: '10000' },
    json: { type: 'boolean', default: false },
  },
});
const bin = resolve(ROOT, values.binary);
const runs = Math.max(2, Number(values.runs));
const idleMs = Number(values['idle-ms']);
const clients = Number(values.clients);
const loadMs = Number(values['load-ms']);
if (!existsSync(bin)) {
  console.error(`${bin} does not exist: run npm run build first`);
  process.exit(1);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const mb = (n) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function gzipSize(file) {
  let n = 0;
  await new Promise((res, rej) => {
    const gz = createGzip({ level: 6 });
    gz.on('data', (c) => (n += c.length));
    gz.on('end', res);
    gz.on('error', rej);
    createReadStream(file).on('error', rej).pipe(gz);
  });
  return n;
}

function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

function procStatus(pid) {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (k) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { rss: kb('VmRSS'), hwm: kb('VmHWM') };
}

/**
 * CPU time (user + system, ms) a live process has used so far: the sum of its threads' schedstat
 * (nanoseconds), or /proc/<pid>/stat's 10 ms ticks where schedstat is missing. Ticks are as coarse
 * as a bare server's whole start (20-30 ms) on a fast machine.
 */
function procCpuMs(pid) {
  try {
    let ns = 0;
    for (const t of readdirSync(`/proc/${pid}/task`)) ns += Number(readFileSync(`/proc/${pid}/task/${t}/schedstat`, 'utf8').split(' ')[0]);
    if (ns > 0) return ns / 1e6;
  } catch {
    /* a thread ended while read, or no schedstat: ticks below */
  }
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // USER_HZ is 100 on Linux
}

/**
 * CPU time (ms) a live process has used so far by its process CPU clock (clock_gettime of
 * MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) = (~pid << 3) | 2, read by a python3 helper: Node has
 * no call for another process's clock), which counts threads that have ended too. The live
 * threads' schedstat misses them: Node 24 parses its bundled root certificates on a thread of its
 * own as soon as node:tls loads, and that thread is gone by /ready (some 5-15 ms of CPU). Falls
 * back to procCpuMs without python3.
 */
let clockHelper;
const clockWaiters = [];
async function processCpuMs(pid) {
  if (clockHelper === undefined) {
    clockHelper = null;
    try {
      const py = spawn('python3', ['-u', '-c', 'import sys, time\nfor line in sys.stdin:\n    try:\n        print(time.clock_gettime_ns(((~int(line)) << 3) | 2))\n    except OSError:\n        print(-1)'], { stdio: ['pipe', 'pipe', 'ignore'] });
      py.on('error', () => { clockHelper = null; for (const w of clockWaiters.splice(0)) w(-1); });
      let out = '';
      py.stdout.setEncoding('utf8');
      py.stdout.on('data', (d) => {
        out += d;
        for (let i = out.indexOf('\n'); i >= 0; i = out.indexOf('\n')) {
          const ns = Number(out.slice(0, i));
          out = out.slice(i + 1);
          clockWaiters.shift()?.(ns);
        }
      });
      py.stdin.on('error', () => undefined);
      py.unref();
      py.stdout.unref?.();
      py.stdin.unref?.();
      clockHelper = py;
    } catch {
      clockHelper = null;
    }
  }
  if (!clockHelper) return procCpuMs(pid);
  const ns = await new Promise((res) => {
    clockWaiters.push(res);
    clockHelper.stdin.write(`${pid}\n`);
  });
  return ns > 0 ? ns / 1e6 : procCpuMs(pid);
}

/**
 * Spawns serve, polls /ready every 5 ms; returns {ms, cpuMs (used by then), child}.
 * HTTPS and MQTT over TLS listen as on a box, on free ports (their defaults, 8443 and 8883, would be
 * fought over by two runs at once, and a taken port skips that listener's work).
 */
async function startOnce(env, dataDir) {
  const port = await freePort();
  const args = ['serve', '--http-port', String(port), '--rpc-port', '0', '--mqtt-port', '0', '--https-port', '0', '--mqtt-tls-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--log-level', 'warn'];
  const t0 = process.hrtime.bigint();
  const child = spawn(bin, args, { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let err = '';
  child.stderr.on('data', (d) => (err += d));
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${err}`);
    try {
      const r = await fetch(`http://127.0.0.1:${port}/ready`, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (r.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error('no /ready within 60 s');
    }
    await sleep(5);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  return { ms, cpuMs: await processCpuMs(child.pid), child, port };
}

async function stop(child) {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await Promise.race([exited, sleep(20_000).then(() => child.kill('SIGKILL'))]);
}

const work = mkdtempSync(join(tmpdir(), 'cabinet-measure-'));
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const env = { PATH: process.env.PATH, HOME: work, LANG: 'C.UTF-8', CABINET_CACHE_DIR: join(work, 'cache') };
const dataDir = join(work, 'data');

const sizes = { x64: statSync(bin).size };
const arm = join(dirname(bin), 'cabinet-arm64');
if (existsSync(arm)) sizes.arm64 = statSync(arm).size;
sizes.x64Gzip = await gzipSize(bin);

/** The bare Node of the same version: idle RSS and spawn-to-listening, the floor of both figures. */
async function baseline() {
  const version = spawnSync(bin, ['version'], { env, encoding: 'utf8' }).stdout.match(/node v(\S+)/)?.[1];
  const node = join(ROOT, '.cache', 'node', `node-linux-${process.arch}-${version}`, 'bin', 'node');
  if (!version || !existsSync(node)) return undefined;
  const script = "require('http').createServer().listen(0,'127.0.0.1',()=>console.log('up'))";
  const printed = Array.from({ length: runs }, () => timedCpu(node, ['-e', 'console.log(process.version)']));
  const versionMs = median(printed.map((r) => r.ms));
  const versionCpuMs = medianCpu(printed);
  const starts = [];
  const startCpu = [];
  let rss;
  for (let i = 0; i < runs; i++) {
    const t0 = process.hrtime.bigint();
    const child = spawn(node, ['-e', script], { stdio: ['ignore', 'pipe', 'ignore'] });
    await new Promise((res) => child.stdout.once('data', res));
    starts.push(Number(process.hrtime.bigint() - t0) / 1e6);
    startCpu.push(await processCpuMs(child.pid));
    if (i === runs - 1) {
      await sleep(idleMs);
      rss = procStatus(child.pid).rss;
    }
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
  }
  return { node: version, startMs: Math.round(median(starts)), startCpuMs: Math.round(median(startCpu)), versionMs: Math.round(versionMs), versionCpuMs, rss };
}

/** GNU time, when installed: the CPU time (user + system) a command used, which a loaded machine
 *  moves much less than the wall time. */
const GNU_TIME = existsSync('/usr/bin/time') ? '/usr/bin/time' : undefined;

/** Spawn to exit of one command: wall ms and, with GNU time, CPU ms; throws when it fails. */
function timedCpu(file, args) {
  const [cmd, argv] = GNU_TIME ? [GNU_TIME, ['-f', '@cpu %U %S', file, ...args]] : [file, args];
  const t0 = process.hrtime.bigint();
  const r = spawnSync(cmd, argv, { env, stdio: ['ignore', 'ignore', 'pipe'], encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.status !== 0) throw new Error(`${file} ${args.join(' ')} exited ${r.status}: ${r.stderr}`);
  const cpu = /@cpu (\S+) (\S+)\s*$/.exec(r.stderr);
  return { ms, cpuMs: cpu ? (Number(cpu[1]) + Number(cpu[2])) * 1000 : undefined };
}
const timed = (file, args) => timedCpu(file, args).ms;
const medianCpu = (runs) => (runs.every((r) => r.cpuMs !== undefined) ? Math.round(median(runs.map((r) => r.cpuMs))) : undefined);

/** `cabinet version` and `--help`, interleaved so that both see the same load; the first run of
 *  each (addon extraction, cold page cache) is left out. */
function cliTimes() {
  timed(bin, ['version']);
  timed(bin, ['--help']);
  const version = [];
  const help = [];
  for (let i = 0; i < runs; i++) {
    version.push(timedCpu(bin, ['version']));
    help.push(timedCpu(bin, ['--help']));
  }
  const ms = (xs) => Math.round(median(xs.map((r) => r.ms)));
  return { versionMs: ms(version), helpMs: ms(help), versionCpuMs: medianCpu(version), helpCpuMs: medianCpu(help) };
}

/** 50 rows, then `clients` connections on the list for loadMs; peak RSS sampled meanwhile. */
async function underLoad(child, port, token) {
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  for (let i = 0; i < 50; i++) {
    const r = await fetch(`${base}/api/v1/tables`, { method: 'POST', headers, body: JSON.stringify({ item: { id: `m-${i}`, name: `row ${i}` } }) });
    if (r.status !== 201) throw new Error(`POST /api/v1/tables -> ${r.status}: ${await r.text()}`);
  }
  const { default: autocannon } = await import('autocannon');
  let peak = 0;
  const sampler = setInterval(() => (peak = Math.max(peak, procStatus(child.pid).rss)), 50);
  const before = procStatus(child.pid).rss;
  const result = await autocannon({ url: `${base}/api/v1/tables/list?limit=50`, headers, connections: clients, duration: loadMs / 1000 });
  clearInterval(sampler);
  const after = procStatus(child.pid);
  peak = Math.max(peak, after.rss);
  // A wrong answer stops the run; a timeout (no answer in 10 s, seen at load averages above 20) is
  // reported beside the figure, since the peak is still the service's under that load.
  if (result.non2xx > 0) throw new Error(`load: ${result.non2xx} non-2xx answers`);
  return { clients, ms: loadMs, requests: result.requests.total, rps: Math.round(result.requests.average), p99Ms: result.latency.p99, timeouts: result.errors, before, peakRss: peak, hwm: after.hwm };
}

const base = await baseline();
const first = await startOnce(env, dataDir);
await stop(first.child);
// After the first start, which is to include the addon's extraction.
const cli = cliTimes();
const token = spawnSync(bin, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dataDir], { env, encoding: 'utf8' }).stdout.trim().split('\n').pop();
const warm = [];
const warmCpu = [];
for (let i = 1; i < runs; i++) {
  const r = await startOnce(env, dataDir);
  warm.push(r.ms);
  warmCpu.push(r.cpuMs);
  await stop(r.child);
}

/**
 * VmRSS counts the executable's file pages mapped into the process, and the kernel maps (fault-
 * around) whatever of the file is in the page cache near a touched page: right after a build or
 * a copy the whole 110 MB file is cached and the same process shows about 18 MB more than on a
 * box where only the pages it uses were ever read. The RSS run therefore starts after the
 * binary's pages were dropped from the cache (POSIX_FADV_DONTNEED through python3).
 */
function dropFromPageCache(file) {
  const py = 'import os,sys\nfd=os.open(sys.argv[1],os.O_RDONLY)\nos.posix_fadvise(fd,0,0,os.POSIX_FADV_DONTNEED)';
  return spawnSync('python3', ['-c', py, file]).status === 0;
}
const dropped = dropFromPageCache(bin);
const measured = await startOnce(env, dataDir);
await sleep(idleMs);
const idle = procStatus(measured.child.pid);
const load = clients > 0 ? await underLoad(measured.child, measured.port, token) : undefined;
await stop(measured.child);

const result = {
  node: '24 (embedded)',
  sizes,
  cli,
  firstStartMs: Math.round(first.ms),
  restartMs: { median: Math.round(median(warm)), min: Math.round(Math.min(...warm)), max: Math.round(Math.max(...warm)), runs: warm.length, cpuMs: Math.round(median(warmCpu)) },
  idle: { afterMs: idleMs, rss: idle.rss, peakRss: idle.hwm, pageCacheDropped: dropped },
  load,
  baseline: base,
  loadavg: readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' '),
};
if (values.json) {
  console.log(JSON.stringify(result));
} else {
  const ratio = (x, b) => (b ? ` (${(x / b).toFixed(1)}x the baseline)` : '');
  console.log(`binary size        x64 ${mb(sizes.x64)} (gzip -6: ${mb(sizes.x64Gzip)})${sizes.arm64 ? `, arm64 ${mb(sizes.arm64)}` : ''}`);
  console.log(`cabinet version    median ${cli.versionMs} ms${ratio(cli.versionMs, base?.versionMs)}; --help median ${cli.helpMs} ms${ratio(cli.helpMs, base?.versionMs)} (${runs} runs each, spawn to exit)`);
  if (cli.versionCpuMs !== undefined) {
    console.log(`  CPU time         version median ${cli.versionCpuMs} ms${ratio(cli.versionCpuMs, base?.versionCpuMs)}; --help median ${cli.helpCpuMs} ms${ratio(cli.helpCpuMs, base?.versionCpuMs)} (user + system, GNU time)`);
  }
  console.log(`spawn-to-/ready    first start ${result.firstStartMs} ms (addon extraction + all migrations); restart median ${result.restartMs.median} ms${ratio(result.restartMs.median, base?.startMs)} (min ${result.restartMs.min}, max ${result.restartMs.max}, ${warm.length} runs)`);
  console.log(`  CPU time         restart: median ${result.restartMs.cpuMs} ms used by /ready${ratio(result.restartMs.cpuMs, base?.startCpuMs)} (user + system; /ready is polled every 5 ms)`);
  console.log(`RSS at idle        ${mb(idle.rss)} ${idleMs / 1000} s after /ready (peak ${mb(idle.hwm)})${ratio(idle.rss, base?.rss)}${dropped ? '' : ' (python3 missing: the binary was not dropped from the page cache, file pages count high)'}`);
  if (load) {
    console.log(
      `RSS under load     peak ${mb(load.peakRss)} (VmHWM ${mb(load.hwm)}; ${mb(load.before)} before) with ${load.clients} clients on GET /api/v1/tables/list (50 rows) for ${load.ms / 1000} s: ${load.requests} requests, ${load.rps} req/s, p99 ${load.p99Ms} ms${load.timeouts ? `, ${load.timeouts} timed out` : ''}`,
    );
  }
  if (base) {
    console.log(`baseline           bare node ${base.node}, same run: node -e "console.log(process.version)" median ${base.versionMs} ms${base.versionCpuMs !== undefined ? ` (CPU ${base.versionCpuMs} ms)` : ''}; http.createServer().listen(0): spawn-to-listening median ${base.startMs} ms (CPU ${base.startCpuMs} ms), RSS ${mb(base.rss)} ${idleMs / 1000} s after`);
  } else console.log('baseline           none: the build\'s node (.cache/node) is missing, run npm run build');
  console.log(`load average       ${result.loadavg}`);
  // The start and memory guards of issue 36, each beside its figure and the same run's baseline:
  // spawn to /ready at most 200 ms and at most 4x a bare server's spawn-to-listening by CPU, idle
  // RSS at most 80 MiB, at most 150 MiB under 50 clients. (Retired there, not chased: a restart
  // at 2.5x the bare server by wall and idle RSS at 64 MiB, which Node's own built-ins exceed.)
  const verdict = (ok) => (ok ? 'met' : 'NOT met');
  const MiB = 1024 * 1024;
  const targets = [
    ['cabinet version', `${cli.versionMs} ms`, base ? `bare node ${base.versionMs} ms` : 'no baseline', '<= 100 ms', cli.versionMs <= 100],
    ['cabinet --help', `${cli.helpMs} ms`, base ? `bare node ${base.versionMs} ms` : 'no baseline', '<= 100 ms', cli.helpMs <= 100],
    ['restart to /ready', `${result.restartMs.median} ms${ratio(result.restartMs.median, base?.startMs)}`, base ? `bare listen ${base.startMs} ms` : 'no baseline', '<= 200 ms', result.restartMs.median <= 200],
    ['restart CPU', `${Math.round(result.restartMs.cpuMs)} ms${ratio(result.restartMs.cpuMs, base?.startCpuMs)}`, base ? `bare listen ${base.startCpuMs} ms CPU` : 'no baseline', '<= 4x the baseline', base ? result.restartMs.cpuMs <= 4 * base.startCpuMs : false],
    ['idle RSS', mb(idle.rss), base ? `bare server ${mb(base.rss)}` : 'no baseline', '<= 80 MiB', idle.rss <= 80 * MiB],
    ...(load ? [[`RSS, ${load.clients} clients`, `${mb(load.peakRss)} at ${load.rps} req/s`, '', '<= 150 MiB', load.peakRss <= 150 * MiB]] : []),
  ];
  console.log('targets (start and memory), this run:');
  for (const [what, figure, baseline, target, ok] of targets) console.log(`  ${what.padEnd(20)} ${figure.padEnd(34)} ${baseline.padEnd(26)} ${target.padEnd(22)} ${verdict(ok)}`);
}
