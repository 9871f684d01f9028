// The Notifications screen in Russian in Debian's Chromium (a tablet set to ru: localStorage
// cabinet-i18n.choice before the shell loads): headings, channel cards, the channel form with its
// language choice (the site's default first, named, then each language by its own name), a
// channel's language changed from the form and kept by the box, a test message sent in the
// channel's language and its answer in the reader's, a webhook's refusal in Russian words, the
// rule form and a validation error, and the messages sent in words. No English word of the screen
// is left; nothing is cut or runs past its card (scrollWidth against clientWidth) in either
// orientation; axe clean; screenshots of each state.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { freePort, Receiver, SmtpSink, until } from '../helpers/notification-peers.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator } from '../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';

const USER = 'farm-box';
const PASSWORD = 'smtp-Pa55-russian-screen-8c4d';
const KEY = 'whk-russian-screen-signing-key-3e9f';
const SITE = { tenant_id: 'farm-r', site_id: 'site-1' };
const w = makeTranslator('ru', formatLocale('ru', 'en-GB'), BUILT_IN.ru, BUILT_IN.en);

/** Minimal element shape for code run in the page (the test's tsconfig has no DOM types). */
interface Box { tagName: string; className: string; textContent: string | null; scrollWidth: number; clientWidth: number; getBoundingClientRect(): { left: number; right: number; width: number }; ownerDocument: { documentElement: { clientWidth: number } } }

/** What a person reads on this screen, and the cards that hold it: the text must fit its box. */
const FITS = ['h1', 'h2', 'h3', 'p', 'label', 'legend', 'button', '.badge', 'small', '.field-error', 'dt', 'dd', 'select', 'li.card', '.delivery-head', '.test-outcome']
  .map((s) => `#main [data-screen="Notifications"] ${s}`).join(', ');

async function overflowing(page: Page): Promise<string[]> {
  return page.locator(FITS).evaluateAll((els) =>
    (els as unknown as Box[]).flatMap((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0) return [];
      const cut = e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1;
      const out = r.right > e.ownerDocument.documentElement.clientWidth + 1 || r.left < -1;
      return cut || out ? [`${e.tagName.toLowerCase()}.${e.className} "${(e.textContent ?? '').trim().slice(0, 50)}" scroll ${e.scrollWidth} > client ${e.clientWidth}, right ${Math.round(r.right)}`] : [];
    }),
  );
}

/** No text cut and axe clean in both orientations; screenshots of both, with `at` in view (at the top, or in the middle). */
async function checkBoth(page: Page, name: string, at: string, block: 'start' | 'center' = 'start'): Promise<string[]> {
  const found: string[] = [];
  for (const size of [LANDSCAPE, PORTRAIT]) {
    await page.setViewportSize(size);
    await page.waitForFunction((width) => (globalThis as unknown as { innerWidth: number }).innerWidth === width, size.width);
    for (const o of await overflowing(page)) found.push(`${size.width}x${size.height}: ${o}`);
    for (const v of await axeSerious(page)) found.push(`${size.width}x${size.height}: axe ${v}`);
  }
  await page.setViewportSize(LANDSCAPE);
  await page.locator(at).first().evaluate((e, b) => (e as unknown as { scrollIntoView(o: object): void }).scrollIntoView({ block: b }), block);
  if (block === 'start') await page.evaluate(() => (globalThis as unknown as { scrollBy(x: number, y: number): void }).scrollBy(0, -70));
  await shoot(page, name);
  return found;
}

/** The screen's English texts (without arguments) that read differently in Russian: none may show. */
const ENGLISH = new Set(Object.keys(BUILT_IN.en).filter((k) => k.startsWith('notifications.') && !BUILT_IN.en[k]!.includes('{') && BUILT_IN.ru[k] !== BUILT_IN.en[k]).map((k) => BUILT_IN.en[k]!));

async function englishLeft(page: Page): Promise<string[]> {
  const all = await page.locator('#main [data-screen="Notifications"] *').evaluateAll((els) =>
    (els as unknown as { childElementCount: number; textContent: string | null }[]).filter((e) => e.childElementCount === 0).map((e) => (e.textContent ?? '').trim()));
  return all.filter((x) => ENGLISH.has(x));
}

