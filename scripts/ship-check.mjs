#!/usr/bin/env node
// Shipping checks of the built single executable, run by .ci/ship.sh with the machine's Node.
//
//   node scripts/ship-check.mjs install [--binary dist/cabinet]
//       Copies the binary into an empty directory (no node_modules, no source) and checks, with a
//       temporary data directory: version, migrate (once), /ready (+ READY=1 to a fake systemd
//       notify socket when the app sends it), /health, a write and read through the API, /openapi.yaml,
//       /docs and its swagger-ui files, graceful stop, a restart keeping the row, refusal of a database
//       written by a newer cabinet (files untouched), and a Modbus RTU write from the binary through a
//       socat pty pair to an independent RTU slave (scripts/ship-rtu-slave.mjs).
//   node scripts/ship-check.mjs qemu [--binary dist/cabinet-arm64]
//       Runs the arm64 binary under qemu-aarch64: /health, /ready, a row written and read back.
//
// Every child process is tracked and killed on exit; every wait is bounded.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values, positionals } = parseArgs({
  options: { binary: { type: 'string' }, keep: { type: 'boolean', default: false } },
  allowPositionals: true,
});
const mode = positionals[0] ?? 'install';
const QEMU = ['qemu-aarch64', '-L', '/usr/aarch64-linux-gnu'];

// ---- process bookkeeping -------------------------------------------------------------------
const children = new Set();
const work = mkdtempSync(join(tmpdir(), 'cabinet-ship-'));
function cleanup() {
  for (const c of children) {
    try {
      c.kill('SIGKILL');
    } catch {
      /* gone */
    }
  }
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(130));

let failures = 0;
const t0 = Date.now();
function ok(msg) {
  console.log(`  ok   ${msg}`);
}
function fail(msg) {
  failures++;
  console.log(`  FAIL ${msg}`);
}
function check(cond, msg, detail = '') {
  if (cond) ok(msg);
  else fail(detail ? `${msg}: ${detail}` : msg);
  return Boolean(cond);
}
function fatal(msg) {
  console.log(`  FAIL ${msg}`);
  process.exit(1);
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Clean environment: nothing from this checkout (no NODE_OPTIONS, no NODE_PATH, no npm_*). */
function cleanEnv(extra = {}) {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: join(work, 'home'),
    LANG: 'C.UTF-8',
    ...extra,
  };
}

function launch(cmd, args, opts) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  children.add(child);
  child.output = '';
  child.stdout.on('data', (d) => (child.output += d));
  child.stderr.on('data', (d) => (child.output += d));
  child.exited = new Promise((r) => child.on('exit', (code, signal) => {
    children.delete(child);
    r({ code, signal });
  }));
  return child;
}

async function waitFor(fn, timeoutMs, what) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(50);
  }
}

/** Runs the binary to completion (bounded). */
function runBinary(bin, args, { cwd, env, runner = [], timeoutMs = 30_000 } = {}) {
  const [cmd, ...pre] = runner.length ? runner : [bin];
  const res = spawnSync(cmd, [...pre, ...(runner.length ? [bin] : []), ...args], {
    cwd,
    env,
    encoding: 'utf8',
    timeout: timeoutMs,
  });
  return { code: res.status, out: res.stdout ?? '', err: res.stderr ?? '', error: res.error };
}

// ---- HTTP ----------------------------------------------------------------------------------
async function http(base, path, { method = 'GET', body, token, timeoutMs = 10_000 } = {}) {
  const headers = {};
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (token) headers.authorization = `Bearer ${token}`;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(timeoutMs),
  });
  const buf = Buffer.from(await res.arrayBuffer());
  let json;
  try {
    json = JSON.parse(buf.toString('utf8'));
  } catch {
    /* not JSON */
  }
  return { status: res.status, type: res.headers.get('content-type') ?? '', text: buf.toString('utf8'), size: buf.length, json };
}

