// The box updates itself over the real sync: a master process (PostgreSQL when the suite has one,
// else SQLite) holding signed releases, and a box (in-process, SQLite) syncing to it through a test
// proxy that can cut the link for some chunks, change a chunk's bytes or swap a signature (a
// broken or hostile path between them). A release whose signature does not verify and one whose
// bytes do not match are refused before any hand-over (no request.json); a good release is
// downloaded in chunks, the box restarted in the middle of it resumes from the chunks on disk,
// verifies, keeps the running version's package and hands over; the new version's proof writes
// done; the master's fleet view follows each step and the box's audit records reach it.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import { signManifest } from '../../src/runtime/release-signature.js';
import { changeStep, debianArch, packagePath, partPath, readRequest, readState, requestPath } from '../../src/modules/updates/state.js';
import { api, killAll, masterWithSite, waitFor, type Proc } from './procs.js';
import pkg from '../../package.json' with { type: 'json' };

const ARCH = debianArch();
const RUNNING = pkg.version;
const MiB = 1024 * 1024;
const SITE = 'site-1@farm-a';

const { privateKey, publicKey } = generateKeyPairSync('ed25519');
const fleetPriv = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
const otherPriv = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();

interface Release { version: string; bytes: Buffer; signed: string }
const release = (version: string, size: number, key = fleetPriv): Release => {
  const bytes = randomBytes(size);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return { version, bytes, signed: JSON.stringify(signManifest(key, { package: 'cabinet', version, arch: ARCH, size, sha256, signed_at: new Date().toISOString() })) };
};

/**
 * The path between box and master: forwards every request, and answers the chunk GETs of a version
 * as the test says (503 from an index on: the link lost), or changes them (one byte flipped, the
 * chunk's sha256 header dropped), and may replace the signed document of a pull answer's update.
 */
class Link {
  server!: Server;
  url = '';
  chunks: { version: string; idx: number; status: number }[] = [];
  cut: { version: string; from: number } | undefined;
  corrupt: string | undefined;
  forge: { version: string; signed: string } | undefined;
  constructor(private readonly upstream: () => string) {}
  async listen(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res).catch((err: Error) => { res.statusCode = 502; res.end(err.message); }));
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.url = `http://127.0.0.1:${(this.server.address() as { port: number }).port}`;
  }
  close(): Promise<void> {
    return new Promise((r) => { this.server.closeAllConnections(); this.server.close(() => r()); });
  }
  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body: Buffer[] = [];
    for await (const c of req) body.push(c as Buffer);
    const chunk = /^\/api\/v1\/releases\/([^/]+)\/packages\/[^/]+\/chunks\/(\d+)$/.exec(req.url ?? '');
    if (chunk && this.cut && this.cut.version === chunk[1] && Number(chunk[2]) >= this.cut.from) {
      this.chunks.push({ version: chunk[1]!, idx: Number(chunk[2]), status: 503 });
      res.writeHead(503, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { code: 'service_unavailable', message: 'link lost' } }));
      return;
    }
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string' && !['host', 'content-length', 'connection'].includes(k)) headers[k] = v;
    const up = await fetch(`${this.upstream()}${req.url}`, { method: req.method, headers, body: body.length ? Buffer.concat(body) : undefined, redirect: 'manual' });
    let out = Buffer.from(await up.arrayBuffer());
    const outHeaders: Record<string, string | string[]> = {};
    up.headers.forEach((v, k) => { if (!['content-length', 'content-encoding', 'transfer-encoding', 'connection', 'set-cookie'].includes(k)) outHeaders[k] = v; });
    const cookies = up.headers.getSetCookie();
    if (cookies.length) outHeaders['set-cookie'] = cookies;
    if (chunk) {
      this.chunks.push({ version: chunk[1]!, idx: Number(chunk[2]), status: up.status });
      if (this.corrupt === chunk[1] && up.status === 200) {
        out = Buffer.from(out);
        out[7] = (out[7]! + 1) % 256;
        delete outHeaders['x-chunk-sha256'];
      }
    }
    if (req.url === '/api/v1/site-sync/commands/pull' && up.status === 200 && this.forge) {
      const answer = JSON.parse(out.toString('utf8')) as { item: { update?: { version: string; signed: string } | null } };
      if (answer.item.update?.version === this.forge.version) answer.item.update.signed = this.forge.signed;
      out = Buffer.from(JSON.stringify(answer));
    }
    res.writeHead(up.status, outHeaders).end(out);
  }
}

