// Quick buttons and menu order for the operators, set by a site admin in Settings (Debian's
// Chromium): saved once for the role, then an operator logging in at the panel gets that quick
// button and that order. Both orientations, axe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';
import { forbiddenOn } from './farm-words.js';

describe('role quick buttons in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  const cards: Record<string, string> = {};

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    for (const [role, uid] of [['admin', '04F0000001'], ['operator', '04F0000002']]) {
      const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: `Barn ${role}`, scope: 'tenant', tenant_id: 'farm-1', role, ttl_minutes: 60, card_uid: uid });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      cards[role!] = r.body.item.credential as string;
    }
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('a site admin sets the operators\' quick button and order; an operator at the panel gets them', async () => {
    const admin = await newPage(browser);
    await rfidLogin(admin.page, server.url, cards.admin!);
    await admin.page.goto(`${server.url}/#/settings`);
    const section = admin.page.locator('#role-pins');
    await section.locator('#role-order li').first().waitFor();
    expect(await section.locator('select[name="pins-role"]').inputValue()).toBe('operator');
    expect(await section.textContent()).toContain('Not set yet');
    // Tasks first, and a quick button for it
    const rows = section.locator('#role-order li');
    const tasksAt = async () => (await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-module')))).indexOf('tasks');
    expect(await tasksAt()).toBeGreaterThan(0);
    // only what operators may open is offered (no cards and badges, no records)
    const offered = await rows.evaluateAll((els) => els.map((e) => e.getAttribute('data-module')));
    expect(offered).toEqual(expect.arrayContaining(['alarms', 'tasks']));
    expect(offered).not.toContain('passkeys');
    expect(offered).not.toContain('tables');
    while ((await tasksAt()) > 0) await section.getByRole('button', { name: 'Tasks earlier for operators' }).click();
    await section.locator('input[name="role-pin-tasks"]').check();
    await section.locator('#role-pins-save').click();
    await expect.poll(() => section.locator('.role-pins-status').textContent()).toContain('Saved');
    // the admin's own menu is untouched by it
    expect(await admin.page.locator('.quick a[data-quick="tasks"]').count()).toBe(0);
    expect(await axeSerious(admin.page)).toEqual([]);
    await section.scrollIntoViewIfNeeded();
    await shoot(admin.page, 'role-pins-settings');
    expect(admin.problems).toEqual([]);
    await admin.context.close();

    const op = await newPage(browser);
    await rfidLogin(op.page, server.url, cards.operator!);
    await op.page.locator('.quick a[data-quick="tasks"]').waitFor();
    await op.page.locator('.menu-btn').click();
    await expect.poll(() => op.page.locator('#menu li[data-module]').first().getAttribute('data-module')).toBe('tasks');
    expect(await forbiddenOn(op.page)).toEqual([]);
    // an operator is not offered the role settings
    await op.page.goto(`${server.url}/#/settings`);
    await op.page.locator('#menu-order li').first().waitFor();
    expect(await op.page.locator('#role-pins').count()).toBe(0);
    await op.page.goto(`${server.url}/#/`);
    await op.page.locator('.quick a[data-quick="tasks"]').click();
    await op.page.locator('[data-module-screen="tasks"]').waitFor();
    await shoot(op.page, 'role-pins-operator');
    expect(op.problems).toEqual([]);
    await op.context.close();
  });
});
