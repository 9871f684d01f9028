// The house card in Chromium says how old the climate it shows is, and does not present an old
// reading as the house's climate now: a house whose last reading is 12 minutes old (stale_after_s
// 300) shows "No reading for 12 min — check the controller", its out-of-norm values greyed and
// unmarked and the card unpainted (no alarm); a house that reported a moment ago shows its age and no mark;
// a house whose last reading a person typed in says so ("Typed in by hand", not "Measured").
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('house card age and stale mark in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';
  let farm: Client;

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const issued = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Barn admin', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04C0000001' })).body.item;
    card = issued.credential as string;
    for (const house of ['5', '6', '7']) {
      expect((await farm.post('/api/v1/poultry-flock/commands/place', { house_id: house, batch_id: `B${house}`, subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 })).status).toBe(201);
    }
    // House 5 fell silent 12 minutes ago on a reading far out of norm; house 6 reported just now.
    const old = await farm.post('/api/v1/poultry-climate/commands/telemetry', { house_id: '5', ts: new Date(Date.now() - 12 * 60_000 - 5_000).toISOString(), temp: 31.5, humidity: 60 });
    expect(old.body.item.status).toBe('alarm');
    expect((await farm.post('/api/v1/poultry-climate/commands/telemetry', { house_id: '6', temp: 25.5, humidity: 60 })).status).toBe(200);
    // House 7's last reading was typed in by a person (a session of the card): source manual.
    const person = await clientAs(env, server, { subject: issued.id as string, role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    expect((await person.post('/api/v1/poultry-climate/commands/telemetry', { house_id: '7', temp: 25, humidity: 61 })).status).toBe(200);
    expect((await farm.get('/api/v1/poultry-climate-readings/list?house_id=7')).body.items.map((r: { source: string }) => r.source)).toEqual(['manual']);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('marks the silent house stale in farm words and shows the fresh one\'s age', async () => {
    const { page } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    const silent = page.locator('#houses li[data-house="5"]');
    const fresh = page.locator('#houses li[data-house="6"]');
    await silent.waitFor();
    expect(await silent.locator('.reading-at').getAttribute('data-stale')).toBe('true');
    expect(await silent.locator('.stale-reading').textContent()).toBe('No reading for 12 min — check the controller');
    expect(await silent.locator('.reading-age').textContent()).toBe('(12 min ago)');
    // 31.5 °C is still shown, greyed, not as the climate now: no mark on the value, and no colour
    // on the card (colour means an alarm's priority; the stale mark says the rest in words).
    expect(await silent.locator('[data-metric="temp"]').getAttribute('data-tone')).toBe('none');
    expect(await silent.locator('[data-metric="temp"]').getAttribute('data-out')).toBe('no');
    expect(await silent.locator('.metrics').getAttribute('class')).toContain('metrics-stale');
    expect(await silent.getAttribute('data-tone')).toBe('none');
    expect(await fresh.locator('.reading-at').getAttribute('data-stale')).toBe('false');
    expect(await fresh.locator('.stale-reading').count()).toBe(0);
    expect(await fresh.locator('.reading-age').textContent()).toBe('(just now)');
    // Measured by the controller, or typed in: the card says which.
    expect(await fresh.locator('.reading-at dt').textContent()).toBe('Measured');
    expect(await fresh.locator('.reading-at').getAttribute('data-manual')).toBe('false');
    const typed = page.locator('#houses li[data-house="7"]');
    expect(await typed.locator('.reading-at').getAttribute('data-manual')).toBe('true');
    expect(await typed.locator('.reading-at dt').textContent()).toBe('Typed in by hand');
    expect(await axeSerious(page)).toEqual([]);
  }, 60_000);

  it('greys a house\'s values at once when its controller stops answering, not only past the stale limit', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    const fresh = page.locator('#houses li[data-house="6"]');
    await fresh.waitFor();
    expect(await fresh.getAttribute('data-comm-lost')).toBe('false');
    // The poller's communication loss, as it raises it (metric comm_loss on the house).
    const lost = await farm.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', severity: 'critical', priority: 'P1', unit_id: '6', metric: 'comm_loss', title: 'House 6 controller not answering', message: 'Check its power and its cable.' });
    expect(lost.status, JSON.stringify(lost.body)).toBe(201);
    await expect.poll(() => fresh.getAttribute('data-comm-lost'), { timeout: 15_000 }).toBe('true');
    expect(await fresh.locator('.comm-lost').textContent()).toMatch(/^Communication lost at (?:[^:]+, )?\d{1,2}:\d{2}/);
    expect(await fresh.locator('.metrics').first().getAttribute('class')).toContain('metrics-stale');
    // The reading itself is a few seconds old: it is not the stale limit that greyed it.
    expect(await fresh.locator('.reading-at').getAttribute('data-stale')).toBe('false');
    expect(await fresh.getAttribute('data-tone')).toBe('alarm');
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'house-card-comm-lost');
    expect(problems).toEqual([]);
  }, 60_000);
});
