// The language is the person's, in Debian's Chromium: the login screen offers every language by its
// own name before anyone logs in (kept per tablet across reloads, and offline through the service
// worker and the kept catalogue); a card whose language is Russian opens the overview in Russian,
// and its logout gives the tablet back its own choice; a person changes their own card's language
// from the top bar. Both orientations, screenshots, axe. One server and one browser for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { axeSerious, launch, LANDSCAPE, newPage, PORTRAIT, rfidLogin, shoot, smallTargets } from './browser.js';

const RU = BUILT_IN.ru;
const ES = BUILT_IN.es;
const EN = BUILT_IN.en;

const htmlLang = (page: Page) => page.evaluate('document.documentElement.lang') as Promise<string>;
const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();
/** Elements on screen whose text is cut or runs out of its box (Russian runs longer). */
const overflowing = (page: Page, scope: string) =>
  page.evaluate(`(() => {
    const out = [];
    for (const el of document.querySelectorAll(${JSON.stringify(scope)})) {
      if (el.closest('.sr-only')) continue; // visually hidden on purpose
      if (!el.childElementCount && el.textContent.trim() && el.scrollWidth > el.clientWidth + 1 && getComputedStyle(el).overflow !== 'visible') out.push(el.tagName + ' ' + el.textContent.trim().slice(0, 40));
      if (el.getBoundingClientRect().right > window.innerWidth + 1) out.push('off screen: ' + el.tagName + ' ' + (el.id || el.className));
    }
    return out;
  })()`) as Promise<string[]>;

