// A house card from polled data in Chromium: the simulated house controller on Modbus TCP, its own
// adapter profile on the box, the box's poller reading it. The card shows the controller's
// climate with the reading's age; when the controller stops answering the annunciator sounds the
// comm_loss P1 on the operator's screen and, past stale_after_s, the card marks the readings old
// in farm words instead of showing them as the house's climate now.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe('a polled house in Chromium', () => {
  const sim = new Simulation({ houses: 1, age_days: 20, birds: 20_000, speed: 1, seed: 3, noise: 0.2 });
  let simServer: SimServer;
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    simServer = await startTcpServer(sim, '127.0.0.1', 0);
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', stale_after_s: '6', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    const master = await clientAs(env, server);
    const farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    card = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Night shift', scope: 'tenant', tenant_id: 'farm-1', role: 'operator', ttl_minutes: 60, card_uid: '04D0000001' })).body.item.credential as string;
    expect((await farm.post('/api/v1/poultry-flock/commands/place', { house_id: '1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(20), birds_placed: 20_000 })).status).toBe(201);
    const created = await farm.post('/api/v1/poultry-adapters', adapterProfile({ house: 1, port: simServer.where as number, poll_period_s: 1 }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
    await simServer?.close().catch(() => {});
  });

  it('shows the controller\'s climate with its age, then the comm_loss alarm and the stale mark when it stops', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    const house = page.locator('#houses li[data-house="1"]');
    await house.waitFor();
    // The polled reading: the simulated house's temperature, with its age.
    await expect.poll(async () => house.locator('[data-metric="temp"] .metric-now').textContent(), { timeout: 20_000 }).toMatch(/°C/);
    const shown = Number((await house.locator('[data-metric="temp"] .metric-now').textContent())!.replace(/[^0-9.]/g, ''));
    expect(Math.abs(shown - sim.readings(1)!.temp)).toBeLessThan(1.5);
    expect(await house.locator('.reading-at').getAttribute('data-stale')).toBe('false');
    expect(await house.locator('.reading-age').textContent()).toMatch(/ago|just now/);

    await simServer.close();
    // Three missed polls: the comm_loss P1 on the operator's screen.
    await expect.poll(() => page.locator('#alarm-count').getAttribute('data-p1'), { timeout: 20_000 }).toBe('1');
    expect(await page.locator('#alarm-banner').textContent()).toMatch(/not answering/);
    // Past stale_after_s (6 s) without a reading: the card says so.
    await expect.poll(() => house.locator('.reading-at').getAttribute('data-stale'), { timeout: 30_000 }).toBe('true');
    expect(await house.locator('.stale-reading').textContent()).toMatch(/^No reading for .+ — check the controller$/);
    expect(await house.getAttribute('data-tone')).not.toBe('ok');
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'polled-house-stale');
    expect(problems).toEqual([]);
  }, 90_000);
});
