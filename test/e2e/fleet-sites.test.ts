// The fleet view in the web shell (Debian's Chromium) with a REAL syncing box: a master
// (cloud-multi) and an edge box server (edge-single with sync_master_url and the credential from
// register-site) in this process, syncing over HTTP, and a second site whose box never connected.
// First in Russian and Spanish (a tablet set to the language: localStorage cabinet-i18n.choice,
// before the shell loads): the statuses, the reasons a site is listed first, the card's fields and
// the summary in that language, counts and ages in its plural forms; no English word of the fleet
// screen is left; nothing is cut or runs past its card in either orientation; axe clean. Then in
// English: the site live with its version; a P1 alarm raised on the box shows as "1 open P1
// alarm", a version policy it is outside of as "outside policy" with the rule in words; a box that
// stops turns "Stopped" once sync_stale_ms passed and moves above the sites in step.
// One master, one box and one browser for the file: the languages read the site before the English
// part raises its alarm, sets its policy and stops the box.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator, type Translator } from '../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot, smallTargets } from './browser.js';
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

describe('the fleet view with a real syncing box', () => {
  let masterEnv: TestEnv;
  let edgeEnv: TestEnv;
  let master: RunningServer;
  let edge: RunningServer | undefined;
  let fleet: Client;
  let edgeOp: Client;
  let browser: Browser;
  let card: string;

  const site = (page: Page, id: string) => page.locator(`${SITES} [data-site="${id}"]`);

  beforeAll(async () => {
    masterEnv = await createTestEnv('sqlite');
    edgeEnv = await createTestEnv('sqlite');
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off', sync_stale_ms: '3000' });
    fleet = await clientAs(masterEnv, master);
    const issued = await fleet.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'fleet team', role: 'admin', ttl_minutes: 60, scope: 'master', card_uid: '04F1EE7001' });
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
    const edgeAdmin = await clientAs(edgeEnv, edge);
    edgeOp = await clientAs(edgeEnv, edge, { subject: 'op', role: 'operator', scope_type: 'tenant', tenant_id: 'green-acres', site_id: 'north-barn' }, edgeAdmin.contract);
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
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

      const north = site(page, 'north-barn@green-acres');
      const south = site(page, 'south-barn@green-acres');
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

  it('shows the site live with its version, then its P1 alarm, then stopped when the box stops', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, master.url, card);
    expect(await page.locator('#workspace-title').textContent()).toBe('Fleet overview');
    const north = site(page, 'north-barn@green-acres');
    await expect.poll(() => north.getAttribute('data-status'), { timeout: 20_000 }).toBe('live');
    expect(await north.locator('[data-badge="status"]').textContent()).toBe('Live');
    await expect.poll(() => north.locator('[data-field="version"]').textContent(), { timeout: 15_000 }).toContain(`Version ${pkg.version}`);
    expect(await north.locator('[data-field="version"]').textContent()).toBe(`Version ${pkg.version} — within policy`);
    expect(await north.locator('[data-field="last-seen"]').textContent()).toMatch(/^\d+ s ago$/);
    expect(await north.locator('[data-field="p1"]').textContent()).toBe('None open');
    // The box that never connected needs attention: it is listed first, in words.
    const south = site(page, 'south-barn@green-acres');
    expect(await south.getAttribute('data-status')).toBe('stopped');
    expect(await south.locator('[data-why]').textContent()).toBe('Never connected');
    expect(await south.locator('[data-field="version"]').textContent()).toBe('Version not reported');
    expect(await page.locator('[data-site]').first().getAttribute('data-site')).toBe('south-barn@green-acres');
    expect(await page.locator('[data-summary]').textContent()).toBe('1 of 2 sites need attention, listed first.');
    expect(await axeSerious(page)).toEqual([]);
    expect(await smallTargets(page)).toEqual([]);
    await shoot(page, 'fleet-sites');

    // A P1 on the box: its count reaches the fleet screen.
    const raised = await edgeOp.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'rules', title: 'house 2 too hot' });
    expect(raised.status, JSON.stringify(raised.body)).toBe(201);
    await expect.poll(() => north.locator('[data-field="p1"]').textContent(), { timeout: 20_000 }).toBe('1 open P1 alarm');
    // The card may still show an event waiting on the box for a cycle (a loaded machine): polled.
    await expect.poll(() => north.locator('[data-why]').textContent(), { timeout: 20_000 }).toBe('1 open P1 alarm');
    expect(await north.locator('[data-field="heartbeat"]').textContent()).toMatch(/ago\)$/);

    // A policy the box's software is outside of: said on the card, in words.
    const policy = await fleet.post('/api/v1/version-policies/commands/set', { id: 'alarms-7', scope: 'global', module_id: 'alarms', allowed_major: 7 });
    expect(policy.status, JSON.stringify(policy.body)).toBe(200);
    await expect.poll(() => north.locator('[data-field="version"]').textContent(), { timeout: 20_000 })
      .toBe(`Version ${pkg.version} — outside policy alarms 1.0.0 is outside the allowed major line 7.x (policy alarms-7)`);
    await expect.poll(() => north.locator('[data-why]').textContent(), { timeout: 20_000 }).toBe('1 open P1 alarm · Software outside policy');

    // The box stops: it turns Stopped without anything arriving, and says for how long.
    await edge!.close();
    edge = undefined;
    await expect.poll(() => north.getAttribute('data-status'), { timeout: 25_000 }).toBe('stopped');
    expect(await north.locator('[data-badge="status"]').textContent()).toBe('Stopped');
    expect(await north.locator('[data-why]').textContent()).toMatch(/^Not heard from for \d+ s · 1 open P1 alarm · Software outside policy$/);
    // Stopped with an open P1 outranks stopped alone.
    expect(await page.locator('[data-site]').first().getAttribute('data-site')).toBe('north-barn@green-acres');
    await north.locator('button', { hasText: 'More about this site' }).click();
    expect(await north.locator('.site-more').textContent()).toContain('tenant-master-sync 1.0.0');
    expect(await north.locator('.site-more li').allTextContents()).toEqual(['alarms 1.0.0 is outside the allowed major line 7.x (policy alarms-7)']);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'fleet-sites-stopped');
    expect(problems).toEqual([]);
  });

  it('is usable on a tablet held upright: cards, every target at least 48 px', async () => {
    const { page, problems } = await newPage(browser, { viewport: PORTRAIT });
    await rfidLogin(page, master.url, card);
    await site(page, 'north-barn@green-acres').waitFor();
    await page.locator('[data-resource="sync-sites"] select[name="filter-status"]').selectOption('stopped');
    await expect.poll(() => page.locator('[data-site]').count()).toBe(2);
    expect(await smallTargets(page)).toEqual([]);
    expect(await axeSerious(page)).toEqual([]);
    expect(problems).toEqual([]);
  });
});
