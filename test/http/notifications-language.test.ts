// Messages that leave the box speak the recipient's language, against real peers: an SMTP server
// on loopback (aiosmtpd, requiring AUTH) and local HTTP receivers checking the signature. An alarm
// the box raised with its own text (a message key with parameters, the way the comm-loss watcher
// raises it) reaches a Russian e-mail channel in Russian and a channel without a language in the
// site's default (site_language es) in Spanish, and two webhooks (ru, es) with the machine fields
// unchanged, the keys and parameters, and the words in their language: numbers with a decimal
// comma, the time on the site's clock. Test messages go out in the channel's language too. A
// language the box does not offer is 400 naming item.language and changes nothing; one a site
// added (a catalogue file in data_dir/i18n) is accepted.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { freePort, Receiver, SmtpSink, until, verifySignature } from '../helpers/notification-peers.js';
import type { RunningServer } from '../../src/server.js';

const SMTP_USER = 'cabinet-box';
const SMTP_PASSWORD = 'smtp-Pa55-language-test-2b7e';
const KEY = 'whk-language-test-signing-key-5d1a';
const SITE = { tenant_id: 'farm-l', site_id: 'site-1' };
const ZONE = 'Europe/Madrid';
/** The box's own text of a controller that stopped answering (src/i18n/messages/<lang>/box.json). */
const TEXT = {
  title_key: 'box.comm_loss.controller.title',
  message_key: 'box.comm_loss.controller.message',
  params: { industry: 'poultry', unit: '3', controller: 'h3-climate', misses: 5 },
};

