#!/usr/bin/env node
// End-to-end check of the fleet's self-update (shipping checks, as root, after the build): a master
// and two boxes as real processes, real packages of two versions (and a third that exits at start),
// each box in its own container-like sandbox: a private mount namespace with an overlay of / whose
// upper directory is a tmpfs, entered with chroot, so dpkg -i installs for real and nothing touches
// this machine. scripts/fleet-update/supervisor.mjs plays systemd inside each box.
//   (a) a package with a bad signature or a bad checksum is refused before anything is installed;
//   (b) a rollout (one canary, one wave) brings both boxes to the new version, data intact, the
//       fleet view showing the steps; meanwhile a box loses power while downloading and another
//       while dpkg runs, and the master is SIGKILLed during the rollout;
//   (c) a version that exits at start is rolled back by the box by itself: the old version runs
//       with its data, the rollout pauses, the reason is on the master.
//   node scripts/ship-fleet-update.mjs --base dist/cabinet_0.1.0_amd64.deb --next dist/cabinet_0.1.1_amd64.deb
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { base: { type: 'string' }, next: { type: 'string' }, keep: { type: 'boolean', default: false } } });
if (!values.base || !values.next) throw new Error('usage: ship-fleet-update.mjs --base BASE.deb --next NEXT.deb');
if (process.getuid() !== 0) throw new Error('ship-fleet-update: needs root (mount namespaces, dpkg in the sandboxes)');
const NODE = process.execPath; // Node 24 (the project's), visible inside the sandboxes through the overlay
const t0 = Date.now();
const say = (m) => process.stdout.write(`[fleet-update +${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}\n`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
let failed = false;
function check(ok, what) {
  if (!ok) {
    failed = true;
    throw new Error(`FAILED: ${what}`);
  }
  say(`ok: ${what}`);
}
async function until(what, fn, timeoutMs = 180_000, everyMs = 300) {
  const end = Date.now() + timeoutMs;
  let last;
  for (;;) {
    try {
      last = await fn();
      if (last) return last;
    } catch (err) {
      last = err.message;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what} (last: ${typeof last === 'string' ? last : JSON.stringify(last)})`);
    await sleep(everyMs);
  }
}

/**
 * fetch, again when the connection fails before an answer: a kept-alive connection the server
 * closed after its idle timeout fails the next request on it (undici does not retry a POST).
 */
async function fetchAgain(url, init) {
  for (let i = 0; ; i++) {
    try {
      return await fetch(url, init);
    } catch (err) {
      if (i >= 3) throw err;
      await sleep(200);
    }
  }
}
const work = mkdtempSync('/tmp/cabinet-fleet-update-');
const field = (deb, f) => execFileSync('dpkg-deb', ['-f', deb, f], { encoding: 'utf8' }).trim();
const baseDeb = resolve(values.base);
const nextDeb = resolve(values.next);
const V0 = field(baseDeb, 'Version');
const V1 = field(nextDeb, 'Version');
const [maj, min, pat] = V1.split('.').map(Number);
const V2 = `${maj}.${min}.${pat + 1}`; // the build that exits at start

// ---- processes we start, stopped at the end whatever happens ---------------------------------
const children = new Set();
const boxes = [];
function cleanup() {
  for (const c of children) try { c.kill('SIGKILL'); } catch { /* gone */ }
  for (const b of boxes) b.destroy();
  if (!values.keep) rmSync(work, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => process.exit(143));

// ---- the host side: keys, signatures, the broken package, the master --------------------------
const hostCache = join(work, 'cache');
mkdirSync(hostCache);
const baseBin = join(work, 'base-bin');
execFileSync('dpkg-deb', ['-x', baseDeb, baseBin]);
const CABINET = join(baseBin, 'usr/bin/cabinet');
const cab = (args, opts = {}) => execFileSync(CABINET, args, { encoding: 'utf8', env: { ...process.env, CABINET_CACHE_DIR: hostCache, ...(opts.env ?? {}) } });

say(`versions: base ${V0}, next ${V1}, one that exits at start ${V2}`);
cab(['release', 'keygen', '--out', join(work, 'keys')]);
cab(['release', 'keygen', '--out', join(work, 'other-keys')]);
const debs = join(work, 'debs');
mkdirSync(debs);
/** A package that installs fine and whose `serve` exits at once: the new version that cannot become healthy. */
function brokenPackage() {
  const tree = join(work, 'broken');
  execFileSync('dpkg-deb', ['-R', nextDeb, tree]);
  mkdirSync(join(tree, 'usr/lib/cabinet'), { recursive: true });
  execFileSync('mv', [join(tree, 'usr/bin/cabinet'), join(tree, 'usr/lib/cabinet/cabinet-real')]);
  writeFileSync(join(tree, 'usr/bin/cabinet'), '#!/bin/sh\n# test build: every command works, the service exits at start\nif [ "$1" = serve ]; then echo "this build cannot start" >&2; exit 1; fi\nexec /usr/lib/cabinet/cabinet-real "$@"\n');
  chmodSync(join(tree, 'usr/bin/cabinet'), 0o755);
  const control = join(tree, 'DEBIAN/control');
  writeFileSync(control, readFileSync(control, 'utf8').replace(/^Version: .*$/m, `Version: ${V2}`));
  const out = join(debs, `cabinet_${V2}_amd64.deb`);
  execFileSync('dpkg-deb', ['--root-owner-group', '-Znone', '--build', tree, out], { stdio: 'ignore' });
  rmSync(tree, { recursive: true, force: true });
  return out;
}
const brokenDeb = brokenPackage();
for (const deb of [baseDeb, nextDeb, brokenDeb]) {
  if (dirname(deb) !== debs) execFileSync('cp', [deb, debs]);
}
const debOf = (v) => join(debs, `cabinet_${v}_amd64.deb`);
for (const v of [V0, V1, V2]) cab(['release', 'sign', '--key', join(work, 'keys/release.key'), '--deb', debOf(v)]);

const masterDir = join(work, 'master');
mkdirSync(masterDir);
let master = null;
async function startMaster() {
  const logFile = join(work, 'master.log');
  const out = [];
  const child = spawn(CABINET, ['serve', '--mode', 'cloud-multi', '--data-dir', masterDir, '--host', '127.0.0.1', '--http-port', String(master?.port ?? 0), '--https-port', 'off', '--rpc-port', '0', '--mqtt-broker', 'off', '--release-public-key', join(work, 'keys/release.pub'), '--sync-stale-ms', '600000'], { env: { ...process.env, CABINET_CACHE_DIR: hostCache }, stdio: ['ignore', 'pipe', 'pipe'] });
  children.add(child);
  child.stdout.on('data', (d) => { out.push(d.toString()); writeFileSync(logFile, out.join('')); });
  child.stderr.on('data', (d) => { out.push(d.toString()); writeFileSync(logFile, out.join('')); });
  const url = await until('the master listening', () => /"msg":"cabinet listening on (http:[^"]*)"/.exec(out.join(''))?.[1], 60_000, 200);
  master = { child, url, port: Number(new URL(url).port) };
  say(`master at ${url}`);
}
await startMaster();
const token = cab(['token', '--data-dir', masterDir, '--role', 'admin', '--scope-type', 'master', '--ttl', '600']).trim();
async function api(method, path, body) {
  const res = await fetchAgain(`${master.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}
for (const v of [V0, V1, V2]) {
  cab(['release', 'upload', '--url', master.url, '--token', token, '--deb', debOf(v), '--notes', `e2e ${v}`]);
}
say('releases uploaded and published');

// ---- the boxes ----------------------------------------------------------------------------------
class Box {
  constructor(name, port) {
    this.name = name;
    this.port = port;
    this.dir = join(work, name);
    this.merged = join(this.dir, 'm');
    mkdirSync(this.dir);
    // The holder keeps the namespace (and its tmpfs) through the box's "power cuts".
    this.holder = spawn('unshare', ['-m', '--propagation', 'private', 'sh', '-c', [
      `mount -t tmpfs tmpfs ${this.dir}`, `mkdir ${this.dir}/u ${this.dir}/w ${this.merged}`,
      `mount -t overlay overlay -o lowerdir=/,upperdir=${this.dir}/u,workdir=${this.dir}/w ${this.merged}`,
      `mount -t proc proc ${this.merged}/proc`, `mount --rbind /dev ${this.merged}/dev`,
      `mount -t tmpfs tmpfs ${this.merged}/run`, 'echo ready', 'exec sleep infinity'].join(' && ')], { stdio: ['ignore', 'pipe', 'inherit'] });
    children.add(this.holder);
  }
  async ready() {
    await new Promise((r, j) => { this.holder.stdout.once('data', r); this.holder.once('exit', () => j(new Error(`${this.name}: the sandbox did not start`))); });
    this.ns = readlinkSync(`/proc/${this.holder.pid}/ns/mnt`);
  }
  /** A path inside the box, as this machine reaches it (through the holder's namespace). */
  path(p) {
    return `/proc/${this.holder.pid}/root${this.merged}${p}`;
  }
  /** Runs a command inside the box (chroot) and returns its output. */
  run(argv, opts = {}) {
    const r = spawnSync('nsenter', ['-t', String(this.holder.pid), '-m', '--', 'chroot', this.merged, ...argv], { encoding: 'utf8', ...opts });
    if (r.status !== 0 && !opts.mayFail) throw new Error(`${this.name}: ${argv.join(' ')} exited with ${r.status}: ${r.stdout}${r.stderr}`);
    return r.stdout;
  }
  installed() {
    const out = this.run(['dpkg-query', '-W', '-f', '${Version} ${Status}', 'cabinet'], { mayFail: true });
    return out.trim();
  }
  boot() {
    this.run(['mkdir', '-p', '/run/cabinet-e2e']);
    const sup = spawn('nsenter', ['-t', String(this.holder.pid), '-m', '--', 'chroot', this.merged, NODE, join(ROOT, 'scripts/fleet-update/supervisor.mjs'), '--config', '/etc/cabinet/cabinet.yaml', '--run', '/run/cabinet-e2e'], { stdio: ['ignore', 'inherit', 'inherit'] });
    sup.on('exit', (code, signal) => say(`${this.name}: supervisor exited (${code ?? signal})`));
    children.add(sup);
    this.supervisor = sup;
    say(`${this.name}: boot`);
  }
  /** Every process of the box (its mount namespace), the holder aside. */
  pids() {
    const out = [];
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p) || Number(p) === this.holder.pid) continue;
      try { if (readlinkSync(`/proc/${p}/ns/mnt`) === this.ns) out.push(Number(p)); } catch { /* gone */ }
    }
    return out;
  }
  /** A power cut: SIGKILL to every process of the box at once. The disk (the tmpfs) stays. */
  async powerCut(why) {
    say(`${this.name}: power cut (${why})`);
    for (let i = 0; i < 50; i++) {
      const pids = this.pids();
      if (!pids.length) return;
      for (const p of pids) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
      await sleep(100);
    }
    throw new Error(`${this.name}: processes survive the power cut`);
  }
  state() {
    try { return JSON.parse(readFileSync(this.path('/var/lib/cabinet/updates/state.json'), 'utf8')); } catch { return null; }
  }
  url(p) {
    return `http://127.0.0.1:${this.port}${p}`;
  }
  async get(p) {
    const res = await fetchAgain(this.url(p), { headers: { authorization: `Bearer ${this.token}` } });
    return { status: res.status, body: await res.json().catch(() => null) };
  }
  destroy() {
    if (this.ns) for (const p of this.pids()) try { process.kill(p, 'SIGKILL'); } catch { /* gone */ }
    try { this.holder.kill('SIGKILL'); } catch { /* gone */ }
  }
}

