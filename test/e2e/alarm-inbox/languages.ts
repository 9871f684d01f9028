// An alarm the box raises itself reads in each tablet's language (issue 34), in Debian's Chromium:
// a simulated house controller on Modbus TCP stops answering, the box raises its comm_loss P1, and
// two tablets on the same box show it, one read by a Russian card holder, one by a Spanish one
// (their cards' language, and the tablet's own choice kept in localStorage). The banner, the top
// bar's count, the inbox, the acknowledgement (made on the Russian tablet, read on the Spanish one),
// the shelve form with its refusal, and the alarm's account each read in the tablet's language, in
// both orientations, with no text cut or overflowing its box (scrollWidth against clientWidth) and
// axe clean. The alarm's own title and cause are the box's: by their key (title_key, message_key)
// in the reader's language when the box sends one, else the English it stored.
// Its own box (edge-single: the alarm is the box's own) and simulated controller; the browser is the
// one of test/e2e/alarm-inbox.test.ts, which registers these tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../../helpers/server.js';
import { clientAs, type Client } from '../../helpers/client.js';
import type { RunningServer } from '../../../src/server.js';
import { adapterProfile } from '../../../src/simulate/profile.js';
import { startTcpServer, type RunningServer as SimServer } from '../../../src/simulate/server.js';
import { Simulation } from '../../../src/simulate/simulation.js';
import { BUILT_IN } from '../../../src/i18n/built-in.js';
import { formatLocale } from '../../../src/i18n/languages.js';
import { makeTranslator } from '../../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, newPage, PORTRAIT, rfidLogin, shoot } from '../browser.js';

type Lang = 'ru' | 'es';
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const CLOCK = String.raw`\d{1,2}:\d{2}`;
/** A time ahead (a shelve's end): on another day than today the shell says its date before it ("30 nov 2026, 00:22"). */
const LATER = String.raw`(?:[^:]+, )?\d{1,2}:\d{2}`;
const tr = (lang: Lang) => makeTranslator(lang, formatLocale(lang, 'en-GB'), BUILT_IN[lang], BUILT_IN.en);

/** The parts of an alarm view item this test reads (the box's texts may carry keys beside the English). */
interface Item {
  key: string;
  id: string;
  state: string;
  comm_loss: boolean;
  title: string;
  cause: string | null;
  title_key?: string | null;
  message_key?: string | null;
  text_params?: Record<string, string | number | boolean | null> | null;
}

/** Minimal element shape for code run in the page (the test's tsconfig has no DOM types). */
interface Box { tagName: string; className: string; textContent: string | null; scrollWidth: number; clientWidth: number; getBoundingClientRect(): { left: number; right: number; width: number }; ownerDocument: { documentElement: { clientWidth: number } } }

/** Elements whose text is cut or runs past their own box or the screen's edge. */
async function overflowing(page: Page, selector: string): Promise<string[]> {
  return page.locator(selector).evaluateAll((els) =>
    (els as unknown as Box[]).flatMap((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0) return []; // not shown (a hidden span of the other screen size)
      const cut = e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1;
      const out = r.right > e.ownerDocument.documentElement.clientWidth + 1 || r.left < -1;
      return cut || out ? [`${e.tagName.toLowerCase()}.${e.className} "${(e.textContent ?? '').trim().slice(0, 50)}" scroll ${e.scrollWidth} > client ${e.clientWidth}, right ${Math.round(r.right)}`] : [];
    }),
  );
}

/** No text cut in either orientation. */
async function fitsBoth(page: Page, selector: string): Promise<void> {
  const before = page.viewportSize() ?? LANDSCAPE;
  for (const size of [LANDSCAPE, PORTRAIT]) {
    await page.setViewportSize(size);
    // A layout pass after the resize: the orientation's own media rules are in force.
    await page.waitForFunction((w) => (globalThis as unknown as { innerWidth: number }).innerWidth === w, size.width);
    expect(await overflowing(page, selector), `${selector} at ${size.width}x${size.height}`).toEqual([]);
  }
  await page.setViewportSize(before);
}

