// One alarm truth on every screen (issue 32), in Debian's Chromium, as an operator at a tablet
// sees it: the house cards, the top bar, the banner and the tone all read the one alarm store
// (alarm-view list and summary, and the alarm_changed events). An acknowledged P1 still active
// stays on its house and in the top bar; silencing quiets the alarms sounding then, and a new P1
// sounds; an alarm back to normal stops sounding at once and asks for its acknowledgement; the
// banner says the house and the cause in words; colour means priority (a P2 paints amber, a value
// out of its band is marked on the value and paints nothing); after a reload without a touch the
// top bar asks for one to turn the sound on; with the box gone, the alarms are unknown, not none.
// One server and one browser for the file; the browser holds audio back until a user activation
// (--autoplay-policy=document-user-activation-required), as tablets do. The box's stop is the last test.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, CHROMIUM, LANDSCAPE, newPage, rfidLogin, shoot } from './browser.js';
import { settle, watchLiveFeed } from './live-feed.js';

/** Says on the console when the audio prompt is shown: the page tells, nothing is asked of it. */
const SAY_PROMPT = `new MutationObserver((_, seen) => {
  if (!document.getElementById('audio-prompt')) return;
  seen.disconnect();
  console.log('audio-prompt shown');
}).observe(document, { childList: true, subtree: true });`;