async function setUpBox(name, port, siteId) {
  const box = new Box(name, port);
  boxes.push(box);
  await box.ready();
  box.run(['dpkg', '-i', debOf(V0)], { stdio: 'ignore' });
  check(box.installed() === `${V0} install ok installed`, `${name}: ${V0} installed with dpkg in its sandbox`);
  const reg = await api('POST', '/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'e2e', site_id: siteId, industry_code: 'poultry' });
  if (reg.status !== 201) throw new Error(`register-site: ${JSON.stringify(reg.body)}`);
  box.site = `${siteId}@e2e`;
  writeFileSync(box.path('/etc/cabinet/release.pub'), readFileSync(join(work, 'keys/release.pub')));
  chmodSync(box.path('/etc/cabinet/release.pub'), 0o644);
  const cfg = readFileSync(box.path('/etc/cabinet/cabinet.yaml'), 'utf8')
    .replace(/^host: .*$/m, 'host: 127.0.0.1').replace(/^http_port: .*$/m, `http_port: ${port}`).replace(/^rpc_port: .*$/m, `rpc_port: ${port + 1}`)
    .replace(/^mqtt_broker: .*$/m, 'mqtt_broker: off');
  writeFileSync(box.path('/etc/cabinet/cabinet.yaml'), `${cfg}https_port: off\nsync_master_url: ${master.url}\nsync_interval_ms: 1000\nsync_backoff_max_ms: 2000\nrelease_public_key: /etc/cabinet/release.pub\nupdate_service_control: ${NODE} ${join(ROOT, 'scripts/fleet-update/svcctl.mjs')}\n`);
  writeFileSync(box.path('/var/lib/cabinet/site-credential'), `${reg.body.item.credential}\n`, { mode: 0o600 });
  // The box's own tenant and site, written before its first start as an installer does: the ids the master registered.
  writeFileSync(box.path('/var/lib/cabinet/site.json'), `${JSON.stringify({ tenant_id: 'e2e', site_id: siteId })}\n`, { mode: 0o600 });
  box.run(['chown', 'cabinet:cabinet', '/var/lib/cabinet/site-credential', '/var/lib/cabinet/site.json']);
  box.boot();
  await until(`${name} ready`, async () => (await fetch(box.url('/ready'))).status === 200, 60_000);
  box.token = box.run(['runuser', '-u', 'cabinet', '--', 'env', 'CABINET_CACHE_DIR=/var/cache/cabinet', 'cabinet', 'token', '--config', '/etc/cabinet/cabinet.yaml', '--role', 'admin', '--scope-type', 'master', '--ttl', '600']).trim();
  const row = await fetchAgain(box.url('/api/v1/tables'), { method: 'POST', headers: { authorization: `Bearer ${box.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ item: { id: `row-${name}`, note: `written on ${V0}` } }) });
  check(row.status === 201 || row.status === 200, `${name}: a row written on ${V0}`);
  return box;
}

async function rowIntact(box) {
  const r = await box.get(`/api/v1/tables/row-${box.name}`);
  return r.status === 200 && r.body?.item?.note === `written on ${V0}`;
}
/** The version the running service reports about itself (the executable's own, embedded at build). */
async function runningVersion(box) {
  const r = await box.get('/api/v1/operability/runtime').catch(() => null);
  return r?.status === 200 ? r.body.item.version : null;
}
const siteRow = async (box) => (await api('GET', `/api/v1/sync-sites/${encodeURIComponent(box.site)}`)).body?.item;

try {
  const box1 = await setUpBox('box1', 18_400 + (process.pid % 50) * 4, 'box-1');
  const box2 = await setUpBox('box2', 18_600 + (process.pid % 50) * 4, 'box-2');
  check(await runningVersion(box1) === V0, `box1 reports ${V0} on /health`);

  // ---- (a) refused before anything is installed ----------------------------------------------
  {
    const up = box1.path('/var/lib/cabinet/updates');
    // As the service makes it: its own, so it can still write its state after the installer.
    box1.run(['install', '-d', '-o', 'cabinet', '-g', 'cabinet', '-m', '0700', '/var/lib/cabinet/updates']);
    const stage = (v, deb, sigFrom) => {
      const pkg = join(up, `cabinet_${v}_amd64.deb`);
      writeFileSync(pkg, readFileSync(deb));
      writeFileSync(join(up, `cabinet_${v}_amd64.sig.json`), readFileSync(sigFrom));
      return pkg;
    };
    // A signature by another key; then the right key's signature over bytes that were changed.
    cab(['release', 'sign', '--key', join(work, 'other-keys/release.key'), '--deb', brokenDeb]);
    execFileSync('cp', [`${brokenDeb}.sig.json`, join(work, 'other.sig.json')]);
    cab(['release', 'sign', '--key', join(work, 'keys/release.key'), '--deb', brokenDeb]);
    for (const [what, sig, tamper, code] of [['a signature of another key', join(work, 'other.sig.json'), false, 'bad_signature'], ['bytes changed after signing', `${brokenDeb}.sig.json`, true, 'bad_checksum']]) {
      const pkg = stage(V2, brokenDeb, sig);
      if (tamper) writeFileSync(pkg, Buffer.concat([readFileSync(pkg), Buffer.from('x')]));
      const prev = stage(V0, debOf(V0), `${debOf(V0)}.sig.json`);
      const state = box1.state() ?? { schema: 1, step: 'idle', history: [], given_up: [], arch: 'amd64', progress: 0 };
      const request = { package: `/var/lib/cabinet/updates/cabinet_${V2}_amd64.deb`, signature: `/var/lib/cabinet/updates/cabinet_${V2}_amd64.sig.json`, version: V2, arch: 'amd64', previous_package: prev.replace(box1.path(''), ''), previous_signature: `/var/lib/cabinet/updates/cabinet_${V0}_amd64.sig.json`, previous_version: V0, proof_timeout_s: 60, answering_controllers_before: 0, rollout_id: null, requested_at: new Date().toISOString() };
      const before = state.history.length;
      writeFileSync(box1.path('/var/lib/cabinet/updates/state.json'), JSON.stringify({ ...state, step: 'installing', target_version: V2, previous_version: V0, request, history: [...state.history, { id: `hand-${code}`, step: 'installing', at: new Date().toISOString(), by: 'service', running_version: V0, target_version: V2, reason: null, reason_code: null }] }));
      box1.run(['chown', '-R', 'cabinet:cabinet', '/var/lib/cabinet/updates']);
      writeFileSync(box1.path('/var/lib/cabinet/updates/request.json'), JSON.stringify(request));
      const s = await until(`box1 refusing ${what}`, () => { const st = box1.state(); return st && st.history.length > before + 1 && st.step !== 'installing' ? st : null; }, 60_000);
      check(s.step === 'failed' && s.reason_code === code, `(a) ${what}: refused (${s.reason_code}: ${s.reason})`);
      check(box1.installed() === `${V0} install ok installed`, `(a) ${what}: dpkg still has ${V0}, nothing was installed`);
      check(await rowIntact(box1), `(a) ${what}: the data is intact, the service answers`);
    }
  }

  // ---- (b) a rollout: one canary, one wave; power cuts and a master SIGKILL on the way ----------
  {
    const seen = new Map([[box1.site, new Set()], [box2.site, new Set()]]);
    const watch = setInterval(async () => {
      for (const b of [box1, box2]) { const r = await siteRow(b).catch(() => null); if (r?.update_step) seen.get(b.site).add(r.update_step); }
    }, 250);
    const created = await api('POST', '/api/v1/release-rollouts/commands/create', { release_id: V1, canary_site_ids: [box1.site], waves: [100], failure_threshold_percent: 50, proof_timeout_s: 120 });
    check(created.status === 201, `(b) rollout of ${V1} created (canary box1, then 100 %)`);
    const rollout = created.body.item.id;
    // box1 loses power while dpkg installs the new version (the installer's step installing, run.json at phase installing).
    await until('box1 in dpkg', () => { try { return JSON.parse(readFileSync(box1.path('/var/lib/cabinet-updater/run.json'), 'utf8')).phase === 'installing'; } catch { return false; } }, 240_000, 50);
    await box1.powerCut('the installer about to run dpkg -i');
    say(`box1 after the cut: dpkg says "${box1.installed()}", state ${box1.state()?.step}`);
    box1.boot();
    // Again inside dpkg: preinst has written the backup, dpkg unpacks or configures.
    await until('box1 in dpkg after preinst', () => readdirSync(box1.path('/var/backups/cabinet')).some((f) => f.includes(`-before-${V1}-`)), 240_000, 20);
    await box1.powerCut('inside dpkg -i, after its preinst backup');
    say(`box1 after the cut: dpkg says "${box1.installed()}", state ${box1.state()?.step}`);
    box1.boot();
    // The master is SIGKILLed while the rollout runs, and started again on the same data.
    await until('box1 proving or done', () => ['proving', 'done', 'rolled_back'].includes(box1.state()?.step), 240_000);
    master.child.kill('SIGKILL');
    say('master SIGKILLed');
    await sleep(1500);
    await startMaster();
    // box2 loses power in the middle of its download.
    await until('box2 downloading', () => box2.state()?.step === 'downloading' && box2.state().progress > 0, 240_000, 100);
    await box2.powerCut(`downloading at ${Math.round(box2.state().progress * 100)} %`);
    box2.boot();
    for (const b of [box1, box2]) {
      await until(`${b.name} done on ${V1}`, () => b.state()?.step === 'done' && b.installed() === `${V1} install ok installed`, 300_000);
      await until(`${b.name} answering on ${V1}`, async () => (await runningVersion(b)) === V1, 60_000);
      check(await rowIntact(b), `(b) ${b.name} runs ${V1} with its data`);
    }
    const r = await until('the rollout done', async () => { const x = (await api('GET', `/api/v1/release-rollouts/${rollout}`)).body.item; return x.state === 'done' ? x : null; }, 120_000);
    check(r.state === 'done', `(b) the rollout is done`);
    clearInterval(watch);
    for (const b of [box1, box2]) {
      const row = await siteRow(b);
      check(row.running_version === V1 && row.update_step === 'done', `(b) the master shows ${b.name} at ${row.running_version}, step ${row.update_step}; steps seen: ${[...seen.get(b.site)].join(', ')}`);
    }
  }

  // ---- (c) a version that exits at start: the box goes back by itself, the rollout pauses ------
  {
    const created = await api('POST', '/api/v1/release-rollouts/commands/create', { release_id: V2, canary_site_ids: [box2.site], waves: [100], failure_threshold_percent: 20, proof_timeout_s: 300 });
    check(created.status === 201, `(c) rollout of ${V2} (exits at start) created, canary box2`);
    const s = await until('box2 rolled back', () => { const st = box2.state(); return st?.step === 'rolled_back' && st.target_version === V2 ? st : null; }, 400_000);
    check(s.reason_code === 'new_version_exits' || s.reason_code === 'proof_timeout', `(c) box2 rolled back by itself: ${s.reason}`);
    check(box2.installed() === `${V1} install ok installed`, `(c) dpkg has ${V1} again`);
    await until(`box2 answering on ${V1}`, async () => (await runningVersion(box2)) === V1, 60_000);
    check(await rowIntact(box2), '(c) box2 runs the old version with its data');
    const r = await until('the rollout paused', async () => { const x = (await api('GET', `/api/v1/release-rollouts/${created.body.item.id}`)).body.item; return x.state === 'paused' ? x : null; }, 120_000);
    check(r.state === 'paused', `(c) the rollout paused (${JSON.stringify(r.pause_reason ?? r.reason ?? '')})`);
    const row = await until('the reason on the master', async () => { const x = await siteRow(box2); return x?.update_step === 'rolled_back' && x.update_reason ? x : null; }, 60_000);
    check(Boolean(row.update_reason), `(c) the master shows box2 rolled back: ${row.update_reason}`);
    check(box1.installed() === `${V1} install ok installed`, '(c) box1 (not in the canary) was not touched');
  }
  say('all cases passed');
} catch (err) {
  failed = true;
  process.stderr.write(`ship-fleet-update: ${err.stack ?? err.message}\n`);
  for (const b of boxes) {
    for (const f of ['supervisor.log', 'installer.log', 'service.log']) {
      try { process.stderr.write(`--- ${b.name} ${f} (tail)\n${readFileSync(b.path(`/run/cabinet-e2e/${f}`), 'utf8').split('\n').slice(-40).join('\n')}\n`); } catch { /* none */ }
    }
    process.stderr.write(`--- ${b.name} state.json\n${JSON.stringify(b.state(), null, 1)?.slice(0, 3000)}\n`);
  }
  try { process.stderr.write(`--- master.log (tail)\n${readFileSync(join(work, 'master.log'), 'utf8').split('\n').slice(-30).join('\n')}\n`); } catch { /* none */ }
}
say(`took ${((Date.now() - t0) / 1000).toFixed(0)} s`);
process.exit(failed ? 1 : 0);
