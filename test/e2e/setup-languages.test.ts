// The installer's screens in Russian and Spanish in Debian's Chromium: a tablet set to the language
// (localStorage cabinet-i18n.choice, before the shell loads) shows the site set-up screen, each
// step's title and words rendered from the box's keys and parameters, and the siren and watchdog
// screen with its forms and a validation error, and Settings, in that language; no English word of these screens
// is left; nothing is cut or runs past its card (scrollWidth against clientWidth) in either
// orientation; axe clean; screenshots of both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator, type Translator } from '../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';

type Lang = 'ru' | 'es';
const LANGS: Lang[] = ['ru', 'es'];
const words = (lang: Lang | 'en'): Translator => makeTranslator(lang, formatLocale(lang, undefined), BUILT_IN[lang], BUILT_IN.en);

/** Minimal element shape for code run in the page (the test's tsconfig has no DOM types). */
interface Box { tagName: string; className: string; textContent: string | null; scrollWidth: number; clientWidth: number; getBoundingClientRect(): { left: number; right: number; width: number }; ownerDocument: { documentElement: { clientWidth: number } } }

/** What a person reads, and the cards that hold it: the text must fit its box. */
const READ = ['h1', 'h2', 'p', 'label', 'legend', 'button', 'a.btn', '.badge', 'small', '.field-error', 'option', 'li', 'li.setup-line', 'section.relay-output', '.setup-head'];
const FITS = READ.map((s) => `#main ${s}`).join(', ');
/** Settings: its own sections (the role pins and the profile history beside them are other screens' parts). */
const SETTINGS = ['.settings > h1', '.settings > .status-line', ...['[aria-labelledby="theme-h"]', '#menu-settings', '[aria-labelledby="about-h"]'].flatMap((sec) => [sec, ...READ.map((s) => `${sec} ${s}`)])].join(', ');

/** Elements whose text is cut or runs past their own box or the screen's edge. */
async function overflowing(page: Page, selector = FITS): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) =>
    (els as unknown as Box[]).flatMap((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0) return []; // not shown
      const cut = e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1;
      const out = r.right > e.ownerDocument.documentElement.clientWidth + 1 || r.left < -1;
      return cut || out ? [`${e.tagName.toLowerCase()}.${e.className} "${(e.textContent ?? '').trim().slice(0, 50)}" scroll ${e.scrollWidth} > client ${e.clientWidth}, right ${Math.round(r.right)}`] : [];
    }),
  );
}

/** No text cut in either orientation and axe clean in each; screenshots of both. */
async function checkBoth(page: Page, name: string, selector = FITS): Promise<string[]> {
  const found: string[] = [];
  for (const size of [LANDSCAPE, PORTRAIT]) {
    await page.setViewportSize(size);
    await page.waitForFunction((w) => (globalThis as unknown as { innerWidth: number }).innerWidth === w, size.width);
    for (const o of await overflowing(page, selector)) found.push(`${size.width}x${size.height}: ${o}`);
    for (const v of await axeSerious(page)) found.push(`${size.width}x${size.height}: axe ${v}`);
  }
  await page.setViewportSize(LANDSCAPE);
  await shoot(page, name);
  return found;
}

/** English texts of these screens (without arguments) that read differently in `lang`: none may show. */
function englishOnly(lang: Lang): Set<string> {
  const en = BUILT_IN.en;
  const other = BUILT_IN[lang];
  return new Set(Object.keys(en).filter((k) => /^(setup|siren|settings)\./.test(k) && !en[k]!.includes('{') && other[k] !== en[k]).map((k) => en[k]!));
}

/** The texts of the leaves under `root` (elements without element children), trimmed. */
async function leafTexts(page: Page, root: string): Promise<string[]> {
  const all = await page.locator(`${root} *`).evaluateAll((els) =>
    (els as unknown as { childElementCount: number; textContent: string | null }[]).filter((e) => e.childElementCount === 0).map((e) => (e.textContent ?? '').trim()));
  return all.filter(Boolean);
}