/** Registers the languages' tests: their own box (edge-single) and simulated controller, the file's browser. */
export function inboxInLanguages(shared: { browser: () => Browser }): void {
  describe('an alarm raised by the box, in each tablet\'s language', () => {
    const sim = new Simulation({ houses: 1, age_days: 20, birds: 20_000, speed: 1, seed: 5, noise: 0.2 });
    let simServer: SimServer;
    let env: TestEnv;
    let server: RunningServer;
    let farm: Client;
    let browser: Browser;
    const cards: Record<Lang, string> = { ru: '', es: '' };
    const holders: Record<Lang, string> = { ru: 'Анна Петрова', es: 'Lucía Gómez' };
    const pages = {} as Record<Lang, { page: Page; problems: string[] }>;
    let alarm: Item;

    beforeAll(async () => {
      simServer = await startTcpServer(sim, '127.0.0.1', 0);
      env = await createTestEnv('sqlite');
      server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', stale_after_s: '6', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
      const master = await clientAs(env, server);
      farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
      for (const [lang, uid] of [['ru', '04E0000001'], ['es', '04E0000002']] as const) {
        const issued = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: holders[lang], scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: uid, language: lang });
        expect(issued.status, JSON.stringify(issued.body)).toBe(201);
        cards[lang] = issued.body.item.credential as string;
      }
      expect((await farm.post('/api/v1/poultry-flock/commands/place', { house_id: '1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 })).status).toBe(201);
      const created = await farm.post('/api/v1/poultry-adapters', adapterProfile({ house: 1, port: simServer.where as number, poll_period_s: 1 }));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      browser = shared.browser();
    }, 120_000);
    afterAll(async () => {
      await env?.cleanup();
      await simServer?.close().catch(() => {});
    });

    /** The tablet in its language: its own choice kept before the page loads, then the card's. */
    const tablet = async (lang: Lang) => {
      const p = await newPage(browser);
      await p.context.addInitScript((l) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', l), lang);
      await rfidLogin(p.page, server.url, cards[lang]);
      await p.page.locator('#logout', { hasText: tr(lang).t('shell.top.logout') }).waitFor();
      expect(await p.page.locator('html').getAttribute('lang')).toBe(lang);
      return p;
    };
    const row = (lang: Lang) => pages[lang].page.locator(`#inbox li[data-alarm="${alarm.key}"]`);
    /** The box's text in the reader's language: by its key when the box sent one, else its English. */
    const boxWords = (lang: Lang, key: string | null | undefined, english: string) => (key && BUILT_IN.en[key] ? tr(lang).t(key, alarm.text_params ?? undefined) : english);

    it('the banner and the top bar: the controller that stopped answering, in Russian on one tablet and in Spanish on the other', async () => {
      pages.ru = await tablet('ru');
      pages.es = await tablet('es');
      for (const lang of ['ru', 'es'] as const) await pages[lang].page.locator('#houses li[data-house="1"]').waitFor();

      await simServer.close();
      // Three missed polls: the box raises its comm_loss P1, and both tablets announce it.
      for (const lang of ['ru', 'es'] as const) await pages[lang].page.locator('#alarm-banner').waitFor({ timeout: 30_000 });
      const listed = (await farm.get('/api/v1/alarm-view/list')).body.items as Item[];
      alarm = listed.find((a) => a.comm_loss)!;
      expect(alarm, JSON.stringify(listed)).toBeTruthy();
      if (!alarm.title_key) console.warn('alarm-languages: the box sent no title_key for its comm_loss alarm yet; its title is checked as the English it stored');

      const words = {
        ru: { since: 'С ', ack: 'Подтвердить', silence: 'Без звука 5 мин', all: 'Все тревоги', count: 'Тревоги' },
        es: { since: 'Desde ', ack: 'Confirmar', silence: 'Silenciar 5 min', all: 'Todas las alarmas', count: 'Alarmas' },
      };
      for (const lang of ['ru', 'es'] as const) {
        const { page } = pages[lang];
        const banner = page.locator('#alarm-banner');
        expect(await banner.getAttribute('data-alarm')).toBe(alarm.id);
        expect(await banner.getAttribute('data-state')).toBe('unacknowledged_active');
        expect(await banner.locator('.alarm-banner-title').textContent()).toBe(boxWords(lang, alarm.title_key, alarm.title));
        if (alarm.cause && alarm.cause !== alarm.title) expect(await banner.locator('.alarm-banner-why').textContent()).toBe(` — ${boxWords(lang, alarm.message_key, alarm.cause)}`);
        if (alarm.title_key && BUILT_IN.en[alarm.title_key]) expect(await banner.locator('.alarm-banner-title').textContent()).not.toBe(alarm.title);
        expect(await banner.locator('.alarm-banner-when').textContent()).toMatch(new RegExp(`^${words[lang].since}${CLOCK}`));
        expect(await page.locator('#alarm-ack').textContent()).toBe(words[lang].ack);
        await banner.locator('#alarm-silence').waitFor();
        expect(await banner.locator('#alarm-silence').textContent()).toBe(words[lang].silence);
        expect(await banner.locator('a.btn').textContent()).toBe(words[lang].all);
        // The top bar counts the P1 in the tablet's words.
        const count = page.locator('#alarm-count');
        await expect.poll(() => count.getAttribute('data-p1')).toBe('1');
        expect(await count.textContent()).toContain(`${words[lang].count} 1 P1`);
        // No English left in the frame around it.
        const frame = `${await banner.textContent()} ${await page.locator('header.top').textContent()}`;
        for (const english of ['Since', 'Acknowledge', 'All alarms', 'Silence', 'Log out', 'Alarms not acknowledged']) expect(frame, lang).not.toContain(english);
        await fitsBoth(page, '#alarm-banner, #alarm-banner p, #alarm-banner .btn, header.top, header.top .btn, #alarm-count, #live-state');
        expect(await axeSerious(page)).toEqual([]);
        await shoot(page, `alarm-languages-banner-${lang}`);
      }
      // Past stale_after_s without a reading, the house card's age line says so in the reader's words.
      await expect.poll(() => pages.ru.page.locator('#houses li[data-house="1"] .stale-reading').textContent(), { timeout: 30_000 }).toMatch(/^Нет показаний .+ — проверьте контроллер$/);
      await expect.poll(() => pages.es.page.locator('#houses li[data-house="1"] .stale-reading').textContent(), { timeout: 30_000 }).toMatch(/^Sin lectura desde hace .+ — revise el controlador$/);
    }, 90_000);

    it('the inbox in each language; acknowledged on the Russian tablet, it reads as acknowledged on the Spanish one', async () => {
      const expected = {
        ru: { badge: 'Активна', state: 'Активна, не подтверждена', summary: '1 тревога не подтверждена.', meta: 'Птицеводство · с ', tabs: ['Сейчас', 'История'], heading: 'Тревоги', more: 'Подробнее' },
        es: { badge: 'Activa', state: 'Activa, sin confirmar', summary: '1 alarma sin confirmar.', meta: 'Avicultura · desde ', tabs: ['Ahora', 'Historial'], heading: 'Alarmas', more: 'Más' },
      };
      for (const lang of ['ru', 'es'] as const) {
        const { page } = pages[lang];
        await page.locator('#alarm-banner a.btn').click();
        await row(lang).waitFor();
        const e = expected[lang];
        expect(await page.locator('#alarm-inbox h1').textContent()).toBe(`${e.heading} (1)`);
        expect(await page.locator('.inbox-tabs .btn').allTextContents()).toEqual(e.tabs);
        expect(await page.locator('.inbox-summary').textContent()).toBe(e.summary);
        expect(await row(lang).locator('[data-badge="state"]').textContent()).toBe(e.badge);
        expect(await row(lang).locator('[data-field="state-words"]').textContent()).toBe(e.state);
        expect(await row(lang).locator('.inbox-meta').first().textContent()).toMatch(new RegExp(`^${e.meta}${CLOCK}`));
        expect(await row(lang).locator('.inbox-title').textContent()).toContain(boxWords(lang, alarm.title_key, alarm.title).replace(/^.*?: /, ''));
        expect(await row(lang).locator('[data-action="more"]').textContent()).toBe(e.more);
        await fitsBoth(page, '.inbox-item, .inbox-item p, .inbox-item .btn, .inbox-line, .inbox-tabs .btn, .inbox-summary');
        expect(await axeSerious(page)).toEqual([]);
        await shoot(page, `alarm-languages-inbox-${lang}`);
      }
      // The overflow check sees a cut text: the cause forced onto one short line is reported.
      type Styled = { style: { whiteSpace: string; overflow: string; width: string } };
      const cause = row('ru').locator('.inbox-cause');
      await cause.evaluate((e) => Object.assign((e as unknown as Styled).style, { whiteSpace: 'nowrap', overflow: 'hidden', width: '120px' }));
      expect(await overflowing(pages.ru.page, '.inbox-cause')).toHaveLength(1);
      await cause.evaluate((e) => Object.assign((e as unknown as Styled).style, { whiteSpace: '', overflow: '', width: '' }));
      expect(await overflowing(pages.ru.page, '.inbox-cause')).toEqual([]);

      // Acknowledged from the Russian tablet: the confirmation there, and the same state on the Spanish one.
      await row('ru').locator('[data-action="ack"]').click();
      await expect.poll(() => row('ru').locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Подтверждена: ${holders.ru}, ${CLOCK}; ещё активна$`));
      expect(await row('ru').locator('[data-badge="state"]').textContent()).toBe('Подтверждена');
      await expect.poll(() => row('es').locator('[data-field="state-words"]').textContent(), { timeout: 15_000 }).toMatch(new RegExp(`^Confirmada por ${holders.ru}, ${CLOCK}; aún activa$`));
      expect(await row('es').locator('[data-badge="state"]').textContent()).toBe('Confirmada');
      await expect.poll(() => pages.ru.page.locator('#alarm-count').textContent()).toContain('1 подтверждена, ещё активна');
      await expect.poll(() => pages.es.page.locator('#alarm-count').textContent()).toContain('1 confirmada, aún activa');
      expect(await pages.ru.page.locator('.inbox-summary').textContent()).toBe('1 тревога подтверждена и ещё активна.');
      for (const lang of ['ru', 'es'] as const) {
        // The acknowledged alarm no longer sounds: the banner is gone, the count still says it is active.
        await pages[lang].page.locator('#alarm-banner').waitFor({ state: 'detached' });
        await fitsBoth(pages[lang].page, '.inbox-item, .inbox-item p, .inbox-item .btn, header.top, #alarm-count');
        expect(await axeSerious(pages[lang].page)).toEqual([]);
        await shoot(pages[lang].page, `alarm-languages-acked-${lang}`);
      }
    }, 60_000);

    it('shelving in Spanish: the form, its refusal without a reason, the shelve; read in Russian with the alarm\'s account', async () => {
      const es = pages.es.page;
      await row('es').locator('[data-action="shelve"]').click();
      const form = row('es').locator('[data-form="shelve"]');
      await form.waitFor();
      expect(await form.locator('.alarm-field span').textContent()).toBe('Motivo (obligatorio)');
      expect(await form.locator('legend').textContent()).toBe('Por cuánto tiempo');
      expect(await form.locator('label.choice').allTextContents()).toEqual(['15 min', '1 h', '4 h', '8 h']);
      expect(await form.locator('button').allTextContents()).toEqual(['Posponer alarma', 'Cancelar']);
      await form.locator('button[type="submit"]').click();
      await expect.poll(() => row('es').locator('[role="alert"]').textContent()).toBe('Indique por qué pospone la alarma.');
      await fitsBoth(es, '.alarm-form, .alarm-form p, .alarm-form label, .alarm-form .btn, .alarm-form legend, .inbox-item [role="alert"]');
      expect(await axeSerious(es)).toEqual([]);
      await shoot(es, 'alarm-languages-shelve-es');

      await form.locator('input[name="reason"]').fill('Cambio de cable');
      await form.locator('label.choice', { hasText: '1 h' }).click();
      await form.locator('button[type="submit"]').click();
      await expect.poll(() => row('es').getAttribute('data-state')).toBe('shelved');
      expect(await row('es').locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Pospuesta hasta ${LATER} por ${holders.es} \\(Cambio de cable\\)$`));
      await expect.poll(() => row('ru').getAttribute('data-state'), { timeout: 15_000 }).toBe('shelved');
      expect(await row('ru').locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Отложена до ${LATER}: ${holders.es} \\(Cambio de cable\\)$`));
      expect(await row('ru').locator('[data-badge="state"]').textContent()).toBe('Отложена');
      // The acknowledgement stays said on its own line while the alarm is shelved.
      expect(await row('ru').locator('[data-field="acked"]').textContent()).toMatch(new RegExp(`^Подтверждена: ${holders.ru}, ${CLOCK}$`));

      // The account, in Russian: its headings and the times its record keeps.
      const ru = pages.ru.page;
      await row('ru').locator('[data-action="more"]').click();
      const account = row('ru').locator('.alarm-account');
      await account.waitFor();
      expect(await row('ru').locator('[data-action="more"]').textContent()).toBe('Свернуть');
      const headings = await account.locator('.account-fields dt').allTextContents();
      for (const h of ['Что', 'Начало', 'Состояние', 'Кто подтвердил']) expect(headings).toContain(h);
      expect(await account.locator('.account-sub').textContent()).toBe('Хронология');
      expect(await account.locator('[data-step="raised"] dt').textContent()).toBe('Возникла');
      expect(await account.locator('[data-step="acknowledged"] dt').textContent()).toBe(`Подтверждена: ${holders.ru}`);
      expect(await account.locator('[data-step="shelved"] dt').textContent()).toMatch(new RegExp(`^Отложена: ${holders.es} \\(Cambio de cable\\), до ${LATER}$`));
      await fitsBoth(ru, '.alarm-account, .alarm-account dt, .alarm-account dd, .inbox-item .btn');
      expect(await axeSerious(ru)).toEqual([]);
      await shoot(ru, 'alarm-languages-account-ru');
    }, 60_000);

    it('the menu, the dashboard\'s module tiles and the alarm history in Russian and Spanish', async () => {
      const words = {
        ru: { menu: ['Рабочий стол', 'Все модули', 'Тревоги'], dashboard: 'Все модули', history: 'Прошлых тревог пока нет.', poultry: 'Птицеводство', none: 'Тревог нет' },
        es: { menu: ['Área de trabajo', 'Panel', 'Alarmas'], dashboard: 'Panel', history: 'Aún no hay alarmas pasadas.', poultry: 'Avicultura', none: 'Sin alarmas' },
      };
      for (const lang of ['ru', 'es'] as const) {
        const { page } = pages[lang];
        // The shelved alarm is not announced: the top bar says there is none, in one phrase of the language.
        expect(await page.locator('#alarm-count').textContent()).toContain(words[lang].none);
        await page.locator('.menu-btn').click();
        const menu = page.locator('#menu');
        await menu.waitFor();
        const entries = await menu.locator('a').allTextContents();
        for (const w of words[lang].menu) expect(entries, lang).toContain(w);
        await fitsBoth(page, '#sidebar, #menu a');
        expect(await axeSerious(page)).toEqual([]);
        await shoot(page, `alarm-languages-menu-${lang}`);
        await menu.locator('a', { hasText: words[lang].dashboard }).click();
        await page.locator('.dashboard h1', { hasText: words[lang].dashboard }).waitFor();
        // The modules by their names in the reader's language (the box's own for one the catalogue lacks).
        expect(await page.locator('#modules li[data-module="poultry"] strong').textContent()).toBe(words[lang].poultry);
        // The live feed names the alarm in the reader's words too (by the box's keys, when it sends them).
        await page.locator('#events li').first().waitFor();
        const feed = (await page.locator('#events').textContent())!;
        expect(feed).toContain(tr(lang).t('shell.feed.event', { event: 'alarm_changed' }));
        if (alarm.title_key && BUILT_IN.en[alarm.title_key]) {
          expect(feed).toContain(boxWords(lang, alarm.title_key, alarm.title));
          expect(feed).not.toContain(alarm.title);
        }
        await fitsBoth(page, '.tile, .tile strong, .tile small, .live-feed li');
        expect(await axeSerious(page)).toEqual([]);
        await shoot(page, `alarm-languages-dashboard-${lang}`);
        await page.goto(`${server.url}/#/alarms?view=history`);
        await page.locator('#alarm-history').waitFor();
        await expect.poll(() => page.locator('#alarm-history .empty').textContent()).toBe(words[lang].history);
      }
      for (const lang of ['ru', 'es'] as const) expect(pages[lang].problems, lang).toEqual([]);
    }, 60_000);
  });
}
