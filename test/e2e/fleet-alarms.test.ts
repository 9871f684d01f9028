// The farms' alarms in a master's shell (Debian's Chromium): two farms' sites push alarm events
// through the real sync route with their credentials (site-sync/commands/push, as a box's sync
// does). The fleet team's inbox lists them with the farm as where they are and no Acknowledge
// button; an acknowledged one says who acknowledged it at the farm; the top bar counts the farms'
// open P1s (not their P2s) and the banner names the farm; a new P1 on another farm is signalled by
// the annunciator's own refresh, and an acknowledgement synced from the farm takes it off the count.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, siteClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot, smallTargets } from './browser.js';
import { forbiddenOn } from './farm-words.js';

const iso = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

describe('the farms\' alarms on the master\'s shell', () => {
  let env: TestEnv;
  let master: RunningServer;
  let fleet: Client;
  let browser: Browser;
  let card: string;
  const sites: Record<string, { client: Client; seq: number; site_id: string }> = {};

  /** An alarm event of a site, pushed as its box's sync pushes its outbox. */
  const push = async (site: string, kind: 'raised' | 'acknowledged', alarm: Record<string, unknown>) => {
    const s = sites[site]!;
    const at = iso(Number(alarm.ago ?? 0));
    const r = await s.client.post('/api/v1/site-sync/commands/push', {
      events: [{ seq: ++s.seq, kind: 'alarm', created_at: at, payload: { kind, alarm: { site_id: s.site_id, correlation_id: `c-${String(alarm.id)}`, raised_at: at, acknowledged_by: null, ...alarm } } }],
      remaining: 0,
    });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
  };
  const count = (page: Page, what: 'data-p1' | 'data-p2' | 'data-total') => page.locator('#alarm-count').getAttribute(what);

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    master = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    fleet = await clientAs(env, master);
    const issued = await fleet.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'fleet team', role: 'admin', ttl_minutes: 60, scope: 'master', card_uid: '04F1EE7002' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    card = issued.body.item.credential as string;
    for (const [tenant_id, site_id] of [['green-acres', 'north-barn'], ['hill-farm', 'east-barn']] as const) {
      const r = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id, site_id, industry_code: 'poultry' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      sites[site_id] = { client: await siteClient(master.url, r.body.item.credential as string, fleet.contract), seq: 0, site_id };
    }
    await push('north-barn', 'raised', { id: 'hot-2', severity: 'critical', priority: 'P1', state: 'active', title: 'House 2 too hot', ago: 12 });
    await push('north-barn', 'raised', { id: 'door', severity: 'low', state: 'open', title: 'Door left open', ago: 8 });
    await push('north-barn', 'raised', { id: 'water-1', severity: 'high', priority: 'P2', state: 'active', title: 'House 1 water pressure low', ago: 30 });
    await push('north-barn', 'acknowledged', { id: 'water-1', severity: 'high', priority: 'P2', state: 'acked', title: 'House 1 water pressure low', ago: 30, acknowledged_by: 'anna' });
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('lists a farm\'s alarms with the farm\'s name, read-only, and counts the farms\' open P1 in the top bar', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, master.url, card);
    expect(await page.locator('#workspace-title').textContent()).toBe('Fleet overview');
    const inbox = page.locator('[data-inbox="embedded"]');
    const hot = inbox.locator('li[data-alarm="sync-alarms:hot-2@green-acres"]');
    await hot.waitFor();
    expect(await hot.locator('.inbox-title').textContent()).toBe('north-barn · green-acres: House 2 too hot');
    expect(await hot.getAttribute('data-state')).toBe('unacknowledged_active');
    expect(await hot.locator('.inbox-meta').first().textContent()).toMatch(/^At the farm · since /);
    // Acknowledged at the farm, not here: no button for it on any farm alarm.
    expect(await inbox.locator('li[data-resource="sync-alarms"] [data-ack]').count()).toBe(0);
    expect(await inbox.locator('li[data-resource="sync-alarms"]').count()).toBe(3);
    const water = inbox.locator('li[data-alarm="sync-alarms:water-1@green-acres"]');
    expect(await water.getAttribute('data-state')).toBe('acknowledged_active');
    expect(await water.locator('[data-field="acked-at-farm"]').textContent()).toBe('Acknowledged at the farm by anna');
    expect(await inbox.locator('#inbox-scope-note').textContent()).toContain("The farms' alarms are listed as each farm's box reports them, and are acknowledged at the farm.");
    // The top bar: the farm's open P1 counts; its low alarm is listed, not annunciated.
    await expect.poll(() => count(page, 'data-p1')).toBe('1');
    expect(await count(page, 'data-total')).toBe('1');
    expect(await page.locator('#alarm-count').textContent()).toContain('1 P1');
    const banner = page.locator('#alarm-banner');
    expect(await banner.getAttribute('data-alarm')).toBe('hot-2@green-acres');
    expect(await banner.locator('.alarm-banner-what').textContent()).toBe('north-barn · green-acres: House 2 too hot');
    expect(await banner.locator('.alarm-banner-when').textContent()).toMatch(/^At the farm, to be acknowledged there · since /);
    expect(await page.locator('#alarm-ack').count()).toBe(0);
    await hot.getByRole('button', { name: 'More' }).click();
    expect(await hot.locator('.alarm-account').textContent()).toContain('north-barn · green-acres');
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await axeSerious(page)).toEqual([]);
    expect(await smallTargets(page)).toEqual([]);
    await shoot(page, 'fleet-farm-alarms');

    // The whole inbox (the Alarms screen) lists them the same way.
    await page.goto(`${master.url}/#/alarms`);
    const row = page.locator('#inbox > li[data-alarm="sync-alarms:hot-2@green-acres"]');
    await row.waitFor();
    expect(await row.locator('[data-ack]').count()).toBe(0);
    expect(await page.locator('#inbox > li[data-resource="sync-alarms"]').count()).toBe(3);
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('a new P1 on another farm is signalled on the master; the farm\'s acknowledgement takes it off the count', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, master.url, card);
    await expect.poll(() => count(page, 'data-p1')).toBe('1');
    // A master hears nothing live from a push: the annunciator's periodic refresh (15 s) brings it.
    await push('east-barn', 'raised', { id: 'fan-4', severity: 'critical', priority: 'P1', state: 'active', title: 'House 4 fans stopped', ago: 0 });
    await expect.poll(() => count(page, 'data-p1'), { timeout: 30_000 }).toBe('2');
    expect(await page.locator('#alarm-banner .alarm-banner-when').textContent()).toContain('1 more');
    expect(await page.locator('#alarm-banner').getAttribute('data-alarm')).toBe('fan-4@hill-farm');
    expect(await page.locator('#alarm-banner .alarm-banner-what').textContent()).toBe('east-barn · hill-farm: House 4 fans stopped');
    // Acknowledged at the farm: synced up, it leaves the count and is listed as acknowledged there.
    await push('north-barn', 'acknowledged', { id: 'hot-2', severity: 'critical', priority: 'P1', state: 'acked', title: 'House 2 too hot', ago: 12, acknowledged_by: 'bert' });
    await expect.poll(() => count(page, 'data-p1'), { timeout: 30_000 }).toBe('1');
    const hot = page.locator('[data-inbox="embedded"] li[data-alarm="sync-alarms:hot-2@green-acres"]');
    await expect.poll(() => hot.getAttribute('data-state')).toBe('acknowledged_active');
    expect(await hot.locator('[data-field="acked-at-farm"]').textContent()).toBe('Acknowledged at the farm by bert');
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);
});
