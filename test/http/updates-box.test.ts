// The box's updater on a real box (both engines), with its clock stepped by the test and a master
// played by a fake sync (the package chunks in memory, each request counted): downloads in chunks,
// verifies, waits for the maintenance window (site_timezone), for unacknowledged P1 alarms and for a
// setpoint write in flight, then hands over (state first, then request.json); refuses a bad
// signature or checksum before any hand-off; resumes a download after a restart from the chunks on
// disk; audits every step once, the installer's too; proves a new version and writes done. The
// end-to-end path over the real master is test/sync/updates-master.test.ts.
import { generateKeyPairSync, createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { SteppedClock } from '../helpers/clock.js';
import { waitFor } from '../helpers/wait.js';
import type { RunningServer } from '../../src/server.js';
import type { Services } from '../../src/kernel/context.js';
import type { EdgeSync } from '../../src/modules/tenant-master-sync/engine/edge.js';
import type { UpdateOffer, UpdatePackage } from '../../src/modules/tenant-master-sync/engine/protocol.js';
import { signManifest } from '../../src/runtime/release-signature.js';
import { RECHECK_MS, Updater } from '../../src/modules/updates/runtime.js';
import { changeStep, packagePath, partPath, readRequest, readState, requestPath } from '../../src/modules/updates/state.js';
import pkg from '../../package.json' with { type: 'json' };

const RUNNING = pkg.version;
const TARGET = '99.1.0';
const ARCH = 'amd64';
const CHUNK = 4096;

const keys = () => {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { priv: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), pub: publicKey.export({ type: 'spki', format: 'pem' }).toString() };
};
const fleetKey = keys();
const otherKey = keys();

interface Pkg { offer: UpdatePackage; bytes: Buffer }

/** A package of random bytes signed like a release; `serve` replaces the bytes the master hands out. */
function release(version: string, size: number, key = fleetKey.priv): Pkg {
  const bytes = randomBytes(size);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  const signed = signManifest(key, { package: 'cabinet', version, arch: ARCH, size, sha256, signed_at: '2026-01-01T00:00:00.000Z' });
  return { bytes, offer: { version, arch: ARCH, size, sha256, chunk_size: CHUNK, chunks: Math.ceil(size / CHUNK), signed: JSON.stringify(signed) } };
}

/** The master as the updater sees it through the sync: chunks served from memory, requests counted. */
class FakeMaster {
  readonly served = new Map<string, Buffer>();
  requests: string[] = [];
  /** Chunk requests of this version at or past this index answer 503 (a lost link). */
  failFrom: { version: string; idx: number } | undefined;
  synced = true;
  add(p: Pkg, bytes = p.bytes): void {
    this.served.set(p.offer.version, bytes);
  }
  edge(): EdgeSync {
    const edge = {
      setUpdater: () => undefined,
      download: async (path: string) => {
        this.requests.push(path);
        const m = /^\/api\/v1\/releases\/([^/]+)\/packages\/([^/]+)\/chunks\/(\d+)$/.exec(path);
        const bytes = m ? this.served.get(decodeURIComponent(m[1]!)) : undefined;
        const idx = Number(m?.[3]);
        if (!bytes || !m) return { status: 404, bytes: Buffer.alloc(0), error: 'no such chunk', sha256: null };
        if (this.failFrom && this.failFrom.version === m[1] && idx >= this.failFrom.idx) return { status: 503, bytes: Buffer.alloc(0), error: 'link lost', sha256: null };
        return { status: 200, bytes: bytes.subarray(idx * CHUNK, (idx + 1) * CHUNK), error: null, sha256: null };
      },
      status: async () => ({ last_success_at: this.synced ? new Date().toISOString() : null }),
    };
    return edge as unknown as EdgeSync;
  }
}

/** A Modbus TCP device that takes the connection and never answers: a write to it stays in flight until it times out. */
async function silentDevice(): Promise<{ port: number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((s) => { sockets.add(s); s.on('error', () => undefined); });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    port: (server.address() as { port: number }).port,
    close: () => new Promise((r) => { for (const s of sockets) s.destroy(); server.close(() => r()); }),
  };
}

