// A language the site adds without a rebuild, missing most keys: in Debian's Chromium the login
// screen offers it by its own name, reads the keys it has in it and every other key in English, key
// by key (a message that does not parse too), and a card of that language opens the shell the same
// way. Both orientations, screenshots, axe. One server and one browser for the file.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { axeSerious, launch, LANDSCAPE, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';

const EN = BUILT_IN.en;
const POLISH = {
  'login.card.label': 'Zbliż kartę do czytnika',
  'shell.top.logout': 'Wyloguj',
  // Not ICU MessageFormat: left out by the box, so this key reads in English.
  'login.card.submit': '{Zaloguj',
};

const htmlLang = (page: Page) => page.evaluate('document.documentElement.lang') as Promise<string>;
const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').trim();

describe('a site-added language with missing keys', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let credential = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    mkdirSync(join(env.dataDir, 'i18n'), { recursive: true });
    writeFileSync(join(env.dataDir, 'i18n', 'pl.json'), JSON.stringify(POLISH));
    server = await env.start({ mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Marek', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04E0000001', language: 'pl' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    credential = r.body.item.credential;
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('the login screen offers Polski and reads the keys the file has in Polish, every other key in English', async () => {
    for (const viewport of [LANDSCAPE, PORTRAIT]) {
      const { page, context, problems } = await newPage(browser, { viewport });
      await page.goto(server.url);
      await page.locator('#language-choice [data-lang="pl"]').waitFor();
      expect(await page.locator('#language-choice [data-lang="pl"]').textContent()).toBe('Polski');
      await page.locator('#language-choice [data-lang="pl"]').click();
      await expect.poll(() => htmlLang(page)).toBe('pl');
      expect(await text(page, 'label[for="card"]')).toBe(POLISH['login.card.label']);
      // Missing from the file, and present but not parsable: English, key by key.
      expect(await text(page, '#card-form button')).toBe(EN['login.card.submit']);
      expect(await page.locator('body').textContent()).not.toContain('login.');
      expect(await axeSerious(page)).toEqual([]);
      if (viewport === LANDSCAPE) await shoot(page, 'language-fallback-login');
      expect(problems).toEqual([]);
      await context.close();
    }
  });

  it('a card whose language is Polish opens the shell in Polish where the file has words and in English elsewhere', async () => {
    const { page, context, problems } = await newPage(browser);
    await rfidLogin(page, server.url, credential);
    await expect.poll(() => htmlLang(page)).toBe('pl');
    const top = (await page.locator('header.top').textContent()) ?? '';
    expect(top).toContain(POLISH['shell.top.logout']);
    expect(top).toContain(EN['shell.top.menu']); // not in the file: English
    // No raw key anywhere: every key the file lacks reads in English.
    const body = (await page.locator('body').textContent()) ?? '';
    expect(body).not.toMatch(/\b(shell|alarms|overview|common|forms|modules)\.[a-z]+\.[a-zA-Z]/);
    await shoot(page, 'language-fallback-shell');
    expect(problems).toEqual([]);
    await context.close();
  });
});
