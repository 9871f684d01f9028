// The one alarm inbox in Debian's Chromium (cloud-multi, so poultry and swine alarms live side by
// side with the site's own alarms): the menu's Alarms entry and the pinned quick button open it; it
// shows a poultry alarm, a swine alarm and a site alarm together in state-priority-time order, an
// acknowledged-but-active alarm labelled so; an operator acknowledges a swine alarm from it; the
// top bar counts the same merged source; the alarm's account names the person who acknowledged it
// (the card holder's name, for an operator too) and says the SLA in words; an
// acknowledged alarm stays listed while its condition is present and leaves when readings clear it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';
import { forbiddenOn } from './farm-words.js';

describe('one alarm inbox in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let browser: Browser;
  const cards: Record<string, string> = {};
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', mode: 'cloud-multi', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    for (const [name, role, uid] of [['Night shift', 'operator', '04C1000001'], ['Anna Berg', 'admin', '04C1000002']] as const) {
      const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: name, scope: 'tenant', tenant_id: 'farm-1', role, ttl_minutes: 60, card_uid: uid });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      cards[name] = r.body.item.credential as string;
    }
    const publish = async (key: string, body: Record<string, unknown>) => {
      const r = await admin.post('/api/v1/industry-alarms/commands/publish', body);
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      ids[key] = r.body.item.id as string;
    };
    await publish('acked', { industry_code: 'poultry', severity: 'high', priority: 'P2', unit_id: '1', title: 'Water line pressure low', metric: 'pressure_bar', value: 0.8, details: { threshold: 1.2, comparator: 'lt' } });
    await publish('swine', { industry_code: 'swine', severity: 'high', priority: 'P2', unit_id: 'room-3', title: 'Ventilation failure' });
    await publish('poultry', {
      industry_code: 'poultry', severity: 'critical', priority: 'P1', unit_id: '2', title: 'Temperature far above target', metric: 'temp', value: 31.4,
      sla_target_sec: 900, details: { threshold: 28, comparator: 'gt' },
    });
    const site = await admin.post('/api/v1/alarms/commands/raise', { severity: 'high', source: 'feed-mill', title: 'Power failure in the feed mill' });
    expect(site.status, JSON.stringify(site.body)).toBe(201);
    ids.site = site.body.item.id as string;
    // acknowledged by the night shift's card while the low pressure goes on: acknowledged, still active
    const op = await rfidSession(cards['Night shift']!);
    const ack = await fetch(`${server.url}/api/v1/industry-alarms/commands/ack`, { method: 'POST', headers: { cookie: op, 'content-type': 'application/json' }, body: JSON.stringify({ id: ids.acked }) });
    expect(ack.status).toBe(200);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  /** A card session over HTTP, as the panel would open it: its cookie. */
  async function rfidSession(credential: string): Promise<string> {
    const json = { 'content-type': 'application/json' };
    const start = await fetch(`${server.url}/api/v1/auth/passkey/commands/start`, { method: 'POST', headers: json, body: JSON.stringify({ method: 'rfid' }) });
    const { item } = (await start.json()) as { item: { challenge_id: string } };
    const done = await fetch(`${server.url}/api/v1/auth/passkey/commands/complete`, { method: 'POST', headers: json, body: JSON.stringify({ challenge_id: item.challenge_id, credential }) });
    expect(done.status, await done.clone().text()).toBe(200);
    return (done.headers.get('set-cookie') ?? '').split(';')[0]!;
  }

  it('merges poultry, swine and site alarms, acknowledged-active labelled, ordered by state, priority and time; an operator acknowledges from it', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, cards['Night shift']!);
    // the menu's Alarms entry opens the inbox
    await page.locator('.menu-btn').click();
    await page.locator('#menu li[data-module="alarms"] a').click();
    await page.locator('#inbox').waitFor();
    expect(page.url()).toMatch(/#\/alarms$/);
    const items = page.locator('#inbox > li');
    await expect.poll(() => items.count()).toBe(4);
    const keys = await items.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-alarm')}|${e.getAttribute('data-state')}`));
    // unacknowledged first (P1, then P2, then the site alarm without a priority), the acknowledged one last
    expect(keys).toEqual([
      `industry-alarms:${ids.poultry}|active`,
      `industry-alarms:${ids.swine}|active`,
      `alarms:${ids.site}|active`,
      `industry-alarms:${ids.acked}|acked-active`,
    ]);
    const item = (k: string) => page.locator(`#inbox > li[data-alarm="${k}"]`);
    expect(await item(`industry-alarms:${ids.poultry}`).textContent()).toContain('House 2: Temperature far above target');
    expect(await item(`industry-alarms:${ids.poultry}`).locator('[data-badge="state"]').getAttribute('class')).toContain('tone-alarm');
    expect(await item(`industry-alarms:${ids.swine}`).textContent()).toContain('Room 3: Ventilation failure');
    expect(await item(`industry-alarms:${ids.swine}`).textContent()).toContain('Swine');
    expect(await item(`alarms:${ids.site}`).textContent()).toContain('Power failure in the feed mill');
    const acked = item(`industry-alarms:${ids.acked}`);
    expect(await acked.textContent()).toContain('Acknowledged, still active');
    expect(await acked.locator('[data-badge="state"]').getAttribute('class')).toContain('tone-warn');
    expect(await acked.locator('[data-ack]').count()).toBe(0);
    // the top bar counts the same merged source: three unacknowledged (one P1, one P2, one site alarm)
    await expect.poll(() => page.locator('#alarm-count').getAttribute('data-total')).toBe('3');
    expect(await page.locator('#alarm-count').getAttribute('data-p1')).toBe('1');
    // the banner names the P1 from the same source, house and cause
    await page.locator('#alarm-banner').waitFor();
    expect(await page.locator('#alarm-banner').textContent()).toContain('House 2: Temperature far above target');

    // the account of the P1: where, value against limit with units, SLA in words, no raw record for an operator
    await item(`industry-alarms:${ids.poultry}`).getByRole('button', { name: 'More' }).click();
    const account = item(`industry-alarms:${ids.poultry}`).locator('.alarm-account');
    await account.waitFor();
    const words = (await account.textContent()) ?? '';
    expect(words).toContain('House 2');
    expect(words).toContain('Temperature 31.4°C, above the limit of 28°C');
    expect(words).toContain('Active, not acknowledged');
    expect(words).toMatch(/1[45] min left/);
    expect(words).not.toMatch(/breached/i);
    expect(await account.getByRole('button', { name: 'Details' }).count()).toBe(0);
    // the acknowledged one names who acknowledged it, by the card holder's name (auth/people/list), for an operator too
    await acked.getByRole('button', { name: 'More' }).click();
    expect(await acked.locator('.acked-by').textContent()).toMatch(/^Night shift, \d{2}:\d{2}:\d{2}$/);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'alarm-inbox-operator');

    // acknowledged from the inbox: the swine alarm through industry-alarms, the site alarm through its own ack
    await item(`industry-alarms:${ids.swine}`).locator('[data-ack]').click();
    await expect.poll(() => item(`industry-alarms:${ids.swine}`).getAttribute('data-state')).toBe('acked-active');
    await item(`alarms:${ids.site}`).locator('[data-ack]').click();
    // a site alarm has a condition too: acknowledged, it stays listed as such until it is cleared
    await expect.poll(() => item(`alarms:${ids.site}`).getAttribute('data-state')).toBe('acked-active');
    await expect.poll(() => page.locator('#alarm-count').getAttribute('data-total')).toBe('1');
    expect((await admin.get(`/api/v1/industry-alarms/${ids.swine}`)).body.item.status).toBe('acked');
    expect((await admin.get(`/api/v1/alarms/${ids.site}`)).body.item.state).toBe('acknowledged');
    // the feed mill's integration reports the power back: cleared and acknowledged, it leaves the inbox
    expect((await admin.post('/api/v1/alarms/commands/clear', { id: ids.site })).status).toBe(200);
    await expect.poll(() => item(`alarms:${ids.site}`).count(), { timeout: 15_000 }).toBe(0);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('an admin reads the acknowledger by name, opens the raw record behind Details, and the pinned Alarms button opens the inbox', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, cards['Anna Berg']!);
    await page.goto(`${server.url}/#/settings`);
    await page.locator('#menu-order li[data-module="alarms"] input[type="checkbox"]').check();
    const quick = page.locator('[data-quick="alarms"]');
    await quick.waitFor();
    await quick.click();
    await page.locator('#inbox').waitFor();
    expect(page.url()).toContain('#/alarms');
    const acked = page.locator(`#inbox > li[data-alarm="industry-alarms:${ids.acked}"]`);
    await acked.getByRole('button', { name: 'More' }).click();
    await expect.poll(() => acked.locator('.acked-by').textContent()).toMatch(/^Night shift, /);
    await acked.getByRole('button', { name: 'Details' }).click();
    expect(await acked.locator('.raw-fields').textContent()).toContain(ids.acked);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'alarm-inbox-admin');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  it('the fleet view lists the fleet\'s alarms through the same merged inbox, and says where the farms\' own alarms are', async () => {
    const master = await clientAs(env, server);
    const raised = await admin.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'site-north', title: 'Site north unreachable' });
    expect(raised.status, JSON.stringify(raised.body)).toBe(201);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Fleet desk', scope: 'master', role: 'admin', ttl_minutes: 60, card_uid: '04C1000003' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, r.body.item.credential as string);
    expect(await page.locator('#workspace-title').textContent()).toBe('Fleet overview');
    const fleet = page.locator('[data-inbox="embedded"]');
    await fleet.locator(`li[data-alarm="alarms:${raised.body.item.id}"]`).waitFor();
    expect(await fleet.locator('h2').textContent()).toBe('Open alarms in the fleet (1)');
    // industry alarms are tenant records (a master session gets 403 scope_boundary_denied); the farms' alarms come from the sync, and the panel says where they are acknowledged
    expect(await fleet.locator('#inbox-scope-note').textContent()).toContain('acknowledged at the farm');
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'fleet-alarms');
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);
  it('an acknowledged alarm stays in the inbox, labelled, while its condition is present, and leaves it when the readings clear it', async () => {
    // A room controller's integration (an admin-role token) reports 32 °C in a weaner room: 4 °C
    // above the band, the default swine rule raises a P1 alarm.
    const reading = (temp_c: number) => admin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-5', avg_weight_kg: 8, temp_c });
    const hot = await reading(32);
    expect(hot.body.item.status, JSON.stringify(hot.body)).toBe('alarm');
    const id = hot.body.item.alarms[0].id as string;
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, cards['Night shift']!);
    await page.goto(`${server.url}/#/alarms`);
    const row = page.locator(`#inbox > li[data-alarm="industry-alarms:${id}"]`);
    await row.waitFor();
    expect(await row.getAttribute('data-state')).toBe('active');
    await row.locator('[data-ack]').click();
    await expect.poll(() => row.getAttribute('data-state')).toBe('acked-active');
    // Acknowledged while the room is still hot: listed, labelled, with nothing left to acknowledge.
    await expect.poll(() => row.textContent()).toContain('Acknowledged, still active');
    expect(await row.locator('[data-ack]').count()).toBe(0);
    // A reading still out of band changes nothing: it stays.
    await reading(31.8);
    await page.waitForTimeout(1500);
    expect(await row.count()).toBe(1);
    expect((await admin.get(`/api/v1/industry-alarms/${id}`)).body.item).toMatchObject({ alarm_state: 'acknowledged_active', listed: true });
    await shoot(page, 'alarm-inbox-acked-active');
    // Back in the band: the condition clears; acknowledged and cleared, it leaves the inbox by itself.
    expect((await reading(27)).body.item.status).toBe('ok');
    expect((await admin.get(`/api/v1/industry-alarms/${id}`)).body.item).toMatchObject({ condition: 'cleared', alarm_state: 'normal', listed: false });
    await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(0);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