describe('the installer\'s screens in Russian and Spanish', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    const tenant = (JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string }).tenant_id;
    const owner = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', tenant_id: tenant }, owner.contract);
    const issue = async (holder: string, role: 'admin' | 'operator') => {
      const r = await admin.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder, scope: 'tenant', tenant_id: tenant, role, ttl_minutes: 600 });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.item.credential as string;
    };
    card = await issue('Installer', 'admin');
    await issue('Night shift', 'operator');
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  for (const lang of LANGS) {
    it(`${lang}: the set-up screen and the siren screen read in ${lang} and fit in both orientations`, async () => {
      const w = words(lang);
      const { page, context, problems } = await newPage(browser);
      await context.addInitScript((l) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', l), lang);
      await rfidLogin(page, server.url, card);
      await page.waitForFunction((l) => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === l, lang);

      // the set-up screen: each line's title and words from the box's key and parameters
      await page.goto(`${server.url}/#/setup`);
      await page.locator('#setup-lines li').first().waitFor();
      expect(await page.locator('#setup-h').textContent()).toBe(w.t('setup.screen.title'));
      const list = (await admin.get('/api/v1/site-setup/list')).body.items as { id: string; title_key: string; title_params: Record<string, string | number>; text_key: string; text_params: Record<string, string | number> }[];
      for (const l of list) {
        const li = page.locator(`#setup-lines li[data-step="${l.id}"]`);
        expect(await li.locator('h2').textContent(), l.id).toBe(w.t(l.title_key, l.title_params));
        // no instant among a fresh box's parameters: the words are the catalogue's, exactly
        expect(await li.locator('.setup-words').textContent(), l.id).toBe(w.t(l.text_key, l.text_params));
      }
      const siren = page.locator('#setup-lines li[data-step="siren"]');
      expect(await siren.locator('.badge').textContent()).toBe(`! ${w.t('setup.state.missing')}`);
      expect(await page.locator('#setup-summary').textContent()).toBe(w.t('setup.screen.open_steps', { open: 6, total: 7 }));
      const people = page.locator('#setup-lines li[data-step="people"]');
      expect(await people.locator('.setup-words').textContent()).toBe(w.t('setup.people.one_admin', { admins: 1, operators: 1 }));
      const left = (await leafTexts(page, '#main [data-screen="setup"]')).filter((x) => englishOnly(lang).has(x));
      expect(left, 'English left on the set-up screen').toEqual([]);
      expect(await checkBoth(page, `setup-${lang}`)).toEqual([]);

      // the siren screen: both outputs unset, their forms open for the admin
      await siren.locator('a.btn').click();
      await page.locator('form.relay-form[data-output="siren"]').waitFor();
      expect(await page.locator('#siren-relay-h').textContent()).toBe(w.t('siren.title'));
      expect(await page.locator('[data-relay="siren"] [data-field="not-configured"]').textContent()).toBe(w.t('siren.not_set.siren'));
      const form = page.locator('form.relay-form[data-output="siren"]');
      expect(await form.locator('legend').first().textContent()).toBe(w.t('siren.field.transport'));
      // a validation error as it is typed, in the reader's language
      await form.locator('input[name="host"]').fill('300.1.2.3');
      await expect.poll(() => form.locator('[data-error="host"]').textContent()).toBe(w.t('siren.problem.host'));
      // the RS-485 variant: the longest labels and the parity choice
      await page.locator('form.relay-form[data-output="watchdog"] input[value="modbus-rtu"]').check();
      await page.locator('form.relay-form[data-output="watchdog"] select[name="parity"]').waitFor();
      const leftSiren = (await leafTexts(page, '#main [data-screen="SirenRelay"]')).filter((x) => englishOnly(lang).has(x));
      expect(leftSiren, 'English left on the siren screen').toEqual([]);
      expect(await checkBoth(page, `siren-${lang}`)).toEqual([]);

      // Settings: the theme, the menu order and this tablet, in the reader's words
      await page.goto(`${server.url}/#/settings`);
      await page.locator('#menu-order li').first().waitFor();
      expect(await page.locator('.settings > h1').textContent()).toBe(w.t('settings.title'));
      expect(await page.locator('#theme-h').textContent()).toBe(w.t('settings.theme.title'));
      expect(await page.locator('.theme-choices label').first().textContent()).toBe(`${w.t('settings.theme.light')} ${w.t('settings.theme.light.note')}`);
      expect(await page.locator('#menu-order button').first().getAttribute('aria-label')).toMatch(new RegExp(`^${w.t('settings.menu.up', { name: 'NAME' }).split('NAME')[0]!}`));
      // Both languages log in with the same card, so they share its stored theme: this one must start
      // from the light theme the last one put back (else check() of an already chosen radio changes nothing).
      expect(await page.locator('.theme-choices input[value="dark"]').isChecked(), 'the theme left by the test before').toBe(false);
      await page.locator('.theme-choices input[value="dark"]').check();
      await expect.poll(() => page.locator('.settings > .status-line').textContent()).toBe(w.t('settings.saved', { what: 'theme' }));
      const leftSettings = (await leafTexts(page, '#main .settings')).filter((x) => englishOnly(lang).has(x));
      expect(leftSettings, 'English left on Settings').toEqual([]);
      expect(await checkBoth(page, `settings-${lang}`, SETTINGS)).toEqual([]);
      // Back to light, and the box's answer awaited: closing the page with the save still in flight
      // left the card on dark, and the next language's check() of dark then saved nothing.
      const putBack = page.waitForResponse((r) => r.url().includes('/auth/ui-preferences/commands/update') && r.request().method() === 'POST');
      await page.locator('.theme-choices input[value="light"]').check();
      expect((await putBack).status()).toBe(200);
      expect(problems).toEqual([]);
      await context.close();
    });
  }

  it('the scan sees English left over and a text cut (the checks can fail)', async () => {
    const { page, context } = await newPage(browser);
    await context.addInitScript(() => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', 'ru'));
    await rfidLogin(page, server.url, card);
    await page.goto(`${server.url}/#/setup`);
    await page.locator('#setup-lines li').first().waitFor();
    type Styled = { textContent: string; style: { whiteSpace: string; overflow: string; width: string } };
    const words = page.locator('#setup-lines li[data-step="siren"] .setup-words');
    await words.evaluate((e) => Object.assign((e as unknown as Styled).style, { whiteSpace: 'nowrap', overflow: 'hidden', width: '120px' }));
    expect(await overflowing(page)).toHaveLength(1);
    await words.evaluate((e, english) => { (e as unknown as Styled).textContent = english; }, BUILT_IN.en['setup.check_failed']!);
    expect((await leafTexts(page, '#main [data-screen="setup"]')).filter((x) => englishOnly('ru').has(x))).toEqual([BUILT_IN.en['setup.check_failed']]);
    await context.close();
  });
});
