// The adapter profile editor in Debian's Chromium, against the house simulator over Modbus TCP: a
// site admin types a controller's setpoints and readings field by field, "Read now" shows each
// row's live value in engineering units before anything is saved (a wrong port says so in words),
// then saves once; a YAML profile file fills the form and nothing is saved until confirmed. Both
// orientations, axe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { stringify } from 'yaml';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { closedTcpPort, startModbusPeer, type ModbusPeer } from '../field/helpers.js';
import { axeSerious, launch, newPage, rfidLogin, shoot } from './browser.js';

describe('adapter profile editor in Chromium', () => {
  const sim = new Simulation({ houses: 2, age_days: 12, birds: 20_000, speed: 1, seed: 7, noise: 0 });
  let simServer: SimServer;
  let simPort = 0;
  let env: TestEnv;
  let server: RunningServer;
  let farm: Client;
  let browser: Browser;
  let adminCard = '';

  beforeAll(async () => {
    simServer = await startTcpServer(sim, '127.0.0.1', 0);
    simPort = simServer.where as number;
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    const master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Installer', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04E0000001' });
    adminCard = r.body.item.credential as string;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
    await simServer?.close().catch(() => {});
  });

  const openEditor = async (page: Page) => {
    await rfidLogin(page, server.url, adminCard);
    await page.goto(`${server.url}/#/r/poultry-adapters`);
    await page.locator('.resource-actions button', { hasText: 'New' }).click();
    await page.locator('form.adapter-editor').waitFor();
    return page.locator('form.adapter-editor');
  };
  const profiles = async () => (await farm.get('/api/v1/poultry-adapters/list')).body.items as Record<string, unknown>[];

  it('reads each row live before saving, then saves the profile once confirmed', async () => {
    const { page, problems } = await newPage(browser);
    const form = await openEditor(page);
    sim.setSetpoint(1, 'target_temp_c', 27.5);
    await form.locator('#adp-unit_id').fill('1');
    await form.locator('#adp-controller_id').fill('house-1-climate');
    await form.locator('#adp-host').fill('127.0.0.1');
    await form.locator('#adp-port').fill(String(simPort));
    await form.locator('#adp-modbus_unit_id').fill('1');
    // the setpoint: holding register 0, int16, x10
    const sp = form.locator('[data-row="points-0"]');
    await sp.locator('input[name="key"]').fill('target_temp_c');
    await sp.locator('input[name="address"]').fill('0');
    await sp.locator('input[name="scale"]').fill('10');
    await sp.locator('button.read-now').click();
    await expect.poll(() => sp.locator('.read-value').textContent()).toBe('27.5 °C');
    // the temperature: input register 0, int16, x10
    const temp = form.locator('[data-row="readings-0"]');
    await temp.locator('select[name="key"]').selectOption('temp');
    await temp.locator('input[name="address"]').fill('0');
    await temp.locator('input[name="scale"]').fill('10');
    await temp.locator('button.read-now').click();
    await expect.poll(() => temp.locator('.read-value').textContent()).toMatch(/^\d+(\.\d+)? °C$/);
    const shown = parseFloat((await temp.locator('.read-value').textContent())!);
    expect(Math.abs(shown - sim.readings(1)!.temp)).toBeLessThan(0.2);
    // the feed scale: uint32 over two registers, low word first, x10
    await form.locator('#add-reading').click();
    const feed = form.locator('[data-row="readings-1"]');
    await feed.locator('select[name="key"]').selectOption('feed_kg');
    await feed.locator('input[name="address"]').fill('9');
    await feed.locator('select[name="data_type"]').selectOption('uint32');
    await feed.locator('select[name="order"]').selectOption('CDAB');
    await feed.locator('input[name="scale"]').fill('10');
    await feed.locator('button.read-now').click();
    await expect.poll(() => feed.locator('.read-value').textContent()).toMatch(/ kg$/);
    const kg = parseFloat((await feed.locator('.read-value').textContent())!);
    expect(Math.abs(kg - sim.readings(1)!.feed_kg)).toBeLessThanOrEqual(Math.max(1, sim.readings(1)!.feed_kg * 0.01));
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'adapter-editor');

    // a wrong port: the row says the controller did not answer, and the box is not "offline"
    await form.locator('#adp-port').fill(String(await closedTcpPort()));
    await temp.locator('button.read-now').click();
    await expect.poll(() => temp.locator('.read-value').textContent()).toMatch(/^No value: Nothing answers at 127\.0\.0\.1 port \d+: check that the controller is on/);
    expect(await temp.locator('.read-value').getAttribute('class')).toContain('tone-alarm');
    await form.locator('#adp-port').fill(String(simPort));
    expect(await profiles()).toEqual([]);

    await form.locator('button[type="submit"]').click();
    expect(await form.locator('.confirm').textContent()).toContain('1 setpoint, 2 readings');
    await form.locator('.confirm-yes').click();
    await form.waitFor({ state: 'detached' });
    const saved = await profiles();
    expect(saved).toHaveLength(1);
    expect(saved[0]).toMatchObject({ unit_id: '1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: simPort, modbus_unit_id: 1 });
    expect(saved[0]!.points).toEqual([{ key: 'target_temp_c', address: 0, object_type: 'holding register', data_type: 'int16', order: 'LE', scale: 10, read_back: true }]);
    expect(saved[0]!.readings).toEqual([
      { key: 'temp', address: 0, object_type: 'input register', data_type: 'int16', order: 'LE', scale: 10 },
      { key: 'feed_kg', address: 9, object_type: 'input register', data_type: 'uint32', order: 'CDAB', scale: 10 },
    ]);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a YAML profile file fills the form; nothing is saved until confirmed; a broken file is said in words', async () => {
    const { page, problems } = await newPage(browser);
    const form = await openEditor(page);
    const before = (await profiles()).length;
    await form.locator('#profile-file').setInputFiles({ name: 'house-2.json', mimeType: 'application/json', buffer: Buffer.from('{"unit_id": "2",') });
    await expect.poll(() => form.locator('#adapter-note').textContent()).toMatch(/^house-2\.json could not be read/);

    const file = adapterProfile({ house: 2, port: simPort, unit_id: '2' });
    await form.locator('#profile-file').setInputFiles({ name: 'house-2.yaml', mimeType: 'application/yaml', buffer: Buffer.from(stringify(file)) });
    await expect.poll(() => form.locator('#adp-controller_id').inputValue()).toBe('sim-house-2');
    expect(await form.locator('#adapter-note').textContent()).toContain('Filled from house-2.yaml');
    expect(await form.locator('#adp-port').inputValue()).toBe(String(simPort));
    expect(await form.locator('[data-row^="readings-"]').count()).toBe(file.item.readings.length);
    expect(await form.locator('[data-row^="points-"]').count()).toBe(file.item.points.length);
    expect((await profiles()).length).toBe(before);
    // the imported rows read live like typed ones
    const first = form.locator('[data-row="readings-0"]');
    await first.locator('button.read-now').click();
    await expect.poll(() => first.locator('.read-value').textContent()).toMatch(/ °C$/);
    await shoot(page, 'adapter-editor-imported');

    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm-yes').click();
    await form.waitFor({ state: 'detached' });
    const saved = (await profiles()).find((p) => p.controller_id === 'sim-house-2')!;
    expect(saved).toMatchObject({ unit_id: '2', poll_period_s: file.item.poll_period_s, loss_after_misses: 3, comm_loss_priority: 'P1' });
    // the file's rows as they were, with the form's explicit word order where the file left it out
    expect(saved.readings).toEqual(file.item.readings.map((r) => ({ order: 'LE', ...r })));
    expect(saved.points).toEqual(file.item.points.map((p) => ({ order: 'LE', ...p })));
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

// A melioration box: its stations and probes are only read, so the editor offers no setpoints,
// and a probe's depth key (vwc_pct_<cm>) is typed beside the offered station keys.
describe('adapter profile editor for a device that is only read (melioration)', () => {
  let peer: ModbusPeer;
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    await peer.set('ir', 0, [215, 654]);
    await peer.set('ir', 10, [245]);
    env = await createTestEnv('sqlite');
    server = await env.start({ industry: 'melioration', mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    const master = await clientAs(env, server);
    const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Irrigation installer', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 60, card_uid: '04E0000002' });
    card = r.body.item.credential as string;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
    await peer?.stop();
  });

  it('has no setpoints to fill, reads a station key and a probe depth now, and saves readings only', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    await page.goto(`${server.url}/#/r/melioration-adapters`);
    await page.locator('.resource-actions button', { hasText: 'New' }).click();
    const form = page.locator('form.adapter-editor');
    await form.waitFor();
    expect(await form.locator('[data-row^="points-"]').count()).toBe(0);
    expect(await form.locator('#add-point').count()).toBe(0);
    await form.locator('#adp-unit_id').fill('f1');
    await form.locator('#adp-controller_id').fill('probe-n1');
    await form.locator('#adp-host').fill('127.0.0.1');
    await form.locator('#adp-port').fill(String(peer.port));
    await form.locator('#adp-modbus_unit_id').fill('1');
    const air = form.locator('[data-row="readings-0"]');
    await air.locator('input[name="key"]').fill('air_temp_c');
    await air.locator('input[name="address"]').fill('0');
    await air.locator('input[name="scale"]').fill('10');
    await air.locator('button.read-now').click();
    await expect.poll(() => air.locator('.read-value').textContent()).toMatch(/^21\.5\b/);
    await form.locator('#add-reading').click();
    const vwc = form.locator('[data-row="readings-1"]');
    await vwc.locator('input[name="key"]').fill('vwc_pct_30');
    await vwc.locator('input[name="address"]').fill('10');
    await vwc.locator('input[name="scale"]').fill('10');
    await vwc.locator('button.read-now').click();
    await expect.poll(() => vwc.locator('.read-value').textContent()).toMatch(/^24\.5\b/);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'adapter-editor-melioration');
    await form.locator('button[type="submit"]').click();
    await form.locator('.confirm-yes').click();
    await form.waitFor({ state: 'detached' });
    const admin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' });
    const saved = ((await admin.get('/api/v1/melioration-adapters/list')).body.items as Record<string, unknown>[]).find((p) => p.controller_id === 'probe-n1')!;
    expect(saved.points).toEqual([]);
    expect((saved.readings as { key: string }[]).map((r) => r.key)).toEqual(['air_temp_c', 'vwc_pct_30']);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
