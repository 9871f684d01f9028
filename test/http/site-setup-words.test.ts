// The site set-up list's words are message keys with parameters beside their English: every line
// carries title_key/title_params and text_key/text_params; its English title and words are the
// English rendering of those keys (a site's own en.json changes them, so the wording exists once);
// the same key and parameters render in Russian and Spanish. Instants travel as RFC 3339 in *_at
// parameters and read as the site's clocks in the English.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { freePort } from '../helpers/notification-peers.js';
import { waitFor } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';
import { createCatalogues } from '../../src/i18n/site-catalogues.js';
import { englishParams, siteInstant } from '../../src/kernel/setup.js';

type Params = Record<string, string | number>;
interface Line { id: string; state: string; title: string; title_key: string; title_params: Params; words: string; text_key: string; text_params: Params }

const shipped = createCatalogues({ dir: undefined });
const render = (lang: string, key: string, params: Params) => shipped.translator(lang).t(key, englishParams({ site_timezone: 'UTC' }, params));

describe('site set-up words as keys', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let tenant = '';

  const lines = async (): Promise<Line[]> => {
    const r = await admin.get('/api/v1/site-setup/list');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.items as Line[];
  };
  const line = async (id: string) => (await lines()).find((l) => l.id === id)!;
  const issue = async (holder: string, role: 'admin' | 'operator') => {
    const r = await admin.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder, scope: 'tenant', tenant_id: tenant, role, ttl_minutes: 600 });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
  };

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    // The site's clocks are not UTC: the English words must read them, not the server's zone.
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', site_timezone: 'Asia/Kolkata', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    tenant = (JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string }).tenant_id;
    const owner = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', tenant_id: tenant }, owner.contract);
  }, 90_000);
  afterAll(async () => {
    await env?.cleanup();
  });

  it('every line carries its keys and parameters, and its English is the English rendering of them', async () => {
    const all = await lines();
    expect(all).toHaveLength(7);
    for (const l of all) {
      expect(l.title_key, l.id).toMatch(/^setup\./);
      expect(l.text_key, l.id).toMatch(/^setup\./);
      expect(typeof l.title_params, l.id).toBe('object');
      expect(typeof l.text_params, l.id).toBe('object');
      expect(l.title, l.id).toBe(render('en', l.title_key, l.title_params));
      expect(l.words, l.id).toBe(render('en', l.text_key, l.text_params));
      // a key this box ships in every language, rendered there (not the key itself, not English)
      for (const lang of ['ru', 'es']) {
        const words = render(lang, l.text_key, l.text_params);
        expect(words, `${l.id} ${lang}`).not.toBe(l.text_key);
        expect(words, `${l.id} ${lang}`).not.toBe(l.words);
        expect(words, `${l.id} ${lang}`).not.toMatch(/[{}]/);
      }
    }
    const siren = all.find((l) => l.id === 'siren')!;
    expect(siren).toMatchObject({ state: 'missing', text_key: 'setup.siren.none', text_params: {} });
    expect(render('ru', siren.text_key, siren.text_params)).toBe('Выхода сирены нет: неподтверждённая тревога P1 звучит только на планшетах. Сторожевого выхода нет: автодозвонщик не узнает, что сам блок остановился.');
    expect(render('es', siren.text_key, siren.text_params)).toMatch(/^Sin salida de sirena: una P1 sin confirmar suena solo en las tabletas\./);
    const units = all.find((l) => l.id === 'poultry-units')!;
    expect(units).toMatchObject({ title: 'Houses and their flocks', title_key: 'setup.units.title_flocks', title_params: { unit: 'house' } });
    expect(render('ru', units.title_key, units.title_params)).toBe('Корпуса и их стада');
    expect(render('es', units.title_key, units.title_params)).toBe('Naves y sus lotes');
  });

  it('counts, names and instants travel as parameters: plurals in each language, times as the site reads them', async () => {
    await issue('Installer', 'admin');
    await issue('Night shift', 'operator');
    const closed = await freePort(); // nothing listens there: the controller and the siren never answer
    expect((await admin.post('/api/v1/poultry-adapters', { item: {
      unit_id: '1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: closed, modbus_unit_id: 1,
      points: [{ key: 'target_temp_c', address: 0, scale: 10 }], readings: [{ key: 'temp', object_type: 'input register', address: 0, scale: 10 }], poll_period_s: 1,
    } })).status).toBe(201);
    const siren = await admin.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: closed, coil: 0, period_s: 1 });
    expect(siren.status, JSON.stringify(siren.body)).toBe(200);

    const people = await line('people');
    expect(people).toMatchObject({ state: 'attention', text_key: 'setup.people.one_admin', text_params: { admins: 1, operators: 1 } });
    expect(people.words).toBe('1 admin card and 1 operator card in use. Only one admin card: if it is lost, nobody can change the box\'s set-up. Issue a second one and keep it apart.');
    expect(render('ru', people.text_key, people.text_params)).toMatch(/^Действующие карты: администратора — 1, оператора — 1\. Карта администратора только одна/);
    expect(render('es', people.text_key, people.text_params)).toMatch(/^1 tarjeta de administrador y 1 tarjeta de operario en uso\./);

    const units = await line('poultry-units');
    expect(units).toMatchObject({ text_key: 'setup.units.no_flock', text_params: { unit: 'house', n: 1, empty: '1' } });
    expect(render('ru', units.text_key, units.text_params)).toMatch(/^1 корпус; без стада: 1\./);
    // Russian plural forms of the same key: 2 корпуса, 5 корпусов, 21 корпус
    expect([2, 5, 21].map((n) => render('ru', units.text_key, { ...units.text_params, n }).split(';')[0])).toEqual(['2 корпуса', '5 корпусов', '21 корпус']);

    await waitFor(async () => (await line('poultry-controllers')).text_key === 'setup.controllers.lost_one', 20_000, 'the controller lost');
    const controllers = await line('poultry-controllers');
    expect(controllers.text_params).toMatchObject({ answering: 0, total: 1, controller: 'house-1-climate', unit: 'house', unit_id: '1', seen: 'no' });
    expect(controllers.words).toBe('0 of 1 controller answering. house-1-climate (House 1), never answered.');
    expect(render('ru', controllers.text_key, controllers.text_params)).toBe('На связи: 0 из 1 контроллера. house-1-climate (корпус 1) ни разу не ответил.');
    expect(render('es', controllers.text_key, controllers.text_params)).toBe('Responden 0 de 1 controlador. house-1-climate (nave 1) nunca ha respondido.');

    await waitFor(async () => (await line('siren')).text_key === 'setup.siren.failing', 20_000, 'the siren output failing');
    const failing = await line('siren');
    const since = String(failing.text_params.since_at);
    expect(since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    expect(failing.text_params).toMatchObject({ output: 'siren', seen: 'yes' });
    // the English reads the site's clocks (Asia/Kolkata, UTC+5:30), not the server's
    const local = siteInstant({ site_timezone: 'Asia/Kolkata' }, since);
    expect(local).toMatch(/\d\d:\d\d$/);
    expect(failing.words).toBe(`The siren output does not answer since ${local}: its alarm is open.`);
    expect(failing.words).toBe(shipped.translator('en').t(failing.text_key, englishParams({ site_timezone: 'Asia/Kolkata' }, failing.text_params)));
    expect(render('ru', failing.text_key, failing.text_params)).toMatch(/^Выход сирены не отвечает с [^:]*\d\d:\d\d: по нему открыта тревога\.$/);
    expect(render('es', failing.text_key, failing.text_params)).toMatch(/^La salida de sirena no responde desde [^:]*\d\d:\d\d: su alarma está abierta\.$/);
  });

  it('a site\'s own English file changes the English fields: the wording lives in the catalogue only', async () => {
    mkdirSync(join(env.dataDir, 'i18n'), { recursive: true });
    writeFileSync(join(env.dataDir, 'i18n', 'en.json'), JSON.stringify({ 'setup.master.title': 'Head office link' }));
    await waitFor(async () => (await line('master')).title === 'Head office link', 10_000, 'the site\'s English read');
    expect((await line('master')).title_key).toBe('setup.master.title');
  });
});
