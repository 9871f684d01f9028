// Poultry -> Adapters in Debian's Chromium, against a real pymodbus peer on loopback polled by the
// box: the controller's card says "Answering" with its last reading's age; an installer changes
// the saved profile in the form, which becomes version 2 (in the profile's versions and in the
// audit); the peer is stopped and the card says, in words and in its priority's colour, since when
// it does not answer and why. An operator sees the same list with no New, Edit or Delete. Both
// orientations, axe.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { startModbusPeer, stopAll, type ModbusPeer } from '../field/helpers.js';
import { axeSerious, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';
import { forbiddenOn, labelProblemsOn } from './farm-words.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('Poultry -> Adapters in Chromium', () => {
  let peer: ModbusPeer;
  let env: TestEnv;
  let server: RunningServer;
  let farm: Client;
  let master: Client;
  let browser: Browser;
  let adminCard = '';
  let adminId = '';
  let operatorCard = '';
  let adapterId = '';

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    await peer.set('ir', 0, [215, 230]);
    await peer.set('hr', 0, [275]);
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    master = await clientAs(env, server);
    farm = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    const issue = async (holder: string, role: string, uid: string) => (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder, scope: 'tenant', tenant_id: 'farm-1', role, ttl_minutes: 60, card_uid: uid })).body.item as Item;
    const admin = await issue('Installer', 'admin', '04E1000001');
    adminCard = admin.credential as string;
    adminId = admin.id as string;
    operatorCard = (await issue('Night shift', 'operator', '04E1000002')).credential as string;
    const placed = await farm.post('/api/v1/poultry-flock/commands/place', { house_id: '1', batch_id: 'B1', subtype: 'broiler', start_date: new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10), birds_placed: 20_000 });
    expect(placed.status, JSON.stringify(placed.body)).toBe(201);
    const created = await farm.post('/api/v1/poultry-adapters', {
      item: {
        unit_id: '1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, modbus_unit_id: 1, poll_period_s: 1, loss_after_misses: 3,
        points: [{ key: 'target_temp_c', address: 0, scale: 10 }],
        readings: [{ key: 'temp', object_type: 'input register', address: 0, scale: 10 }],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    adapterId = created.body.item.id;
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
    await stopAll();
  });

  /** Poultry in the menu, then its Adapters tab. */
  const openAdapters = async (page: Page) => {
    await page.goto(`${server.url}/#/m/poultry`);
    await page.getByRole('tab', { name: 'Adapters' }).click();
    const card = page.locator('.adapter-card[data-controller="house-1-climate"]');
    await card.waitFor();
    return card;
  };

  it('shows the controller answering, saves a change as version 2, then says since when it does not answer', async () => {
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, adminCard);
    const card = await openAdapters(page);
    await expect.poll(() => card.getAttribute('data-link'), { timeout: 20_000 }).toBe('answering');
    expect(await card.locator('.link-headline').textContent()).toBe('Answering');
    expect(await card.locator('.link-detail').textContent()).toMatch(/^ last reading \d+ s ago$/);
    expect(await card.locator('.link-headline').getAttribute('class')).toContain('tone-ok');
    expect(await card.locator('.adapter-how').textContent()).toContain(`Modbus TCP 127.0.0.1 port ${peer.port}, unit 1`);
    expect(await page.locator('.resource-actions button', { hasText: 'New' }).count()).toBe(1);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'adapter-list-answering');

    // Edit: the saved profile in the form; the temperature now comes from register 1.
    await card.locator('button.adapter-edit').click();
    const form = page.locator('form.adapter-editor');
    await form.waitFor();
    expect(await form.getAttribute('data-revising')).toBe('true');
    expect(await form.locator('#adp-controller_id').inputValue()).toBe('house-1-climate');
    expect(await form.locator('#adp-port').inputValue()).toBe(String(peer.port));
    const temp = form.locator('[data-row="readings-0"]');
    expect(await temp.locator('input[name="address"]').inputValue()).toBe('0');
    await temp.locator('input[name="address"]').fill('1');
    await temp.locator('button.read-now').click();
    await expect.poll(() => temp.locator('.read-value').textContent()).toBe('23 °C');
    await form.locator('#adp-change_note').fill('Probe moved to register 1');
    expect(await axeSerious(page)).toEqual([]);
    expect(await forbiddenOn(page)).toEqual([]);
    await shoot(page, 'adapter-list-edit');
    await form.locator('button[type="submit"]').click();
    expect(await form.locator('.confirm').textContent()).toContain('as its next version');
    await form.locator('.confirm-yes').click();
    await form.waitFor({ state: 'detached' });
    expect(await page.locator('#adapter-saved').textContent()).toMatch(/^Saved house-1-climate as version 2\. The box reads the controller with it from its next poll/);

    // The versions: 2 in force, 1 before it; the server kept both and audited the change.
    await card.locator('button.adapter-versions').click();
    const history = card.locator('.adapter-history');
    await history.locator('li[data-version="2"]').waitFor();
    expect(await history.locator('li[data-version="2"]').textContent()).toMatch(/^Version 2 \(in force\): changed readings, by Installer, .+ — Probe moved to register 1$/);
    expect(await history.locator('li[data-version="1"]').textContent()).toMatch(/^Version 1: first saved, by /);
    const versions = (await farm.get(`/api/v1/poultry-adapters/${adapterId}/versions`)).body.items as Item[];
    expect(versions.map((v) => [v.version_id, v.state])).toEqual([[2, 'published'], [1, 'archived']]);
    expect(versions[0]!.profile.readings).toEqual([{ key: 'temp', object_type: 'input register', address: 1, data_type: 'int16', order: 'LE', scale: 10 }]);
    const audit = (await master.get('/api/v1/audit/list?action=adapter-profile.revise&limit=10')).body.items as Item[];
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: adminId, resource: 'poultry-adapters', result: 'success', details: { id: adapterId, version_id: 2, previous_version: 1, changed: ['readings'], change_note: 'Probe moved to register 1' } });
    // Still answering, from the new register.
    await expect.poll(async () => ((await farm.get('/api/v1/poultry-climate-readings/list?house_id=1&sort=ts&order=desc&limit=1')).body.items as Item[])[0]?.temp, { timeout: 20_000 }).toBe(23);
    expect(await card.getAttribute('data-link')).toBe('answering');
    await shoot(page, 'adapter-list-versions');

    // The controller goes away: after three missed reads, lost, since when, and why in words.
    await peer.stop();
    await expect.poll(() => card.getAttribute('data-link'), { timeout: 30_000 }).toBe('lost');
    expect(await card.locator('.link-headline').textContent()).toMatch(/^Not answering since (?:[^:]+, )?\d{1,2}:\d{2}(:\d{2})?( [AP]M)?$/);
    expect(await card.locator('.link-detail').textContent()).toMatch(/^ \d+ reads missed in a row; last reading (?:[^:]+, )?\d{1,2}:\d{2}/);
    expect(await card.locator('.link-error').textContent()).toBe(`Last error: Nothing answers at 127.0.0.1 port ${peer.port}: check that the controller is on and that the IP address and port are right.`);
    // A P1 communication loss: the alarm colour.
    expect(await card.getAttribute('data-tone')).toBe('alarm');
    expect(await card.getAttribute('class')).toContain('tone-edge-alarm');
    expect(await card.textContent()).not.toMatch(/ECONNREFUSED|addr:|comm_loss|bus_lost|no_answer/);
    expect(await axeSerious(page)).toEqual([]);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await labelProblemsOn(page, 'main')).toEqual([]);
    await shoot(page, 'adapter-list-lost');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 120_000);

  it('an operator sees the controllers and their versions, and is offered no New, Edit or Delete (portrait)', async () => {
    const { page, problems } = await newPage(browser, { viewport: PORTRAIT });
    await rfidLogin(page, server.url, operatorCard);
    const card = await openAdapters(page);
    await expect.poll(() => card.getAttribute('data-link'), { timeout: 20_000 }).toBe('lost');
    expect(await page.locator('.adapter-list button', { hasText: /^(New|Edit|Delete)$/ }).count()).toBe(0);
    expect(await page.locator('.adapter-list .adapter-edit, .adapter-list .adapter-delete').count()).toBe(0);
    await card.locator('button.adapter-versions').click();
    await card.locator('.adapter-history li[data-version="2"]').waitFor();
    // The server agrees: the operator is refused what the screen does not offer.
    const op = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    expect((await op.post('/api/v1/poultry-adapters/commands/revise', { id: adapterId, item: { unit_id: '1', controller_id: 'x', transport: 'modbus-tcp', host: '127.0.0.1', points: [{ key: 'target_temp_c', address: 0 }] } })).status).toBe(403);
    expect(await axeSerious(page)).toEqual([]);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await labelProblemsOn(page, 'main')).toEqual([]);
    await shoot(page, 'adapter-list-operator');
    expect(problems).toEqual([]);
    await page.context().close();
  }, 90_000);
});