let lastServe;
/** Starts `serve` on a free port, returns {child, base, port, readyMs}. */
async function serve(bin, dataDir, { cwd, env, runner = [], readyTimeoutMs = 30_000, extraArgs = [] } = {}) {
  const [cmd, ...pre] = runner.length ? runner : [bin];
  // Ports 0: the field-write listener (8081) and the MQTT broker (1883) must not collide with anything on the machine.
  const args = [...pre, ...(runner.length ? [bin] : []), 'serve', '--http-port', '0', '--rpc-port', '0', '--mqtt-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, ...extraArgs];
  const started = Date.now();
  const child = launch(cmd, args, { cwd, env });
  lastServe = child;
  const port = await waitFor(
    async () => {
      const exited = child.exitCode !== null || child.signalCode !== null;
      if (exited) throw new Error(`serve exited early (${child.exitCode ?? child.signalCode}):\n${child.output}`);
      // The main HTTP listener's start-up line ("cabinet listening on http://host:port").
      const m = /cabinet listening on http:\/\/[^\s"]+:(\d+)/.exec(child.output);
      return m ? Number(m[1]) : undefined;
    },
    readyTimeoutMs,
    'the start-up log line with the port',
  );
  const base = `http://127.0.0.1:${port}`;
  await waitFor(
    async () => {
      try {
        return (await http(base, '/ready', { timeoutMs: 2000 })).status === 200;
      } catch {
        return false;
      }
    },
    readyTimeoutMs,
    '/ready to answer 200',
  );
  return { child, base, port, readyMs: Date.now() - started };
}

async function stop(child, timeoutMs = 20_000) {
  const started = Date.now();
  child.kill('SIGTERM');
  const res = await Promise.race([child.exited, sleep(timeoutMs).then(() => undefined)]);
  if (!res) {
    child.kill('SIGKILL');
    throw new Error(`did not stop within ${timeoutMs} ms after SIGTERM`);
  }
  return { ...res, ms: Date.now() - started };
}

function tokenFor(bin, dataDir, opts) {
  const res = runBinary(bin, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dataDir], opts);
  if (res.code === 0) {
    const token = res.out.trim().split('\n').pop()?.trim();
    ok(`cabinet token printed a token (${token?.length ?? 0} chars)`);
    return token;
  }
  if (res.code === 2 && /unknown command/i.test(res.err)) {
    console.log('  note cabinet token does not exist in this build: API calls go without a token');
    return undefined;
  }
  fail(`cabinet token exited ${res.code}: ${res.err.trim()}`);
  return undefined;
}

function snapshotDir(dir) {
  const out = {};
  for (const f of readdirSync(dir).sort()) {
    const full = join(dir, f);
    if (statSync(full).isFile()) out[f] = createHash('sha256').update(readFileSync(full)).digest('hex');
  }
  return out;
}

/** systemd notify socket stand-in: a python3 datagram receiver that prints each message and
 *  closes passed fds (which releases systemd-notify's barrier). */
function notifyListener(path) {
  const py = `
import socket, sys, os, array
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("LISTENING", flush=True)
while True:
    msg, anc, flags, addr = s.recvmsg(4096, socket.CMSG_SPACE(16 * 4))
    for level, typ, data in anc:
        if level == socket.SOL_SOCKET and typ == socket.SCM_RIGHTS:
            fds = array.array("i"); fds.frombytes(data[: len(data) - (len(data) % fds.itemsize)])
            for fd in fds: os.close(fd)
    print("MSG " + msg.decode(errors="replace").replace("\\n", " | "), flush=True)
`;
  return launch('python3', ['-c', py, path], {});
}

// ---- modes ---------------------------------------------------------------------------------
async function installCheck(source) {
  console.log(`== install check of ${source} (${(statSync(source).size / 1e6).toFixed(1)} MB)`);
  const dir = join(work, 'install');
  mkdirSync(dir);
  mkdirSync(join(work, 'home'));
  const bin = join(dir, 'cabinet');
  copyFileSync(source, bin);
  spawnSync('chmod', ['755', bin]);
  check(readdirSync(dir).join(',') === 'cabinet', 'install directory holds the binary only');
  const data = join(work, 'data');
  const env = cleanEnv();
  const opts = { cwd: dir, env };

  // version
  const ver = runBinary(bin, ['version'], opts);
  const pkgVersion = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
  check(
    ver.code === 0 && ver.out.includes(`cabinet ${pkgVersion}`) && /node v24\.\d+\.\d+/.test(ver.out) && /sqlite 3\.\d+/.test(ver.out),
    `cabinet version -> ${ver.out.trim().replace(/\n/g, ', ')}`,
    ver.err,
  );
  // version prints the SQLite version its build asked of the embedded addon (its trailer's text,
  // src/runtime/sea-loader.cjs): it loads no addon, so the first command that opens the database
  // is the one that extracts it.
  const nativeDir = join(work, 'home', '.cache', 'cabinet', 'native');
  const cachedNow = () => (existsSync(nativeDir) ? readdirSync(nativeDir) : []);
  check(cachedNow().length === 0, `version extracted no addon (${cachedNow().join(', ')})`);

  // migrate, once
  const m1 = runBinary(bin, ['migrate', '--data-dir', data], opts);
  check(m1.code === 0 && /applied \d+ migration/.test(m1.out), `migrate on an empty data dir: ${m1.out.trim()}`, m1.err);
  const cached = cachedNow();
  check(
    cached.some((f) => /^better_sqlite3-[0-9a-f]{64}\.node$/.test(f)),
    `addon extracted to ~/.cache/cabinet/native under its sha256 (${cached.join(', ')})`,
  );
  const m2 = runBinary(bin, ['migrate', '--data-dir', data], opts);
  check(m2.code === 0 && /up to date/.test(m2.out), `migrate again does nothing: ${m2.out.trim()}`, m2.err);

  const token = tokenFor(bin, data, opts);

  // serve, with a fake systemd notify socket when python3 is there
  let listener;
  const notifySock = join(work, 'notify.sock');
  const appNotifies = /notifyReady\(/.test(grepSources());
  if (spawnSync('python3', ['-c', 'import socket']).status === 0) {
    listener = notifyListener(notifySock);
    await waitFor(async () => listener.output.includes('LISTENING'), 5000, 'the notify listener');
  }
  const s1 = await serve(bin, data, { ...opts, env: listener ? { ...env, NOTIFY_SOCKET: notifySock } : env });
  ok(`serve -> /ready 200 after ${s1.readyMs} ms on port ${s1.port}`);
  if (listener) {
    if (appNotifies) {
      await waitFor(async () => listener.output.includes('READY=1'), 10_000, 'READY=1 on the notify socket').then(
        () => ok('READY=1 sent to $NOTIFY_SOCKET (Type=notify)'),
        (e) => fail(e.message),
      );
    } else {
      console.log('  note the app does not call notifyReady() (src/runtime/systemd.ts) yet: the Type=notify check is skipped');
    }
  }

  const health = await http(s1.base, '/health');
  check(health.status === 200 && health.json?.status === 'ok', `/health -> ${health.status} ${health.text.slice(0, 80)}`);
  const id = `ship-${Date.now()}`;
  const created = await http(s1.base, '/api/v1/tables', { method: 'POST', body: { item: { id, name: 'shipped' } }, token });
  check(created.status === 201, `POST /api/v1/tables -> ${created.status}`, created.text.slice(0, 300));
  const read = await http(s1.base, `/api/v1/tables/${id}`, { token });
  check(read.status === 200 && read.json?.item?.name === 'shipped', `GET /api/v1/tables/${id} -> ${read.status}`, read.text.slice(0, 300));

  // Load: statements created and collected under HTTP traffic. Node >= 24.19 aborted here with
  // better-sqlite3 12 (node::ObjectWrap cleanup hook); 13 is Node-API, the check stays as a guard.
  const loadUntil = Date.now() + 3000;
  let served = 0;
  await Promise.all(
    Array.from({ length: 8 }, async (_, w) => {
      while (Date.now() < loadUntil && s1.child.exitCode === null) {
        const r = w % 2 ? await http(s1.base, `/api/v1/tables/${id}`, { token }) : await http(s1.base, '/api/v1/tables?limit=5', { token });
        if (r.status === 200) served++;
      }
    }),
  ).catch((e) => fail(`load: ${e.message}`));
  check(s1.child.exitCode === null && served > 100, `3 s of API load: ${served} requests answered 200, process alive`);

  const openapi = await http(s1.base, '/openapi.yaml');
  check(openapi.status === 200 && /^openapi: 3/m.test(openapi.text), `/openapi.yaml -> ${openapi.status}, ${openapi.size} bytes`);
  const docs = await http(s1.base, '/docs');
  check(docs.status === 200 && /<html/i.test(docs.text), `/docs -> ${docs.status} ${docs.type}`);
  const refs = [...docs.text.matchAll(/(?:src|href)="(\/docs\/[^"]+)"/g)].map((m) => m[1]);
  for (const f of ['swagger-ui-bundle.js', 'swagger-ui.css']) {
    if (!refs.includes(`/docs/${f}`)) refs.push(`/docs/${f}`);
  }
  for (const ref of refs) {
    const r = await http(s1.base, ref);
    check(r.status === 200 && r.size > 0, `${ref} -> ${r.status}, ${r.size} bytes`);
  }
  const webAssets = listWebAssets();
  if (webAssets.length) {
    const shell = await http(s1.base, '/');
    check(shell.status === 200, `web shell / -> ${shell.status} ${shell.type}`, shell.text.slice(0, 200));
  } else {
    console.log('  note dist/web is empty: no web shell to check yet');
  }

  const st1 = await stop(s1.child);
  check(st1.code === 0, `SIGTERM -> graceful exit ${st1.code ?? st1.signal} in ${st1.ms} ms`, s1.child.output.slice(-500));

  // restart keeps the row; no migration runs again
  const s2 = await serve(bin, data, opts);
  const again = await http(s2.base, `/api/v1/tables/${id}`, { token });
  check(again.status === 200 && again.json?.item?.name === 'shipped', `after a restart the row is still there (${again.status})`);
  check(!/migrations applied/.test(s2.child.output), 'the restart applied no migration');
  const st2 = await stop(s2.child);
  check(st2.code === 0, `second stop exit ${st2.code ?? st2.signal}`);

  // a database written by a newer cabinet is refused and left untouched
  const future = join(work, 'future');
  mkdirSync(future);
  for (const f of readdirSync(data)) if (statSync(join(data, f)).isFile()) copyFileSync(join(data, f), join(future, f));
  const dbFile = readdirSync(future).find((f) => /\.(db|sqlite3?)$/.test(f));
  if (!dbFile) {
    fail(`no SQLite file in the data directory (${readdirSync(future).join(', ')})`);
  } else {
    const Database = createRequire(join(ROOT, 'package.json'))('better-sqlite3');
    const db = new Database(join(future, dbFile));
    // A row for a migration this binary does not carry, whatever the table's exact columns are.
    const cols = db.prepare('pragma table_info(cabinet_migrations)').all().map((c) => c.name);
    const known = db.prepare('select * from cabinet_migrations limit 1').get() ?? {};
    const row = { ...known, tag: '9999_from_the_future', checksum: '0000000000000000', applied_at: new Date().toISOString() };
    const names = cols.filter((c) => c in row);
    db.prepare(`insert into cabinet_migrations (${names.join(', ')}) values (${names.map(() => '?').join(', ')})`).run(
      ...names.map((n) => row[n]),
    );
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = snapshotDir(future);
    const refused = runBinary(bin, ['serve', '--http-port', '0', '--rpc-port', '0', '--host', '127.0.0.1', '--data-dir', future], { ...opts, timeoutMs: 20_000 });
    check(
      refused.code !== 0 && /newer/i.test(refused.err + refused.out),
      `newer database refused: exit ${refused.code}, "${(refused.err + refused.out).trim().split('\n').pop()}"`,
    );
    const after = snapshotDir(future);
    check(JSON.stringify(before) === JSON.stringify(after), 'the newer database files are unchanged', `${JSON.stringify(before)} vs ${JSON.stringify(after)}`);
  }

  await rtuCheck(bin, opts, { data, token });
  await postgresCheck(bin, opts);
}

/**
 * The PostgreSQL driver is loaded only when database_url names a server; from the executable it
 * must still be there: migrate, /ready, a row written and read back, on a database made for this
 * check (CABINET_TEST_PG_URL names the server; without it the check says it did not run).
 */
async function postgresCheck(bin, opts) {
  const serverUrl = process.env.CABINET_TEST_PG_URL;
  if (!serverUrl) {
    console.log('  note CABINET_TEST_PG_URL is not set: the PostgreSQL check of the binary did not run');
    return;
  }
  const pg = createRequire(join(ROOT, 'package.json'))('pg');
  const name = `cabinet_ship_${process.pid}_${Date.now() % 100000}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`create database ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const pgOpts = { ...opts, env: { ...opts.env, CABINET_DATABASE_URL: url.toString() } };
  const data = join(work, 'pg-data');
  try {
    const m = runBinary(bin, ['migrate', '--data-dir', data], pgOpts);
    check(m.code === 0 && /applied \d+ migration/.test(m.out), `PostgreSQL: migrate -> ${m.out.trim().slice(0, 80)}`, m.err);
    const token = runBinary(bin, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', data], pgOpts).out.trim().split('\n').pop();
    const s = await serve(bin, data, pgOpts);
    check(/"engine":"postgresql"/.test(s.child.output), 'PostgreSQL: serve runs on engine postgresql', s.child.output.slice(-400));
    const id = `ship-pg-${Date.now()}`;
    const created = await http(s.base, '/api/v1/tables', { method: 'POST', body: { item: { id, name: 'on postgres' } }, token });
    const read = await http(s.base, `/api/v1/tables/${id}`, { token });
    check(created.status === 201 && read.json?.item?.name === 'on postgres', `PostgreSQL: a row written and read back (${created.status}, ${read.status})`, created.text.slice(0, 300));
    const st = await stop(s.child);
    check(st.code === 0, `PostgreSQL: graceful stop ${st.code ?? st.signal}`);
  } finally {
    await admin.query(`drop database if exists ${name} with (force)`).catch(() => undefined);
    await admin.end();
  }
}

function grepSources() {
  // Whether the app wires readiness notification (checked against the source that was bundled).
  const out = [];
  const walk = (d) => {
    for (const f of readdirSync(d)) {
      const full = join(d, f);
      if (statSync(full).isDirectory()) walk(full);
      else if (f.endsWith('.ts') && !full.includes(`${join('src', 'runtime')}`)) out.push(readFileSync(full, 'utf8'));
    }
  };
  walk(join(ROOT, 'src'));
  return out.join('\n');
}

function listWebAssets() {
  const dir = join(ROOT, 'dist/web');
  return existsSync(dir) ? readdirSync(dir).filter((f) => !f.startsWith('.')) : [];
}

async function rtuCheck(bin, opts, app) {
  if (spawnSync('socat', ['-V']).status !== 0) {
    fail('socat is not installed (.ci/system-packages.sh)');
    return;
  }
  const a = join(work, 'tty-master');
  const b = join(work, 'tty-slave');
  const socat = launch('socat', [`pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], {});
  await waitFor(async () => existsSync(a) && existsSync(b), 5000, 'the socat pty pair');
  const slave = launch(process.execPath, [join(ROOT, 'scripts/ship-rtu-slave.mjs'), b, '17'], {});
  await waitFor(async () => slave.output.includes('listening'), 5000, 'the RTU slave');
  const value = 4000 + (Date.now() % 1000);
  const res = runBinary(bin, ['__selfcheck', 'rtu', '--port', a, '--unit', '17', '--register', '40', '--value', String(value)], opts);
  check(res.code === 0 && /"ok":true/.test(res.out), `Modbus RTU write from the binary over a socat pty: ${res.out.trim()}`, res.err.trim());
  await waitFor(async () => slave.output.includes(`"register":40,"value":${value}`), 3000, 'the slave to record the write').then(
    () => ok(`the RTU slave received function 06 register 40 = ${value}`),
    (e) => fail(e.message),
  );

  // The application's own path: `cabinet rpc` -> POST /api/rpc -> field service -> RTU bus.
  const rpcHelp = runBinary(bin, ['rpc', '--help'], opts);
  if (rpcHelp.code !== 0) {
    console.log(`  note cabinet rpc is not in this build (exit ${rpcHelp.code}): only the self-check proved RTU`);
  } else {
    const s = await serve(bin, app.data, opts);
    const m = /RPC listening on (http:\/\/[^\s"]+\/api\/rpc)/.exec(s.child.output);
    if (!m) {
      fail(`no "RPC listening on" line in the serve log:\n${s.child.output.slice(-600)}`);
    } else {
      const v2 = 5000 + (Date.now() % 1000);
      const req = join(work, 'rtu-request.json');
      writeFileSync(
        req,
        JSON.stringify({
          jsonrpc: '2.0',
          protocol: 'modbus-rtu',
          params: [{ serial_port: a, unit_id: 17, object_type: 'holding register', object_address: 41, data_type: 'uint16', value: v2, verify: true }],
        }),
      );
      const args = ['rpc', '--url', m[1], '--file', req, ...(app.token ? ['--token', app.token] : [])];
      const r = runBinary(bin, args, opts);
      check(r.code === 0, `cabinet rpc modbus-rtu write (verify: true) via ${m[1]} -> exit ${r.code} ${r.out.replace(/\s+/g, ' ').trim().slice(0, 160)}`, r.err.trim());
      await waitFor(async () => slave.output.includes(`"register":41,"value":${v2}`), 3000, 'the slave to record the RPC write').then(
        () => ok(`the RTU slave received register 41 = ${v2} from the service`),
        (e) => fail(e.message),
      );
    }
    await stop(s.child);
  }

  slave.kill('SIGTERM');
  socat.kill('SIGTERM');
  await Promise.all([slave.exited, socat.exited]);
}

async function qemuCheck(source) {
  console.log(`== arm64 check of ${source} under ${QEMU[0]}`);
  if (spawnSync(QEMU[0], ['--version']).status !== 0) fatal(`${QEMU[0]} is not installed (.ci/system-packages.sh)`);
  mkdirSync(join(work, 'home'));
  const data = join(work, 'data-arm64');
  const env = cleanEnv();
  const opts = { cwd: work, env, runner: QEMU, timeoutMs: 120_000 };
  const ver = runBinary(source, ['version'], opts);
  check(ver.code === 0 && /node v24/.test(ver.out), `arm64 cabinet version -> ${ver.out.trim().replace(/\n/g, ', ')}`, ver.err);
  const token = tokenFor(source, data, opts);
  const s = await serve(source, data, { ...opts, readyTimeoutMs: 120_000 });
  ok(`arm64 serve under qemu -> /ready 200 after ${s.readyMs} ms`);
  const health = await http(s.base, '/health', { timeoutMs: 30_000 });
  check(health.status === 200 && health.json?.status === 'ok', `arm64 /health -> ${health.status} ${health.text.slice(0, 80)}`);
  const id = `arm64-${Date.now()}`;
  const created = await http(s.base, '/api/v1/tables', { method: 'POST', body: { item: { id, name: 'arm64' } }, token, timeoutMs: 30_000 });
  check(created.status === 201, `arm64 POST /api/v1/tables -> ${created.status}`, created.text.slice(0, 300));
  const read = await http(s.base, `/api/v1/tables/${id}`, { token, timeoutMs: 30_000 });
  check(read.status === 200 && read.json?.item?.name === 'arm64', `arm64 GET /api/v1/tables/${id} -> ${read.status}`);
  const st = await stop(s.child, 60_000);
  check(st.code === 0, `arm64 SIGTERM -> exit ${st.code ?? st.signal} in ${st.ms} ms`);
}

try {
  if (mode === 'install') await installCheck(resolve(ROOT, values.binary ?? 'dist/cabinet'));
  else if (mode === 'qemu') await qemuCheck(resolve(ROOT, values.binary ?? 'dist/cabinet-arm64'));
  else fatal(`unknown mode ${mode} (install | qemu)`);
} catch (err) {
  fail(err instanceof Error ? `${err.message}${err.cause ? ` (${err.cause.message ?? err.cause})` : ''}` : String(err));
  if (lastServe) console.log(`  last serve output:\n${lastServe.output.split('\n').slice(-15).join('\n')}`);
}
console.log(`== ${mode}: ${failures ? `${failures} FAILED` : 'all passed'} (${((Date.now() - t0) / 1000).toFixed(1)} s)`);
// Explicit exit: helper processes (notify listener, pty pair) must not keep this process alive;
// the 'exit' handler kills whatever is left.
process.exit(failures ? 1 : 0);
