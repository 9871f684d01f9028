// The poultry overview, the house screen and the setpoint flow read in Russian and in Spanish
// (issue 34, items 3 and 6), in Debian's Chromium: the tablet's language chosen before the page
// loads (localStorage cabinet-i18n.choice), then an operator's card (which has no language of its
// own, so the tablet's choice holds). On each screen: the words are the language's (glossary
// words, plurals, decimal commas, units after the number), nothing is cut or runs out of its card
// (an element's scrollWidth against its clientWidth; a card's right edge against the main area's)
// in both orientations, screenshots are taken (looked at by hand) and axe finds nothing serious.
// The setpoint is written to the simulated house controller over Modbus TCP and read back; a
// house whose controller does not answer gives the failure in the language's words.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { closedTcpPort } from '../field/helpers.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const daysAgo = (n: number) => new Date(Date.now() - n * DAY).toISOString().slice(0, 10);

/**
 * Elements under the selectors whose content is wider than their box (text cut or running out),
 * and roots whose right edge passes the main area's. Only elements with a box of their own count
 * (an inline span has clientWidth 0).
 */
async function overflowing(page: Page, selectors: string[]): Promise<string[]> {
  return page.evaluate(`(() => {
    const main = document.querySelector('#main').getBoundingClientRect();
    const out = [];
    const name = (el) => el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.className && typeof el.className === 'string' ? '.' + el.className.trim().split(/\\s+/).join('.') : '');
    for (const sel of ${JSON.stringify(selectors)}) {
      for (const root of document.querySelectorAll(sel)) {
        const r = root.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.right > main.right + 1) out.push(sel + ' ' + name(root) + ' ends at ' + Math.round(r.right) + ', main at ' + Math.round(main.right));
        for (const el of [root, ...root.querySelectorAll('*')]) {
          if (el.clientWidth > 0 && el.scrollWidth > el.clientWidth + 1) out.push(sel + ' ' + name(el) + ' ' + el.scrollWidth + '>' + el.clientWidth + ' "' + (el.textContent || '').trim().slice(0, 40) + '"');
        }
      }
    }
    return out;
  })()`) as Promise<string[]>;
}

/** The same check in both orientations (the page is left in landscape). */
async function fitsBoth(page: Page, selectors: string[]): Promise<string[]> {
  const out: string[] = [];
  for (const [label, size] of [['landscape', LANDSCAPE], ['portrait', PORTRAIT]] as const) {
    await page.setViewportSize(size);
    // laid out again at the new width: wait for the next frames
    await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
    out.push(...(await overflowing(page, selectors)).map((o) => `${label}: ${o}`));
  }
  await page.setViewportSize(LANDSCAPE);
  return out;
}

const text = async (page: Page, selector: string) => ((await page.locator(selector).first().textContent()) ?? '').replace(/\s+/g, ' ').trim();

/** What each language must read on the screens (the catalogue's words, with its plurals and numbers). */
const WORDS = {
  ru: {
    title: 'Птицеводство',
    house: 'Корпус 1',
    day: 'День 20',
    birds: '19 800 голов',
    birdsTwo: '20 000 голов',
    temp: 'Температура',
    target: /уставка \d+(,\d)? \(\d+(,\d)?–\u2060?\d+(,\d)?\) °C/,
    water: 'Вода за сегодня',
    litres: /\sл(\s|$)/,
    noAlarms: /Открытых тревог нет|: \d+ /,
    charts: 'Климат, вода и корм относительно нормы',
    range: 'Вся партия',
    legend: /Уставка\s*\d+(,\d)? °C/,
    perBird: /Вода на голову\s*\d+ мл/,
    setpoints: 'Уставки климата',
    now: /^\d+(,\d)? °C$/,
    lead: 'Отправить это изменение на контроллер корпуса 1?',
    change: /Температура \(уставка\) ?\d+(,\d)? °C → 26,5 °C/,
    yes: 'Да, отправить',
    verified: 'Записано, контроллер подтвердил чтением',
    done: 'Изменение действует.',
    failed: 'Контроллер корпуса не ответил — ничего не изменено.',
    failedLead: 'Изменение не прошло.',
    retry: 'Повторить',
    value: '26.5',
    written: 26.5,
  },
  es: {
    title: 'Avicultura',
    house: 'Nave 1',
    day: 'Día 20',
    birds: '19.800 aves',
    birdsTwo: '20.000 aves',
    temp: 'Temperatura',
    target: /consigna \d+(,\d)? \(\d+(,\d)?–\u2060?\d+(,\d)?\) °C/,
    water: 'Agua hoy',
    litres: /\sL\b/,
    noAlarms: /Sin alarmas abiertas|: \d+ /,
    charts: 'Clima, agua y pienso frente a sus rangos',
    range: 'Todo el lote',
    legend: /Consigna\s*\d+(,\d)? °C/,
    perBird: /Agua por ave\s*\d+ mL/,
    setpoints: 'Consignas de clima',
    now: /^\d+(,\d)? °C$/,
    lead: '¿Enviar este cambio al controlador de la nave 1?',
    change: /Temperatura de consigna ?\d+(,\d)? °C → 27,5 °C/,
    yes: 'Sí, enviarlo',
    verified: 'Escrito y leído de vuelta por el controlador',
    done: 'El cambio está vigente.',
    failed: 'El controlador de la nave no respondió — no se cambió nada.',
    failedLead: 'El cambio no se aplicó.',
    retry: 'Reintentar',
    value: '27.5',
    written: 27.5,
  },
} as const;

