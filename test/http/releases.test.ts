// Fleet releases on a master (SQLite and PostgreSQL): a release uploaded in chunks (out of order,
// resumed, repeated), checked and published; publish refused for a missing chunk, a bad checksum,
// a signature of another key and a manifest of another version; the chunk download allowed only
// to a site whose target allows it (and to fleet admins); targets from the version policies with
// pinned winning; a rollout's waves advancing on the boxes' reports, pausing above its failure
// threshold, resumed, paused by hand and aborted; a held site offered nothing. The boxes here are
// the sites' own pulls, made with their credentials as a box's sync makes them.
import { execFileSync } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, type Answer, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { signManifest, type ReleaseManifest } from '../../src/runtime/release-signature.js';
import { releaseCommand } from '../../src/cli-release.js';
import { SteppedClock } from '../helpers/clock.js';
import { waitFor } from '../helpers/wait.js';
import { Store } from '../../src/db/store.js';
import { syncSites, type SyncSiteRow } from '../../src/modules/tenant-master-sync/schema.js';
import { releaseRollouts, type RolloutRow } from '../../src/modules/releases/schema.js';

const MiB = 1024 * 1024;
const keyPair = () => generateKeyPairSync('ed25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

interface Pkg { bytes: Buffer; signed: string }
function pkg(privateKey: string, version: string, arch: string, size: number, manifest: Partial<ReleaseManifest> = {}): Pkg {
  const bytes = randomBytes(size);
  const m: ReleaseManifest = { package: 'cabinet', version, arch, size, sha256: sha(bytes), signed_at: new Date().toISOString(), ...manifest };
  return { bytes, signed: JSON.stringify(signManifest(privateKey, m)) };
}
const chunkOf = (p: Pkg, idx: number) => p.bytes.subarray(idx * MiB, (idx + 1) * MiB);

type Offer = { version: string; arch: string; size: number; sha256: string; chunk_size: number; chunks: number; signed: string; rollout_id: string | null; proof_timeout_s: number | null; previous: { version: string } | null } | null;

describe.each(DIALECTS)('releases and rollouts (master on %s)', (dialect) => {
  let env: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  // The master's clock: its rollout sweep runs when the test steps it, never on its own.
  const clock = new SteppedClock(Date.now());
  const fleetKey = keyPair();
  const otherKey = keyPair();
  const sites = new Map<string, Client>();
  const bearers = new Map<string, string>();
  /** A chunk's bytes as a site's session downloads them. */
  const download = async (site: string, path: string) => fetch(`${master.url}${path}`, { headers: { authorization: bearers.get(site)! } });
  const running = new Map<string, string>();
  let p020: Pkg;
  let p020arm: Pkg;
  let p030: Pkg;

  /** A PUT of raw bytes as the fleet admin, its answer checked against the contract. */
  const put = async (path: string, body: Buffer, type = 'application/octet-stream'): Promise<Answer> => {
    const res = await fetch(`${master.url}${path}`, { method: 'PUT', headers: { authorization: `Bearer ${fleetToken}`, 'content-type': type }, body: new Uint8Array(body) });
    const text = await res.text();
    const parsed = text ? (JSON.parse(text) as unknown) : text;
    fleet.contract.check('PUT', new URL(`${master.url}${path}`).pathname, res.status, parsed);
    return { status: res.status, body: parsed, headers: res.headers, text };
  };
  let fleetToken: string;
  const ok = (r: Answer, status = 200) => {
    expect(r.status, JSON.stringify(r.body)).toBe(status);
    return r.body.item as Record<string, unknown>;
  };
  const report = (step: string, extra: Record<string, unknown> = {}) => ({ step, at: new Date().toISOString(), arch: 'amd64', ...extra });
  /** A site's pull as its box makes it: its outbox, its versions and its update state. */
  const pull = async (site: string, update: Record<string, unknown> | null = report('idle'), app?: string): Promise<Offer> => {
    if (app) running.set(site, app);
    const body = { remaining: 0, versions: { app: running.get(site) ?? '0.1.0', modules: [] }, ...(update ? { update_state: update } : {}) };
    const r = await sites.get(site)!.post('/api/v1/site-sync/commands/pull', body);
    return ok(r).update as Offer;
  };
  const rollout = async (id: string) => ok(await fleet.get(`/api/v1/release-rollouts/${id}`));
  const siteRow = async (id: string) => ok(await fleet.get(`/api/v1/sync-sites/${encodeURIComponent(id)}`));
  const upload = async (version: string, arch: string, p: Pkg) => {
    for (let idx = 0; idx * MiB < p.bytes.length; idx++) ok(await put(`/api/v1/releases/${version}/packages/${arch}/chunks/${idx}`, chunkOf(p, idx)));
    ok(await fleet.post('/api/v1/releases/commands/attach', { id: version, arch, signed: p.signed }));
  };

  /** A site's session as its box's sync opens it (the QR passkey flow with its credential). */
  const siteLogin = async (credential: string) => {
    const c = await createClient(master.url, {}, fleet.contract);
    const start = await c.post('/api/v1/auth/passkey/commands/start', { method: 'qr' });
    const done = await c.post('/api/v1/auth/passkey/commands/complete', { challenge_id: start.body.item.challenge_id, credential });
    const session = /cabinet_session=([^;]+)/.exec(done.headers.get('set-cookie') ?? '')?.[1];
    if (!session) throw new Error(`site sign-in failed: ${done.status}`);
    return { client: c.withHeaders({ authorization: `Bearer ${session}` }), bearer: `Bearer ${session}` };
  };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    writeFileSync(join(env.dataDir, 'release.pub'), fleetKey.publicKey);
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', release_public_key: join(env.dataDir, 'release.pub') }, { clock });
    fleetToken = await env.token(master);
    fleet = await clientAs(env, master);
    const ids = ['w1@wave', 'w2@wave', 'w3@wave', 'w4@wave', 'w5@wave', 'p1@pin', 'p2@pin', 'o1@old'];
    for (const id of ids) {
      const [site_id, tenant_id] = id.split('@');
      const reg = ok(await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id, site_id, industry_code: 'poultry' }), 201);
      const session = await siteLogin(reg.credential as string);
      sites.set(id, session.client);
      bearers.set(id, session.bearer);
    }
    p020 = pkg(fleetKey.privateKey, '0.2.0', 'amd64', 2 * MiB + 1234);
    p020arm = pkg(fleetKey.privateKey, '0.2.0', 'arm64', 5000);
    p030 = pkg(fleetKey.privateKey, '0.3.0', 'amd64', MiB + 10);
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('uploads a package in chunks (out of order, repeated, resumed), refuses a publish with a chunk missing, publishes it checked', async () => {
    const created = ok(await fleet.post('/api/v1/releases/commands/create', { version: '0.2.0', notes: 'Faster charts' }), 201);
    expect(created).toMatchObject({ id: '0.2.0', version: '0.2.0', state: 'draft', notes: 'Faster charts', packages: [] });
    expect((await fleet.post('/api/v1/releases/commands/create', { version: '0.2.0' })).status).toBe(409);
    const bad = await fleet.post('/api/v1/releases/commands/create', { version: 'two' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');

    // Chunk 2 (the last, 1234 bytes) and 0 first; 1 later: the order does not matter.
    expect(ok(await put('/api/v1/releases/0.2.0/packages/amd64/chunks/2', chunkOf(p020, 2)))).toMatchObject({ idx: 2, size: 1234, stored: true, received: 1 });
    ok(await put('/api/v1/releases/0.2.0/packages/amd64/chunks/0', chunkOf(p020, 0)));
    // The same bytes again change nothing; the upload's state lists what is there.
    expect(ok(await put('/api/v1/releases/0.2.0/packages/amd64/chunks/0', chunkOf(p020, 0)))).toMatchObject({ stored: false, received: 2, sha256: sha(chunkOf(p020, 0)) });
    expect(ok(await fleet.get('/api/v1/releases/0.2.0/packages/amd64'))).toMatchObject({ received: [0, 2], received_sha256: [sha(chunkOf(p020, 0)), sha(chunkOf(p020, 2))], complete: false, chunks: null });
    // Refusals in the error envelope: not bytes, too large, an unknown arch or release, empty.
    const json = await put('/api/v1/releases/0.2.0/packages/amd64/chunks/1', chunkOf(p020, 1), 'application/json');
    expect([json.status, json.body.error.code]).toEqual([415, 'unsupported_media_type']);
    const big = await put('/api/v1/releases/0.2.0/packages/amd64/chunks/1', Buffer.alloc(MiB + 1));
    expect([big.status, big.body.error.code]).toEqual([413, 'payload_too_large']);
    expect((await put('/api/v1/releases/0.2.0/packages/mips/chunks/1', chunkOf(p020, 1))).body.error.code).toBe('validation_error');
    expect((await put('/api/v1/releases/9.9.9/packages/amd64/chunks/1', chunkOf(p020, 1))).status).toBe(404);
    expect((await put('/api/v1/releases/0.2.0/packages/amd64/chunks/x', chunkOf(p020, 1))).status).toBe(400);
    expect((await put('/api/v1/releases/0.2.0/packages/amd64/chunks/1', Buffer.alloc(0))).status).toBe(400);

    ok(await fleet.post('/api/v1/releases/commands/attach', { id: '0.2.0', arch: 'amd64', signed: p020.signed }));
    // Once the signature says the size, a chunk of the wrong length is refused at once.
    const short = await put('/api/v1/releases/0.2.0/packages/amd64/chunks/1', chunkOf(p020, 1).subarray(1));
    expect(short.status).toBe(400);
    expect(short.body.error.details).toEqual([{ field: 'body', reason: 'wrong_chunk_size' }]);
    const missing = await fleet.post('/api/v1/releases/commands/publish', { id: '0.2.0' });
    expect(missing.status).toBe(409);
    expect(missing.body.error.details).toEqual([{ field: 'packages.amd64', reason: 'missing_chunks' }]);
    expect(missing.body.error.message).toContain('misses 1 of its 3 chunks (first: 1)');

    ok(await put('/api/v1/releases/0.2.0/packages/amd64/chunks/1', chunkOf(p020, 1)));
    await upload('0.2.0', 'arm64', p020arm);
    const published = ok(await fleet.post('/api/v1/releases/commands/publish', { id: '0.2.0' }));
    expect(published).toMatchObject({ state: 'published', published_by: expect.any(String) as unknown });
    expect(published.packages).toEqual([
      expect.objectContaining({ arch: 'amd64', size: p020.bytes.length, sha256: sha(p020.bytes), chunks: 3, received: 3, complete: true, signed: true }),
      expect.objectContaining({ arch: 'arm64', size: 5000, chunks: 1, received: 1, complete: true }),
    ]);
    // Published: the packages no longer change; a fleet admin downloads them.
    const late = await put('/api/v1/releases/0.2.0/packages/amd64/chunks/0', chunkOf(p020, 0));
    expect([late.status, late.body.error.code]).toEqual([409, 'lifecycle_conflict']);
    const got = await fetch(`${master.url}/api/v1/releases/0.2.0/packages/amd64/chunks/2`, { headers: { authorization: `Bearer ${fleetToken}` } });
    expect(got.status).toBe(200);
    expect(got.headers.get('x-chunk-sha256')).toBe(sha(chunkOf(p020, 2)));
    expect(Buffer.from(await got.arrayBuffer()).equals(chunkOf(p020, 2))).toBe(true);
    const actions = ((await fleet.get('/api/v1/audit/list?resource=releases&limit=200')).body.items as { action: string; details: { release_id: string } }[])
      .filter((r) => r.details.release_id === '0.2.0').map((r) => r.action);
    expect(new Set(actions)).toEqual(new Set(['release.create', 'release.chunk', 'release.attach', 'release.publish']));
    // One record per chunk stored (4, the repeated one not), none for a refusal.
    expect(actions.filter((a) => a === 'release.chunk')).toHaveLength(4);
  });

  it('refuses to publish a bad checksum, a signature of another key, a manifest of another version; then publishes the right bytes', async () => {
    ok(await fleet.post('/api/v1/releases/commands/create', { version: '0.3.0', notes: 'Rollback test' }), 201);
    const corrupt = Buffer.from(chunkOf(p030, 0));
    corrupt[100] = corrupt[100]! ^ 0xff;
    ok(await put('/api/v1/releases/0.3.0/packages/amd64/chunks/0', corrupt));
    ok(await put('/api/v1/releases/0.3.0/packages/amd64/chunks/1', chunkOf(p030, 1)));
    ok(await fleet.post('/api/v1/releases/commands/attach', { id: '0.3.0', arch: 'amd64', signed: p030.signed }));
    const sum = await fleet.post('/api/v1/releases/commands/publish', { id: '0.3.0' });
    expect(sum.status).toBe(409);
    expect(sum.body.error.details).toEqual([{ field: 'packages.amd64', reason: 'bad_checksum' }]);
    // The right bytes replace the wrong ones (a PUT of the chunk again).
    ok(await put('/api/v1/releases/0.3.0/packages/amd64/chunks/0', chunkOf(p030, 0)));

    const foreign = JSON.stringify(signManifest(otherKey.privateKey, JSON.parse(p030.signed).manifest as ReleaseManifest));
    ok(await fleet.post('/api/v1/releases/commands/attach', { id: '0.3.0', arch: 'amd64', signed: foreign }));
    const sig = await fleet.post('/api/v1/releases/commands/publish', { id: '0.3.0' });
    expect(sig.status).toBe(409);
    expect(sig.body.error.details).toEqual([{ field: 'packages.amd64', reason: 'bad_signature' }]);
    expect(sig.body.error.message).toMatch(/signed with key [0-9a-f]{16}, not with this fleet's release key/);

    const other = pkg(fleetKey.privateKey, '0.3.1', 'amd64', 10);
    const wrong = await fleet.post('/api/v1/releases/commands/attach', { id: '0.3.0', arch: 'amd64', signed: other.signed });
    expect(wrong.status).toBe(400);
    expect(wrong.body.error.details).toEqual([{ field: 'signed', reason: 'wrong_version' }]);
    const arch = await fleet.post('/api/v1/releases/commands/attach', { id: '0.3.0', arch: 'arm64', signed: p030.signed });
    expect(arch.body.error.details).toEqual([{ field: 'arch', reason: 'wrong_arch' }]);
    expect((await fleet.post('/api/v1/releases/commands/attach', { id: '0.3.0', arch: 'amd64', signed: '{"nope":' })).body.error.details).toEqual([{ field: 'signed', reason: 'malformed_json' }]);

    ok(await fleet.post('/api/v1/releases/commands/attach', { id: '0.3.0', arch: 'amd64', signed: p030.signed }));
    expect(ok(await fleet.post('/api/v1/releases/commands/publish', { id: '0.3.0' })).state).toBe('published');
    // Each refusal and the publish are audited.
    const records = (await fleet.get('/api/v1/audit/list?action=release.publish&limit=50')).body.items as { result: string; details: { release_id: string; refused?: string } }[];
    expect(records.filter((r) => r.details.release_id === '0.3.0').map((r) => r.details.refused ?? r.result).sort()).toEqual(['bad_checksum', 'bad_signature', 'success']);
  });

  it('a rollout reaches the canary, then each wave as the previous one reports done; downloads only for the target', async () => {
    for (const s of ['w1@wave', 'w2@wave', 'w3@wave', 'w4@wave', 'w5@wave']) expect(await pull(s, report('idle'), '0.1.0')).toBeNull();
    expect(await pull('o1@old', null, '0.1.0')).toBeNull();
    const created = ok(await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.2.0', canary_site_ids: ['w1@wave'], waves: [50, 100] }), 201);
    const id = created.id as string;
    expect(created).toMatchObject({ state: 'running', wave: 0, waves: [50, 100], failure_threshold_percent: 20, proof_timeout_s: 600 });
    expect((created.progress as { eligible: number; waves: { sites: { id: string }[] }[] })).toMatchObject({ eligible: 5, waves: [{ wave: 0, sites: [{ id: 'w1@wave' }] }, { wave: 1, started: false, sites: [] }, { wave: 2, started: false, sites: [] }] });
    const bad = await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.2.0', waves: [100, 50] });
    expect(bad.status).toBe(400);
    expect((await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.2.0', canary_site_ids: ['nobody@wave'] })).status).toBe(400);
    expect((await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.2.0' })).body.error.details).toEqual([{ field: 'release_id', reason: 'rollout_in_progress' }]);

    const offer = await pull('w1@wave');
    expect(offer).toMatchObject({ version: '0.2.0', arch: 'amd64', size: p020.bytes.length, sha256: sha(p020.bytes), chunk_size: MiB, chunks: 3, rollout_id: id, proof_timeout_s: 600, previous: null });
    expect(JSON.parse(offer!.signed)).toEqual(JSON.parse(p020.signed));
    expect(await pull('w2@wave')).toBeNull();
    // The download: the canary's session may, another site's may not, nor a site that reports no update state.
    const raw = await download('w1@wave', '/api/v1/releases/0.2.0/packages/amd64/chunks/1');
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(chunkOf(p020, 1))).toBe(true);
    const refused = await sites.get('w2@wave')!.get('/api/v1/releases/0.2.0/packages/amd64/chunks/1');
    expect([refused.status, refused.body.error.code]).toEqual([403, 'rbac_forbidden']);
    expect(refused.body.error.message).toContain('is not the target of site w2@wave');
    expect((await sites.get('o1@old')!.get('/api/v1/releases/0.2.0/packages/amd64/chunks/0')).status).toBe(403);
    const tenantAdmin = await clientAs(env, master, { role: 'admin', scope_type: 'tenant', tenant_id: 'wave' }, fleet.contract);
    expect((await tenantAdmin.get('/api/v1/releases/0.2.0/packages/amd64/chunks/0')).status).toBe(403);
    expect((await tenantAdmin.get('/api/v1/releases/list')).status).toBe(403);

    // The canary's steps are on its fleet record; done (running 0.2.0) starts wave 1: 2 of the other 4.
    await pull('w1@wave', report('downloading', { target_version: '0.2.0', previous_version: '0.1.0', progress: 0.4, rollout_id: id }));
    expect(await siteRow('w1@wave')).toMatchObject({ running_version: '0.1.0', target_version: '0.2.0', target_rollout_id: id, update_step: 'downloading', update_progress: 0.4, update_version: '0.2.0', previous_version: '0.1.0', update_arch: 'amd64', update_hold: false });
    expect((await rollout(id)).wave).toBe(0);
    await pull('w1@wave', report('proving', { target_version: '0.2.0', previous_version: '0.1.0', progress: 1 }), '0.2.0');
    expect((await rollout(id)).wave).toBe(0);
    expect(await pull('w1@wave', report('done', { target_version: '0.2.0', previous_version: '0.1.0', progress: 1 }))).toBeNull();
    const others = ['w2@wave', 'w3@wave', 'w4@wave', 'w5@wave'];
    const wave1: string[] = [];
    for (const s of others) if ((await pull(s))?.version === '0.2.0') wave1.push(s);
    expect(wave1).toHaveLength(2);
    const r1 = await rollout(id);
    expect(r1).toMatchObject({ state: 'running', wave: 1 });
    expect((r1.progress as { done: number; waves: { sites: { id: string }[] }[] }).waves[1]!.sites.map((s) => s.id).sort()).toEqual([...wave1].sort());
    for (const s of wave1) await pull(s, report('done', { target_version: '0.2.0', previous_version: '0.1.0', progress: 1 }), '0.2.0');
    const wave2 = others.filter((s) => !wave1.includes(s));
    for (const s of wave2) expect((await pull(s))?.version).toBe('0.2.0');
    expect((await rollout(id)).wave).toBe(2);
    for (const s of wave2) await pull(s, report('done', { target_version: '0.2.0', previous_version: '0.1.0', progress: 1 }), '0.2.0');
    const done = await rollout(id);
    expect(done).toMatchObject({ state: 'done', wave: 2, progress: expect.objectContaining({ eligible: 5, done: 5, failed: 0, pending: 0, failure_rate_percent: 0 }) as unknown });
    const audited = (await fleet.get('/api/v1/audit/list?resource=release-rollouts&limit=50')).body.items as { action: string; details: { rollout_id: string; wave?: number } }[];
    const mine = audited.filter((r) => r.details.rollout_id === id).map((r) => `${r.action}${r.details.wave ?? ''}`);
    expect(mine.sort()).toEqual(['release_rollout.create', 'release_rollout.done', 'release_rollout.wave_started0', 'release_rollout.wave_started1', 'release_rollout.wave_started2'].sort());
  });

  it('a failure above the threshold pauses the rollout with the reason; a held site is offered nothing; resume, pause by hand, abort', async () => {
    const id = ok(await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.3.0', canary_site_ids: ['w1@wave'], waves: [100], failure_threshold_percent: 20, proof_timeout_s: 120 }), 201).id as string;
    const offer = await pull('w1@wave');
    // The previous package: the version the box runs, published, to go back to.
    expect(offer).toMatchObject({ version: '0.3.0', chunks: 2, proof_timeout_s: 120, previous: { version: '0.2.0', arch: 'amd64', chunks: 3, sha256: sha(p020.bytes) } });
    // The running version's package may be downloaded too; another release may not.
    expect((await download('w1@wave', '/api/v1/releases/0.2.0/packages/amd64/chunks/0')).status).toBe(200);
    expect((await sites.get('w2@wave')!.request('GET', '/api/v1/releases/0.3.0/packages/amd64/chunks/0')).status).toBe(403);

    await pull('w1@wave', report('rolled_back', { target_version: '0.3.0', previous_version: '0.2.0', progress: 1, reason: 'the new version did not reach /ready within 120 s', reason_code: 'proof_timeout' }));
    const paused = await rollout(id);
    expect(paused.state).toBe('paused');
    expect(paused.paused_reason).toBe('failure rate 100 % (1 of 1 finished sites failed or rolled back) is above the threshold 20 %: w1@wave rolled_back: the new version did not reach /ready within 120 s');
    expect(await siteRow('w1@wave')).toMatchObject({ update_step: 'rolled_back', update_reason_code: 'proof_timeout', running_version: '0.2.0', target_version: '0.3.0' });
    expect(await pull('w2@wave')).toBeNull();
    const audit = (await fleet.get('/api/v1/audit/list?action=release_rollout.paused&limit=10')).body.items as { details: { rollout_id: string; reason: string } }[];
    expect(audit.find((r) => r.details.rollout_id === id)?.details.reason).toContain('w1@wave rolled_back');

    // Held by the fleet team: offered nothing, not counted.
    const held = ok(await fleet.post('/api/v1/tenant-master-sync/commands/hold-updates', { site_id: 'w3@wave', hold: true, reason: 'harvest week' }));
    expect(held).toMatchObject({ id: 'w3@wave', update_hold: true, update_hold_reason: 'harvest week' });
    expect((await fleet.post('/api/v1/tenant-master-sync/commands/hold-updates', { site_id: 'w9@wave', hold: true })).status).toBe(404);
    expect((await fleet.post('/api/v1/tenant-master-sync/commands/hold-updates', { site_id: 'w3', hold: true })).body.error.details).toEqual([{ field: 'tenant_id', reason: 'required' }]);
    expect(await siteRow('w3@wave')).toMatchObject({ update_hold: true, update_hold_reason: 'harvest week' });

    // Resume: w1's failure is accepted; wave 1 reaches the others, not the held one.
    const resumed = ok(await fleet.post('/api/v1/release-rollouts/commands/resume', { id }));
    expect(resumed).toMatchObject({ state: 'running', wave: 1, paused_reason: null });
    expect((await fleet.post('/api/v1/release-rollouts/commands/resume', { id })).status).toBe(409);
    expect(await pull('w3@wave')).toBeNull();
    expect((await pull('w2@wave'))?.version).toBe('0.3.0');
    // Paused by hand: a site that has begun keeps its target, one that has not gets none.
    ok(await fleet.post('/api/v1/release-rollouts/commands/pause', { id, reason: 'checking the charts' }));
    expect((await rollout(id)).paused_reason).toMatch(/^paused by .*: checking the charts$/);
    expect((await pull('w2@wave', report('downloading', { target_version: '0.3.0', previous_version: '0.2.0', progress: 0.5 })))?.version).toBe('0.3.0');
    expect(await pull('w4@wave')).toBeNull();
    ok(await fleet.post('/api/v1/release-rollouts/commands/resume', { id }));
    for (const s of ['w2@wave', 'w4@wave', 'w5@wave']) {
      expect((await pull(s))?.version).toBe('0.3.0');
      await pull(s, report('done', { target_version: '0.3.0', previous_version: '0.2.0', progress: 1 }), '0.3.0');
    }
    const done = await rollout(id);
    expect(done).toMatchObject({ state: 'done', progress: expect.objectContaining({ done: 3, failed: 1 }) as unknown });
    // Let go: the done rollout (its last wave 100 %) reaches the site now.
    ok(await fleet.post('/api/v1/tenant-master-sync/commands/hold-updates', { site_id: 'w3', tenant_id: 'wave', hold: false }));
    expect((await pull('w3@wave'))?.version).toBe('0.3.0');
    expect((await fleet.post('/api/v1/release-rollouts/commands/abort', { id })).status).toBe(409);

    // Abort: no site is offered the release through it any more.
    ok(await fleet.post('/api/v1/releases/commands/create', { version: '0.4.0' }), 201);
    await upload('0.4.0', 'amd64', pkg(fleetKey.privateKey, '0.4.0', 'amd64', 100));
    ok(await fleet.post('/api/v1/releases/commands/publish', { id: '0.4.0' }));
    const r4 = ok(await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.4.0', canary_site_ids: ['w2@wave'] }), 201).id as string;
    expect((await pull('w2@wave'))?.version).toBe('0.4.0');
    expect(ok(await fleet.post('/api/v1/release-rollouts/commands/abort', { id: r4, reason: 'wrong build' }))).toMatchObject({ state: 'aborted' });
    expect(await pull('w2@wave')).toBeNull();
    // Withdrawn: nothing offers it.
    expect(ok(await fleet.post('/api/v1/releases/commands/withdraw', { id: '0.4.0', reason: 'wrong build' }))).toMatchObject({ state: 'withdrawn', withdrawn_reason: 'wrong build' });
  });

  it('targets follow the version policies: the highest allowed release its rollouts reached, pinned winning, never older than it runs', async () => {
    // p1 and p2 join late: the done rollouts (last wave 100 %) reach them, the highest first.
    expect((await pull('p1@pin', report('idle'), '0.1.0'))?.version).toBe('0.3.0');
    const set = async (body: Record<string, unknown>) => ok(await fleet.post('/api/v1/version-policies/commands/set', { module_id: 'cabinet', ...body }));
    await set({ id: 'cab-max', scope: 'global', max_version: '0.2.5' });
    expect((await pull('p1@pin'))?.version).toBe('0.2.0');
    expect(await pull('w3@wave')).toBeNull();
    // Pinned at the tenant wins over the global maximum: 0.3.0 for pin's sites.
    await set({ id: 'pin-03', scope: 'tenant', tenant_id: 'pin', pinned_version: '0.3.0' });
    expect((await pull('p1@pin'))?.version).toBe('0.3.0');
    expect((await pull('p2@pin', report('idle'), '0.1.0'))?.version).toBe('0.3.0');
    // The most specific pin wins: an industry pin of 0.2.0 is beaten by the tenant's.
    await set({ id: 'poultry-02', scope: 'industry', industry_code: 'poultry', pinned_version: '0.2.0' });
    expect((await pull('p1@pin'))?.version).toBe('0.3.0');
    expect((await pull('w4@wave'))).toBeNull();
    // The fleet view judges the software against the same rules.
    expect(await siteRow('p1@pin')).toMatchObject({ policy: 'violates', policy_violations: ['cabinet 0.1.0 is not the pinned 0.3.0 (policy pin-03)'], target_version: '0.3.0' });
    // Never a downgrade: a site running 0.3.0 pinned to 0.2.0 is offered nothing.
    expect(await pull('w2@wave')).toBeNull();
    // An older box (no update state) is offered nothing.
    expect(await pull('o1@old', null)).toBeNull();
  });

  it('the master\'s sweep counts a report whose evaluation was cut short (a restart), without any read or new report', async () => {
    const set = async (body: Record<string, unknown>) => ok(await fleet.post('/api/v1/version-policies/commands/set', { module_id: 'cabinet', ...body }));
    await set({ id: 'cab-max', scope: 'global', max_version: '9.0.0' });
    await set({ id: 'poultry-02', scope: 'industry', industry_code: 'poultry', min_version: '0.1.0' });
    ok(await fleet.post('/api/v1/releases/commands/create', { version: '0.6.0' }), 201);
    await upload('0.6.0', 'amd64', pkg(fleetKey.privateKey, '0.6.0', 'amd64', 64));
    ok(await fleet.post('/api/v1/releases/commands/publish', { id: '0.6.0' }));
    const id = ok(await fleet.post('/api/v1/release-rollouts/commands/create', { release_id: '0.6.0', canary_site_ids: ['w5@wave'], waves: [100] }), 201).id as string;
    // The canary's done is stored, but the evaluation that should follow never ran (the master died).
    const db = master.services.db;
    await new Store<SyncSiteRow>(db, syncSites).update({ tenant_id: 'wave', site_id: 'w5' }, { app_version: '0.6.0', update_version: '0.6.0', update_step: 'done' });
    const stored = () => new Store<RolloutRow>(db, releaseRollouts).find({ id });
    expect((await stored())?.wave).toBe(0);
    await clock.step(29_000);
    expect((await stored())?.wave).toBe(0);
    await clock.step(1_000);
    const moved = await waitFor('the sweep to start wave 1', async () => { const r = await stored(); return Number(r?.wave) === 1 ? r : undefined; });
    expect(moved.state).toBe('running');
    expect((await pull('w4@wave'))?.version).toBe('0.6.0');
  });

  it('cabinet release upload sends a real signed .deb in chunks, resuming a cut-off upload, and publishes it', async () => {
    if (dialect !== 'sqlite') return; // the command is the same whatever the master's engine
    const dir = join(env.dataDir, 'cli');
    mkdirSync(join(dir, 'root', 'DEBIAN'), { recursive: true });
    mkdirSync(join(dir, 'root', 'usr', 'share', 'cabinet-test'), { recursive: true });
    writeFileSync(join(dir, 'root', 'usr', 'share', 'cabinet-test', 'blob'), randomBytes(MiB + 4096));
    writeFileSync(join(dir, 'root', 'DEBIAN', 'control'), 'Package: cabinet\nVersion: 0.5.0\nArchitecture: amd64\nMaintainer: Test <t@example.org>\nDescription: test\n');
    const deb = join(dir, 'cabinet_0.5.0_amd64.deb');
    execFileSync('dpkg-deb', ['-Znone', '--root-owner-group', '--build', join(dir, 'root'), deb], { stdio: 'ignore' });
    const key = join(dir, 'release.key');
    writeFileSync(key, fleetKey.privateKey, { mode: 0o600 });
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      expect(await releaseCommand(['sign', '--key', key, '--deb', deb])).toBe(0);
      // A cut-off upload: the draft exists with chunk 0 already there.
      ok(await fleet.post('/api/v1/releases/commands/create', { version: '0.5.0', notes: 'by hand' }), 201);
      const { readFileSync } = await import('node:fs');
      ok(await put('/api/v1/releases/0.5.0/packages/amd64/chunks/0', readFileSync(deb).subarray(0, MiB)));
      expect(await releaseCommand(['upload', '--url', master.url, '--token', fleetToken, '--deb', deb, '--notes', 'CLI'])).toBe(0);
      expect(out.mock.calls.map((c) => String(c[0])).join('')).toContain('amd64: ');
      expect(out.mock.calls.map((c) => String(c[0])).join('')).toMatch(/1 sent, 1 there already/);
      const r = ok(await fleet.get('/api/v1/releases/0.5.0'));
      expect(r).toMatchObject({ state: 'published', packages: [expect.objectContaining({ arch: 'amd64', chunks: 2, complete: true })] });
      await expect(releaseCommand(['upload', '--url', master.url, '--token', fleetToken, '--deb', deb])).rejects.toThrow(/is published on the master already/);
    } finally {
      out.mockRestore();
      err.mockRestore();
    }
  });

});