describe('notification channels in their own language', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let smtp: SmtpSink;
  const ruHooks = new Receiver();
  const esHooks = new Receiver();

  const mail = (id: string, extra: Record<string, unknown>) => admin.post('/api/v1/notification-channels', { item: {
    id, name: id, kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_user: SMTP_USER, smtp_password: SMTP_PASSWORD,
    smtp_from: 'box@farm-l.test', site_name: 'Granja Norte', link_url: 'http://box.farm-l.test:8080/', ...extra,
  } });
  const hook = (id: string, url: string, extra: Record<string, unknown>) => admin.post('/api/v1/notification-channels', { item: { id, name: id, kind: 'webhook', webhook_url: url, webhook_key: KEY, site_name: 'Granja Norte', ...extra } });
  const words = (lang: string, key: string) => server.services.catalogues.translator(lang, server.services.config.site_locale).t(key, TEXT.params);

  beforeAll(async () => {
    smtp = new SmtpSink(await freePort(), SMTP_USER, SMTP_PASSWORD);
    await smtp.start();
    await ruHooks.start('/hooks/ru');
    await esHooks.start('/hooks/es');
    env = await createTestEnv('sqlite');
    writeFileSync(join(env.dataDir, 'site.json'), JSON.stringify(SITE));
    server = await env.start({ mqtt_broker: 'off', site_timezone: ZONE, site_language: 'es', shutdown_timeout_ms: '1000' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'boss', role: 'admin', scope_type: 'tenant', ...SITE }, master.contract);
  });
  afterAll(async () => {
    await smtp?.close();
    await ruHooks.stop();
    await esHooks.stop();
    await env?.cleanup();
  });

  it('keeps a language the box offers (none: the site\'s default), refuses any other naming item.language, and changes nothing then', async () => {
    expect((await mail('mail-ru', { language: 'ru', recipients: ['ru@farm-l.test'] })).body.item).toMatchObject({ id: 'mail-ru', language: 'ru' });
    expect((await mail('mail-site', { recipients: ['es@farm-l.test'] })).body.item).toMatchObject({ id: 'mail-site', language: null });
    expect((await hook('hook-ru', ruHooks.url, { language: 'ru' })).status).toBe(201);
    expect((await hook('hook-es', esHooks.url, { language: 'es' })).status).toBe(201);

    for (const language of ['de', 'xx', 'RU', 'russian', '', 7]) {
      const r = await mail(`bad-${String(language)}`, { language });
      expect(r.status, String(language)).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
      expect(r.body.error.details.map((d: { field: string }) => d.field)).toContain('item.language');
    }
    const patched = await admin.patch('/api/v1/notification-channels/mail-ru', { item: { language: 'de', name: 'renamed' } });
    expect(patched.status).toBe(400);
    expect(patched.body.error.details[0]).toMatchObject({ field: 'item.language', reason: 'unknown_language' });
    expect((await admin.get('/api/v1/notification-channels/mail-ru')).body.item).toMatchObject({ name: 'mail-ru', language: 'ru' });
    expect((await admin.get('/api/v1/notification-channels/list')).body.total).toBe(4);

    // A language the site added (its catalogue file) is offered, and a channel may take it.
    mkdirSync(join(env.dataDir, 'i18n'), { recursive: true });
    writeFileSync(join(env.dataDir, 'i18n', 'pt.json'), JSON.stringify({ 'notifications.message.site': 'Local {site}' }));
    const offered = await until('pt offered', async () => {
      // Read as the shell reads it (a public file of the shell's, not an API route).
      const body = (await (await fetch(`${server.url}/app/i18n/languages.json`)).json()) as { default: string; languages: { code: string }[] };
      return body.languages.some((l) => l.code === 'pt') && body;
    }, 10_000);
    expect(offered.default).toBe('es');
    expect((await admin.patch('/api/v1/notification-channels/hook-es', { item: { language: 'pt' } })).body.item.language).toBe('pt');
    expect((await admin.patch('/api/v1/notification-channels/hook-es', { item: { language: 'es' } })).body.item.language).toBe('es');
  });

  it('writes an alarm the box raised with its own text in each channel\'s language: e-mail and webhook, Russian and Spanish', async () => {
    for (const item of [
      { id: 'r-ru', name: 'ru crew', channel_id: 'mail-ru', priorities: ['P1'] },
      { id: 'r-site', name: 'es crew', channel_id: 'mail-site', priorities: ['P1'] },
      { id: 'r-hook-ru', name: 'ru hook', channel_id: 'hook-ru', priorities: ['P1'] },
      { id: 'r-hook-es', name: 'es hook', channel_id: 'hook-es', priorities: ['P1'] },
    ]) expect((await admin.post('/api/v1/notification-rules', { item })).status).toBe(201);

    const raisedAt = new Date();
    const { event } = await server.services.industryAlarms!.raise({
      ...SITE, industry_code: 'poultry', unit_id: '3', severity: 'critical', priority: 'P1', source: 'device-polling', actor: 'device-polling',
      metric: 'temp', value: 14.25, details: { threshold: 18 }, correlation_id: 'lang-1', text: TEXT,
    });
    const hhmm = new Intl.DateTimeFormat('en-GB', { timeZone: ZONE, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(raisedAt);
    const inLanguage = (l: string) => ({ title: words(l, TEXT.title_key), message: words(l, TEXT.message_key) });
    const [en, ru, es] = [inLanguage('en'), inLanguage('ru'), inLanguage('es')];
    // The catalogues have the box's words in each language (else this test would prove nothing).
    expect(event.title).toBe(en.title);
    expect(ru.title).not.toBe(en.title);
    expect(es.title).not.toBe(en.title);
    expect(ru.message).toMatch(/5 раз/);

    const toRu = await until('the Russian e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('ru@farm-l.test')));
    expect(toRu.subject).toBe(`Granja Norte: ${ru.title} [P1, критическая]`);
    const ruLines = toRu.text.split(/\r?\n/);
    expect(ruLines.slice(0, 5)).toEqual([
      'Площадка: Granja Norte',
      `${ru.title}, 14,25 °C при пороге 18 °C, с ${hhmm}.`,
      ru.message,
      'Новая тревога, не подтверждена. Приоритет: P1, важность: критическая.',
      'Открыть систему: http://box.farm-l.test:8080/',
    ]);
    expect(ruLines.at(-1)).toBe(`Тревога ${event.id}, корреляция lang-1, источник: device-polling.`);

    // No language of its own: the site's default, Spanish.
    const toEs = await until('the Spanish e-mail', () => smtp.messages().find((m) => m.rcpt_tos.includes('es@farm-l.test')));
    expect(toEs.subject).toBe(`Granja Norte: ${es.title} [P1 crítica]`);
    expect(toEs.text.split(/\r?\n/).slice(0, 5)).toEqual([
      'Instalación: Granja Norte',
      `${es.title}, 14,25 °C con un límite de 18 °C, desde las ${hhmm}.`,
      es.message,
      'Alarma nueva, sin confirmar. Prioridad: P1, gravedad: crítica.',
      'Abrir el sistema: http://box.farm-l.test:8080/',
    ]);

    for (const [hooks, lang, w] of [[ruHooks, 'ru', ru], [esHooks, 'es', es]] as const) {
      const got = await until(`the ${lang} webhook`, () => hooks.got.find((h) => JSON.parse(h.body).event === 'raised'));
      expect(verifySignature(got, KEY)).toBe(true);
      const body = JSON.parse(got.body);
      // The machine fields as in any language; the words in the channel's, with the keys and parameters they come from.
      expect(body).toMatchObject({
        event: 'raised', language: lang, site: { tenant_id: 'farm-l', site_id: 'site-1', name: 'Granja Norte' },
        alarm: {
          id: event.id, title: en.title, message: en.message, severity: 'critical', priority: 'P1', unit_id: '3', metric: 'temp', value: 14.25, threshold: 18, unit: '°C',
          title_key: TEXT.title_key, message_key: TEXT.message_key, text_params: TEXT.params, rendered: { title: w.title, message: w.message },
        },
      });
      expect(body.subject).toContain(w.title);
      expect(body.text).toContain(`${w.title}, 14,25 °C`);
      expect(body.text).toContain(w.message);
    }
    // The deliveries list what was sent, as it was written.
    const listed = (await admin.get(`/api/v1/notification-deliveries/list?alarm_id=${event.id}&recipient=ru@farm-l.test`)).body.items;
    expect(listed.map((d: { subject: string }) => d.subject)).toEqual([toRu.subject]);
  });

  it('sends a channel\'s test message in its language; the answer\'s words stay English, a refusal carries its words\' key and parameters', async () => {
    const test = (id: string) => admin.post('/api/v1/notification-channels/commands/test', { id });
    const ru = await test('mail-ru');
    expect(ru.status).toBe(200);
    expect(ru.body.item).toMatchObject({ language: 'ru', words: `Sent: the mail server accepted it (${ru.body.item.reply}).` });
    const ruMail = await until('the Russian test e-mail', () => smtp.messages().find((m) => m.subject.includes('mail-ru') && m.subject.includes('проверочное')));
    expect(ruMail.subject).toBe('Granja Norte: проверочное сообщение (канал mail-ru)');
    expect(ruMail.text).toContain('Это проверочное сообщение канала «mail-ru»');

    expect((await test('mail-site')).body.item.language).toBe('es');
    const esMail = await until('the Spanish test e-mail', () => smtp.messages().find((m) => m.subject === 'Granja Norte: mensaje de prueba (canal mail-site)'));
    expect(esMail.text).toContain('No hace falta hacer nada.');

    // A webhook channel back to the site's default writes in it.
    expect((await admin.patch('/api/v1/notification-channels/hook-ru', { item: { language: null } })).body.item.language).toBeNull();
    expect((await test('hook-ru')).body.item.language).toBe('es');
    const testHook = await until('the test webhook', () => ruHooks.got.find((h) => JSON.parse(h.body).event === 'test'));
    expect(JSON.parse(testHook.body)).toMatchObject({ event: 'test', language: 'es', alarm: null, subject: 'Granja Norte: mensaje de prueba (canal hook-ru)' });

    esHooks.answer = 500;
    const refused = await test('hook-es');
    esHooks.answer = 204;
    expect(refused.status).toBe(502);
    expect(refused.body.error.message).toBe(`The test message was not sent: the receiver at ${esHooks.url} answered 500 (an error on the receiver), not success.`);
    expect(refused.body.error.details[0]).toMatchObject({
      field: 'id', reason: 'answered_error', words_key: 'notifications.test_result.why.answered_error', kind: 'webhook', url: esHooks.url, status: 500, statusKind: 'error',
    });
    // The shell's words for it, from the same key and parameters, in Russian.
    const tr = server.services.catalogues.translator('ru');
    expect(tr.t('notifications.test_result.failed', { why: tr.t(refused.body.error.details[0].words_key, refused.body.error.details[0]) }))
      .toBe(`Проверочное сообщение не отправлено: получатель по адресу ${esHooks.url} ответил 500 (ошибка у получателя), а не «успешно».`);
  });
});
