// The fleet screen's sites in Russian and Spanish in Debian's Chromium, with a real syncing box:
// a master (cloud-multi) and an edge box syncing to it over HTTP, and a second site whose box never
// connected. A tablet set to the language (localStorage cabinet-i18n.choice, before the shell loads)
// reads the statuses, the reasons a site is listed first, the card's fields and the summary in that
// language, counts and ages in its plural forms; no English word of the fleet screen is left; nothing
// is cut or runs past its card in either orientation; axe clean; screenshots of both.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator, type Translator } from '../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';
import pkg from '../../package.json' with { type: 'json' };

type Lang = 'ru' | 'es';
const words = (lang: Lang): Translator => makeTranslator(lang, formatLocale(lang, undefined), BUILT_IN[lang], BUILT_IN.en);

/** Minimal element shape for code run in the page (the test's tsconfig has no DOM types). */
interface Box { tagName: string; className: string; textContent: string | null; scrollWidth: number; clientWidth: number; getBoundingClientRect(): { left: number; right: number; width: number }; ownerDocument: { documentElement: { clientWidth: number } } }

const SITES = '[data-resource="sync-sites"]';
const FITS = ['#workspace-title', ...['h2', 'h3', 'h4', 'p', 'dt', 'dd', 'label', 'button', '.badge', 'option', 'li.site-card', '.site-head'].map((s) => `${SITES} ${s}`)].join(', ');

/** Elements whose text is cut or runs past their own box or the screen's edge. */
async function overflowing(page: Page): Promise<string[]> {
  return page.locator(FITS).evaluateAll((els) =>
    (els as unknown as Box[]).flatMap((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0) return []; // not shown
      const cut = e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1;
      const out = r.right > e.ownerDocument.documentElement.clientWidth + 1 || r.left < -1;
      return cut || out ? [`${e.tagName.toLowerCase()}.${e.className} "${(e.textContent ?? '').trim().slice(0, 50)}" scroll ${e.scrollWidth} > client ${e.clientWidth}, right ${Math.round(r.right)}`] : [];
    }),
  );
}

/** English texts of the fleet screen (without arguments) that read differently in `lang`. */
function englishOnly(lang: Lang): Set<string> {
  const en = BUILT_IN.en;
  return new Set(Object.keys(en).filter((k) => k.startsWith('fleet.') && !en[k]!.includes('{') && BUILT_IN[lang][k] !== en[k]).map((k) => en[k]!));
}

describe('the fleet\'s sites in Russian and Spanish', () => {
  let masterEnv: TestEnv;
  let edgeEnv: TestEnv;
  let master: RunningServer;
  let edge: RunningServer;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    masterEnv = await createTestEnv('sqlite');
    edgeEnv = await createTestEnv('sqlite');
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const fleet = await clientAs(masterEnv, master);
    const issued = await fleet.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'fleet team', role: 'admin', ttl_minutes: 60, scope: 'master', card_uid: '04F1EE7002' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    card = issued.body.item.credential as string;
    const reg = async (site_id: string) => {
      const r = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'green-acres', site_id, industry_code: 'poultry' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.item.credential as string;
    };
    writeFileSync(join(edgeEnv.dataDir, 'site-credential'), `${await reg('north-barn')}\n`, { mode: 0o600 });
    await reg('south-barn'); // registered, its box never connected
    edge = await edgeEnv.start({ mqtt_broker: 'off', sync_master_url: master.url, sync_interval_ms: '200', sync_heartbeat_ms: '500', sync_backoff_max_ms: '500' });
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await edge?.close();
    await edgeEnv?.cleanup();
    await masterEnv?.cleanup();
  });

  for (const lang of ['ru', 'es'] as const) {
    it(`${lang}: statuses, reasons, fields and summary in ${lang}, fitting in both orientations`, async () => {
      const w = words(lang);
      const { page, context, problems } = await newPage(browser);
      await context.addInitScript((l) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', l), lang);
      await rfidLogin(page, master.url, card);
      await page.waitForFunction((l) => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === l, lang);
      expect(await page.locator('#workspace-title').textContent()).toBe(w.t('fleet.title'));

      const north = page.locator(`${SITES} [data-site="north-barn@green-acres"]`);
      const south = page.locator(`${SITES} [data-site="south-barn@green-acres"]`);
      await expect.poll(() => north.getAttribute('data-status'), { timeout: 20_000 }).toBe('live');
      await expect.poll(() => north.locator('[data-field="version"]').textContent(), { timeout: 15_000 }).toBe(`${w.t('fleet.version', { version: pkg.version })} — ${w.t('fleet.policy.within')}`);
      expect(await north.locator('[data-badge="status"]').textContent()).toBe(w.t('fleet.status.live'));
      expect(await north.locator('[data-field="p1"]').textContent()).toBe(w.t('fleet.p1.none'));
      // "12 s ago" in the reader's words
      const ago = w.t('fleet.ago', { span: w.t('fleet.duration.seconds', { n: 999 }) }).replace('999', '\\d+');
      expect(await north.locator('[data-field="last-seen"]').textContent()).toMatch(new RegExp(`^${ago}$`));
      expect(await south.locator('[data-badge="status"]').textContent()).toBe(w.t('fleet.status.stopped'));
      expect(await south.locator('[data-why]').textContent()).toBe(w.t('fleet.why.never'));
      expect(await south.locator('[data-field="version"]').textContent()).toBe(w.t('fleet.version.none'));
      // polled: a box that has just connected may still have events waiting (degraded) for a cycle
    await expect.poll(() => page.locator(`${SITES} [data-summary]`).textContent(), { timeout: 25_000 }).toBe(w.t('fleet.summary.need', { need: 1, n: 2 }));
      expect(await page.locator('#h-fleet-sites').textContent()).toBe(`${w.t('fleet.sites')} (2)`);
      await north.locator('button[aria-expanded]').click();
      await north.locator('.site-more').waitFor();
      expect(await north.locator('.site-more').textContent()).toContain(w.t('fleet.more.modules', { list: '' }).trim());

      const texts = await page.locator(`${SITES} *`).evaluateAll((els) =>
        (els as unknown as { childElementCount: number; textContent: string | null }[]).filter((e) => e.childElementCount === 0).map((e) => (e.textContent ?? '').trim()));
      expect(texts.filter((x) => englishOnly(lang).has(x)), 'English left on the fleet sites').toEqual([]);

      const found: string[] = [];
      for (const size of [LANDSCAPE, PORTRAIT]) {
        await page.setViewportSize(size);
        await page.waitForFunction((wd) => (globalThis as unknown as { innerWidth: number }).innerWidth === wd, size.width);
        for (const o of await overflowing(page)) found.push(`${size.width}x${size.height}: ${o}`);
        for (const v of await axeSerious(page)) found.push(`${size.width}x${size.height}: axe ${v}`);
      }
      await page.setViewportSize(LANDSCAPE);
      expect(found).toEqual([]);
      await shoot(page, `fleet-sites-${lang}`);
      expect(problems).toEqual([]);
      await context.close();
    });
  }
});
