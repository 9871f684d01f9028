// Commissioning forms in Debian's Chromium, as a site admin at the panel: issuing a QR badge shows
// its code once with a printable QR (the print stylesheet prints the badge alone; the shown code
// really logs in), gone when dismissed; a flock's placement day is a date picker whose value reads
// the site's way (site_locale de-DE: an English reader at a German site, en-DE), in the confirmation and in the list; day filters and days
// checked by a pattern are pickers too. Both orientations, axe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { join } from 'node:path';
import { axeSerious, launch, newPage, rfidLogin, shoot, SHOTS } from './browser.js';

describe('commissioning forms in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let farm: Client;
  let browser: Browser;
  let adminCard = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', site_locale: 'de-DE' });
    const master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Site admin', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04C0000001' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    adminCard = r.body.item.credential as string;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('issuing a QR badge shows its code once, with a QR to print, and forgets it when dismissed', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, adminCard);
    await page.goto(`${server.url}/#/r/passkeys`);
    await page.locator('.resource-actions button', { hasText: 'Issue' }).click();
    const form = page.locator('form[data-command="issue"]');
    await form.locator('select[name="type"]').selectOption('qr');
    await form.locator('input[name="holder"]').fill('Night shift');
    await form.locator('select[name="scope"]').selectOption('tenant');
    await form.locator('input[name="ttl_minutes"]').fill('600');
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm-yes').click();

    const panel = page.locator('#credential-once');
    await panel.waitFor();
    expect(await panel.locator('h3').textContent()).toBe('QR badge for Night shift');
    const code = (await page.locator('#credential-code').textContent()) ?? '';
    expect(code).toMatch(/^QR-[A-Za-z0-9_-]{32}$/);
    // the QR image is the server's SVG, loaded
    await expect.poll(() => page.locator('#credential-qr').evaluate((img) => (img as unknown as { naturalWidth: number }).naturalWidth)).toBeGreaterThan(0);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'commission-credential');

    // Print: the browser's print dialog, and a print stylesheet that prints the badge alone
    await page.evaluate(`window.__printed = 0; window.print = () => { window.__printed += 1; }`);
    await page.locator('#credential-print').click();
    expect(await page.evaluate('window.__printed')).toBe(1);
    await page.emulateMedia({ media: 'print' });
    const visibility = (sel: string) => page.evaluate(`getComputedStyle(document.querySelector('${sel}')).visibility`);
    expect(await visibility('#credential-code')).toBe('visible');
    expect(await visibility('#credential-qr')).toBe('visible');
    expect(await visibility('.resource-head h2')).toBe('hidden');
    expect(await page.locator('#credential-print').isVisible()).toBe(false);
    await page.screenshot({ path: join(SHOTS, 'commission-credential-print.png') });
    await page.emulateMedia({ media: 'screen' });

    // the code shown is the badge's real credential: it logs in (QR badge, no session)
    const anon = await createClient(server.url, {}, farm.contract);
    const ch = await anon.post('/api/v1/auth/passkey/commands/start', { method: 'qr' });
    const login = await anon.post('/api/v1/auth/passkey/commands/complete', { challenge_id: ch.body.item.challenge_id, credential: code });
    expect(login.status, JSON.stringify(login.body)).toBe(200);
    expect(login.body.item.user.role).toBe('operator');

    // dismissed, it is nowhere on the page, and the list shows the badge without it
    await page.locator('#credential-dismiss').click();
    await panel.waitFor({ state: 'detached' });
    expect(await page.evaluate('document.body.innerHTML')).not.toContain(code);
    await expect.poll(() => page.locator('[data-resource="passkeys"]').textContent()).toContain('Night shift');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a flock is placed with a date picker that reads the site\'s way', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, adminCard);
    await page.goto(`${server.url}/#/r/poultry-flock`);
    await page.locator('.resource-actions button', { hasText: 'Place' }).click();
    const form = page.locator('form[data-command="place"]');
    const start = form.locator('input[name="start_date"]');
    expect(await start.getAttribute('type')).toBe('date');
    expect(await form.locator('input[name="planned_close_date"]').getAttribute('type')).toBe('date');
    await form.locator('input[name="house_id"]').fill('4');
    await form.locator('input[name="batch_id"]').fill('B-4');
    await form.locator('select[name="subtype"]').selectOption('broiler');
    await start.fill('2026-11-20');
    // beside the picker, the day as the site writes it for an English reader (en-DE: the language is the reader's, the region the site's)
    expect(await form.locator('.date-read').first().textContent()).toBe('20 Nov 2026');
    expect(await start.getAttribute('aria-describedby')).toBe(await form.locator('.date-read').first().getAttribute('id'));
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'commission-date-picker');
    await form.locator('button[type="submit"]').click();
    expect(await form.locator('.confirm').textContent()).toContain('Placed on: 20 Nov 2026');
    await form.locator('.confirm-yes').click();
    await page.locator('.command-done').waitFor();

    const placed = await farm.get('/api/v1/poultry-flock/list?house_id=4');
    expect(placed.body.items.map((f: { start_date: string }) => f.start_date)).toEqual(['2026-11-20']);
    // the list writes the day the same way
    await expect.poll(() => page.locator('[data-resource="poultry-flock"]').textContent()).toContain('20 Nov 2026');

    // a day filter is a date picker too; so is a pattern-checked day the scheme marks as a date
    for (const day of ['2026-11-21', '2026-11-22']) {
      const r = await farm.post('/api/v1/poultry-production/commands/ingest', { house_id: '4', batch_id: 'B-4', metric_date: day, mortality: 3 });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
    }
    await page.goto(`${server.url}/#/r/poultry-production`);
    const filter = page.locator('input[name="filter-metric_date"]');
    expect(await filter.getAttribute('type')).toBe('date');
    await expect.poll(() => page.locator('[data-resource="poultry-production"] .count').textContent()).toBe(' (2)');
    await filter.fill('2026-11-22');
    await expect.poll(() => page.locator('[data-resource="poultry-production"] .count').textContent()).toBe(' (1)');
    await page.locator('.resource-actions button', { hasText: 'Record a day' }).click();
    expect(await page.locator('form[data-command="ingest"] input[name="metric_date"]').getAttribute('type')).toBe('date');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
