// The climate charts of a batch in its first hour, and the 24-hour span (Debian's Chromium): house 1
// placed today with a reading a minute for the last 40 minutes (one or two hourly points) draws its
// charts from the minute roll-up, a line of dozens of points; house 2, with hourly readings over 30
// hours, spans exactly 24 hours under "Last 24 hours" and more under "This batch". Both
// orientations, axe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';
import { forbiddenOn } from './farm-words.js';

const MIN = 60_000;
const HOUR = 60 * MIN;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

describe('climate charts in a batch\'s first hour and over 24 hours, in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    const farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    card = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Day shift', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04E0000011' })).body.item.credential as string;
    const now = Date.now();
    // House 1 placed 40 minutes ago (today, or yesterday just after midnight UTC); house 2 two days ago.
    for (const [house, start] of [['1', dayOf(now - 40 * MIN)], ['2', dayOf(now - 2 * 24 * HOUR)]] as const) {
      const placed = await farm.post('/api/v1/poultry-flock/commands/place', { house_id: house, batch_id: `B${house}`, subtype: 'broiler', start_date: start, birds_placed: 20_000 });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    }
    const tele = async (house: string, ts: number, temp: number) => {
      const t = await farm.post('/api/v1/poultry-climate/commands/telemetry', { house_id: house, ts: new Date(ts).toISOString(), temp, humidity: 62, co2: 1400, nh3: 6, ventilation: 35 });
      expect(t.status, JSON.stringify(t.body)).toBe(200);
    };
    for (let m = 40; m >= 1; m--) await tele('1', now - m * MIN, 31 + (m % 5) * 0.1);
    for (let h = 30; h >= 1; h--) await tele('2', now - h * HOUR, 28);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  const chart = (page: Page, name: string) => page.locator(`[data-chart="${name}"]`);
  const attr = async (page: Page, name: string, a: string) => Number(await chart(page, name).getAttribute(a));

  it('the first hour is a line from the minute roll-up; "Last 24 hours" spans 24 hours, not 48', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    const asked: string[] = [];
    page.on('request', (r) => asked.push(new URL(r.url()).pathname));
    await page.goto(`${server.url}/#/house/1`);
    await page.locator('[data-chart="climate-temp"] canvas').waitFor();
    await expect.poll(() => attr(page, 'climate-temp', 'data-points')).toBeGreaterThanOrEqual(35);
    expect(asked).toContain('/api/v1/poultry-climate-readings/minutely');
    expect(await chart(page, 'climate-temp').locator('.chart-legend').textContent()).toContain('minute average');
    // "This batch": from its first minute to now, not a day around one point
    expect(await attr(page, 'climate-temp', 'data-span-s')).toBeLessThan(HOUR / 1000);
    expect(await attr(page, 'climate-temp', 'data-span-s')).toBeGreaterThanOrEqual(39 * 60);
    await page.locator('[data-range="day"]').click();
    await expect.poll(() => attr(page, 'climate-temp', 'data-span-s')).toBe(24 * 3600);
    expect(await attr(page, 'climate-temp', 'data-points')).toBeGreaterThanOrEqual(35);
    await chart(page, 'climate-temp').scrollIntoViewIfNeeded();
    expect(await axeSerious(page)).toEqual([]);
    expect(await forbiddenOn(page)).toEqual([]);
    await shoot(page, 'house-first-hour');

    // A house with 30 hours of hourly readings: 24 hours exactly, its hours inside them
    await page.goto(`${server.url}/#/house/2`);
    await page.locator('[data-chart="climate-temp"] canvas').waitFor();
    expect(await attr(page, 'climate-temp', 'data-points')).toBeGreaterThanOrEqual(30);
    expect(await attr(page, 'climate-temp', 'data-span-s')).toBeGreaterThan(29 * 3600);
    await page.locator('[data-range="day"]').click();
    await expect.poll(() => attr(page, 'climate-temp', 'data-span-s')).toBe(24 * 3600);
    const points = await attr(page, 'climate-temp', 'data-points');
    expect(points).toBeGreaterThanOrEqual(23);
    expect(points).toBeLessThanOrEqual(25);
    expect(asked.filter((p) => p === '/api/v1/poultry-climate-readings/minutely')).toHaveLength(1);
    await shoot(page, 'house-last-24-hours');
    expect(problems).toEqual([]);
  });
});