describe('the poultry screens in Russian and in Spanish', () => {
  const sim = new Simulation({ houses: 2, age_days: 20, birds: 20_000, speed: 1, seed: 11, noise: 0.1 });
  let simServer: SimServer;
  let env: TestEnv;
  let server: RunningServer;
  let farm: Client;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    simServer = await startTcpServer(sim, '127.0.0.1', 0);
    const downPort = await closedTcpPort();
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 400, retries: 0 }) });
    const master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    card = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Turno de día', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04E0000034' })).body.item.credential as string;
    for (const h of ['1', '2']) {
      const placed = await farm.post('/api/v1/poultry-flock/commands/place', { house_id: h, batch_id: `B${h}`, subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    }
    // House 1: a reading every three hours over the last day (the charts' hours), humidity 1 % above its band.
    for (let ts = Date.now() - DAY; ts < Date.now() - 5 * 60_000; ts += 3 * HOUR) {
      const r = await farm.post('/api/v1/poultry-climate/commands/telemetry', { house_id: '1', ts: new Date(ts).toISOString(), temp: 25.4, humidity: 71, co2: 1400, nh3: 6, ventilation: 35 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    // House 1's feed and water line: the end of each of the last three days and a minute ago; 19,800 birds now.
    let water = 100_000;
    let feed = 50_000;
    for (let d = 3; d >= 0; d--) {
      const ts = d === 0 ? Date.now() - 60_000 : Date.parse(`${daysAgo(d)}T23:00:00Z`);
      const r = await farm.post('/api/v1/poultry-feedwater/commands/ingest', { house_id: '1', batch_id: 'B1', birds: 19_800, age_days: 20 - d, water_counter_l: water, feed_counter_kg: feed, pressure_bar: 2.5, ts: new Date(ts).toISOString() });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      water += 4_150.5;
      feed += 2_300;
    }
    // House 1's controller answers (the simulator); house 2's port is closed.
    for (const [house, port] of [[1, simServer.where as number], [2, downPort]] as const) {
      const created = await farm.post('/api/v1/poultry-adapters', adapterProfile({ house, port, poll_period_s: 2 }));
      expect(created.status, JSON.stringify(created.body)).toBe(201);
    }
    browser = await launch();
  }, 180_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
    await simServer?.close().catch(() => {});
  });

  for (const lang of ['ru', 'es'] as const) {
    const w = WORDS[lang];
    it(`${lang}: the overview, the house screen, and a setpoint confirmed and written, or failed, in the tablet's language`, async () => {
      const { page, context, problems } = await newPage(browser);
      // The tablet's language, chosen before anyone logs in (as the login screen keeps it).
      await context.addInitScript(`try { localStorage.setItem('cabinet-i18n.choice', '${lang}'); } catch {}`);
      await rfidLogin(page, server.url, card);
      expect(await page.evaluate(`document.documentElement.lang`)).toBe(lang);

      // The overview: the house cards in the language, numbers with its separators, units after them.
      const one = page.locator('#houses li[data-house="1"]');
      await one.locator('[data-metric="temp"] .metric-now').waitFor();
      expect(await text(page, '#workspace-title')).toBe(w.title);
      expect(await text(page, '#houses li[data-house="1"] .card-title')).toBe(w.house);
      expect(await text(page, '#houses li[data-house="1"] .age')).toBe(w.day);
      expect(await text(page, '#houses li[data-house="1"] .house-birds')).toBe(w.birds);
      expect(await text(page, '#houses li[data-house="2"] .house-birds')).toBe(w.birdsTwo);
      expect(await text(page, '#houses li[data-house="1"] [data-metric="temp"] dt')).toBe(w.temp);
      expect(await text(page, '#houses li[data-house="1"] [data-metric="temp"] .metric-now')).toMatch(w.now);
      expect(await text(page, '#houses li[data-house="1"] [data-metric="temp"] .metric-target')).toMatch(w.target);
      expect(await one.locator('.feedwater').textContent()).toContain(w.water);
      expect(await one.locator('.feedwater').textContent()).toMatch(w.litres);
      expect(await text(page, '#houses li[data-house="1"] .house-alarms')).toMatch(w.noAlarms);
      // None of the English of these cards is left (the alarm texts the box wrote, and the reading's age line, are not these screens' words).
      const cards = (await page.evaluate(`[...document.querySelectorAll('#houses .house-card')].map((c) => {
        const copy = c.cloneNode(true);
        copy.querySelectorAll('.house-alarm-cause, .reading-at').forEach((e) => e.remove());
        return copy.textContent;
      }).join(' ')`)) as string;
      expect(cards).not.toMatch(/\b(House|Day|Batch|Temperature|Humidity|Water today|No open alarms|above its band|target)\b/);
      // The check sees a text that does not fit (a word wider than its box), so its silence means something.
      await page.evaluate(`(() => { const d = document.createElement('div'); d.id = 'too-narrow'; d.style.width = '3rem'; d.style.overflow = 'hidden'; d.textContent = 'Вентиляционная'; document.querySelector('#houses').append(d); })()`);
      expect(await overflowing(page, ['#too-narrow'])).toHaveLength(1);
      await page.evaluate(`document.querySelector('#too-narrow').remove()`);
      expect(await fitsBoth(page, ['#houses .house-card', '#tone-legend'])).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, `poultry-overview-${lang}`);

      // The house screen: its headings, charts (legends with units and values) in the language.
      await one.locator('a').click();
      await page.locator('[data-house-screen="1"] .house-top').waitFor();
      for (const c of ['climate-temp', 'perbird-water']) await page.locator(`[data-chart="${c}"] canvas`).waitFor();
      expect(await text(page, '[data-house-screen="1"] h1')).toBe(w.house);
      expect(await text(page, '#house-charts-h')).toBe(w.charts);
      expect(await text(page, '.range-switch [data-range="batch"]')).toBe(w.range);
      expect(await text(page, '[data-chart="climate-temp"] .chart-legend')).toMatch(w.legend);
      expect(await text(page, '[data-chart="perbird-water"] .chart-legend')).toMatch(w.perBird);
      expect(await text(page, '[data-chart="climate-temp"] figcaption')).toContain(w.temp);
      const panel = page.locator('#setpoint');
      expect(await text(page, '#setpoint-h')).toBe(w.setpoints);
      expect(await text(page, '#setpoint [data-setpoint="target_temp_c"] .sp-now')).toMatch(w.now);
      expect(await fitsBoth(page, ['.house-top .house-card', '#setpoint', '#house-alarms', 'figure.chart figcaption', '.chart-legend', '.range-switch'])).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      await page.locator('.house-charts').scrollIntoViewIfNeeded();
      await shoot(page, `house-charts-${lang}`);

      // The setpoint: one confirmation repeating old -> new, in the language; nothing written before it.
      await panel.locator('input[name="target_temp_c"]').fill(w.value);
      await panel.locator('#setpoint-review').click();
      await panel.locator('#setpoint-confirm').waitFor();
      expect(await text(page, '#setpoint .setpoint-lead')).toBe(w.lead);
      expect(await text(page, '#setpoint-changes li')).toMatch(w.change);
      expect(await text(page, '#setpoint-confirm')).toBe(w.yes);
      expect(sim.state(1)!.setpoints.target_temp_c).not.toBe(w.written);
      expect(await fitsBoth(page, ['#setpoint .setpoint-review', '#setpoint .setpoint-review .btn'])).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      await panel.scrollIntoViewIfNeeded();
      await shoot(page, `house-setpoint-confirm-${lang}`);
      await panel.locator('#setpoint-confirm').click();
      await panel.locator('#setpoint-changes[data-status="verified"]').waitFor({ timeout: 15_000 });
      expect(await text(page, '#setpoint-changes li .sp-outcome')).toBe(w.verified);
      expect(await text(page, '#setpoint .setpoint-lead')).toBe(w.done);
      expect(sim.state(1)!.setpoints.target_temp_c).toBe(w.written);
      expect(await fitsBoth(page, ['#setpoint .setpoint-review', '#setpoint .setpoint-review .btn'])).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      await panel.scrollIntoViewIfNeeded();
      await shoot(page, `house-setpoint-done-${lang}`);

      // House 2's controller does not answer: the failure in the language's words, nothing changed, Retry.
      await page.goto(`${server.url}/#/house/2`);
      const two = page.locator('[data-house-screen="2"] #setpoint');
      await two.locator('input[name="target_temp_c"]').fill(w.value);
      await two.locator('#setpoint-review').click();
      await two.locator('#setpoint-confirm').click();
      await two.locator('#setpoint-changes[data-status="failed"]').waitFor({ timeout: 15_000 });
      expect(await text(page, '[data-house-screen="2"] #setpoint-changes li .sp-outcome')).toBe(w.failed);
      expect(await text(page, '[data-house-screen="2"] #setpoint .setpoint-lead')).toBe(w.failedLead);
      expect(await text(page, '[data-house-screen="2"] #setpoint-retry')).toBe(w.retry);
      expect(await two.textContent()).not.toMatch(/Connection refused|127\.0\.0\.1|addr:/);
      const active = (await farm.get('/api/v1/poultry-climate/list?house_id=2&age_mode=active')).body.items as Record<string, unknown>[];
      expect(active.map((v) => v.target_temp_c)).not.toContain(w.written);
      expect(await fitsBoth(page, ['[data-house-screen="2"] .setpoint-review', '[data-house-screen="2"] .setpoint-review .btn', '[data-house-screen="2"] .house-card'])).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      await two.scrollIntoViewIfNeeded();
      await shoot(page, `house-setpoint-failed-${lang}`);
      expect(problems).toEqual([]);
      await context.close();
    }, 90_000);
  }
});
