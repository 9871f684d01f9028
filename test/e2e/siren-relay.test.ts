// The installer's siren and watchdog screen in Debian's Chromium, on an edge box: a fresh box says
// plainly that there is no siren and no watchdog output; the box's admin fills the siren's form
// (a wrong address is said beside the field as it is typed), checks it against a real pymodbus I/O
// module on loopback (nothing written), saves it, and pulses it: the coil goes to 1 on the module
// and back to 0, and the screen says energised, then released. A watchdog saved at an address
// where nothing answers is said failing since a time, with its alarm one tap away. An operator
// sees no form; the security officer sees the state only. Both orientations, axe. One server and one browser for the file.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { startIoPeer, type IoPeer } from '../field/peers/io-peer.js';
import { closedTcpPort, stopAll, waitFor } from '../field/helpers.js';
import { axeSerious, launch, newPage, PORTRAIT, rfidLogin, shoot, smallTargets } from './browser.js';
import { forbiddenOn } from './farm-words.js';

interface OutputView { output: string; configured: boolean; energised: boolean | null; failing: boolean; target: string | null }

describe('siren and watchdog screen in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let peer: IoPeer;
  let owner: Client;
  let adminCard = '';
  let operatorCard = '';
  let securityCard = '';

  const outputs = async (): Promise<OutputView[]> => (await owner.get('/api/v1/alarm-relay/list')).body.items as OutputView[];
  const screen = async (page: Page, card: string) => {
    await rfidLogin(page, server.url, card);
    await page.goto(`${server.url}/#/m/alarm-relay`);
  };

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    peer = await startIoPeer('tcp', '0');
    server = await env.start({ mqtt_broker: 'off', field: JSON.stringify({ request_timeout_ms: 1000, retries: 0 }) });
    const box = JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string };
    owner = await clientAs(env, server);
    const issue = async (role: string, holder: string, uid: string) => {
      const r = await owner.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder, scope: 'tenant', tenant_id: box.tenant_id, role, ttl_minutes: 60, card_uid: uid });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.item.credential as string;
    };
    adminCard = await issue('admin', 'Installer', '04D0000001');
    operatorCard = await issue('operator', 'Barn operator', '04D0000002');
    securityCard = await issue('security', 'Security officer', '04D0000003');
    browser = await launch();
  }, 90_000);
  afterAll(async () => {
    await browser?.close();
    await stopAll();
    await peer?.stop();
    await env?.cleanup();
  });

  it('a fresh box says there is no siren and no watchdog output', async () => {
    const { page, problems } = await newPage(browser, { viewport: PORTRAIT });
    await rfidLogin(page, server.url, adminCard);
    // The installer finds it in the menu.
    await page.locator('button.menu-btn').click();
    await page.locator('#menu a[href="#/m/alarm-relay"]').click();
    const siren = page.locator('[data-relay="siren"]');
    await siren.locator('[data-field="not-configured"]').waitFor();
    expect(await siren.locator('[data-field="not-configured"]').textContent()).toBe('No siren output: an unacknowledged P1 sounds only on the tablets.');
    expect(await page.locator('[data-relay="watchdog"] [data-field="not-configured"]').textContent()).toBe('No watchdog output: a dialler cannot know when this box stops.');
    // The form is open with its defaults: Modbus TCP, port 502, unit 1, coil 0, P1 only, 60 s.
    const form = siren.locator('form.relay-form');
    expect(await form.locator('input[value="modbus-tcp"]').isChecked()).toBe(true);
    expect(await form.locator('input[name="port"]').inputValue()).toBe('502');
    expect(await form.locator('input[name="unit_id"]').inputValue()).toBe('1');
    expect(await form.locator('input[name="coil"]').inputValue()).toBe('0');
    expect(await form.locator('input[name="priorities"][value="P1"]').isChecked()).toBe(true);
    expect(await form.locator('input[name="priorities"][value="P2"]').isChecked()).toBe(false);
    expect(await form.locator('input[name="period_s"]').inputValue()).toBe('60');
    expect(await page.locator('[data-relay="watchdog"] input[name="period_s"]').inputValue()).toBe('10');
    expect(await axeSerious(page)).toEqual([]);
    expect(await smallTargets(page)).toEqual([]);
    await shoot(page, 'siren-relay-fresh');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('the admin sets the siren up from the form, checks it, saves it and pulses the coil of a real I/O module', async () => {
    const { page, problems } = await newPage(browser);
    await screen(page, adminCard);
    const siren = page.locator('[data-relay="siren"]');
    const form = siren.locator('form.relay-form');
    // Checked as it is typed: a name is not an address; no priority is not a siren.
    await form.locator('input[name="host"]').fill('relay.local');
    expect(await form.locator('[data-error="host"]').textContent()).toBe('Not a network address: four numbers with dots, like 192.168.1.20.');
    expect(await form.locator('input[name="host"]').getAttribute('aria-invalid')).toBe('true');
    await form.locator('input[name="priorities"][value="P1"]').uncheck();
    await form.locator('button[data-action="save"]').click();
    expect(await form.locator('[data-error="priorities"]').textContent()).toBe('Choose at least one priority.');
    expect((await outputs()).find((o) => o.output === 'siren')!.configured).toBe(false);
    await shoot(page, 'siren-relay-form-errors');

    await form.locator('input[name="host"]').fill('127.0.0.1');
    await form.locator('input[name="port"]').fill(String(peer.port));
    await form.locator('input[name="priorities"][value="P1"]').check();
    await form.locator('input[name="priorities"][value="P2"]').check();
    expect(await form.locator('[data-error="host"]').textContent()).toBe('');
    await form.locator('button[data-action="check"]').click();
    await form.locator('[data-field="check-result"]').waitFor();
    expect(await form.locator('[data-field="check-result"]').textContent()).toBe('The I/O module answered: the output is released now. Nothing was written.');
    expect(await peer.writes(0)).toEqual([]);
    expect((await outputs()).find((o) => o.output === 'siren')!.configured).toBe(false);

    await form.locator('button[data-action="save"]').click();
    await form.locator('[data-field="saved"]').waitFor();
    expect(await form.locator('[data-field="saved"]').textContent()).toBe('Saved. The box wrote the output and read it back: released.');
    const saved = (await outputs()).find((o) => o.output === 'siren')!;
    expect(saved).toMatchObject({ configured: true, target: `Modbus 127.0.0.1:${peer.port} unit 1 coil 0`, energised: false, failing: false });
    const state = siren.locator('[data-field="state"]');
    await expect.poll(() => state.locator('[data-field="badge"]').textContent()).toBe('Released');
    expect(await state.textContent()).toContain('sounds for P1 or P2');
    expect(await state.textContent()).toContain('The siren is quiet: no P1 or P2 alarm waits for acknowledgement.');
    expect(await axeSerious(page)).toEqual([]);
    expect(await forbiddenOn(page)).toEqual([]);
    await shoot(page, 'siren-relay-saved');

    // The test pulse: the module's coil goes to 1, the screen says energised, then both go back.
    const before = Date.now() / 1000;
    await siren.locator('button[data-action="pulse"]').click();
    await siren.locator('[data-field="pulse-result"]').waitFor();
    expect(await siren.locator('[data-field="pulse-result"]').getAttribute('data-ok')).toBe('true');
    expect(await siren.locator('[data-field="pulse-result"]').textContent()).toMatch(/^The siren is energised until (?:[^:]+, )?\d\d:\d\d(:\d\d)?: the I\/O module confirmed it\./);
    await waitFor(async () => (await peer.coils(0, 1))[0] === 1, 5_000, 'the coil energised on the module');
    await expect.poll(() => state.getAttribute('data-energised'), { timeout: 5_000 }).toBe('true');
    expect(await state.locator('[data-field="badge"]').textContent()).toBe('Energised');
    expect(await state.textContent()).toMatch(/The siren sounds: test pulse until/);
    await shoot(page, 'siren-relay-pulse');
    await waitFor(async () => (await peer.coils(0, 1))[0] === 0, 10_000, 'the coil released on the module');
    await expect.poll(() => state.getAttribute('data-energised'), { timeout: 10_000 }).toBe('false');
    expect(await state.locator('[data-field="badge"]').textContent()).toBe('Released');
    const writes = (await peer.writes(0)).filter(([t]) => t >= before - 1).map(([, v]) => v);
    expect(writes.indexOf(1)).toBeGreaterThanOrEqual(0);
    expect(writes.lastIndexOf(0)).toBeGreaterThan(writes.indexOf(1));
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('a watchdog where nothing answers is saved only when asked, then says failing since when, with its alarm', async () => {
    const { page, problems } = await newPage(browser, { viewport: PORTRAIT });
    await screen(page, adminCard);
    const dog = page.locator('[data-relay="watchdog"]');
    const form = dog.locator('form.relay-form');
    const port = await closedTcpPort();
    await form.locator('input[name="host"]').fill('127.0.0.1');
    await form.locator('input[name="port"]').fill(String(port));
    await form.locator('button[data-action="save"]').click();
    await form.locator('[data-field="unanswered"]').waitFor();
    expect(await form.locator('[data-field="unanswered"]').textContent()).toContain(`No answer from Modbus 127.0.0.1:${port} unit 1 coil 0`);
    expect((await outputs()).find((o) => o.output === 'watchdog')!.configured).toBe(false);
    await form.locator('button[data-action="save-anyway"]').click();
    // Saved, and not said to have answered: the watchdog's first toggle comes after the answer.
    await form.locator('[data-field="saved"]').waitFor();
    expect(await form.locator('[data-field="saved"]').textContent()).not.toContain('read it back');
    const failing = dog.locator('.relay-failing');
    await failing.waitFor();
    expect(await failing.locator('[data-field="badge"]').textContent()).toBe('Failing');
    expect(await failing.textContent()).toMatch(/since (?:[^:]+, )?\d\d:\d\d(:\d\d)? \(under 1 min\): the output does not answer\./);
    expect(await failing.locator('[data-field="last-error"]').textContent()).toMatch(/^The I\/O module's answer: (Connection refused|Timeout) 127\.0\.0\.1:/);
    expect(await axeSerious(page)).toEqual([]);
    expect(await forbiddenOn(page)).toEqual([]);
    expect(await smallTargets(page)).toEqual([]);
    await shoot(page, 'siren-relay-failing');
    // Its alarm, one tap away in the inbox.
    await failing.locator('[data-field="alarm-link"]').click();
    await page.locator('#inbox').waitFor();
    await expect.poll(() => page.locator('#inbox').textContent()).toContain('The watchdog output does not answer — check the I/O module');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('an operator is offered no form and no test pulse; the security officer sees the state only', async () => {
    const { page, problems } = await newPage(browser);
    await screen(page, operatorCard);
    await page.locator('#main h1').first().waitFor();
    expect(await page.locator('form.relay-form').count()).toBe(0);
    expect(await page.locator('button[data-action="pulse"]').count()).toBe(0);
    expect(await page.locator('#menu a[href="#/m/alarm-relay"]').count()).toBe(0);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'siren-relay-operator');
    await page.context().close();

    const sec = await newPage(browser, { viewport: PORTRAIT });
    await screen(sec.page, securityCard);
    const siren = sec.page.locator('[data-relay="siren"]');
    // The watchdog's failure is a P1 waiting for acknowledgement: the siren sounds for it.
    await expect.poll(() => siren.locator('[data-field="badge"]').textContent()).toBe('Energised');
    expect(await siren.locator('[data-field="state"]').textContent()).toContain('The siren sounds: 1 alarm not acknowledged.');
    expect((await peer.coils(0, 1))[0]).toBe(1);
    expect(await sec.page.locator('[data-relay="watchdog"] [data-field="badge"]').textContent()).toBe('Failing');
    expect(await sec.page.locator('[data-field="read-only"]').textContent()).toBe('Only the box\'s admin sets these outputs up; you see their state.');
    expect(await sec.page.locator('form.relay-form').count()).toBe(0);
    expect(await sec.page.locator('button[data-action="pulse"], button[data-action="edit"]').count()).toBe(0);
    expect(await axeSerious(sec.page)).toEqual([]);
    expect(await forbiddenOn(sec.page)).toEqual([]);
    await shoot(sec.page, 'siren-relay-read-only');
    expect([...problems, ...sec.problems]).toEqual([]);
    await sec.page.context().close();
  });
});
