// A person's language, over HTTP on both engines: kept on their card or badge (issued with it, changed
// by an admin or by the person for their own card), answered by app/context as user.language beside
// the site's default (display.language); a language the box does not offer is 400 and changes nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('a person\'s language (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;

  const issue = (body: Record<string, unknown>) =>
    admin.post('/api/v1/passkeys/commands/issue', { type: 'qr', ttl_minutes: 60, holder: 'Anna', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ...body });
  const count = async () => (await admin.get('/api/v1/passkeys/list?limit=1')).body.total as number;
  /** A client logged in with the card (an RFID card at the panel: the test runs on loopback, the panel's address). */
  const cardClient = async (credential: string): Promise<Client> => {
    const c = await createClient(server.url, {}, admin.contract);
    const ch = await c.post('/api/v1/auth/passkey/commands/start', { method: 'rfid' });
    const done = await c.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.body.item.challenge_id, credential });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    const session = /cabinet_session=([^;]+)/.exec(done.headers.get('set-cookie') ?? '')?.[1];
    return c.withHeaders({ cookie: `cabinet_session=${session}` });
  };
  const context = async (c: Client) => (await c.get('/api/v1/app/context')).body.item as { user: { language: string | null }; display: { language: string; locale: string } };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ site_language: 'es', site_locale: 'es-AR', mqtt_broker: 'off' });
    admin = await clientAs(env, server);
  });
  afterAll(async () => env?.cleanup());

  it('a card issued with Russian logs in and app/context answers it, beside the site default', async () => {
    const r = await issue({ type: 'rfid', card_uid: '04AA000001', language: 'ru' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    expect(r.body.item.language).toBe('ru');
    expect((await admin.get(`/api/v1/passkeys/${r.body.item.id}`)).body.item.language).toBe('ru');
    const anna = await cardClient(r.body.item.credential);
    const ctx = await context(anna);
    expect(ctx.user.language).toBe('ru');
    expect(ctx.display).toMatchObject({ language: 'es', locale: 'es-AR' });
    // A card issued without one reads in the site's default: null, and the shell takes display.language.
    const plain = await issue({ type: 'rfid', card_uid: '04AA000002' });
    expect(plain.body.item.language).toBeNull();
    expect((await context(await cardClient(plain.body.item.credential))).user.language).toBeNull();
    // A token is no person's card: no language of its own.
    expect((await context(admin)).user.language).toBeNull();
  });

  it('a master badge (how a fleet person logs in on a master) carries its language the same way', async () => {
    const r = await issue({ scope: 'master', tenant_id: undefined, role: 'admin', holder: 'Fleet desk', language: 'es' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const badge = await siteClient(server.url, r.body.item.credential, admin.contract);
    const ctx = await context(badge);
    expect(ctx.user).toMatchObject({ scope_type: 'master', language: 'es' });
  });

  it('a language the box does not offer is 400 validation_error and issues nothing', async () => {
    const before = await count();
    for (const language of ['de', 'Russian', '']) {
      const r = await issue({ language });
      expect(r.status, language).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain('language');
    }
    expect((await issue({ language: 'de' })).body.error.details).toEqual([{ field: 'language', reason: 'unknown_language' }]);
    expect(await count()).toBe(before);
    // A catalogue the site adds (data_dir/i18n) is a language the box offers from then on.
    mkdirSync(join(env.dataDir, 'i18n'), { recursive: true });
    writeFileSync(join(env.dataDir, 'i18n', 'de.json'), JSON.stringify({ 'common.yes': 'Ja' }));
    const added = await issue({ language: 'de' });
    expect(added.status, JSON.stringify(added.body)).toBe(201);
    expect(added.body.item.language).toBe('de');
  });

  it('a person changes their own card\'s language, audited; never another\'s, never to an unknown one', async () => {
    const r = await issue({ type: 'rfid', card_uid: '04AA000003', language: 'ru', holder: 'Boris' });
    const boris = await cardClient(r.body.item.credential);
    const set = await boris.post('/api/v1/auth/commands/set-language', { language: 'en' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.item).toEqual({ language: 'en' });
    expect((await context(boris)).user.language).toBe('en');
    expect((await admin.get(`/api/v1/passkeys/${r.body.item.id}`)).body.item.language).toBe('en');

    const bad = await boris.post('/api/v1/auth/commands/set-language', { language: 'xx' });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details).toEqual([{ field: 'language', reason: 'unknown_language' }]);
    expect((await context(boris)).user.language).toBe('en');
    // The body names no card: only the caller's own changes (an id is refused as an unknown field).
    const other = await issue({ type: 'rfid', card_uid: '04AA000004', language: 'ru', holder: 'Clara' });
    const foreign = await boris.post('/api/v1/auth/commands/set-language', { language: 'es', id: other.body.item.id });
    expect(foreign.status).toBe(400);
    expect((await admin.get(`/api/v1/passkeys/${other.body.item.id}`)).body.item.language).toBe('ru');
    // An operator may not change another card through the passkeys command either.
    const viaAdmin = await boris.post('/api/v1/passkeys/commands/set-language', { id: other.body.item.id, language: 'es' });
    expect(viaAdmin.status).toBe(403);

    // null: back to the site's default.
    expect((await boris.post('/api/v1/auth/commands/set-language', { language: null })).status).toBe(200);
    expect((await context(boris)).user.language).toBeNull();

    const audit = await admin.get('/api/v1/audit/list?action=auth.set-language&limit=50');
    const mine = (audit.body.items as { actor: string; details: { from: string | null; to: string | null } }[]).filter((a) => a.actor === r.body.item.id);
    expect(mine.map((a) => [a.details.from, a.details.to]).sort()).toEqual([['en', null], ['ru', 'en']].sort());

    // A token session has no card to keep a language on.
    const token = await admin.post('/api/v1/auth/commands/set-language', { language: 'ru' });
    expect(token.status).toBe(409);
    expect(token.body.error.code).toBe('lifecycle_conflict');
  });

  it('an admin sets a card\'s language (passkeys/commands/set-language), audited', async () => {
    const r = await issue({ type: 'rfid', card_uid: '04AA000005', holder: 'Dana' });
    const set = await admin.post('/api/v1/passkeys/commands/set-language', { id: r.body.item.id, language: 'ru' });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.item.language).toBe('ru');
    expect((await admin.post('/api/v1/passkeys/commands/set-language', { id: r.body.item.id, language: 'zz' })).status).toBe(400);
    expect((await admin.post('/api/v1/passkeys/commands/set-language', { id: 'PK-NOSUCHCARD', language: 'ru' })).status).toBe(404);
    expect((await context(await cardClient(r.body.item.credential))).user.language).toBe('ru');
    const audit = await admin.get('/api/v1/audit/list?action=passkeys.set-language');
    expect(audit.body.items.some((a: { details: { id: string; to: string } }) => a.details.id === r.body.item.id && a.details.to === 'ru')).toBe(true);
    // The form's schema offers the shipped languages.
    const scheme = await admin.get('/api/v1/passkeys/scheme');
    const issueCmd = scheme.body.item.commands.find((c: { name: string }) => c.name === 'issue');
    expect(JSON.stringify(issueCmd.body.properties.language)).toContain('"enum":["en","ru","es"]');
  });
});