/** Counts OscillatorNode.start() calls: each beep of the tone (and the test tone) starts one. */
const COUNT_OSCILLATORS = `(() => {
  window.__oscillators = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__oscillators++; return start.apply(this, args); };
})();`;

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('one alarm truth on every screen, in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let browser: Browser;
  let operatorCard = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const o = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Night shift', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04D0000001' });
    operatorCard = o.body.item.credential as string;
    for (const house of ['1', '2', '3', '4']) {
      const placed = await admin.post('/api/v1/poultry-flock/commands/place', { house_id: house, batch_id: `B${house}`, subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      // Day 20 of the broiler curve: 25.5 °C ± 1.5, humidity 50-70 %. House 4's humidity is 1 % above
      // its band: a warning on the value, far below the humidity alarm (no alarm is raised).
      const t = await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: house, temp: 25.5, humidity: house === '4' ? 71 : 60, co2: 1200, nh3: 5, ventilation: 40 });
      expect(t.status, JSON.stringify(t.body)).toBe(200);
      if (house === '4') expect(t.body.item.status).toBe('warn');
    }
    // The tablet's browser: audio waits for a user activation of the page, as on the tablets. (This
    // Chromium's --autoplay-policy=user-gesture-required lets an AudioContext start without one: it
    // holds back media elements only; document-user-activation-required is Chrome's own default.)
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic', '--autoplay-policy=document-user-activation-required'],
    });
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  const publish = async (body: Record<string, unknown>) => {
    const r = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.item as { id: string };
  };
  const command = async (action: string, body: Record<string, unknown>) => {
    const r = await admin.post(`/api/v1/industry-alarms/commands/${action}`, body);
    expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
  };
  /** A P1 as the climate rule raises it: the reading against its limit, and the rule's own syntax as message. */
  const hot = (unit: string, title = 'Temperature far above target') =>
    publish({ severity: 'critical', priority: 'P1', unit_id: unit, title, metric: 'temp', value: 38, message: 'temp 38 gt 31 for 120 s', details: { threshold: 31, comparator: 'gt' } });

  const operatorPage = async () => {
    const p = await newPage(browser);
    await p.context.addInitScript(COUNT_OSCILLATORS);
    await p.context.clock.install();
    const feed = watchLiveFeed(p.page);
    await rfidLogin(p.page, server.url, operatorCard);
    return { ...p, feed };
  };
  const oscillators = (page: Page) => page.evaluate('window.__oscillators') as Promise<number>;
  const card = (page: Page, house: string) => page.locator(`#houses li[data-house="${house}"]`);

  // First: before any tone played on this origin (Chromium lets an origin where sound often played
  // start audio without a touch: its media engagement).
  it('after a reload without a touch, the top bar first asks for one to turn the sound on, then plays a test tone', async () => {
    const { page: login, context: loggedIn } = await operatorPage();
    await card(login, '1').waitFor();
    // The tablet after a power cut: its session cookie, but no touch or key on the page since it
    // loaded. (A reload of the page that was typed into would keep the login's key press: Chromium
    // lets a same-origin navigation inherit the permission to play.)
    const context = await browser.newContext({ viewport: LANDSCAPE, storageState: await loggedIn.storageState() });
    await loggedIn.close();
    context.setDefaultTimeout(20_000);
    await context.addInitScript(COUNT_OSCILLATORS);
    await context.addInitScript(SAY_PROMPT);
    await context.clock.install();
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    // Playwright's own look-ups into the page count as a user activation (they run with a user
    // gesture), which would let audio start: nothing is asked of the page until the shell has read
    // the alarms and tried to start its audio (a resume() it waits 0.4 s for), and shown the prompt
    // (the page says so on its console).
    const listed = page.waitForResponse((r) => r.url().includes('/api/v1/alarm-view/list'));
    const shown = page.waitForEvent('console', { predicate: (m) => m.text() === 'audio-prompt shown', timeout: 15_000 });
    await page.goto(server.url);
    await listed;
    await shown;
    const prompt = page.locator('#audio-prompt');
    await prompt.waitFor({ timeout: 15_000 });
    expect(await prompt.textContent()).toBe('Tap to turn on the alarm sound');
    // Before anything else in the top bar.
    expect(await page.evaluate(`document.querySelector('header.top').firstElementChild.id`)).toBe('audio-prompt');
    const box = (await prompt.boundingBox())!;
    const menu = (await page.locator('.menu-btn').boundingBox())!;
    expect(box.x).toBeLessThan(menu.x);
    expect(box.height).toBeGreaterThanOrEqual(44);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'alarm-truth-audio-prompt');
    const before = await oscillators(page);
    await prompt.click();
    await prompt.waitFor({ state: 'detached' });
    // One short test tone, once.
    await expect.poll(() => oscillators(page)).toBe(before + 1);
    // A second of the tablet's time: no tone follows it.
    await page.clock.runFor(1_000);
    expect(await oscillators(page)).toBe(before + 1);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  it('an acknowledged P1 still active stays on its house card and in the top bar; the banner says the house and the cause in words', async () => {
    const { page, problems } = await operatorPage();
    await card(page, '1').waitFor();
    expect(await page.locator('#alarm-count').getAttribute('data-total')).toBe('0');
    const p1 = await hot('1');

    const banner = page.locator('#alarm-banner');
    await banner.waitFor({ timeout: 15_000 });
    const words = (await banner.textContent())!;
    // The house and the cause in words, the value against its limit; never the rule's syntax.
    expect(words).toContain('House 1');
    expect(words).toMatch(/38\s?°C, above the limit of 31\s?°C/);
    expect(words).not.toMatch(/\bgt\b|temp 38|for 120 s/);
    await expect.poll(() => card(page, '1').getAttribute('data-tone')).toBe('alarm');
    expect(await card(page, '1').locator('.house-alarms').textContent()).toContain('1 P1 active, not acknowledged');
    expect(await page.locator('#alarm-count').getAttribute('data-p1')).toBe('1');
    // Controls for gloved hands: at least 44 px each way.
    for (const sel of ['#alarm-ack', '#alarm-silence', '#alarm-banner a.btn', '#alarm-count']) {
      const box = (await page.locator(sel).first().boundingBox())!;
      expect(box.height, sel).toBeGreaterThanOrEqual(44);
      expect(box.width, sel).toBeGreaterThanOrEqual(44);
    }
    await shoot(page, 'alarm-truth-banner');

    await page.locator('#alarm-ack').click();
    await banner.waitFor({ state: 'detached' });
    // Acknowledged, its condition still there: on its house, red (an active P1), and in the top bar.
    await expect.poll(() => card(page, '1').locator('.house-alarms').textContent()).toContain('1 P1 acknowledged, still active');
    expect(await card(page, '1').getAttribute('data-tone')).toBe('alarm');
    expect(await page.locator('#alarm-count').getAttribute('data-p1')).toBe('0');
    expect(await page.locator('#alarm-count').getAttribute('data-active')).toBe('1');
    expect(await page.locator('#alarm-count').textContent()).toContain('1 acknowledged, still active');
    expect(await page.locator('#alarm-count').textContent()).not.toContain('none');
    // The API agrees: acknowledged, condition active.
    expect((await admin.get(`/api/v1/industry-alarms/${p1.id}`)).body.item).toMatchObject({ condition: 'active', alarm_state: 'acknowledged_active' });
    // ... and so does the house screen, from the same store.
    await card(page, '1').locator('a').click();
    await page.locator('#house-alarms li[data-state="acknowledged_active"]').waitFor();
    expect(await page.locator('#house-alarms').textContent()).toContain('acknowledged, still active');
    await page.goto(`${server.url}/#/`);
    await card(page, '1').waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'alarm-truth-acked-p1');

    // Its condition ends (an admin's reset): acknowledged and back to normal, it leaves the house.
    await command('reset', { id: p1.id, comment: 'sensor replaced' });
    await expect.poll(() => card(page, '1').locator('.house-alarms').textContent()).toBe('No open alarms');
    expect(await page.locator('#alarm-count').textContent()).toContain('none');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('silencing quiets the alarms sounding then; a new P1 sounds', async () => {
    const { page, problems, feed } = await operatorPage();
    await card(page, '2').waitFor();
    const first = await hot('2');
    const banner = page.locator('#alarm-banner');
    await expect.poll(() => banner.getAttribute('data-sounding'), { timeout: 15_000 }).toBe('true');
    await expect.poll(() => oscillators(page), { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    await page.locator('#alarm-silence').click();
    await expect.poll(() => banner.getAttribute('data-sounding')).toBe('false');
    const quiet = await oscillators(page);
    // After the box's next heartbeat, two beep periods (1.5 s) of the tablet's time: a tone left on would have beeped.
    await settle(page, feed, 3_000);
    expect(await oscillators(page)).toBe(quiet);
    expect(await banner.textContent()).toContain('tone silenced until');
    // The silence is audited with the alarms it quieted.
    const audit = await admin.get('/api/v1/audit/list?action=alarms.silence');
    expect(audit.body.items[0].details.alarm_ids).toEqual([first.id]);

    // A new P1 within the five minutes: it sounds, and the banner names it.
    const second = await hot('3', 'Ventilation below the minimum');
    await expect.poll(() => banner.getAttribute('data-sounding'), { timeout: 15_000 }).toBe('true');
    await expect.poll(() => oscillators(page), { timeout: 10_000 }).toBeGreaterThanOrEqual(quiet + 2);
    expect(await banner.getAttribute('data-alarm')).toBe(second.id);
    expect(await banner.textContent()).toContain('House 3');
    await shoot(page, 'alarm-truth-new-p1-sounds');

    // Both acknowledged (at another tablet): the banner goes, the tone stops.
    await command('ack', { id: first.id });
    await command('ack', { id: second.id });
    await banner.waitFor({ state: 'detached', timeout: 15_000 });
    const after = await oscillators(page);
    await settle(page, feed, 3_000);
    expect(await oscillators(page)).toBe(after);
    for (const id of [first.id, second.id]) await command('reset', { id });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('an alarm back to normal stops sounding at once and reads "back to normal" until acknowledged', async () => {
    const { page, problems, feed } = await operatorPage();
    await card(page, '2').waitFor();
    const p1 = await hot('2');
    const banner = page.locator('#alarm-banner');
    await expect.poll(() => banner.getAttribute('data-sounding'), { timeout: 15_000 }).toBe('true');
    await expect.poll(() => oscillators(page), { timeout: 10_000 }).toBeGreaterThanOrEqual(1);

    // The condition ends (the admin's reset at another tablet); nobody here acknowledged it.
    await command('reset', { id: p1.id });
    await expect.poll(() => banner.getAttribute('data-sounding'), { timeout: 10_000 }).toBe('false');
    const stopped = await oscillators(page);
    await settle(page, feed, 3_000);
    expect(await oscillators(page)).toBe(stopped);
    expect(await banner.getAttribute('data-state')).toBe('unacknowledged_cleared');
    expect(await banner.textContent()).toMatch(/Back to normal at (?:[^:]+, )?\d{1,2}:\d{2}(:\d{2})? — acknowledge/);
    // Still counted (it waits for an acknowledgement), on its house as back to normal, amber.
    expect(await page.locator('#alarm-count').getAttribute('data-p1')).toBe('1');
    expect(await card(page, '2').locator('.house-alarms').textContent()).toContain('1 P1 back to normal, acknowledge');
    expect(await card(page, '2').getAttribute('data-tone')).toBe('warn');
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'alarm-truth-back-to-normal');

    await page.locator('#alarm-ack').click();
    await banner.waitFor({ state: 'detached' });
    await expect.poll(() => card(page, '2').locator('.house-alarms').textContent()).toBe('No open alarms');
    expect(await page.locator('#alarm-count').getAttribute('data-total')).toBe('0');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('colour means priority: a P2 paints its card amber; a value out of band is marked on the value and paints nothing', async () => {
    const { page, problems } = await operatorPage();
    const p2 = await publish({ severity: 'medium', priority: 'P2', unit_id: '3', title: 'Water line pressure low', metric: 'pressure_bar', value: 0.8, details: { threshold: 1.5, comparator: 'lt' } });
    await expect.poll(() => card(page, '3').getAttribute('data-tone'), { timeout: 15_000 }).toBe('warn');
    const colour = (sel: string, prop: string) => page.evaluate(`getComputedStyle(document.querySelector('${sel}')).${prop}`) as Promise<string>;
    const cssVar = async (name: string) => hexToRgb((await page.evaluate(`getComputedStyle(document.documentElement).getPropertyValue('${name}').trim()`)) as string);
    expect(await colour('#houses li[data-house="3"]', 'borderLeftColor')).toBe(await cssVar('--warn'));
    expect(await card(page, '3').locator('.house-alarms').textContent()).toContain('1 P2 active, not acknowledged');
    // House 4: humidity 71 % against 50-70 %, no alarm: the value is marked, in words; the card is not painted.
    expect((await admin.get('/api/v1/industry-alarms/list?unit_id=4&listed=true')).body.items).toEqual([]);
    const humidity = card(page, '4').locator('[data-metric="humidity"]');
    expect(await humidity.getAttribute('data-out')).toBe('above');
    expect(await humidity.textContent()).toContain('above its band');
    expect(await card(page, '4').getAttribute('data-tone')).toBe('none');
    const edge = await colour('#houses li[data-house="4"]', 'borderLeftColor');
    expect([await cssVar('--alarm'), await cssVar('--warn')]).not.toContain(edge);
    expect([await cssVar('--alarm-bg'), await cssVar('--warn-bg')]).not.toContain(await colour('#houses li[data-house="4"]', 'backgroundColor'));
    // The legend says what the colours mean.
    expect(await page.locator('#tone-legend').textContent()).toMatch(/Red: an active P1/);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'alarm-truth-colours');
    await command('ack', { id: p2.id });
    await command('reset', { id: p2.id });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  // Last: stops the box.
  it('with the box out of reach, the alarms are unknown (never "none"), the stale note blames the box, the cards show their last known values', async () => {
    const { page } = await operatorPage();
    await card(page, '1').waitFor();
    await expect.poll(() => page.locator('#alarm-count').textContent()).toContain('none');
    await server.close();
    const count = page.locator('#alarm-count');
    await expect.poll(() => count.getAttribute('data-state'), { timeout: 20_000 }).toBe('unknown');
    expect(await count.textContent()).toMatch(/^Alarm state: Alarms unknown since (?:[^:]+, )?\d{1,2}:\d{2}(:\d{2})?$/);
    expect(await count.textContent()).not.toContain('none');
    const note = page.locator('.stale-note').first();
    await note.waitFor();
    expect(await note.textContent()).toMatch(/^The box does not answer \(or the network is down\): last known data from (?:[^:]+, )?\d{1,2}:\d{2}/);
    expect(await note.textContent()).not.toMatch(/controller/);
    // The cards: last known values with their time, not sent to check a controller.
    await expect.poll(() => card(page, '1').getAttribute('data-offline')).toBe('true');
    expect(await card(page, '1').locator('.reading-at dt').textContent()).toBe('Last known, measured');
    expect(await card(page, '1').locator('.stale-reading').count()).toBe(0);
    expect(await card(page, '1').locator('.house-alarms').textContent()).toBe('Alarms unknown');
    await shoot(page, 'alarm-truth-box-unreachable');
    await page.close();
  }, 60_000);
});

function hexToRgb(hex: string): string {
  const h = hex.replace('#', '');
  const n = parseInt(h.length === 3 ? h.split('').map((c) => c + c).join('') : h, 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
