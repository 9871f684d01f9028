// The fleet view's resource, sync-sites, on a master (SQLite and PostgreSQL) with a real edge box
// syncing over HTTP, a site that never synced and an older box that does not report its versions
// (its pulls made here by hand with its credential): one record per site with its sync status,
// lag, open P1 alarms, reported version and versions against policy; master scope only.
import { writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { refreshSites } from '../../src/modules/tenant-master-sync/engine/sites.js';
import pkg from '../../package.json' with { type: 'json' };
import { waitFor } from '../helpers/wait.js';


type Site = Record<string, unknown> & { id: string; status: string; attention: number; open_p1: number; policy: string; policy_violations: string[] };

describe.each(DIALECTS)('sync-sites, the fleet view (master on %s)', (dialect) => {
  let masterEnv: TestEnv;
  let edgeEnv: TestEnv;
  let master: RunningServer;
  let edge: RunningServer | undefined;
  let fleet: Client;
  let edgeOp: Client;
  let oldBox: Client;

  const site = async (id: string): Promise<Site> => {
    const r = await fleet.get(`/api/v1/sync-sites/${encodeURIComponent(id)}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.item as Site;
  };
  const list = async (query = ''): Promise<Site[]> => {
    const r = await fleet.get(`/api/v1/sync-sites/list${query}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.items as Site[];
  };

  beforeAll(async () => {
    masterEnv = await createTestEnv(dialect);
    edgeEnv = await createTestEnv('sqlite');
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off', sync_stale_ms: '3000' });
    fleet = await clientAs(masterEnv, master);
    const reg = async (tenant_id: string, site_id: string) => {
      const r = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id, site_id, industry_code: 'poultry' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.item.credential as string;
    };
    writeFileSync(join(edgeEnv.dataDir, 'site-credential'), `${await reg('farm-a', 'site-1')}\n`, { mode: 0o600 });
    await reg('farm-a', 'site-never');
    const oldCredential = await reg('farm-b', 'site-old');
    edge = await edgeEnv.start({ mqtt_broker: 'off', sync_master_url: master.url, sync_interval_ms: '100', sync_heartbeat_ms: '300', sync_backoff_max_ms: '400' });
    const edgeAdmin = await clientAs(edgeEnv, edge);
    edgeOp = await clientAs(edgeEnv, edge, { subject: 'op', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-a', site_id: 'site-1' }, edgeAdmin.contract);
    oldBox = await siteClient(master.url, oldCredential, fleet.contract);
  });
  afterAll(async () => {
    await edgeEnv?.cleanup();
    await masterEnv?.cleanup();
  });

  it('one record per site: the syncing box live with its version, the one that never synced stopped and unknown, attention first', async () => {
    // Polled to the whole record: on a loaded machine the first live record can still carry the
    // box's first events in flight (lag, pending) or its first report, which the next pulls settle.
    await expect.poll(() => site('site-1@farm-a'), { timeout: 20_000 }).toMatchObject({
      id: 'site-1@farm-a', tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry', app_version: pkg.version, policy: 'conforms',
      policy_violations: [], holds_master_state: true, open_p1: 0, attention: 0, lag_seconds: 0, reported_pending: 0, status: 'live',
    });
    const live = await site('site-1@farm-a');
    expect(live.last_heartbeat_at).toBeTruthy();
    const modules = live.module_versions as { id: string; version: string }[];
    expect(modules.map((m) => m.id)).toContain('alarms');
    expect(modules.find((m) => m.id === 'tenant-master-sync')?.version).toBe('1.0.0');
    expect(Date.parse(live.last_seen_at as string)).toBeGreaterThan(Date.now() - 5000);

    const never = await site('site-never@farm-a');
    expect(never).toMatchObject({ status: 'stopped', last_seen_at: null, last_heartbeat_at: null, lag_seconds: null, app_version: null, module_versions: null, policy: 'unknown', holds_master_state: false, attention: 8 });

    // An older box reports no versions: unknown, never a guess. Its second pull reports the revision it applied.
    const first = await oldBox.post('/api/v1/site-sync/commands/pull', { remaining: 0 });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await site('site-old@farm-b')).status).toBe('degraded');
    expect((await oldBox.post('/api/v1/site-sync/commands/pull', { remaining: 0, down_revision: first.body.item.revision })).status).toBe(200);
    expect(await site('site-old@farm-b')).toMatchObject({ status: 'live', policy: 'unknown', app_version: null, attention: 0 });

    const all = await list();
    expect(all.map((s) => s.id)).toEqual(['site-never@farm-a', ...all.slice(1).map((s) => s.id)]);
    expect(all.map((s) => s.id).sort()).toEqual(['site-1@farm-a', 'site-never@farm-a', 'site-old@farm-b']);
    const stopped = (await list('?status=stopped')).map((s) => s.id);
    expect(stopped).toContain('site-never@farm-a');
    expect(stopped).not.toContain('site-1@farm-a');
    expect((await list('?tenant_id=farm-b')).map((s) => s.id)).toEqual(['site-old@farm-b']);
    expect((await list('?policy=unknown&sort=site_id&order=asc')).map((s) => s.id)).toEqual(['site-never@farm-a', 'site-old@farm-b']);
    expect((await fleet.get('/api/v1/sync-sites/nowhere@farm-a')).status).toBe(404);
    expect((await fleet.get('/api/v1/sync-sites/list?status=asleep')).status).toBe(400);
  });

  it('a version outside policy is named in words; an open P1 alarm on the box is counted until acknowledged', async () => {
    const set = await fleet.post('/api/v1/version-policies/commands/set', { id: 'alarms-7', scope: 'global', module_id: 'alarms', allowed_major: 7 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const bad = await waitFor('site-1 outside policy, holding the new state', async () => {
      const s = await site('site-1@farm-a');
      return s.policy === 'violates' && s.status === 'live' ? s : undefined;
    });
    expect(bad.policy_violations).toEqual(['alarms 1.0.0 is outside the allowed major line 7.x (policy alarms-7)']);
    expect(bad.attention).toBe(1);
    // The older box is not judged on versions it never reported; the one that never synced neither.
    expect((await site('site-old@farm-b')).policy).toBe('unknown');
    expect((await list('?policy=violates')).map((s) => s.id)).toEqual(['site-1@farm-a']);

    const raised = await edgeOp.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'rules', title: 'house 2 too hot' });
    expect(raised.status).toBe(201);
    expect((await edgeOp.post('/api/v1/alarms/commands/raise', { severity: 'low', source: 'rules', title: 'a door left open' })).status).toBe(201);
    const p1 = await waitFor('the open P1 on the fleet view', async () => {
      const s = await site('site-1@farm-a');
      return s.open_p1 === 1 && s.status === 'live' ? s : undefined;
    });
    expect(p1.attention).toBe(1 + 2);
    // Attention first: the stopped sites (the one that never synced, the older box gone quiet) before it.
    const order = await list();
    expect(order.map((s) => s.attention)).toEqual([...order.map((s) => s.attention)].sort((a, b) => b - a));
    // (The box may be pushing at that moment: degraded adds 4.)
    const one = order.find((s) => s.id === 'site-1@farm-a')!;
    expect(one.attention).toBe((one.status === 'degraded' ? 4 : 0) + 2 + 1);
    expect((await edgeOp.post('/api/v1/alarms/commands/ack', { id: raised.body.item.id, comment: 'on it' })).status).toBe(200);
    await waitFor('the acknowledged P1 no longer counted', async () => (await site('site-1@farm-a')).open_p1 === 0 || undefined);
  });

  it('is master scope: a tenant session is refused, even for its own tenant', async () => {
    const tenant = await clientAs(masterEnv, master, { subject: 'farmer', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a' });
    for (const path of ['/api/v1/sync-sites/list', '/api/v1/sync-sites/scheme', '/api/v1/sync-sites/site-1@farm-a']) {
      const r = await tenant.get(path);
      expect(r.status, path).toBe(403);
      expect(r.body.error.code).toMatch(/forbidden|denied/);
    }
  });

  it('a read of a tenant record that finds nothing changed writes nothing; a change is written', async () => {
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-q', site_id: 'site-q1', industry_code: 'poultry' });
    expect(reg.status).toBe(201);
    const first = (await fleet.get('/api/v1/tenant-master-sync/farm-q')).body.item;
    await new Promise((r) => setTimeout(r, 20));
    const again = (await fleet.get('/api/v1/tenant-master-sync/farm-q')).body.item;
    expect(again).toEqual(first);
    expect((await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-q', site_id: 'site-q2', industry_code: 'poultry' })).status).toBe(201);
    const changed = (await fleet.get('/api/v1/tenant-master-sync/farm-q')).body.item;
    expect(changed.sites).toBe(2);
    expect(Date.parse(changed.updated_at)).toBeGreaterThan(Date.parse(first.updated_at));
  });

  it('is declared once: in the OpenAPI document and in the module registry through the manifest', async () => {
    expect((await fleet.get('/openapi.yaml')).text).toContain('/api/v1/sync-sites/list:');
    const doc = fleet.contract.doc as { paths: Record<string, unknown> };
    for (const p of ['/api/v1/sync-sites/scheme', '/api/v1/sync-sites/list', '/api/v1/sync-sites/{id}']) expect(Object.keys(doc.paths)).toContain(p);
    const mods = (await fleet.get('/api/v1/modules/list?limit=500')).body.items as { id: string; backend: { routes: string[] } }[];
    const mod = mods.find((m) => m.id === 'tenant-master-sync')!;
    expect(mod.backend.routes).toEqual(expect.arrayContaining(['/api/v1/sync-sites/list', '/api/v1/sync-sites/{id}']));
    const scheme = (await fleet.get('/api/v1/sync-sites/scheme')).body.item as { fields: { name: string }[]; default_sort: unknown; filters: { name: string }[] };
    expect(scheme.default_sort).toEqual({ field: 'attention', order: 'desc' });
    expect(scheme.fields.map((f) => f.name)).not.toContain('passkey_id');
    expect(scheme.filters.map((f) => f.name)).toEqual(expect.arrayContaining(['status', 'tenant_id', 'policy']));
  });

  it('a box that stops is stopped once sync_stale_ms passed, its lag its silence', async () => {
    await edge!.close();
    edge = undefined;
    const stopped = await waitFor('site-1 stopped', async () => {
      const s = await site('site-1@farm-a');
      return s.status === 'stopped' ? s : undefined;
    });
    expect(stopped.lag_seconds as number).toBeGreaterThan(2.9);
    expect(stopped.attention).toBeGreaterThanOrEqual(8);
    expect((await fleet.get('/api/v1/tenant-master-sync/farm-a')).body.item.status).toBe('stopped');
    // Nothing changed since that read (every site stopped): the next read writes nothing.
    await list();
    expect(await refreshSites(master.services.db, { staleMs: 3000 })).toBe(0);
  });
});

describe('a box of this version and a master older than the versions report', () => {
  let masterEnv: TestEnv;
  let edgeEnv: TestEnv;
  let master: RunningServer;
  let edge: RunningServer;
  let proxy: Server;
  const refused: string[] = [];

  beforeAll(async () => {
    masterEnv = await createTestEnv('sqlite');
    edgeEnv = await createTestEnv('sqlite');
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const fleet = await clientAs(masterEnv, master);
    const reg = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-c', site_id: 'site-9' });
    writeFileSync(join(edgeEnv.dataDir, 'site-credential'), `${reg.body.item.credential as string}\n`, { mode: 0o600 });
    // What a master whose bodies do not know a field answers: taken from this master, for a field it does not know.
    const site = await createClient(master.url);
    const start = await site.post('/api/v1/auth/passkey/commands/start', { method: 'qr' });
    const done = await site.post('/api/v1/auth/passkey/commands/complete', { challenge_id: start.body.item.challenge_id, credential: reg.body.item.credential });
    const bearer = `Bearer ${/cabinet_session=([^;]+)/.exec(done.headers.get('set-cookie') ?? '')![1]!}`;
    const unknown = await fetch(`${master.url}/api/v1/site-sync/commands/pull`, { method: 'POST', headers: { authorization: bearer, 'content-type': 'application/json' }, body: JSON.stringify({ remaining: 0, not_known: 1 }) });
    const oldAnswer = (await unknown.json()) as { error: { details: { field: string; reason: string }[] } };
    expect(unknown.status).toBe(400);
    expect(oldAnswer.error.details).toEqual([expect.objectContaining({ field: 'not_known', reason: 'unknown_field' })]);
    const asOld = JSON.stringify({ ...oldAnswer, error: { ...oldAnswer.error, details: [{ ...oldAnswer.error.details[0], field: 'versions' }] } });
    // The older master: the real one behind a proxy that refuses the field as it would.
    proxy = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        if (req.url?.startsWith('/api/v1/site-sync/') && 'versions' in (JSON.parse(body.toString() || '{}') as object)) {
          refused.push(req.url);
          res.writeHead(400, { 'content-type': 'application/json' }).end(asOld);
          return;
        }
        const headers = Object.fromEntries(Object.entries(req.headers).filter(([k]) => k !== 'host' && k !== 'content-length')) as Record<string, string>;
        fetch(`${master.url}${req.url}`, { method: req.method, headers, body: req.method === 'GET' ? undefined : body })
          .then(async (r) => {
            const out: Record<string, string> = { 'content-type': r.headers.get('content-type') ?? 'application/json' };
            const cookie = r.headers.get('set-cookie');
            if (cookie) out['set-cookie'] = cookie;
            res.writeHead(r.status, out).end(Buffer.from(await r.arrayBuffer()));
          }, () => res.writeHead(502).end());
      });
    });
    await new Promise<void>((r) => proxy.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    edge = await edgeEnv.start({ mqtt_broker: 'off', sync_master_url: url, sync_interval_ms: '100', sync_heartbeat_ms: '300', sync_backoff_max_ms: '400' });
  });
  afterAll(async () => {
    await edgeEnv?.cleanup();
    proxy?.close();
    await masterEnv?.cleanup();
  });

  it('syncs without the report once the master refuses it; the master shows the versions as unknown', async () => {
    const fleet = await clientAs(masterEnv, master);
    const s = await waitFor('site-9 live without versions', async () => {
      const r = (await fleet.get('/api/v1/sync-sites/site-9@farm-c')).body.item as Site;
      return r.status === 'live' && r.last_heartbeat_at ? r : undefined;
    });
    expect(s).toMatchObject({ app_version: null, policy: 'unknown' });
    // Refused once, then never sent again.
    expect(refused).toEqual(['/api/v1/site-sync/commands/pull']);
    expect((await edge.services.edgeSync!.status()).last_error).toBeNull();
  });
});
