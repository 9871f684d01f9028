// The web shell in cloud-multi (Debian's Chromium): a master sees the fleet overview (sites with
// their sync state, open alarms) and the master modules in its menu; a tenant user switches the
// industry (switch_industry) and gets that industry's workspace.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';

describe('fleet shell in cloud-multi', () => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let browser: Browser;
  const cards: Record<string, string> = {};

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', mode: 'cloud-multi', status_heartbeat_ms: '1000' });
    master = await clientAs(env, server);
    const issue = async (name: string, body: Record<string, unknown>) => {
      const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: name, role: 'admin', ttl_minutes: 60, ...body });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      cards[name] = r.body.item.credential as string;
    };
    await issue('fleet', { scope: 'master', card_uid: '04C0000001' });
    await issue('farm', { scope: 'tenant', tenant_id: 'farm-7', card_uid: '04C0000002' });
    const site = await master.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-7', site_id: 'site-north' });
    expect(site.status, JSON.stringify(site.body)).toBeLessThan(300);
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('a master gets the fleet overview with sites and their sync state, and the master modules', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, cards.fleet!);
    expect(await page.locator('#workspace-title').textContent()).toBe('Fleet overview');
    await page.locator('[data-resource="tenant-master-sync"] [data-id="farm-7"]').waitFor();
    expect(await page.locator('#industry-switch button').count()).toBe(3);
    await page.locator('.menu-btn').click();
    expect(await page.locator('#menu li[data-module="subscriptions"]').count()).toBe(1);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'fleet');
    expect(problems).toEqual([]);
  });

  it('a tenant user switches the industry and gets its workspace', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, cards.farm!);
    await page.locator('#industry-switch').waitFor();
    await page.locator('#industry-switch button', { hasText: 'Swine' }).click();
    await expect.poll(() => page.locator('#workspace-title').textContent()).toBe('Swine workspace');
    expect(await page.locator('#industry-switch button[aria-pressed="true"]').textContent()).toBe('Swine');
    // kept for this browser after a reload
    await page.reload();
    await expect.poll(() => page.locator('#workspace-title').textContent()).toBe('Swine workspace');
    expect(problems).toEqual([]);
  });
});
