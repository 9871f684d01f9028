// The phone hand-off across the machine's own LAN address (Debian's Chromium): the box listens on
// every address with HTTPS on, the panel's browser logs in on loopback and shows the hand-off; its
// QR link names the box's LAN address, the same one /ca.json names at that moment, never loopback;
// a second browser (the phone) opens that link by the LAN address and is logged in.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { networkInterfaces } from 'node:os';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';
import { forbiddenOn } from './farm-words.js';

/** The machine's first non-internal IPv4 address (the test machine has one; without it this test cannot say anything). */
function lanIPv4(): string {
  for (const list of Object.values(networkInterfaces())) {
    for (const a of list ?? []) if (!a.internal && a.family === 'IPv4') return a.address;
  }
  throw new Error('this machine has no non-loopback IPv4 address: the hand-off across the LAN cannot be tried');
}

describe('phone hand-off over the LAN in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';
  const lan = lanIPv4();

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    // Every address: loopback for the panel, the LAN address for the phone.
    server = await env.start({ host: '0.0.0.0', https_port: '0', mqtt_broker: 'off' });
    expect(server.https, 'the HTTPS listener').toBeDefined();
    const master = await clientAs(env, server);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Site admin', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04E0000001' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    card = r.body.item.credential as string;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('the QR link names the /ca.json address, and a phone opening it by that address is logged in', async () => {
    const panelUrl = server.url.replace('0.0.0.0', '127.0.0.1');
    expect(new URL(panelUrl).hostname).toBe('127.0.0.1');
    const panel = await newPage(browser, { viewport: PORTRAIT });
    await rfidLogin(panel.page, panelUrl, card);
    await panel.page.goto(`${panelUrl}/#/handoff`);
    await panel.page.locator('#handoff').click();
    await panel.page.locator('#handoff-qr').waitFor();
    const link = (await panel.page.locator('#handoff-link').getAttribute('href'))!;
    const ca = (await (await fetch(`${panelUrl}/ca.json`)).json()) as { https_url: string; download_url: string };
    const u = new URL(link);
    expect(u.hostname).not.toMatch(/^(127\.|localhost$|\[::1\]$)/);
    expect(u.hostname).toBe(new URL(ca.download_url).hostname);
    expect(u.origin).toBe(new URL(ca.https_url).origin);
    // The machine's LAN address; or the veth of test/e2e/https-lan.test.ts (10.213.*) while that file
    // has it up, since the box names the lowest of its addresses.
    expect([lan, ...(u.hostname.startsWith('10.213.') ? [u.hostname] : [])]).toContain(u.hostname);
    expect(await panel.page.locator('#handoff-no-link').count()).toBe(0);
    expect(await forbiddenOn(panel.page)).toEqual([]);
    expect(await axeSerious(panel.page)).toEqual([]);
    await shoot(panel.page, 'handoff-lan-panel');
    expect(panel.problems).toEqual([]);

    // The phone: its own browser context, on the LAN address. It has not installed the box's CA
    // (the https-lan test does that part), so it accepts the certificate as a phone's user would.
    const context = await browser.newContext({ viewport: { width: 390, height: 844 }, ignoreHTTPSErrors: true });
    context.setDefaultTimeout(20_000);
    const phone = await context.newPage();
    const errors: string[] = [];
    phone.on('pageerror', (e) => errors.push(e.message));
    await phone.goto(link);
    await phone.locator('#home').waitFor({ state: 'visible' });
    expect(new URL(phone.url()).hostname).toBe(lan);
    const me = await phone.evaluate(async () => (await (await fetch('/api/v1/auth/me', { credentials: 'same-origin' })).json()) as { item: { authenticated: boolean; user?: { role?: string } } });
    expect(me.item.authenticated).toBe(true);
    expect(me.item.user?.role).toBe('admin');
    // The link worked once: opened again, it logs nobody in.
    const again = await browser.newContext({ ignoreHTTPSErrors: true });
    const second = await again.newPage();
    await second.goto(link);
    await second.locator('#card, .login').first().waitFor();
    expect(await second.locator('#home').isVisible()).toBe(false);
    await again.close();
    expect(errors).toEqual([]);
    await context.close();
    await panel.context.close();
  });

  it('a box listening on loopback only has no link for a phone: the panel says so and gives the code', async () => {
    const alone = await env.start({ host: '127.0.0.1', mqtt_broker: 'off', rpc_port: 'off' });
    const master = await clientAs(env, alone);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Site admin', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04E0000002' });
    const panel = await newPage(browser);
    await rfidLogin(panel.page, alone.url, r.body.item.credential as string);
    await panel.page.goto(`${alone.url}/#/handoff`);
    await panel.page.locator('#handoff').click();
    await panel.page.locator('#handoff-no-link').waitFor();
    expect(await panel.page.locator('#handoff-qr, #handoff-link').count()).toBe(0);
    expect(await panel.page.locator('#handoff-code').textContent()).toMatch(/^\d{4}$/);
    expect(await forbiddenOn(panel.page)).toEqual([]);
    expect(await axeSerious(panel.page)).toEqual([]);
    await shoot(panel.page, 'handoff-no-lan');
    // the code still logs a phone in
    const code = (await panel.page.locator('#handoff-code').textContent())!;
    const done = await fetch(`${alone.url}/api/v1/auth/passkey/commands/complete`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ code }) });
    expect(done.status).toBe(200);
    expect(panel.problems).toEqual([]);
    await panel.context.close();
  });
});
