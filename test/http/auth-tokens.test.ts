// Session tokens as a security boundary: what is refused, and what a refusal looks like.
import { createSecretKey, randomBytes } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { createSessionService } from '../../src/auth/sessions.js';
import http from 'node:http';
import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { createClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const PUBLIC = new Set([
  'post /api/v1/auth/passkey/commands/start', 'post /api/v1/auth/passkey/commands/complete', 'get /api/v1/auth/passkey/status',
  'get /api/v1/auth/me', 'post /api/v1/auth/commands/logout',
]);

describe.each(DIALECTS)('session tokens (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let anon: Client;
  const as = (token: string) => anon.withHeaders({ authorization: `Bearer ${token}` });
  const forge = (claims: Record<string, unknown>, key = createSecretKey(Buffer.alloc(32, 7)), exp = '1h') =>
    new SignJWT({ sid: 'aaaaaaaa-bbbb', role: 'admin', scope_type: 'master', ...claims }).setProtectedHeader({ alg: 'HS256' })
      .setIssuer('cabinet').setAudience('cabinet-api').setSubject('mallory').setIssuedAt().setExpirationTime(exp).sign(key);

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    // cloud-multi installs every industry's modules: every served route needs a session (an
    // uninstalled module's routes answer 404 module_not_installed before authentication).
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    anon = await createClient(server.url);
  });
  afterAll(async () => env.cleanup());

  it('answers auth_required (401, code and message only) on every non-public /api route without a token', async () => {
    const doc = anon.contract.doc.paths;
    let checked = 0;
    for (const [path, ops] of Object.entries(doc)) {
      if (!path.startsWith('/api/')) continue;
      for (const method of Object.keys(ops)) {
        if (PUBLIC.has(`${method} ${path}`)) continue;
        const res = await anon.request(method.toUpperCase(), path.replace(/\{\w+\}/g, 'x1'), { body: method === 'get' || method === 'delete' ? undefined : {} });
        expect(res.status, `${method} ${path}`).toBe(401);
        expect(res.body.error).toEqual({ code: 'auth_required', message: expect.any(String) });
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(10);
    for (const key of PUBLIC) expect(doc[key.split(' ')[1] as string]?.[key.split(' ')[0] as string], key).toBeDefined();
  });

  it('accepts a valid token from the header and from the cookie', async () => {
    const token = await env.token(server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1', site_id: 'house-3' });
    const me = await as(token).get('/api/v1/auth/me');
    expect(me.body.item).toEqual({ authenticated: true, user: { role: 'operator', scope: 'tenant:farm-1/site:house-3', scope_type: 'tenant', tenant_id: 'farm-1', site_id: 'house-3', subject: 'test-admin' } });
    const viaCookie = await anon.get('/api/v1/tables/list', { cookie: `cabinet_session=${token}` });
    expect(viaCookie.status).toBe(200);
  });

  it.each([
    ['signed with another secret', () => forge({})],
    ['alg none', async () => `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from(JSON.stringify({ sub: 'x', sid: 'aaaaaaaa-bbbb', role: 'admin', scope_type: 'master', iss: 'cabinet', aud: 'cabinet-api', exp: 9999999999 })).toString('base64url')}.`],
    ['garbage', async () => 'not-a-jwt'],
  ])('refuses a token %s', async (_name, make) => {
    const token = await make();
    expect((await as(token).get('/api/v1/auth/me')).body.item).toEqual({ authenticated: false });
    expect((await as(token).get('/api/v1/tables/list')).status).toBe(401);
  });

  it('refuses an expired token and a tampered payload', async () => {
    const expired = await server.services.sessions.issue({ subject: 's', role: 'admin', scope_type: 'master', ttlMinutes: -1 });
    expect((await as(expired.token).get('/api/v1/auth/me')).body.item.authenticated).toBe(false);
    const good = await env.token(server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1' });
    const [h, p, s] = good.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    const tampered = `${h}.${Buffer.from(JSON.stringify({ ...payload, role: 'admin', scope_type: 'master' })).toString('base64url')}.${s}`;
    expect((await as(tampered).get('/api/v1/auth/me')).body.item.authenticated).toBe(false);
    expect((await as(tampered).get('/api/v1/operability/runtime')).status).toBe(401);
  });


  it('refuses a request with two Authorization headers, even when both carry a valid token', async () => {
    const token = await env.token(server, { role: 'admin' });
    // Raw header lines: the typed headers object allows one Authorization value only.
    const get = (...values: string[]) => new Promise<number>((resolve, reject) => {
      http.get(`${server.url}/api/v1/tables/list`, { headers: ['host', new URL(server.url).host, ...values.flatMap((v) => ['authorization', v])] }, (res) => { res.resume(); resolve(res.statusCode ?? 0); }).on('error', reject);
    });
    expect(await get(`Bearer ${token}`)).toBe(200);
    expect(await get(`Bearer ${token}`, `Bearer ${token}`)).toBe(401);
  });

  it('refuses a token that verified before once it expires (a remembered verification is not a pass)', async () => {
    const short = await server.services.sessions.issue({ subject: 's', role: 'admin', scope_type: 'master', ttlMinutes: 2 / 60 });
    expect((await as(short.token).get('/api/v1/tables/list')).status).toBe(200);
    expect((await as(short.token).get('/api/v1/auth/me')).body.item.authenticated).toBe(true);
    await new Promise((r) => setTimeout(r, short.expiresAt.getTime() - Date.now() + 1100));
    expect((await as(short.token).get('/api/v1/tables/list')).status).toBe(401);
    expect((await as(short.token).get('/api/v1/auth/me')).body.item.authenticated).toBe(false);
  });
  it('logout clears the cookie and revokes the token, so a copied token stops working', async () => {
    const token = await env.token(server, { role: 'admin' });
    expect((await as(token).get('/api/v1/tables/list')).status).toBe(200);
    const out = await anon.post('/api/v1/auth/commands/logout', undefined, { cookie: `cabinet_session=${token}` });
    expect(out.body.item).toEqual({ logged_out: true });
    expect(out.headers.get('set-cookie')).toMatch(/cabinet_session=;.*Max-Age=0/i);
    expect((await as(token).get('/api/v1/tables/list')).status).toBe(401);
    expect((await as(token).get('/api/v1/auth/me')).body.item.authenticated).toBe(false);
    // Still revoked after a restart: revocation lives in SQL.
    const again = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const client = await createClient(again.url, { authorization: `Bearer ${token}` }, anon.contract);
    expect((await client.get('/api/v1/tables/list')).status).toBe(401);
  });

  it('honours a revocation written by another process: at once on PostgreSQL, within the refresh time on SQLite', async () => {
    const sessions = createSessionService(server.services.db, createSecretKey(randomBytes(32)), 60, { revokedRefreshMs: 300 });
    const a = await sessions.issue({ subject: 'a', role: 'admin', scope_type: 'master' });
    const b = await sessions.issue({ subject: 'b', role: 'admin', scope_type: 'master' });
    expect(await sessions.verify(a.token)).toMatchObject({ subject: 'a' });
    // Another process's logout of a: a row in SQL that this service's revoke() never saw.
    const now = new Date();
    await server.services.db.run(sql`insert into auth_revoked_sessions (sid, subject, revoked_at, expires_at) values (${a.sid}, ${'a'}, ${now.toISOString()}, ${a.expiresAt.toISOString()})`);
    if (dialect === 'postgres') expect(await sessions.verify(a.token)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 350));
    expect(await sessions.verify(a.token)).toBeUndefined();
    // Its own revocation applies at once, refresh or not.
    const callerB = await sessions.verify(b.token);
    expect(callerB).toMatchObject({ subject: 'b' });
    await sessions.revoke(callerB!);
    expect(await sessions.verify(b.token)).toBeUndefined();
    await new Promise((r) => setTimeout(r, 350));
    expect(await sessions.verify(b.token)).toBeUndefined();
  });

  it('writes the session key with mode 0600 and never logs a token', async () => {
    const { statSync } = await import('node:fs');
    if (dialect === 'sqlite') expect(statSync(`${env.dataDir}/session.key`).mode & 0o777).toBe(0o600);
    const token = await env.token(server);
    await as(token).get('/api/v1/tables/list');
    await server.services.security.flush();
    expect(JSON.stringify(env.logs)).not.toContain(token);
  });
});
