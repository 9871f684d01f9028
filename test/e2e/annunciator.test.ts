// The annunciator in Debian's Chromium: an operator is on another screen (settings) when a P1 is
// raised; the top bar counts it, a banner names the house and the cause, and a Web Audio tone
// starts (observed by counting the oscillators the page starts). Silencing stops the tone on this
// tablet and the box audits it; acknowledging from the banner clears the banner and the count
// while a P2 stays counted.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';
import { settle, watchLiveFeed } from './live-feed.js';

/** Counts OscillatorNode.start() calls: each beep of the tone starts one. */
const COUNT_OSCILLATORS = `(() => {
  window.__oscillators = 0;
  const start = OscillatorNode.prototype.start;
  OscillatorNode.prototype.start = function (...args) { window.__oscillators++; return start.apply(this, args); };
})();`;

describe('alarm annunciator in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let browser: Browser;
  let operatorCard = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const o = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Night shift', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04C0000001' });
    operatorCard = o.body.item.credential as string;
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  const publish = async (body: Record<string, unknown>) => {
    const r = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', ...body });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    return r.body.item as { id: string };
  };

  it('a P1 raised while the operator is on another screen shows the count and the banner, sounds until acknowledged', async () => {
    const { page, context, problems } = await newPage(browser);
    await context.addInitScript(COUNT_OSCILLATORS);
    await context.clock.install();
    const feed = watchLiveFeed(page);
    await rfidLogin(page, server.url, operatorCard);
    await page.goto(`${server.url}/#settings`);
    const oscillators = () => page.evaluate('window.__oscillators') as Promise<number>;
    await page.locator('#alarm-count').waitFor();
    expect(await page.locator('#alarm-count').getAttribute('data-total')).toBe('0');
    expect(await page.locator('#alarm-banner').count()).toBe(0);

    await publish({ severity: 'high', priority: 'P2', unit_id: '2', title: 'House 2: water line pressure low' });
    const p1 = await publish({ severity: 'critical', priority: 'P1', unit_id: '3', title: 'House 3: temperature far below target', message: '14.2 °C against 25.5 °C' });

    // The count and the banner, on the settings screen, within a poll of the live feed.
    await expect.poll(() => page.locator('#alarm-count').getAttribute('data-p1'), { timeout: 15_000 }).toBe('1');
    expect(await page.locator('#alarm-count').getAttribute('data-p2')).toBe('1');
    expect(await page.locator('#alarm-count').textContent()).toContain('1 P1 · 1 P2');
    const banner = page.locator('#alarm-banner');
    await banner.waitFor();
    expect(await banner.textContent()).toContain('House 3: temperature far below target');
    expect(await banner.textContent()).toContain('14.2 °C against 25.5 °C');
    expect(await banner.getAttribute('data-sounding')).toBe('true');
    expect(page.url()).toContain('#settings');
    // The tone: beeps keep starting while the P1 is unacknowledged.
    await expect.poll(oscillators, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'annunciator-banner');

    // Silenced on this tablet: no new beeps, the banner stays, the box has the audit record.
    await page.locator('#alarm-silence').click();
    await expect.poll(() => banner.getAttribute('data-sounding')).toBe('false');
    const silencedAt = await oscillators();
    // Two beep periods (1.5 s) of the tablet's time after the box's next heartbeat: a tone left on would have beeped twice.
    await settle(page, feed, 3200);
    expect(await oscillators()).toBe(silencedAt);
    expect(await banner.textContent()).toContain('tone silenced until');
    const audit = await admin.get('/api/v1/audit/list?action=alarms.silence');
    expect(audit.status).toBe(200);
    expect(audit.body.items[0]).toMatchObject({ action: 'alarms.silence', actor: expect.stringMatching(/./) });
    expect(audit.body.items[0].details.alarm_ids).toContain(p1.id);
    expect(audit.body.items[0].details.tablet).toMatch(/^tablet-/);

    // Acknowledged from the banner: the banner goes, the count keeps the P2, the alarm is acked by the operator.
    await page.locator('#alarm-ack').click();
    await page.locator('#alarm-banner').waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('#alarm-count').getAttribute('data-p1')).toBe('0');
    expect(await page.locator('#alarm-count').getAttribute('data-p2')).toBe('1');
    // The live feed names the house and the cause, not only "Alarm raised".
    await page.goto(`${server.url}/#home`);
    await expect.poll(() => page.locator('#events').textContent(), { timeout: 10_000 }).toContain('Alarm raised — House 3: temperature far below target');
    const acked = await admin.get(`/api/v1/industry-alarms/${p1.id}`);
    expect(acked.body.item).toMatchObject({ status: 'acked' });
    expect(problems).toEqual([]);
    await page.close();
  }, 90_000);

  it('lets an operator acknowledge but not publish; the silence is refused without a reason to audit', async () => {
    const operator = await clientAs(env, server, { subject: 'op-1', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1' }, admin.contract);
    const refused = await operator.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', severity: 'high', title: 'typed by hand' });
    expect(refused.status).toBe(403);
    const bad = await operator.post('/api/v1/industry-alarms/commands/silence', { minutes: 600, tablet: 't', alarm_ids: [] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });
});
