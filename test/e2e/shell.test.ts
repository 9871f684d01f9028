// The web shell in a real browser (Debian's Chromium): an RFID login at the panel, the workspace
// with its modules, a status event arriving live, the phone hand-off by code, and logout.
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

describe('web shell in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: install Debian's chromium (sudo bash .ci/system-packages.sh)`);
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000' });
    admin = await clientAs(env, server);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('logs in with a card at the panel, shows the workspace and live status, hands off to a phone, logs out', async () => {
    const card = (await admin.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Panel', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04C0FFEE01' })).body.item;
    const panel = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    panel.on('pageerror', (e) => problems.push(e.message));
    panel.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
    await panel.goto(server.url);
    await panel.locator('#card').waitFor();
    // The USB reader types the card and Enter into the focused field.
    await panel.locator('#card').fill('RF-0000000000');
    await panel.keyboard.press('Enter');
    await expect.poll(() => panel.locator('#login-error').textContent()).toBe('Login refused.');
    await panel.locator('#card').fill(card.credential);
    await panel.keyboard.press('Enter');
    await panel.locator('#home').waitFor({ state: 'visible' });
    expect(await panel.locator('#workspace').textContent()).toBe('poultry workspace');
    expect(await panel.locator('#who').textContent()).toBe('admin · tenant:farm-1');
    expect(await panel.locator('#modules li[data-module="tables"]').count()).toBe(1);
    expect(await panel.locator('#modules li[data-module="swine"]').count()).toBe(0);
    expect(await panel.locator('#logout').isVisible()).toBe(true);

    await expect.poll(() => panel.locator('#stream-state').textContent()).toBe('connected');
    await admin.post('/api/v1/status/commands/publish', { source: 'house-2', event: 'fan_stopped', status: 'error', tenant_id: 'farm-1' });
    await panel.locator('#events li.error').waitFor();
    expect(await panel.locator('#events li').first().textContent()).toContain('house-2: fan_stopped (error)');

    await panel.locator('#handoff').click();
    await panel.locator('#handoff-qr svg').waitFor();
    const code = (await panel.locator('#handoff-code').textContent()) as string;
    expect(code).toMatch(/^\d{4}$/);
    const phone = await (await browser.newContext({ viewport: { width: 390, height: 844 } })).newPage();
    await phone.goto(server.url);
    await phone.locator('#code').fill(code);
    await phone.locator('#code-form button').click();
    await phone.locator('#home').waitFor({ state: 'visible' });
    expect(await phone.locator('#who').textContent()).toBe('admin · tenant:farm-1');

    const link = (await panel.locator('#handoff-link').getAttribute('href')) as string;
    expect(link).toContain('/#/login?challenge=');
    await panel.locator('#handoff').click();
    // A new hand-off replaces the link once its challenge arrives; the first one is spent.
    await expect.poll(() => panel.locator('#handoff-link').getAttribute('href')).not.toBe(link);
    const secondLink = (await panel.locator('#handoff-link').getAttribute('href')) as string;
    const phone2 = await (await browser.newContext()).newPage();
    await phone2.goto(secondLink);
    await phone2.locator('#home').waitFor({ state: 'visible' });

    await panel.locator('#logout').click();
    await panel.locator('#login').waitFor({ state: 'visible' });
    expect((await panel.context().cookies()).find((c) => c.name === 'cabinet_session')).toBeUndefined();
    expect(problems.filter((p) => !p.includes('401')), problems.join(' | ')).toEqual([]);
  });
});