describe(`the box updates itself from a real master (${process.env.CABINET_TEST_PG_URL ? 'PostgreSQL' : 'SQLite'} master, SQLite box)`, () => {
  let masterEnv: TestEnv;
  let boxEnv: TestEnv;
  let master: Proc;
  let unusedBox: Proc;
  let box: RunningServer | undefined;
  let fleet: string;
  let link: Link;
  let keyDir: string;
  let keyFile: string;
  const saved = process.env.CABINET_RELEASE_PUBLIC_KEY;

  const boxFlags = () => ({
    sync_master_url: link.url, release_public_key: keyFile, sync_interval_ms: '100', sync_heartbeat_ms: '1000', sync_backoff_max_ms: '300',
    sync_request_timeout_ms: '5000', mqtt_broker: 'off', update_window: '',
  });
  const startBox = async () => { box = await boxEnv.start(boxFlags()); };
  const stopBox = async () => { await box?.close(); box = undefined; };
  const state = () => readState(boxEnv.dataDir);
  const site = async () => ((await api(master, fleet, 'GET', '/api/v1/sync-sites/list?limit=10')).body.items as Record<string, unknown>[]).find((s) => s.id === SITE);
  const ok = (r: Awaited<ReturnType<typeof api>>, what: string) => {
    if (r.status >= 300) throw new Error(`${what}: ${r.status} ${JSON.stringify(r.body)}`);
    return r;
  };

  /** create, every chunk (1 MiB each), attach, publish: as `cabinet release upload` does. */
  const publish = async (r: Release) => {
    ok(await api(master, fleet, 'POST', '/api/v1/releases/commands/create', { version: r.version, notes: `release ${r.version}` }), `create ${r.version}`);
    for (let idx = 0; idx * MiB < r.bytes.length; idx++) {
      const res = await fetch(`${master.url}/api/v1/releases/${r.version}/packages/${ARCH}/chunks/${idx}`, {
        method: 'PUT', headers: { authorization: `Bearer ${fleet}`, 'content-type': 'application/octet-stream' }, body: r.bytes.subarray(idx * MiB, (idx + 1) * MiB),
      });
      if (res.status !== 200) throw new Error(`chunk ${idx} of ${r.version}: ${res.status} ${await res.text()}`);
    }
    ok(await api(master, fleet, 'POST', '/api/v1/releases/commands/attach', { id: r.version, arch: ARCH, signed: r.signed }), `attach ${r.version}`);
    ok(await api(master, fleet, 'POST', '/api/v1/releases/commands/publish', { id: r.version }), `publish ${r.version}`);
  };
  const rollout = async (version: string) =>
    ok(await api(master, fleet, 'POST', '/api/v1/release-rollouts/commands/create', { release_id: version, canary_site_ids: [SITE], waves: [100], proof_timeout_s: 120 }), `rollout ${version}`).body.item as { id: string };
  const boxAudit = async () => {
    const token = await boxEnv.token(box!);
    const r = await fetch(`${box!.url}/api/v1/audit/list?resource=updates&limit=200`, { headers: { authorization: `Bearer ${token}` } });
    return ((await r.json()) as { items: { action: string; correlation_id: string; details: Record<string, unknown> }[] }).items;
  };

  beforeAll(async () => {
    keyDir = mkdtempSync(join(tmpdir(), 'cabinet-release-key-'));
    keyFile = join(keyDir, 'release.pub');
    writeFileSync(keyFile, publicKey.export({ type: 'spki', format: 'pem' }).toString());
    // The master process reads its release key from the environment (the same file as the box's).
    process.env.CABINET_RELEASE_PUBLIC_KEY = keyFile;
    link = new Link(() => master.url);
    await link.listen();
    ({ masterEnv, boxEnv, master, box: unusedBox, fleet } = await masterWithSite({}));
    // The running version's package, published: the box keeps it to go back to.
    await publish(release(RUNNING, 300_000));
    await startBox();
    // The master knows the box's version and arch (its first reports) before any rollout.
    await waitFor('the box reported its version and arch', async () => {
      const s = await site();
      return s?.running_version === RUNNING && s.update_arch === ARCH && s.update_step === 'idle' ? s : undefined;
    }, 60_000);
  }, 180_000);

  afterAll(async () => {
    if (saved === undefined) delete process.env.CABINET_RELEASE_PUBLIC_KEY;
    else process.env.CABINET_RELEASE_PUBLIC_KEY = saved;
    await stopBox().catch(() => undefined);
    await unusedBox?.stop();
    await master?.stop();
    killAll();
    await link?.close();
    await boxEnv?.cleanup();
    await masterEnv?.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('refuses a release whose signature does not verify, and one whose bytes do not match, before any hand-over', async () => {
    // 0.2.0: the master's release is good, but the box receives a manifest signed by another key.
    const forged = release('90.2.0', 200_000);
    await publish(forged);
    const manifest = (JSON.parse(forged.signed) as { manifest: Record<string, unknown> }).manifest;
    link.forge = { version: forged.version, signed: JSON.stringify(signManifest(otherPriv, manifest as never)) };
    await rollout(forged.version);
    const failed = await waitFor('bad_signature', async () => { const s = state(); return s?.step === 'failed' && s.target_version === forged.version ? s : undefined; }, 60_000);
    expect(failed).toMatchObject({ reason_code: 'bad_signature', given_up: [forged.version] });
    expect(existsSync(requestPath(boxEnv.dataDir))).toBe(false);
    expect(existsSync(packagePath(boxEnv.dataDir, forged.version, ARCH))).toBe(false);
    // The master sees the failure with its reason.
    await waitFor('the master sees the refusal', async () => { const s = await site(); return s?.update_step === 'failed' && s.update_reason_code === 'bad_signature'; }, 30_000);

    // 0.3.0: the box receives bytes other than the signed ones (and no chunk checksum to catch it early).
    const changed = release('90.3.0', 200_000);
    await publish(changed);
    link.corrupt = changed.version;
    await rollout(changed.version);
    const bad = await waitFor('bad_checksum', async () => { const s = state(); return s?.step === 'failed' && s.target_version === changed.version ? s : undefined; }, 60_000);
    expect(bad).toMatchObject({ reason_code: 'bad_checksum', given_up: [forged.version, changed.version] });
    expect(existsSync(requestPath(boxEnv.dataDir))).toBe(false);
    expect(existsSync(packagePath(boxEnv.dataDir, changed.version, ARCH))).toBe(false);
    expect(existsSync(partPath(boxEnv.dataDir, changed.version, ARCH))).toBe(false);
    link.corrupt = undefined;
    link.forge = undefined;
  }, 180_000);

  it('downloads in chunks, resumes after a restart in the middle, hands over, and the new version proves itself', async () => {
    const good = release('90.4.0', 3 * MiB + 12_345);
    await publish(good);
    // The link drops from the third chunk on.
    link.cut = { version: good.version, from: 2 };
    link.chunks = [];
    const ro = await rollout(good.version);
    const stalled = await waitFor('the download stalled at chunk 3', async () => {
      const s = state();
      return s?.step === 'downloading' && s.target_version === good.version && s.reason_code === 'download_failed' ? s : undefined;
    }, 60_000);
    expect(stalled.reason_params).toMatchObject({ chunk: 3, chunks: 4 });
    expect(statSync(partPath(boxEnv.dataDir, good.version, ARCH)).size).toBe(2 * MiB);
    await waitFor('the master sees the download under way', async () => { const s = await site(); return s?.update_step === 'downloading' && Number(s.update_progress) > 0 ? s : undefined; }, 30_000);

    // The box restarts; the link comes back: only the missing chunks are fetched.
    await stopBox();
    link.cut = undefined;
    link.chunks = [];
    await startBox();
    const handed = await waitFor('the hand-over', async () => readRequest(boxEnv.dataDir) ?? undefined, 60_000);
    expect(link.chunks.filter((c) => c.version === good.version).map((c) => c.idx)).toEqual([2, 3]);
    expect(readFileSync(packagePath(boxEnv.dataDir, good.version, ARCH)).equals(good.bytes)).toBe(true);
    expect(existsSync(packagePath(boxEnv.dataDir, RUNNING, ARCH))).toBe(true);
    expect(handed).toMatchObject({ version: good.version, previous_version: RUNNING, proof_timeout_s: 120, arch: ARCH, package: packagePath(boxEnv.dataDir, good.version, ARCH), previous_package: packagePath(boxEnv.dataDir, RUNNING, ARCH) });
    expect(state()).toMatchObject({ step: 'installing', target_version: good.version, previous_version: RUNNING });
    await waitFor('the master sees the install', async () => { const s = await site(); return s?.update_step === 'installing'; }, 30_000);

    // The installer's part, played here: it takes the request, installs, and starts the new
    // version with a deadline. (This process cannot become another version; the proof is of the
    // version it runs, which is what the new one does at its first start; the rollout is stopped
    // first, or the master would go on offering 90.4.0 to a box that still says it runs 0.1.0.)
    await stopBox();
    ok(await api(master, fleet, 'POST', '/api/v1/release-rollouts/commands/abort', { id: ro.id, reason: 'the test plays the installer' }), 'abort');
    changeStep(boxEnv.dataDir, { step: 'installing', by: 'installer', running_version: RUNNING });
    rmSync(requestPath(boxEnv.dataDir));
    changeStep(boxEnv.dataDir, { step: 'proving', by: 'installer', running_version: RUNNING, patch: { target_version: RUNNING, deadline_at: new Date(Date.now() + 120_000).toISOString() } });
    await startBox();
    await waitFor('done', async () => state()?.step === 'done', 60_000);
    await waitFor('the master sees done', async () => { const s = await site(); return s?.update_step === 'done'; }, 30_000);

    // One audit record per step on the box, the installer's included, each once.
    const audit = await boxAudit();
    const ids = new Set(state()!.history.map((h) => `update-${h.id}`));
    const mine = audit.filter((a) => ids.has(a.correlation_id));
    expect(mine.length).toBe(ids.size);
    expect(new Set(mine.map((a) => a.correlation_id)).size).toBe(ids.size);
    expect(mine.map((a) => a.action)).toEqual(expect.arrayContaining(['updates.failed', 'updates.downloading', 'updates.verified', 'updates.installing', 'updates.proving', 'updates.done']));
    // They reach the master with the rest of the outbox: the master took everything the box queued.
    await waitFor('the outbox drained to the master', async () => {
      const st = await box!.services.edgeSync!.status();
      return st.pending === 0 && st.last_error === null ? st : undefined;
    }, 30_000);
  }, 240_000);
});
