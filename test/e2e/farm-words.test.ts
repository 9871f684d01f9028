// Farm words on the operator's screens, in Debian's Chromium (an edge-single poultry box): no tenant
// under the role, no ids, no contract sections, no HTTP codes, no passkey ids; the Settings menu
// offers an operator only what the operator can use (no Core, Authentication, Tables, Forms);
// "Active" of a flock is not a warning; times on a 24-hour clock and dates like "25 Nov 2026" by
// default, and the site's 12-hour clock once the setting says so; an alarm's detail is its account
// (SLA as time left, never beside "breached"), its acknowledgement form without error codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';
import { forbiddenOn } from './farm-words.js';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const text = (page: Page) => page.evaluate('document.body.innerText') as Promise<string>;

describe('farm words on operator screens', () => {
  let env: TestEnv;
  let server: RunningServer;
  let farm: Client;
  let browser: Browser;
  let operatorCard = '';
  let alarmId = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const o = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Barn operator', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 120, card_uid: '04D0000001' });
    expect(o.status, JSON.stringify(o.body)).toBe(201);
    operatorCard = o.body.item.credential as string;
    const placed = await farm.post('/api/v1/poultry-flock/commands/place', { house_id: '1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(12), birds_placed: 20_000 });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const a = await farm.post('/api/v1/poultry-alarms/commands/publish', { severity: 'critical', priority: 'P1', house_id: '1', title: 'Temperature far above target', sla_target_sec: 1200 });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    alarmId = a.body.item.id as string;
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('shows the operator farm words only, and offers only what the operator can use', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, operatorCard);
    // the role, not the tenant, under the top bar
    expect(await page.locator('#who').textContent()).toBe('Operator');
    await page.locator('#alarm-count').waitFor();
    // the live feed names the house and the cause of an alarm (its unit said as the house)
    await expect.poll(() => page.locator('#events').textContent(), { timeout: 10_000 }).toContain('Alarm raised — House 1: Temperature far above target');
    expect(await forbiddenOn(page)).toEqual([]);
    await shoot(page, 'farm-words-workspace');

    // the menu and the Settings menu order: farm work only, nothing that would refuse the operator
    await page.goto(`${server.url}/#/settings`);
    await page.locator('#menu-order li').first().waitFor();
    const offered = await page.locator('#menu-order li').evaluateAll((els) => els.map((e) => e.getAttribute('data-module')));
    expect(offered.length).toBeGreaterThan(0);
    for (const id of offered) expect(['alarms', 'poultry', 'swine', 'melioration', 'tasks']).toContain(id);
    const names = (await page.locator('#menu-order').textContent()) ?? '';
    for (const internal of ['Core', 'Authentication', 'Tables', 'Forms', 'System']) expect(names).not.toContain(internal);
    // 24-hour clock and "25 Nov 2026" dates by default (the site's settings)
    const about = (await page.locator('[aria-labelledby="about-h"]').textContent()) ?? '';
    expect(about).toMatch(/Dates read like \d{1,2} [A-Z][a-z]{2} \d{4}, times like ([01]\d|2[0-3]):[0-5]\d \(24-hour clock/);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'farm-words-settings');

    await page.locator('.menu-btn').click();
    const menu = (await page.locator('#menu').textContent()) ?? '';
    for (const internal of ['Core', 'Authentication', 'Tables', 'Forms']) expect(menu).not.toContain(internal);
    await page.locator('.menu-btn').click();

    // every module offered opens for the operator: no refusal behind a menu entry
    for (const id of offered) {
      if (id === 'alarms') continue;
      await page.goto(`${server.url}/#/m/${id}`);
      await page.locator(`[data-module-screen="${id}"] [data-resource]`).first().waitFor();
      await page.waitForTimeout(300);
      expect(await page.locator('#main [role="alert"]').count(), id).toBe(0);
    }

    await page.goto(`${server.url}/#/dashboard`);
    await page.locator('#modules li').first().waitFor();
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await text(page)).not.toMatch(/kernel/i);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('colours by meaning: an active flock is not a warning; the alarm account says the SLA in words and acknowledges without error codes', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, operatorCard);
    await page.goto(`${server.url}/#/m/poultry`);
    await page.locator('.tabs').waitFor();
    await page.locator('.tabs button', { hasText: /^Flock$/ }).click();
    const flock = page.locator('[data-resource="poultry-flock"] [data-id]').first();
    await flock.waitFor();
    const active = flock.locator('.badge', { hasText: /^Active$/ });
    expect(await active.count()).toBe(1);
    expect(await active.getAttribute('class')).toContain('tone-ok');
    expect(await forbiddenOn(page)).toEqual([]);

    await page.locator('.tabs button', { hasText: /^Alarms$/ }).click();
    const row = page.locator(`[data-resource="poultry-alarms"] [data-id="${alarmId}"]`);
    await row.waitFor();
    // the list: the alarm's status and its condition (both "Active") in alarm colour (an active P1), never a warning colour
    const actives = row.locator('.badge', { hasText: /^Active$/ });
    expect(await actives.count()).toBeGreaterThan(0);
    for (const cls of await actives.evaluateAll((els) => els.map((e) => e.className))) expect(cls).toContain('tone-alarm');
    await row.getByRole('button', { name: /Open/ }).click();
    const detail = page.locator('.detail');
    await detail.locator('.alarm-account').waitFor();
    const account = (await detail.textContent()) ?? '';
    expect(account).toContain('House 1');
    expect(account).toMatch(/(19|20) min left/);
    expect(account).not.toMatch(/breached/i);
    expect(account).toContain('Active, not acknowledged');
    expect(await detail.getByRole('button', { name: 'Details' }).count()).toBe(0);
    // only the commands the operator's role may run are offered (the policy in app/context says which)
    const api = (await page.evaluate(`fetch('/api/v1/app/context').then((r) => r.json()).then((b) => b.item.policy.permissions.api)`)) as Record<string, boolean>;
    const mayRun = ['evaluate', 'publish'].filter((c) => api[`api:POST /api/v1/poultry-alarms/commands/${c}`] === true).map((c) => c.charAt(0).toUpperCase() + c.slice(1));
    expect(await page.locator('[data-resource="poultry-alarms"] .resource-actions button').allTextContents()).toEqual(mayRun);
    await detail.getByRole('button', { name: 'Ack' }).click();
    await detail.locator('form[data-command="ack"]').waitFor();
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await detail.locator('form[data-command="ack"] input[name="assignee"]').count()).toBe(0);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'farm-words-ack-form');
    await detail.locator('form[data-command="ack"] button[type="submit"]').click();
    await detail.locator('.confirm-yes').click();
    await detail.locator('.command-done').waitFor();
    // acknowledged by the card's holder, by name (auth/people/list: an operator may not list the cards)
    await expect.poll(() => detail.locator('.acked-by').textContent()).toMatch(/^Barn operator, ([01]\d|2[0-3]):[0-5]\d:[0-5]\d$/);
    expect(await detail.locator('[data-state]').first().textContent()).toMatch(/^Acknowledged by Barn operator at ([01]\d|2[0-3]):[0-5]\d, still active$/);
    // the command's own result panel (CommandForm, another helper's) still lists the raw record: closed here
    await detail.locator('.command-done').getByRole('button', { name: 'Close' }).click();
    expect(await forbiddenOn(page)).toEqual([]);
    await shoot(page, 'farm-words-alarm-account');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('uses the site\'s clock: 12-hour once site_clock says so', async () => {
    await server.close();
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000', site_clock: '12h', site_locale: 'en-US' });
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, operatorCard);
    await page.goto(`${server.url}/#/settings`);
    const about = page.locator('[aria-labelledby="about-h"]');
    await about.waitFor();
    expect(await about.textContent()).toMatch(/Dates read like [A-Z][a-z]{2} \d{1,2}, \d{4}, times like \d{1,2}:\d{2}\s?(AM|PM) \(12-hour clock/);
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
});
