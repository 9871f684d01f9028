// The poultry workspace of the web shell in Debian's Chromium, built from the poultry resources the
// server serves: house cards coloured by status (an out-of-norm feed/water line in alarm colour),
// the house screen with its batch chart, the alarm list; the time to the first house card on this
// loopback server is printed for the budget. One browser and one server for the file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, PORTRAIT, rfidLogin, shoot, smallTargets } from './browser.js';

describe('poultry workspace in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let farm: Client;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000' });
    const master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Barn admin', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04B0000001' });
    card = r.body.item.credential as string;
    // House 1 reports a normal line pressure; house 2's line is nearly dry with low pressure.
    const start = new Date(Date.now() - 6 * 3600_000);
    const morning = new Date(Date.now() - 60_000);
    const ingest = async (body: Record<string, unknown>) => {
      const a = await farm.post('/api/v1/poultry-feedwater/commands/ingest', body);
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      return a.body.item;
    };
    const okLine = await ingest({ house_id: '1', batch_id: 'B-2026-11', birds: 20000, age_days: 20, pressure_bar: 2.5 });
    await ingest({ house_id: '2', batch_id: 'B-2026-11', birds: 20000, age_days: 20, water_counter_l: 8_000, feed_counter_kg: 4_000, pressure_bar: 2.5, ts: start.toISOString() });
    const bad = await ingest({ house_id: '2', batch_id: 'B-2026-11', birds: 20000, age_days: 20, water_counter_l: 8_010, feed_counter_kg: 4_001, pressure_bar: 0.3, ts: morning.toISOString() });
    expect(bad.operational_status).toBe('alarm');
    expect(okLine.operational_status).toBe('ok');
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('after an RFID login the workspace shows one card per house, the out-of-norm house in alarm colour', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    await page.locator('#houses li[data-house="2"]').waitFor();
    // time from the navigation that showed the login screen's successor to the first house card
    const firstCard = (await page.evaluate(`(() => { const m = performance.getEntriesByName('cabinet:first-house-card')[0]; return m ? Math.round(m.startTime) : null; })()`)) as number | null;
    // and from a reload of a logged-in tablet (the shell cached by the service worker or not)
    await page.reload();
    await page.locator('#houses li[data-house="2"]').waitFor();
    const afterReload = (await page.evaluate(`Math.round(performance.getEntriesByName('cabinet:first-house-card')[0].startTime)`)) as number;
    console.log(`web shell budget: time to the first rendered house card on a loopback server: ${afterReload} ms after a reload (${firstCard} ms from the login page's load, login included)`);
    expect(afterReload).toBeGreaterThan(0);
    const bad = page.locator('#houses li[data-house="2"]');
    const good = page.locator('#houses li[data-house="1"]');
    expect(await bad.getAttribute('data-tone')).toBe('alarm');
    expect(await good.getAttribute('data-tone')).toBe('ok');
    // the alarm colour is really the theme's alarm colour
    const edge = await page.evaluate(`getComputedStyle(document.querySelector('#houses li[data-house="2"]')).borderLeftColor`);
    const alarmVar = await page.evaluate(`getComputedStyle(document.documentElement).getPropertyValue('--alarm').trim()`);
    expect(edge).toBe(hexToRgb(alarmVar as string));
    expect(await bad.textContent()).toMatch(/Day 20/);
    expect(await bad.textContent()).toMatch(/Water today/);
    expect(await bad.textContent()).toMatch(/Alarm/);
    expect(await axeSerious(page)).toEqual([]);
    expect(await smallTargets(page)).toEqual([]);
    await shoot(page, 'poultry-houses');
    expect(problems).toEqual([]);
  });

  it('opens a house: its card, the feed and water chart of the batch, and its line', async () => {
    const { page, problems } = await newPage(browser, { viewport: PORTRAIT });
    await rfidLogin(page, server.url, card);
    await page.locator('#houses li[data-house="2"] a').click();
    await page.locator('[data-house-screen="2"]').waitFor();
    await page.locator('.chart canvas').first().waitFor();
    await page.locator('[data-resource="poultry-feedwater"] [data-id]').first().waitFor();
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'poultry-house');
    // the alarm list is one tap away: the alarms house 2's line raised, P1/P2 and SLA countdowns,
    // shown from poultry-alarms (the poultry view of the industry alarm events) now that it is served
    const raised = (await farm.get('/api/v1/poultry-alarms/list?status=active')).body.items as Record<string, unknown>[];
    expect(raised.length).toBeGreaterThan(0);
    expect(await page.locator('[data-house="2"] .house-alarms').textContent()).toContain(`${raised.length} open alarm`);
    await page.goto(`${server.url}/#/alarms`);
    const rows = page.locator('[data-resource="poultry-alarms"] [data-id]');
    await rows.first().waitFor();
    // it opens on the active alarms; the operator widens the filter to see the cleared ones too
    expect(await rows.count()).toBe(raised.length);
    expect(await page.locator('select[name="filter-status"]').inputValue()).toBe('active');
    expect(await page.locator('[data-resource="poultry-alarms"] .badge', { hasText: /^P1$/ }).count()).toBeGreaterThan(0);
    await expect.poll(() => page.locator('[data-resource="poultry-alarms"] .countdown').first().textContent()).toMatch(/left|overdue/);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'poultry-alarms');
    expect(problems).toEqual([]);
  });
});

function hexToRgb(hex: string): string {
  const h = hex.replace('#', '');
  const n = parseInt(h.length === 3 ? h.split('').map((c) => c + c).join('') : h, 16);
  return `rgb(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255})`;
}
