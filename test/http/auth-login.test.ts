// The two login paths, each walked end to end over HTTP: the RFID card at the panel, and the
// phone hand-off by QR or by 4-digit code; plus what must be refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const cookieOf = (setCookie: string | null) => /cabinet_session=([^;]+)/.exec(setCookie ?? '')?.[1] ?? '';

describe.each(DIALECTS)('login (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let anon: Client;

  const issue = async (body: Record<string, unknown>) => {
    const res = await admin.post('/api/v1/passkeys/commands/issue', { ttl_minutes: 60, holder: 'Anna', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body.item as { id: string; credential: string; qr_svg: string };
  };
  const start = async (method: string, client = anon) => (await client.post('/api/v1/auth/passkey/commands/start', { method })).body.item;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    // Every address: a hand-off link names the box's LAN address, which a loopback-only box has not.
    server = await env.start({ host: '0.0.0.0' });
    admin = await clientAs(env, server);
    anon = await createClient(server.url, {}, admin.contract);
  });
  afterAll(async () => env.cleanup());

  it('shows a credential once, stores only a keyed hash, and lists nothing that logs in', async () => {
    const pk = await issue({ type: 'rfid', card_uid: '04A1B2C3D4' });
    expect(pk.credential).toBe('RF-04A1B2C3D4');
    // its QR, to print, is drawn in this answer only (nothing stored can draw it again)
    expect(pk.qr_svg).toMatch(/^<svg[^>]*viewBox="0 0 \d+ \d+"/);
    const listed = await admin.get(`/api/v1/passkeys/list?q=${pk.id}`);
    expect(listed.body.items).toHaveLength(1);
    const text = JSON.stringify(listed.body);
    expect(text).not.toContain('RF-04A1B2C3D4');
    expect(text).not.toContain('credential');
    expect((await admin.get(`/api/v1/passkeys/${pk.id}`)).body.item).not.toHaveProperty('credential');
    expect(text).not.toContain('qr_svg');
    const ch = await start('rfid');
    const byId = await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential: pk.id });
    expect(byId.status).toBe(401);
    expect(byId.body.error.code).toBe('login_refused');
    expect(byId.headers.get('set-cookie')).toBeNull();
    await server.services.security.flush();
    const logs = JSON.stringify(env.logs) + JSON.stringify((await admin.get('/api/v1/passkeys/list')).body);
    expect(logs).not.toContain('RF-04A1B2C3D4');
  });

  it('logs in at the panel with an RFID card, once per challenge', async () => {
    const pk = await issue({ type: 'rfid', holder: 'Panel operator', site_id: 'house-2' });
    const ch = await start('rfid');
    expect(ch).toMatchObject({ method: 'rfid', status: 'pending' });
    expect(ch).not.toHaveProperty('qr_payload');
    const done = await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential: pk.credential });
    expect(done.status).toBe(200);
    expect(done.body.item.user).toMatchObject({ role: 'operator', scope: 'tenant:farm-1/site:house-2', subject: pk.id });
    const setCookie = done.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//);
    const session = cookieOf(setCookie);
    const me = await anon.get('/api/v1/auth/me', { cookie: `cabinet_session=${session}` });
    expect(me.body.item).toMatchObject({ authenticated: true, user: { tenant_id: 'farm-1', site_id: 'house-2' } });
    const status = await anon.get(`/api/v1/auth/passkey/status?challenge_id=${ch.challenge_id}`);
    expect(status.body.item.challenge.status).toBe('completed');
    const reuse = await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential: pk.credential });
    expect(reuse.body.error.code).toBe('login_refused');
    expect((await admin.get(`/api/v1/passkeys/${pk.id}`)).body.item.last_used_at).not.toBeNull();
    // Revoking the card refuses it at the next login and ends the session it opened.
    await admin.post('/api/v1/passkeys/commands/revoke', { id: pk.id });
    expect((await anon.get('/api/v1/auth/me', { cookie: `cabinet_session=${session}` })).body.item.authenticated).toBe(false);
    const again = await start('rfid');
    expect((await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: again.challenge_id, credential: pk.credential })).status).toBe(401);
  });

  it('refuses unknown challenges, wrong methods and expired passkeys', async () => {
    const qrKey = await issue({ type: 'qr' });
    expect((await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: 'CH-nope', credential: qrKey.credential })).status).toBe(401);
    const rfid = await start('rfid');
    expect((await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: rfid.challenge_id, credential: qrKey.credential })).status).toBe(401);
    const qr = await start('qr');
    const ok = await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: qr.challenge_id, credential: qrKey.credential });
    expect(ok.status).toBe(200);
    const shortLived = await issue({ type: 'qr', ttl_minutes: 1 });
    await server.services.db.exec(`update passkeys set expires_at = '2020-01-01T00:00:00.000Z' where id = '${shortLived.id}'`);
    const later = await start('qr');
    expect((await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: later.challenge_id, credential: shortLived.credential })).status).toBe(401);
  });

  it('hands a tablet session to a phone by QR, and by the 4-digit code', async () => {
    const pk = await issue({ type: 'rfid', holder: 'Tablet user', role: 'admin' });
    const ch = await start('rfid');
    const tablet = cookieOf((await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential: pk.credential })).headers.get('set-cookie'));
    const tabletClient = anon.withHeaders({ cookie: `cabinet_session=${tablet}` });

    const handoff = await start('qr', tabletClient);
    expect(handoff.code).toMatch(/^\d{4}$/);
    const payload = new URL(handoff.qr_payload.replace('#/login', 'login'));
    expect(payload.searchParams.get('challenge')).toBe(handoff.challenge_id);
    const secret = payload.searchParams.get('secret') as string;
    expect(secret).toMatch(/^QR-/);
    const phone = await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: handoff.challenge_id, credential: secret });
    expect(phone.status).toBe(200);
    expect(phone.body.item.user).toMatchObject({ role: 'admin', subject: pk.id, tenant_id: 'farm-1' });
    expect(cookieOf(phone.headers.get('set-cookie'))).not.toBe('');

    const byCode = await start('qr', tabletClient);
    const phone2 = await anon.post('/api/v1/auth/passkey/commands/complete', { code: byCode.code });
    expect(phone2.status).toBe(200);
    expect((await anon.post('/api/v1/auth/passkey/commands/complete', { code: byCode.code })).status).toBe(401);
  });

  it('locks a hand-off after 5 wrong codes, long before 10,000 tries', async () => {
    // Its own server: the brute force ends with this address throttled.
    const own = await env.start();
    const ownAdmin = await clientAs(env, own, {}, admin.contract);
    const anon = await createClient(own.url, {}, admin.contract);
    const start = async (method: string, client = anon) => (await client.post('/api/v1/auth/passkey/commands/start', { method })).body.item;
    const pk = (await ownAdmin.post('/api/v1/passkeys/commands/issue', { ttl_minutes: 60, holder: 'Target', scope: 'tenant', tenant_id: 'farm-1', type: 'qr' })).body.item;
    const first = await start('qr');
    const tablet = cookieOf((await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: first.challenge_id, credential: pk.credential })).headers.get('set-cookie'));
    const handoff = await start('qr', anon.withHeaders({ cookie: `cabinet_session=${tablet}` }));
    const attacker = anon.withHeaders({ 'x-request-id': 'brute' });
    let tries = 0;
    for (let n = 0; n < 10_000 && tries < 40; n++) {
      const guess = String(n).padStart(4, '0');
      if (guess === handoff.code) continue;
      tries++;
      const res = await attacker.post('/api/v1/auth/passkey/commands/complete', { code: guess });
      if (res.status === 429) break;
      expect(res.status).toBe(401);
    }
    const status = await anon.get(`/api/v1/auth/passkey/status?challenge_id=${handoff.challenge_id}`);
    expect(status.body.item.challenge.status).toBe('locked');
    expect(tries).toBeLessThanOrEqual(21);
    // The right code no longer works, and the address is throttled.
    const right = await attacker.post('/api/v1/auth/passkey/commands/complete', { code: handoff.code });
    expect([401, 429]).toContain(right.status);
    expect(right.headers.get('set-cookie')).toBeNull();
    const throttled = await attacker.post('/api/v1/auth/passkey/commands/complete', { code: '0000' });
    expect(throttled.status).toBe(429);
    expect(Number(throttled.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('takes the passkeys endpoints and passkey logins away while the module is uninstalled', async () => {
    const own = await env.start();
    const ownAdmin = await clientAs(env, own, {}, admin.contract);
    const client = await createClient(own.url, {}, admin.contract);
    const pk = (await ownAdmin.post('/api/v1/passkeys/commands/issue', { ttl_minutes: 60, holder: 'X', scope: 'master', type: 'qr' })).body.item;
    expect((await ownAdmin.post('/api/v1/modules/commands/uninstall', { id: 'passkeys' })).status).toBe(200);
    for (const path of ['/api/v1/passkeys/list', '/api/v1/passkeys/scheme', `/api/v1/passkeys/${pk.id}`]) {
      const res = await ownAdmin.get(path);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('module_not_installed');
    }
    expect((await ownAdmin.post('/api/v1/passkeys/commands/revoke', { id: pk.id })).body.error.code).toBe('module_not_installed');
    const ch = (await client.post('/api/v1/auth/passkey/commands/start', { method: 'qr' })).body.item;
    expect((await client.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.challenge_id, credential: pk.credential })).status).toBe(401);
    expect((await ownAdmin.post('/api/v1/modules/commands/install', { id: 'passkeys' })).status).toBe(200);
    expect((await ownAdmin.get(`/api/v1/passkeys/list?q=${pk.id}`)).body.total).toBe(1);
    const again = (await client.post('/api/v1/auth/passkey/commands/start', { method: 'qr' })).body.item;
    expect((await client.post('/api/v1/auth/passkey/commands/complete', { challenge_id: again.challenge_id, credential: pk.credential })).status).toBe(200);
  });

  it('refuses RFID login away from the panel', async () => {
    const far = await env.start({ panel_addresses: '10.9.9.9' });
    const client = await createClient(far.url, {}, admin.contract);
    const res = await client.post('/api/v1/auth/passkey/commands/start', { method: 'rfid' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('login_method_forbidden');
  });

  it('names a card\'s holder to the crew of its tenant, and nothing else of it', async () => {
    const anna = await issue({ type: 'rfid', holder: 'Anna Novak', card_uid: '04C0FFEE01' });
    const other = await issue({ type: 'qr', holder: 'Neighbour', tenant_id: 'farm-2' });
    await admin.post('/api/v1/passkeys/commands/revoke', { id: (await issue({ type: 'qr', holder: 'Gone Worker' })).id });
    const operator = await clientAs(env, server, { subject: 'op-1', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1' }, admin.contract);
    const res = await operator.get('/api/v1/auth/people/list');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const items = res.body.items as Record<string, unknown>[];
    expect(items.find((i) => i.id === anna.id)).toEqual({ id: anna.id, holder: 'Anna Novak', status: 'active' });
    // past actions keep their names: revoked cards are named too
    expect(items.some((i) => i.holder === 'Gone Worker' && i.status === 'revoked')).toBe(true);
    // another tenant's cards are not named, and nothing that logs in or says a role is given
    expect(items.some((i) => i.id === other.id)).toBe(false);
    expect(JSON.stringify(res.body)).not.toMatch(/credential|RF-04C0FFEE01|"role"|expires_at/);
    // the operator still may not list the cards themselves
    expect((await operator.get('/api/v1/passkeys/list')).status).toBe(403);
    // without a session, nobody is named
    expect((await anon.get('/api/v1/auth/people/list')).status).toBe(401);
  });
});
