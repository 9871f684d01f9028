// The top bar's live pill and the alarm count tell one truth, in Debian's Chromium against the real
// server: with only the box's HTTP API out of reach (the status WebSocket still connected, its
// heartbeats arriving), the count says "Alarms unknown" and the pill no longer says "Live" beside
// it but "Box not answering" (data-state degraded); with the API back, both are known and live
// again by themselves (the next heartbeat reads the alarms again). Service workers are blocked so
// that every request of the page passes Playwright's route.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, LANDSCAPE, launch, rfidLogin, shoot } from './browser.js';

describe('the live pill beside the alarm count', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', status_heartbeat_ms: '1000' });
    const master = await clientAs(env, server);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Night shift', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04D0000071' });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    card = r.body.item.credential as string;
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('with only HTTP cut (the stream still live), the pill says the box does not answer, not "Live"; both come back', async () => {
    const context = await browser.newContext({ viewport: LANDSCAPE, serviceWorkers: 'block' });
    context.setDefaultTimeout(20_000);
    const page = await context.newPage();
    const problems: string[] = [];
    page.on('pageerror', (e) => problems.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/401|Failed to load resource|WebSocket/.test(m.text())) problems.push(m.text());
    });
    const pill = page.locator('#live-state');
    const count = page.locator('#alarm-count');
    let streams = 0;
    // Counted only (and passed on): the stream stays connected all through.
    await page.routeWebSocket(/\/api\/v1\/status\/stream/, (ws) => {
      streams += 1;
      ws.connectToServer();
    });

    await rfidLogin(page, server.url, card);
    await expect.poll(() => pill.getAttribute('data-state')).toBe('live');
    await expect.poll(() => count.getAttribute('data-state')).toBe('known');
    expect(await pill.textContent()).toBe('Live');

    // Every HTTP request of the API fails as if the network dropped it; the WebSocket is not routed here.
    await page.route(/\/api\/v1\//, (route) => route.abort('internetdisconnected'));
    await count.click(); // the alarm inbox reads the alarms at once: it cannot
    await expect.poll(() => count.getAttribute('data-state')).toBe('unknown');
    await expect.poll(() => pill.getAttribute('data-state')).toBe('degraded');
    expect(await pill.textContent()).toBe('Box not answering');
    expect(await page.locator('[data-field="alarms-unknown"]').count()).toBe(1);
    // The last known list was empty: said as what the box last said, not as "everything is normal".
    expect(await page.locator('#alarm-inbox .inbox-summary').textContent()).toBe('No alarm was active when the box last answered.');
    // Heartbeats keep arriving on the one stream (each reads the alarms again, and fails): still not "Live".
    await page.waitForTimeout(2_500);
    expect(await pill.getAttribute('data-state')).toBe('degraded');
    expect(await count.getAttribute('data-state')).toBe('unknown');
    expect(streams, 'the stream was never cut').toBe(1);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'live-pill-http-cut');

    // The API back: the next heartbeat reads the alarms, and both say so.
    await page.unroute(/\/api\/v1\//);
    await expect.poll(() => count.getAttribute('data-state')).toBe('known');
    await expect.poll(() => pill.getAttribute('data-state')).toBe('live');
    expect(await pill.textContent()).toBe('Live');
    await expect.poll(() => page.locator('#alarm-inbox .inbox-summary').textContent()).toBe('No alarms: everything is normal.');
    expect(streams).toBe(1);
    expect(problems).toEqual([]);
    await context.close();
  });
});