describe('a person\'s language in the shell', () => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let browser: Browser;
  const cards: Record<string, { id: string; credential: string }> = {};

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000', site_language: 'en' });
    master = await clientAs(env, server);
    const issue = async (name: string, uid: string, language?: string) => {
      const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: name, scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: uid, ...(language ? { language } : {}) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      cards[name] = { id: r.body.item.id, credential: r.body.item.credential };
    };
    await issue('Olga', '04D0000001', 'ru');
    await issue('Pat', '04D0000002');
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('the login screen offers each language by its own name, big enough for gloves; the choice stays after a reload', async () => {
    for (const viewport of [LANDSCAPE, PORTRAIT]) {
      const { page, context, problems } = await newPage(browser, { viewport });
      await page.goto(server.url);
      await page.locator('#language-choice [data-lang="es"]').waitFor();
      expect(await page.locator('#language-choice button').allTextContents()).toEqual(['English', 'Русский', 'Español']);
      expect(await page.locator('#language-choice [data-lang="ru"]').getAttribute('lang')).toBe('ru');
      expect(await page.locator('#language-choice [aria-pressed="true"]').getAttribute('data-lang')).toBe('en');
      const big = (await page.locator('#language-choice button').evaluateAll((els) => els.map((e) => (e as unknown as { getBoundingClientRect(): { height: number } }).getBoundingClientRect().height)));
      expect(Math.min(...big)).toBeGreaterThanOrEqual(64);
      expect(await text(page, 'label[for="card"]')).toBe(EN['login.card.label']);

      await page.locator('#language-choice [data-lang="es"]').click();
      await expect.poll(() => htmlLang(page)).toBe('es');
      expect(await text(page, 'label[for="card"]')).toBe(ES['login.card.label']);
      expect(await text(page, '#card-form button')).toBe(ES['login.card.submit']);
      expect(await page.locator('#language-choice [aria-pressed="true"]').getAttribute('data-lang')).toBe('es');
      expect(await smallTargets(page)).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      expect(await overflowing(page, '.login *')).toEqual([]);
      if (viewport === LANDSCAPE) await shoot(page, 'language-login-es');

      await page.reload();
      await page.locator('#card').waitFor();
      await expect.poll(() => htmlLang(page)).toBe('es');
      expect(await text(page, 'label[for="card"]')).toBe(ES['login.card.label']);
      // Russian at the login screen: the longest words still fit.
      await page.locator('#language-choice [data-lang="ru"]').click();
      await expect.poll(() => text(page, 'label[for="card"]')).toBe(RU['login.card.label']);
      expect(await overflowing(page, '.login *')).toEqual([]);
      if (viewport === LANDSCAPE) await shoot(page, 'language-login-ru');
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('a card whose language is Russian opens the overview in Russian; its logout gives the tablet back its choice', async () => {
    for (const viewport of [LANDSCAPE, PORTRAIT]) {
      const { page, context, problems } = await newPage(browser, { viewport });
      await page.goto(server.url);
      await page.locator('#language-choice [data-lang="es"]').click();
      await expect.poll(() => htmlLang(page)).toBe('es');

      await rfidLogin(page, server.url, cards.Olga!.credential);
      await expect.poll(() => htmlLang(page)).toBe('ru');
      await expect.poll(() => text(page, '#workspace-title')).toBe(RU['overview.title']);
      expect(await text(page, '#logout')).toBe(RU['shell.top.logout']);
      expect(await text(page, '#person-language')).toBe('Русский');
      expect(await page.locator('#person-language').getAttribute('aria-label')).toBe('Язык: Русский');
      expect(await text(page, '#workspace-title')).not.toBe(EN['overview.title']);
      expect(await axeSerious(page)).toEqual([]);
      expect(await overflowing(page, '.top *')).toEqual([]);
      if (viewport === LANDSCAPE) await shoot(page, 'language-overview-ru');

      await page.locator('#logout').click();
      await page.locator('#card').waitFor();
      await expect.poll(() => htmlLang(page)).toBe('es');
      expect(await text(page, 'label[for="card"]')).toBe(ES['login.card.label']);
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('a person changes their own card\'s language from the top bar; it is kept on the card, and logout returns to the site default', async () => {
    const { page, context, problems } = await newPage(browser);
    await rfidLogin(page, server.url, cards.Pat!.credential);
    // No language on the card, none chosen on this tablet: the site's default.
    await expect.poll(() => htmlLang(page)).toBe('en');
    expect(await text(page, '#logout')).toBe(EN['shell.top.logout']);
    await page.locator('#person-language').click();
    await page.locator('#person-language-menu [data-lang="ru"]').waitFor();
    expect(await axeSerious(page)).toEqual([]);
    expect(await smallTargets(page)).toEqual([]);
    await shoot(page, 'language-person-menu');
    await page.locator('#person-language-menu [data-lang="ru"]').click();
    await expect.poll(() => htmlLang(page)).toBe('ru');
    await expect.poll(() => text(page, '#workspace-title')).toBe(RU['overview.title']);
    expect((await master.get(`/api/v1/passkeys/${cards.Pat!.id}`)).body.item.language).toBe('ru');
    const audit = await master.get('/api/v1/audit/list?action=auth.set-language');
    expect(audit.body.items.some((a: { actor: string }) => a.actor === cards.Pat!.id)).toBe(true);
    // After a reload too: the card says so, not the tablet.
    await page.reload();
    await expect.poll(() => text(page, '#workspace-title')).toBe(RU['overview.title']);
    await page.locator('#logout').click();
    await page.locator('#card').waitFor();
    await expect.poll(() => htmlLang(page)).toBe('en');
    expect(await text(page, 'label[for="card"]')).toBe(EN['login.card.label']);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('an offline reload still reads in the chosen language, at the login screen and logged in', async () => {
    const { page, context } = await newPage(browser);
    await page.goto(server.url);
    await page.locator('#language-choice [data-lang="es"]').click();
    await expect.poll(() => text(page, 'label[for="card"]')).toBe(ES['login.card.label']);
    // the service worker controls the page once it has installed
    await expect.poll(() => page.evaluate('navigator.serviceWorker.controller !== null'), { timeout: 15_000 }).toBe(true);
    await context.setOffline(true);
    await page.reload();
    await page.locator('#card').waitFor();
    await expect.poll(() => htmlLang(page)).toBe('es');
    expect(await text(page, 'label[for="card"]')).toBe(ES['login.card.label']);
    expect(await page.locator('#language-choice button').allTextContents()).toEqual(['English', 'Русский', 'Español']);
    await shoot(page, 'language-offline-login-es');
    await context.setOffline(false);

    // Logged in with the Russian card, then the network goes: the reload reads in Russian still.
    await rfidLogin(page, server.url, cards.Olga!.credential);
    await expect.poll(() => text(page, '#workspace-title')).toBe(RU['overview.title']);
    await context.setOffline(true);
    await page.reload();
    await page.locator('#home').waitFor();
    await expect.poll(() => htmlLang(page)).toBe('ru');
    await expect.poll(() => text(page, '#logout')).toBe(RU['shell.top.logout']);
    await shoot(page, 'language-offline-ru');
    await context.setOffline(false);
    await context.close();
  });
});