describe.each(DIALECTS)('the box updates itself (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let security: Client;
  let operator: Client;
  const clock = new SteppedClock(Date.parse('2026-03-10T12:00:00Z'));
  const dirs: string[] = [];
  let keyFile: string;
  const target = release(TARGET, CHUNK * 5 + 123);
  const previous = release(RUNNING, CHUNK * 2 + 7);
  const offer = (over: Partial<UpdateOffer> = {}): UpdateOffer => ({ ...target.offer, rollout_id: 'rollout-1', proof_timeout_s: null, previous: previous.offer, ...over });
  const updaters: Updater[] = [];

  /** An updater on the box's services with its own data directory and the fake master. */
  const updater = (master: FakeMaster, over: { dir?: string; config?: Record<string, unknown> } = {}) => {
    const dir = over.dir ?? mkdtempSync(join(tmpdir(), 'cabinet-upd-'));
    if (!over.dir) dirs.push(dir);
    const services = Object.create(server.services) as Services;
    Object.assign(services, {
      config: { ...server.services.config, data_dir: dir, sync_master_url: 'http://127.0.0.1:9', release_public_key: keyFile, ...over.config },
      edgeSync: master.edge(),
    });
    const u = new Updater(services, { version: RUNNING, arch: ARCH });
    updaters.push(u);
    return { u, dir };
  };
  const stepClock = async (ms: number, u: Updater) => { await clock.step(ms); await u.settled(); };
  const audits = async (correlationPrefix = 'update-') => ((await admin.get('/api/v1/audit/list?resource=updates&limit=200&sort=created_at')).body.items as { action: string; correlation_id: string; actor: string; result: string; details: Record<string, unknown> }[])
    .filter((a) => a.correlation_id.startsWith(correlationPrefix));
  const auditedFor = async (dir: string) => {
    const ids = new Set((readState(dir)?.history ?? []).map((h) => `update-${h.id}`));
    return (await audits()).filter((a) => ids.has(a.correlation_id));
  };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    const kd = mkdtempSync(join(tmpdir(), 'cabinet-upd-key-'));
    dirs.push(kd);
    keyFile = join(kd, 'release.pub');
    writeFileSync(keyFile, fleetKey.pub);
    server = await env.start({ mqtt_broker: 'off', update_window: '02:00-05:00', site_timezone: 'Europe/Berlin', release_public_key: keyFile }, { clock });
    // The box's own updater (no master here) steps aside: each test runs its own on the box's services.
    await server.services.updater?.stop();
    admin = await clientAs(env, server);
    security = await clientAs(env, server, { subject: 'sec', role: 'security', scope_type: 'master' }, admin.contract);
    operator = await clientAs(env, server, { subject: 'op', role: 'operator', scope_type: 'master' }, admin.contract);
  }, 120_000);

  afterAll(async () => {
    for (const u of updaters) await u.stop();
    await env?.cleanup();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  });

  it('downloads and verifies, then waits for the window, an unacknowledged P1 and a setpoint write before it hands over', async () => {
    const master = new FakeMaster();
    master.add(target);
    master.add(previous);
    const { u, dir } = updater(master);
    await u.start();
    server.services.updater = u;
    u.offered(offer());
    await u.settled();

    // 12:00 UTC is 13:00 in Berlin: outside 02:00-05:00. Both packages are on disk, verified.
    expect(readState(dir)).toMatchObject({ step: 'waiting_for_window', reason_code: 'outside_window', target_version: TARGET, previous_version: RUNNING, progress: 1, rollout_id: 'rollout-1' });
    expect(readState(dir)!.reason).toBe('Waiting for the maintenance window 02:00-05:00 (Europe/Berlin).');
    expect(readFileSync(packagePath(dir, TARGET, ARCH)).equals(target.bytes)).toBe(true);
    expect(readFileSync(packagePath(dir, RUNNING, ARCH)).equals(previous.bytes)).toBe(true);
    expect(master.requests.filter((r) => r.includes(`/${TARGET}/`))).toHaveLength(6);
    expect(existsSync(requestPath(dir))).toBe(false);

    const status = await admin.get('/api/v1/updates/status');
    expect(status.status).toBe(200);
    expect(status.body.item).toMatchObject({
      step: 'waiting_for_window', step_key: 'updates.step.waiting_for_window', running_version: RUNNING, target_version: TARGET, arch: ARCH, progress: 1,
      reason_code: 'outside_window', reason_key: 'updates.reason.outside_window', reason_params: { window: '02:00-05:00', timezone: 'Europe/Berlin' },
      waiting_for: ['window'], window: { setting: '02:00-05:00', timezone: 'Europe/Berlin', open: false, opens_at: '2026-03-11T01:00:00.000Z' },
      previous_package: { version: RUNNING, present: true }, handed_over: false, offer: { version: TARGET, rollout_id: 'rollout-1' },
    });
    expect((await security.get('/api/v1/updates/status')).status).toBe(200);
    expect((await operator.get('/api/v1/updates/status')).status).toBe(403);

    // A P1 alarm, not acknowledged; the night comes (02:30 in Berlin): the window is open, the alarm holds it.
    const industry = server.services.config.industry;
    const alarm = (await server.services.industryAlarms!.raise({
      tenant_id: 'farm-x', site_id: 'site-x', industry_code: industry, unit_id: 'house-1', metric: 'temp', value: 35, severity: 'critical', priority: 'P1', source: 'test', title: 'House 1: too hot', actor: 'test',
    })).event;
    await server.services.industryAlarms!.raise({ tenant_id: 'farm-x', site_id: 'site-x', industry_code: industry, unit_id: 'house-2', metric: 'temp', value: 30, severity: 'medium', priority: 'P2', source: 'test', title: 'House 2: warm', actor: 'test' });
    await stepClock(Date.parse('2026-03-11T01:30:00Z') - clock.now(), u);
    expect(readState(dir)).toMatchObject({ step: 'waiting_for_window', reason_code: 'p1_unacknowledged', reason_params: { n: 1 } });
    expect(readState(dir)!.reason).toBe('Waiting: 1 P1 alarm is not acknowledged.');
    // Shelved is still not acknowledged.
    await server.services.industryAlarms!.shelve({ id: alarm.id, actor: 'op', reason: 'looking', minutes: 30 });
    await stepClock(RECHECK_MS, u);
    expect(readState(dir)).toMatchObject({ step: 'waiting_for_window', reason_code: 'p1_unacknowledged' });
    expect((await admin.get('/api/v1/updates/status')).body.item).toMatchObject({ waiting_for: ['p1_alarm'], p1_unacknowledged: 1, window: { open: true, opens_at: null } });

    // Acknowledged, but a setpoint write is in flight (a controller that does not answer).
    await server.services.industryAlarms!.unshelve({ id: alarm.id, actor: 'op' });
    await server.services.industryAlarms!.ack({ id: alarm.id, actor: 'op', assignee: 'op' });
    const device = await silentDevice();
    try {
      const write = server.services.field.execute({ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', device_port: device.port, object_type: 'holding register', object_address: 10, data_type: 'uint16', value: 215 }] }, { id: 'op', role: 'operator' }, 'c-write');
      await waitFor('the write in flight', async () => server.services.field.writesInFlight?.() === 1);
      await stepClock(RECHECK_MS, u);
      expect(readState(dir)).toMatchObject({ step: 'waiting_for_window', reason_code: 'setpoint_write' });
      expect(existsSync(requestPath(dir))).toBe(false);
      await write;
      expect(server.services.field.writesInFlight?.()).toBe(0);
    } finally {
      await device.close();
    }

    // Nothing holds it: the hand-over, state first (installing), then request.json.
    await stepClock(RECHECK_MS, u);
    const s = readState(dir)!;
    expect(s).toMatchObject({ step: 'installing', reason_code: 'handed_over', target_version: TARGET, previous_version: RUNNING });
    const req = readRequest(dir)!;
    expect(req).toMatchObject({
      package: packagePath(dir, TARGET, ARCH), version: TARGET, arch: ARCH, previous_package: packagePath(dir, RUNNING, ARCH), previous_version: RUNNING,
      proof_timeout_s: 600, answering_controllers_before: 0, rollout_id: 'rollout-1',
    });
    expect(s.request).toEqual(req);
    // Handed over: the updater writes nothing more, whatever the master says.
    u.offered(offer());
    await stepClock(RECHECK_MS, u);
    expect(readState(dir)!.step).toBe('installing');

    // One audit record per step change, in order.
    const steps = (await auditedFor(dir)).map((a) => a.action);
    expect(steps).toEqual(['updates.downloading', 'updates.verified', 'updates.waiting_for_window', 'updates.installing']);
    server.services.updater = undefined;
  }, 60_000);

  it('refuses a bad signature and a bad checksum before any hand-over, and does not try them again', async () => {
    // Signed by another key.
    const forged = release(TARGET, CHUNK * 2, otherKey.priv);
    const m1 = new FakeMaster();
    m1.add(forged);
    m1.add(previous);
    const a = updater(m1, { config: { update_window: '' } });
    await a.u.start();
    a.u.offered(offer({ ...forged.offer }));
    await a.u.settled();
    expect(readState(a.dir)).toMatchObject({ step: 'failed', reason_code: 'bad_signature', target_version: TARGET, given_up: [TARGET] });
    expect(readState(a.dir)!.reason).toMatch(/^The signature of version 99\.1\.0 does not verify with this box's release key \(signed with key [0-9a-f]{16}, not with this fleet's release key/);
    expect(existsSync(requestPath(a.dir))).toBe(false);
    expect(existsSync(packagePath(a.dir, TARGET, ARCH))).toBe(false);
    const before = m1.requests.length;
    a.u.offered(offer({ ...forged.offer }));
    await stepClock(RECHECK_MS, a.u);
    expect(m1.requests.length).toBe(before);
    expect(readState(a.dir)!.step).toBe('failed');
    expect((await auditedFor(a.dir)).map((x) => [x.action, x.result])).toEqual([['updates.downloading', 'success'], ['updates.failed', 'error']]);

    // The master hands out bytes other than the signed ones (one byte changed).
    const m2 = new FakeMaster();
    const bad = Buffer.from(target.bytes);
    bad[CHUNK + 5] = (bad[CHUNK + 5]! + 1) % 256;
    m2.add(target, bad);
    m2.add(previous);
    const b = updater(m2, { config: { update_window: '' } });
    await b.u.start();
    b.u.offered(offer());
    await b.u.settled();
    expect(readState(b.dir)).toMatchObject({ step: 'failed', reason_code: 'bad_checksum', given_up: [TARGET] });
    expect(readState(b.dir)!.reason).toBe('The package of version 99.1.0 does not match its checksum. It was refused.');
    expect(existsSync(requestPath(b.dir))).toBe(false);
    expect(existsSync(packagePath(b.dir, TARGET, ARCH))).toBe(false);
    expect(existsSync(`${packagePath(b.dir, TARGET, ARCH)}.part`)).toBe(false);
  }, 60_000);

  it('resumes a download after a restart from the chunks on disk, and waits for a package to go back to', async () => {
    const master = new FakeMaster();
    master.add(target);
    master.failFrom = { version: TARGET, idx: 3 };
    const first = updater(master, { config: { update_window: '' } });
    await first.u.start();
    // No previous package on the master: the update may download, not start.
    first.u.offered(offer({ previous: null }));
    await first.u.settled();
    expect(readState(first.dir)).toMatchObject({ step: 'downloading', reason_code: 'download_failed', progress: 0.5, reason_params: { chunk: 4, chunks: 6 } });
    expect(readState(first.dir)!.reason).toMatch(/^The download stopped at chunk 4 of 6: the master answered 503/);
    await first.u.stop();
    // The power went while chunk 4 was being written: part of it is on disk.
    appendFileSync(partPath(first.dir, TARGET, ARCH), randomBytes(1000));

    // The box restarts; the link is back: chunks 3..5 only (the half chunk is cut off and fetched again).
    master.failFrom = undefined;
    master.requests = [];
    const again = updater(master, { dir: first.dir, config: { update_window: '' } });
    await again.u.start();
    again.u.offered(offer({ previous: null }));
    await again.u.settled();
    expect(master.requests.map((r) => Number(r.split('/').pop()))).toEqual([3, 4, 5]);
    expect(readFileSync(packagePath(first.dir, TARGET, ARCH)).equals(target.bytes)).toBe(true);
    expect(readState(first.dir)).toMatchObject({ step: 'waiting_for_window', reason_code: 'no_previous_package', reason_params: { version: RUNNING } });
    expect(existsSync(requestPath(first.dir))).toBe(false);
    // The steps: downloading once (the restart did not make it a new step), verified, waiting.
    expect((await auditedFor(first.dir)).map((a) => a.action)).toEqual(['updates.downloading', 'updates.verified', 'updates.waiting_for_window']);

    // The master withdraws the target: back to idle, its files gone.
    again.u.offered(null);
    await again.u.settled();
    expect(readState(first.dir)).toMatchObject({ step: 'idle', reason_code: 'withdrawn', target_version: null });
    expect(existsSync(packagePath(first.dir, TARGET, ARCH))).toBe(false);
    // An older version is never installed by the box itself.
    again.u.offered({ ...release('0.0.1', 10).offer, rollout_id: null, proof_timeout_s: null, previous: null });
    await again.u.settled();
    expect(readState(first.dir)).toMatchObject({ step: 'idle', reason_code: 'downgrade_refused', reason_params: { version: '0.0.1', running: RUNNING } });
  }, 60_000);

  it('without a release key it downloads nothing and says why, in the state and in its report', async () => {
    const master = new FakeMaster();
    master.add(target);
    const { u, dir } = updater(master, { config: { release_public_key: '' } });
    await u.start();
    u.offered(offer());
    await u.settled();
    expect(master.requests).toEqual([]);
    expect(readState(dir)).toMatchObject({ step: 'idle', reason_code: 'no_release_key' });
    expect(u.report()).toMatchObject({ step: 'idle', reason_code: 'no_release_key', arch: ARCH, reason: 'No release key is configured on this box (setting release_public_key): it does not update itself.' });
  });

  it('after a rollback it stays on its version: the version is not fetched again, its package goes, the one to go back to stays', async () => {
    const master = new FakeMaster();
    master.add(target);
    master.add(previous);
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-upd-'));
    dirs.push(dir);
    mkdirSync(join(dir, 'updates'), { recursive: true });
    writeFileSync(packagePath(dir, TARGET, ARCH), target.bytes);
    writeFileSync(packagePath(dir, RUNNING, ARCH), previous.bytes);
    changeStep(dir, {
      step: 'rolled_back', by: 'installer', running_version: RUNNING, reason: 'The new version did not prove itself healthy in time; the previous version was put back.', reason_code: 'proof_timeout',
      patch: { target_version: TARGET, previous_version: RUNNING, arch: ARCH, given_up: [TARGET] },
    });
    const { u } = updater(master, { dir, config: { update_window: '' } });
    await u.start();
    u.offered(offer());
    await u.settled();
    expect(master.requests).toEqual([]);
    expect(readState(dir)).toMatchObject({ step: 'rolled_back', reason_code: 'proof_timeout', target_version: TARGET });
    expect(existsSync(packagePath(dir, TARGET, ARCH))).toBe(false);
    expect(existsSync(packagePath(dir, RUNNING, ARCH))).toBe(true);
    expect(u.report()).toMatchObject({ step: 'rolled_back', reason_code: 'proof_timeout', target_version: TARGET, previous_version: RUNNING });
    expect((await auditedFor(dir)).map((a) => [a.action, a.actor, a.result])).toEqual([['updates.rolled_back', 'system:installer', 'error']]);
  });

  it('audits the installer\'s steps once at the next start, and a new version proves itself and writes done', async () => {
    const master = new FakeMaster();
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-upd-'));
    dirs.push(dir);
    // What the installer wrote while the service was down: it took the request and restarted the
    // service as the new version (this box's own version), with a deadline.
    const deadline = new Date(clock.now() + 600_000).toISOString();
    changeStep(dir, { step: 'installing', by: 'service', running_version: '0.0.9', reason: 'Handed to the installer; waiting for it to start.', reason_code: 'handed_over', patch: { target_version: RUNNING, previous_version: '0.0.9', arch: ARCH } });
    changeStep(dir, { step: 'installing', by: 'installer', running_version: '0.0.9' });
    changeStep(dir, {
      step: 'proving', by: 'installer', running_version: RUNNING,
      patch: { deadline_at: deadline, request: { package: 'p', signature: 's', version: RUNNING, arch: ARCH, previous_package: 'q', previous_signature: 't', previous_version: '0.0.9', proof_timeout_s: 600, answering_controllers_before: 1, rollout_id: 'r', requested_at: deadline } },
    });
    // A controller answered before the install: none answers now, so no proof yet.
    master.synced = true;
    const { u } = updater(master, { dir });
    await u.start();
    await stepClock(0, u);
    await stepClock(500, u);
    expect(readState(dir)!.step).toBe('proving');
    expect(u.status().proof).toMatchObject({ ready: true, synced: true, answering: 0, answering_before: 1 });
    const audited = (await auditedFor(dir)).map((a) => [a.action, a.actor]);
    expect(audited).toEqual([['updates.installing', 'system:updates'], ['updates.installing', 'system:installer'], ['updates.proving', 'system:installer']]);
    await u.stop();

    // No controller answered before: ready and a sync are the proof. Another start audits nothing twice.
    const s = readState(dir)!;
    writeFileSync(join(dir, 'updates', 'state.json'), JSON.stringify({ ...s, request: { ...s.request, answering_controllers_before: 0 } }));
    master.synced = false;
    const again = updater(master, { dir });
    await again.u.start();
    await stepClock(0, again.u);
    await stepClock(500, again.u);
    expect(readState(dir)!.step).toBe('proving');
    master.synced = true;
    await stepClock(500, again.u);
    await waitFor('done', async () => readState(dir)!.step === 'done');
    await again.u.settled();
    expect(readState(dir)).toMatchObject({ step: 'done', target_version: RUNNING, request: null });
    expect((await auditedFor(dir)).map((a) => a.action)).toEqual(['updates.installing', 'updates.installing', 'updates.proving', 'updates.done']);
  }, 60_000);
});