describe('the Notifications screen in Russian', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let browser: Browser;
  let smtp: SmtpSink;
  const hooks = new Receiver();
  let card = '';
  let page: Page;

  beforeAll(async () => {
    smtp = new SmtpSink(await freePort(), USER, PASSWORD);
    await smtp.start();
    await hooks.start();
    env = await createTestEnv('sqlite');
    writeFileSync(join(env.dataDir, 'site.json'), JSON.stringify(SITE));
    server = await env.start({ mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', ...SITE }, master.contract);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Установщик', scope: 'tenant', ...SITE, role: 'admin', ttl_minutes: 60, card_uid: '04E0000001' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    card = r.body.item.credential as string;

    // Three channels: a Russian e-mail, a Spanish webhook, and one in the site's default whose server is gone.
    const mail = { kind: 'email', smtp_host: '127.0.0.1', smtp_tls: 'none', smtp_user: USER, smtp_password: PASSWORD, smtp_from: 'box@farm-r.test', site_name: 'Ферма Север' };
    for (const item of [
      { id: 'mail', name: 'Почта фермы', ...mail, smtp_port: smtp.port, recipients: ['crew@farm-r.test', 'boss@farm-r.test'], language: 'ru' },
      { id: 'hook', name: 'Автодозвон', kind: 'webhook', webhook_url: hooks.url, webhook_key: KEY, language: 'es' },
      { id: 'old', name: 'Старый сервер', ...mail, smtp_port: await freePort(), recipients: ['office@farm-r.test'], retry_max_attempts: 1 },
    ]) expect((await admin.post('/api/v1/notification-channels', { item })).status).toBe(201);
    for (const item of [
      { id: 'crew', name: 'Смена сразу', channel_id: 'mail', priorities: ['P1'], unit_ids: ['3'], max_escalation_level: 0 },
      { id: 'dialler', name: 'Автодозвон по P1', channel_id: 'hook', priorities: ['P1'], on_clear: true },
      { id: 'office', name: 'Копия в офис', channel_id: 'old', on_ack: true },
    ]) expect((await admin.post('/api/v1/notification-rules', { item })).status).toBe(201);
    // An alarm the box raised with its own text: its messages are written in each channel's language.
    await server.services.industryAlarms!.raise({
      ...SITE, industry_code: 'poultry', unit_id: '3', severity: 'critical', priority: 'P1', source: 'device-polling', actor: 'device-polling',
      text: { title_key: 'box.comm_loss.controller.title', message_key: 'box.comm_loss.controller.message', params: { industry: 'poultry', unit: '3', controller: 'h3-climate', misses: 5 } },
    });
    await until('the deliveries settled', async () => {
      const d = (await admin.get('/api/v1/notification-deliveries/list?limit=50')).body;
      return d.total === 4 && d.items.every((x: { status: string }) => x.status === 'sent' || x.status === 'failed');
    });
    browser = await launch();
    ({ page } = await newPage(browser));
    await page.context().addInitScript(() => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', 'ru'));
    await rfidLogin(page, server.url, card);
    await page.waitForFunction(() => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === 'ru');
    await page.goto(`${server.url}/#/m/notifications`);
    await page.locator('h1', { hasText: w.t('notifications.title') }).waitFor();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
    await hooks.stop();
    await env?.cleanup();
  });

  const cardOf = (name: string) => page.locator(`li[data-channel="${name}"]`);

  it('reads the channels, a test message and a refusal in Russian; the test goes out in the channel\'s language', async () => {
    expect(await page.locator('#channels-h').textContent()).toBe(w.t('notifications.channels'));
    expect(await page.locator('#rules-h').textContent()).toBe(w.t('notifications.rules'));
    // Each channel's language by its own name; none: the site's default, named.
    expect(await cardOf('Почта фермы').innerText()).toContain(`${w.t('notifications.channel.language')}\nРусский`);
    expect(await cardOf('Автодозвон').innerText()).toContain(`${w.t('notifications.channel.language')}\nEspañol`);
    expect(await cardOf('Старый сервер').innerText()).toContain(w.t('notifications.form.language_default', { name: 'English' }));
    expect(await cardOf('Почта фермы').innerText()).toContain(w.t('notifications.channel.login_value', { user: USER, password: 'set' }));
    expect(await page.locator('li[data-rule="Смена сразу"] .rule-words').innerText())
      .toBe('Тревоги P1 (Корпус 3) уходят по почте на crew@farm-r.test и boss@farm-r.test: новая тревога и тревога не подтверждена вовремя (при каждой эскалации); только сразу.');

    await cardOf('Почта фермы').getByRole('button', { name: w.t('notifications.channel.test') }).click();
    const outcome = cardOf('Почта фермы').locator('[data-test-outcome]');
    await expect.poll(() => outcome.getAttribute('data-test-outcome')).toBe('sent');
    expect(await outcome.innerText()).toMatch(/^Отправлено: почтовый сервер принял письмо \(250 .+\)\.$/);
    const test = await until('the Russian test e-mail', () => smtp.messages().find((m) => m.subject.includes('проверочное')));
    expect(test.subject).toBe('Ферма Север: проверочное сообщение (канал Почта фермы)');

    hooks.answer = 500;
    await cardOf('Автодозвон').getByRole('button', { name: w.t('notifications.channel.test') }).click();
    const refused = cardOf('Автодозвон').locator('[data-test-outcome]');
    await expect.poll(() => refused.getAttribute('data-test-outcome')).toBe('failed');
    hooks.answer = 204;
    expect(await refused.innerText()).toBe(`Проверочное сообщение не отправлено: получатель по адресу ${hooks.url} ответил 500 (ошибка у получателя), а не «успешно».`);
    // The webhook's test went out in its own language, Spanish.
    expect(JSON.parse(hooks.got.at(-1)!.body)).toMatchObject({ event: 'test', language: 'es' });

    expect(await englishLeft(page)).toEqual([]);
    expect(await checkBoth(page, 'notifications-ru', '#channels')).toEqual([]);
  });

  it('chooses a channel\'s language on its form, each by its own name, the site\'s default first; the box keeps it', async () => {
    await cardOf('Старый сервер').getByRole('button', { name: w.t('notifications.change') }).click();
    const form = page.locator('form[data-channel-form="email"]');
    const choice = form.getByLabel(w.t('notifications.form.language'), { exact: true });
    expect(await choice.locator('option').allTextContents()).toEqual([w.t('notifications.form.language_default', { name: 'English' }), 'English', 'Русский', 'Español']);
    expect(await choice.locator('option').evaluateAll((os) => os.map((o) => (o as unknown as { lang: string }).lang))).toEqual(['', 'en', 'ru', 'es']);
    expect(await choice.inputValue()).toBe('');
    expect(await form.locator('h3').textContent()).toBe(w.t('notifications.form.change_title', { name: 'Старый сервер' }));
    // A wrong address is said in Russian as it is typed.
    await form.getByLabel(w.t('notifications.form.from'), { exact: true }).fill('не адрес');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => form.locator('[data-row$="-smtp_from"] .field-error').textContent()).toBe(w.t('notifications.form.from_wrong'));
    expect(await englishLeft(page)).toEqual([]);
    expect(await checkBoth(page, 'notifications-ru-channel-form', 'form[data-channel-form="email"] [data-row$="-language"]', 'center')).toEqual([]);

    await form.getByLabel(w.t('notifications.form.from'), { exact: true }).fill('box@farm-r.test');
    await choice.selectOption({ label: 'Русский' });
    await form.locator('button[type="submit"]').click();
    await page.locator('[role="status"]', { hasText: w.t('notifications.saved', { name: 'Старый сервер' }) }).waitFor();
    expect((await admin.get('/api/v1/notification-channels/old')).body.item.language).toBe('ru');
    expect(await cardOf('Старый сервер').innerText()).toContain(`${w.t('notifications.channel.language')}\nРусский`);
  });

  it('reads the rule form with its validation and the messages sent in Russian', async () => {
    await page.locator('#add-rule').click();
    const form = page.locator('form[data-rule-form="new"]');
    expect(await form.locator('h3').textContent()).toBe(w.t('notifications.ruleform.new_title'));
    await form.getByLabel(w.t('notifications.ruleform.only_these', { industry: 'poultry' }), { exact: true }).check();
    await form.getByLabel(w.t('notifications.ruleform.numbers', { industry: 'poultry', others: 'no' }), { exact: true }).fill('3, корпус-пять!');
    await form.locator('button[type="submit"]').click();
    await expect.poll(() => form.locator('[id$="-units-err"]').textContent()).toBe(w.t('notifications.ruleform.units_bad', { industry: 'poultry', list: 'корпус-пять!' }));
    expect(await form.locator('[data-row$="-name"] .field-error').textContent()).toBe(w.t('notifications.ruleform.name_missing'));
    expect(await englishLeft(page)).toEqual([]);
    expect(await checkBoth(page, 'notifications-ru-rule-form', 'form[data-rule-form="new"]')).toEqual([]);
    await form.getByRole('button', { name: BUILT_IN.ru['common.action.cancel']! }).click();

    const log = page.locator('#deliveries');
    await log.locator('li.delivery').first().waitFor();
    expect(await log.locator('#deliveries-h').textContent()).toBe(w.t('notifications.log.title'));
    const failed = log.locator('li.delivery[data-delivery-status="failed"]').first();
    expect(await failed.innerText()).toContain('Не отправлено после 1 попытки: сервер не ответил (соединение отклонено).');
    // What was sent is listed as it was written: the Russian e-mail in Russian.
    const toCrew = log.locator('li.delivery', { hasText: 'crew@farm-r.test' }).first();
    expect(await toCrew.innerText()).toContain('Корпус 3: контроллер не отвечает [P1, критическая]');
    expect(await toCrew.innerText()).toMatch(/Отправлено\s+Новая тревога, P1/);
    expect(await englishLeft(page)).toEqual([]);
    expect(await checkBoth(page, 'notifications-ru-log', '#deliveries')).toEqual([]);
  });

  it('the checks can fail: English left over and a text cut are seen', async () => {
    type Styled = { textContent: string; style: { whiteSpace: string; overflow: string; width: string; display: string } };
    const h2 = page.locator('#channels-h');
    await h2.evaluate((e) => Object.assign((e as unknown as Styled).style, { whiteSpace: 'nowrap', overflow: 'hidden', width: '60px', display: 'block' }));
    expect((await overflowing(page)).some((o) => o.includes(w.t('notifications.channels')))).toBe(true);
    await h2.evaluate((e, english) => { (e as unknown as Styled).textContent = english; }, BUILT_IN.en['notifications.channels']!);
    expect(await englishLeft(page)).toEqual([BUILT_IN.en['notifications.channels']]);
  });
});
