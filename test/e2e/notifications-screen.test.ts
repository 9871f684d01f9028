// The Notifications screen in Debian's Chromium. One box, one mail server, one webhook receiver
// and one browser for the file; the English part works in the box's own tenant (farm-n), the
// Russian part in farm-r, so neither sees the other's channels, rules, alarms or messages.
// In English, as the installer commissions the box: an e-mail channel made from the form
// (addresses checked as typed) whose test message a real SMTP server (aiosmtpd, requiring AUTH)
// receives, the screen saying what the server answered; a webhook made from the form with a key
// made on the tablet and shown once, whose signed test a local receiver verifies as
// docs/notifications.md says, and whose refusal is said in words; secrets nowhere on the page or in
// the API's list after saving; a rule by priority and house whose alarms reach the mail server, and
// the messages sent, retried and failed in words, newest first, a page at a time. Security reads
// it all with no form or button; an operator is not offered it. Both orientations, axe.
// In Russian (a tablet set to ru: localStorage cabinet-i18n.choice before the shell loads):
// headings, channel cards, the channel form with its language choice (the site's default first,
// named, then each language by its own name), a channel's language changed from the form and kept
// by the box, a test message sent in the channel's language and its answer in the reader's, a
// webhook's refusal in Russian words, the rule form and a validation error, and the messages sent
// in words. No English word of the screen is left; nothing is cut or runs past its card
// (scrollWidth against clientWidth) in either orientation; axe clean; screenshots of each state.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { freePort, Receiver, SmtpSink, until, verifySignature } from '../helpers/notification-peers.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator } from '../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';

const USER = 'farm-box';
const PASSWORD = 'smtp-Pa55-typed-in-the-form-31d9';
const KEY = 'whk-russian-screen-signing-key-3e9f';
const SITE = { tenant_id: 'farm-n', site_id: 'site-1' };
const SITE_R = { tenant_id: 'farm-r', site_id: 'site-1' };
const CREW = ['crew@farm-n.test', 'boss@farm-n.test', 'night@farm-n.test'];
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

describe('the Notifications screen in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let browser: Browser;
  let smtp: SmtpSink;
  const hooks = new Receiver();

  beforeAll(async () => {
    smtp = new SmtpSink(await freePort(), USER, PASSWORD);
    await smtp.start();
    await hooks.start();
    env = await createTestEnv('sqlite');
    writeFileSync(join(env.dataDir, 'site.json'), JSON.stringify(SITE));
    server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await smtp?.close();
    await hooks.stop();
    await env?.cleanup();
  });

  describe('in English', () => {
    let admin: Client;
    const cards: Record<string, string> = {};
    let webhookKey = '';

    const open = async (role: string, viewport = { width: 1280, height: 800 }): Promise<{ page: Page; problems: string[] }> => {
      const { page, problems } = await newPage(browser, { viewport });
      await rfidLogin(page, server.url, cards[role]!);
      await page.goto(`${server.url}/#/m/notifications`);
      await page.locator('h1', { hasText: role === 'operator' ? /./ : 'Notifications' }).first().waitFor();
      return { page, problems };
    };
    const text = (page: Page) => page.locator('body').innerText();
    const card = (page: Page, name: string) => page.locator(`li[data-channel="${name}"]`);

    beforeAll(async () => {
      admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', ...SITE }, master.contract);
      for (const [i, role] of ['admin', 'security', 'operator'].entries()) {
        const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: `Farm ${role}`, scope: 'tenant', ...SITE, role, ttl_minutes: 60, card_uid: `04D000000${i}` });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        cards[role] = r.body.item.credential as string;
      }
    });

    it('makes an e-mail channel from the form; its test message reaches the mail server and the screen says so', async () => {
      const { page, problems } = await open('admin');
      await page.locator('#add-email').click();
      const form = page.locator('form[data-channel-form="email"]');
      await form.getByLabel('Name', { exact: true }).fill('Farm mail');
      await form.getByLabel('Mail server', { exact: true }).fill('127.0.0.1');
      await form.getByLabel('None — only on a trusted network', { exact: true }).check();
      await form.getByLabel('Port', { exact: true }).fill(String(smtp.port));
      await form.getByLabel('Login', { exact: true }).fill(USER);
      await form.getByLabel('Password', { exact: true }).fill(PASSWORD);
      await form.getByLabel('Sender address', { exact: true }).fill('box@farm-n.test');
      await form.getByLabel('Site name in messages', { exact: true }).fill('Farm N');
      await form.getByLabel('Recipients', { exact: true }).fill(`${CREW[0]}, ${CREW[1]}\nnot-an-address`);
      await form.locator('button[type="submit"]').click();
      // Checked as typed: nothing is saved while an address is wrong.
      await expect.poll(() => form.locator('[data-row$="-recipients"] .field-error').textContent()).toBe('Not an e-mail address: not-an-address.');
      expect((await admin.get('/api/v1/notification-channels/list')).body.total).toBe(0);
      expect(await axeSerious(page)).toEqual([]);
      await page.evaluate(`document.querySelector('form[data-channel-form="email"] fieldset').scrollIntoView({ block: 'start' }); window.scrollBy(0, -80)`);
      await shoot(page, 'notifications-email-form');
      await form.getByLabel('Recipients', { exact: true }).fill(`${CREW[0]}, ${CREW[1]}\n${CREW[2]}`);
      await form.locator('button[type="submit"]').click();
      await page.locator('[role="status"]', { hasText: 'Farm mail saved. Send a test message to check it.' }).waitFor();

      const saved = (await admin.get('/api/v1/notification-channels/list')).body;
      expect(saved.items[0]).toMatchObject({ name: 'Farm mail', kind: 'email', smtp_host: '127.0.0.1', smtp_port: smtp.port, smtp_tls: 'none', smtp_user: USER, has_secret: true, recipients: CREW });
      expect(JSON.stringify(saved)).not.toContain(PASSWORD);
      await expect.poll(() => card(page, 'Farm mail').innerText()).toContain('password set');
      expect(await text(page)).not.toContain(PASSWORD);

      await card(page, 'Farm mail').getByRole('button', { name: 'Send a test message' }).click();
      const outcome = card(page, 'Farm mail').locator('[data-test-outcome]');
      await outcome.waitFor();
      expect(await outcome.getAttribute('data-test-outcome')).toBe('sent');
      expect(await outcome.innerText()).toMatch(/^Sent: the mail server accepted it \(250 .+\)\.$/);
      const mail = await until('the test e-mail', () => smtp.messages().find((m) => m.subject.includes('test message')));
      expect(mail).toMatchObject({ mail_from: 'box@farm-n.test', auth_user: USER, rcpt_tos: CREW });
      expect(mail.text).toContain('This is a test message of the channel "Farm mail"');
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'notifications-email-tested');

      // Changing it: the password reads "set", never shown, replaced only on request.
      await card(page, 'Farm mail').getByRole('button', { name: 'Change' }).click();
      const edit = page.locator('form[data-channel-form="email"]');
      expect(await edit.locator('[data-secret="set"]').innerText()).toContain('set');
      expect(await edit.locator('input[type="password"]').count()).toBe(0);
      expect(await page.locator('input').evaluateAll((xs) => xs.map((x) => (x as unknown as { value: string }).value))).not.toContain(PASSWORD);
      await edit.getByRole('button', { name: 'Cancel' }).click();
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('makes a webhook with a key shown once; its signed test reaches the receiver, a refusal is said in words', async () => {
      const { page, problems } = await open('admin', PORTRAIT);
      await page.locator('#add-webhook').click();
      const form = page.locator('form[data-channel-form="webhook"]');
      await form.getByLabel('Name', { exact: true }).fill('Dialler');
      await form.getByLabel('Address (URL)', { exact: true }).fill(`${hooks.url}?token=tok-5150`);
      expect(await form.getByLabel('Make a new key here (shown once after saving)', { exact: true }).isChecked()).toBe(true);
      await form.locator('button[type="submit"]').click();
      const once = page.locator('#key-once');
      await once.waitFor();
      webhookKey = (await page.locator('#key-once-code').innerText()).trim();
      expect(webhookKey).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'notifications-webhook-key');
      await page.locator('#key-once-dismiss').click();
      await once.waitFor({ state: 'detached' });
      expect(await text(page)).not.toContain(webhookKey);
      const list = await admin.get('/api/v1/notification-channels/list');
      expect(list.text).not.toContain(webhookKey);
      expect(list.text).not.toContain('tok-5150');
      expect(await card(page, 'Dialler').innerText()).toContain('Signing key\nset');

      await card(page, 'Dialler').getByRole('button', { name: 'Send a test message' }).click();
      const outcome = card(page, 'Dialler').locator('[data-test-outcome]');
      await expect.poll(() => outcome.innerText()).toBe('Sent: the receiver accepted it (it answered 204).');
      const got = await until('the webhook test', () => hooks.got.at(-1));
      expect(got.path).toBe('/hooks/cabinet?token=tok-5150');
      expect(verifySignature(got, webhookKey)).toBe(true);
      expect(JSON.parse(got.body)).toMatchObject({ event: 'test', alarm: null });

      hooks.answer = 500;
      await card(page, 'Dialler').getByRole('button', { name: 'Send a test message' }).click();
      await expect.poll(() => outcome.getAttribute('data-test-outcome')).toBe('failed');
      hooks.answer = 204;
      expect(await outcome.innerText()).toBe(`The test message was not sent: the receiver at ${hooks.url} answered 500 (an error on the receiver), not success.`);
      // The box's own answer to the tablet is not the person's business: no status code of ours on the page.
      expect(await text(page)).not.toMatch(/\b502\b|notification_test_failed/);
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'notifications-webhook-refused');
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('makes a rule by priority and house; its alarms are sent, and the messages are listed in words, newest first, by page', async () => {
      const closed = await freePort();
      // A channel whose server is gone, made through the API (retries are not on the form): its messages fail.
      expect((await admin.post('/api/v1/notification-channels', { item: { name: 'Old relay', kind: 'email', smtp_host: '127.0.0.1', smtp_port: closed, smtp_tls: 'none', smtp_from: 'box@farm-n.test', recipients: ['office@farm-n.test'], retry_max_attempts: 1 } })).status).toBe(201);
      const { page, problems } = await open('admin', PORTRAIT);
      await page.locator('#add-rule').click();
      const form = page.locator('form[data-rule-form="new"]');
      await form.getByLabel('Name', { exact: true }).fill('House 3 crew');
      await form.getByLabel('Send by', { exact: true }).selectOption({ label: 'Farm mail (e-mail)' });
      expect(await form.getByLabel('P1 — act now', { exact: true }).isChecked()).toBe(true);
      await form.getByLabel('Only these houses', { exact: true }).check();
      await form.getByLabel('Houses (numbers)', { exact: true }).fill('House 3');
      await form.getByLabel('How soon', { exact: true }).selectOption({ label: 'At once only' });
      expect(await form.getByLabel('To', { exact: true }).getAttribute('aria-describedby')).toBeTruthy();
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'notifications-rule-form');
      await form.locator('button[type="submit"]').click();
      await page.locator('[role="status"]', { hasText: 'House 3 crew saved.' }).waitFor();
      const rule = (await admin.get('/api/v1/notification-rules/list')).body.items[0];
      expect(rule).toMatchObject({ name: 'House 3 crew', priorities: ['P1'], unit_ids: ['3'], recipients: [], min_escalation_level: 0, max_escalation_level: 0, on_raise: true });
      expect(await page.locator('li[data-rule="House 3 crew"] .rule-words').innerText())
        .toBe(`P1 alarms of House 3 go by e-mail to ${CREW[0]}, ${CREW[1]} and ${CREW[2]}: a new alarm and not acknowledged in time (each escalation); at once only.`);
      const oldRelay = (await admin.get('/api/v1/notification-channels/list')).body.items.find((c: { name: string }) => c.name === 'Old relay');
      expect((await admin.post('/api/v1/notification-rules', { item: { name: 'Office copy', channel_id: oldRelay.id, priorities: ['P1'], unit_ids: ['3'] } })).status).toBe(201);

      const publish = (unit: string, n: number) => admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', unit_id: unit, severity: 'critical', priority: 'P1', title: `House ${unit}: Water line pressure lost (${n})`, correlation_id: `screen-${unit}-${n}` });
      expect((await publish('4', 0)).status).toBe(201);
      for (let n = 1; n <= 3; n++) expect((await publish('3', n)).status).toBe(201);
      await until('twelve deliveries settled', async () => {
        const d = (await admin.get('/api/v1/notification-deliveries/list?limit=50')).body;
        return d.total === 12 && d.items.every((x: { status: string }) => x.status === 'sent' || x.status === 'failed');
      });
      // One message per recipient: three alarms to three people.
      expect(smtp.messages().filter((m) => m.subject.includes('House 3')).length).toBe(9);
      expect(smtp.messages().some((m) => m.subject.includes('House 4'))).toBe(false);

      await page.reload();
      const log = page.locator('#deliveries');
      await log.locator('li.delivery').first().waitFor();
      expect(await log.locator('li.delivery').count()).toBe(10);
      expect(await log.locator('.pager').innerText()).toContain('1–10 of 12');
      const first = await log.locator('li.delivery').first().innerText();
      expect(first).toContain('House 3: Water line pressure lost (3) [P1 critical]');
      const failed = log.locator('li.delivery[data-delivery-status="failed"]').first();
      expect(await failed.innerText()).toContain('Not sent after 1 attempt: nothing answered at the server (connection refused).');
      expect(await log.locator('li.delivery[data-delivery-status="sent"]').first().innerText()).toMatch(/Sent\s+New alarm, P1/);
      await log.getByRole('button', { name: 'Older' }).click();
      await expect.poll(() => log.locator('.pager').innerText()).toContain('11–12 of 12');
      expect(await log.locator('li.delivery').last().innerText()).toContain('(1)');
      await log.getByLabel('Show', { exact: true }).selectOption({ label: 'Failed' });
      await expect.poll(() => log.locator('li.delivery').count()).toBe(3);
      await log.locator('li.delivery').first().scrollIntoViewIfNeeded();
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'notifications-log');
      expect(await text(page)).not.toMatch(/\b(502|500|429)\b|_/);
      expect(problems).toEqual([]);
      await page.context().close();
    });

    it('shows security everything to read and no form or button; an operator is not offered it', async () => {
      const { page, problems } = await open('security');
      await card(page, 'Farm mail').waitFor();
      expect(await page.locator('#notifications-read-only').innerText()).toContain('an administrator changes them');
      expect(await page.locator('form, input, textarea').count()).toBe(0);
      expect(await page.locator('#channels button, #rules button').count()).toBe(0);
      expect(await page.getByRole('button', { name: /Send a test message|Try again|Add/ }).count()).toBe(0);
      expect(await page.locator('li[data-rule="House 3 crew"]').count()).toBe(1);
      const shown = await text(page);
      expect(shown).not.toContain(PASSWORD);
      expect(shown).not.toContain(webhookKey);
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'notifications-security');
      expect(problems).toEqual([]);
      await page.context().close();

      const op = await open('operator', PORTRAIT);
      expect(await op.page.locator('.menu a', { hasText: 'Notifications' }).count()).toBe(0);
      expect(await op.page.locator('form, input, textarea').count()).toBe(0);
      expect(await op.page.getByRole('button', { name: /Send a test message|Add|Change|Delete/ }).count()).toBe(0);
      expect(await text(op.page)).toContain('not part of your work');
      await op.page.context().close();
    });
  });

  describe('in Russian', () => {
    let admin: Client;
    let card = '';
    let page: Page;

    beforeAll(async () => {
      admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', ...SITE_R }, master.contract);
      const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Установщик', scope: 'tenant', ...SITE_R, role: 'admin', ttl_minutes: 60, card_uid: '04E0000001' });
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
        ...SITE_R, industry_code: 'poultry', unit_id: '3', severity: 'critical', priority: 'P1', source: 'device-polling', actor: 'device-polling',
        text: { title_key: 'box.comm_loss.controller.title', message_key: 'box.comm_loss.controller.message', params: { industry: 'poultry', unit: '3', controller: 'h3-climate', misses: 5 } },
      });
      await until('the deliveries settled', async () => {
        const d = (await admin.get('/api/v1/notification-deliveries/list?limit=50')).body;
        return d.total === 4 && d.items.every((x: { status: string }) => x.status === 'sent' || x.status === 'failed');
      });
      ({ page } = await newPage(browser));
      await page.context().addInitScript(() => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', 'ru'));
      await rfidLogin(page, server.url, card);
      await page.waitForFunction(() => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === 'ru');
      await page.goto(`${server.url}/#/m/notifications`);
      await page.locator('h1', { hasText: w.t('notifications.title') }).waitFor();
    }, 120_000);

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
      // The list is read again after the save: polled until the card shows it.
      await expect.poll(() => cardOf('Старый сервер').innerText()).toContain(`${w.t('notifications.channel.language')}\nРусский`);
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
});
