// The README's first five minutes, step 4, done in Chromium with the words the README gives and
// nothing else: menu, Poultry, the Flock tab, Place a flock, the house typed (a fresh box has none to
// choose), Broilers, Yes, place a flock; the workspace then has a card for house 1. If a label or a button changes,
// this fails and the README must change with it.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { launch, newPage, rfidLogin } from './browser.js';

const README = readFileSync(join(import.meta.dirname, '..', '..', 'README.md'), 'utf8');

describe('README step 4 in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser;
  let card = '';

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off' });
    const owner = await clientAs(env, server);
    const tenant = (JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string }).tenant_id;
    const r = await owner.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Site admin', scope: 'tenant', tenant_id: tenant, role: 'admin', ttl_minutes: 60 });
    expect(r.status, JSON.stringify(r.body)).toBe(201);
    card = r.body.item.credential as string;
    browser = await launch();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await env?.cleanup();
  });

  it('places the first flock with the README\'s words', async () => {
    const step = README.slice(README.indexOf('4. **See the houses**'), README.indexOf('5. **Give the house'));
    // the words this test clicks are the README's
    for (const words of ['**Poultry**', '**Flock**', '**Place a flock**', '**Broilers**', '**Yes, place a flock**']) expect(step).toContain(words);
    const { page, problems } = await newPage(browser);
    await rfidLogin(page, server.url, card);
    const houseCards = () => page.locator('[data-house="1"], #house-1, .house-card').count();
    expect(await houseCards()).toBe(0);
    await page.getByRole('button', { name: /menu/i }).or(page.locator('button[aria-controls="sidebar"]')).first().click();
    await page.locator('#sidebar').getByRole('link', { name: 'Poultry', exact: true }).click();
    await page.getByRole('tab', { name: 'Flock', exact: true }).click();
    await page.getByRole('button', { name: 'Place a flock', exact: true }).click();
    const form = page.locator('form[data-command="place"]');
    // a fresh box has no house to choose from: the house is typed
    await form.getByLabel('House', { exact: false }).first().fill('1');
    await form.getByLabel('Batch', { exact: false }).fill('B1');
    await form.getByLabel('Kind of flock', { exact: false }).selectOption({ label: 'Broilers' });
    await form.getByLabel('Placed on', { exact: false }).fill(new Date().toISOString().slice(0, 10));
    await form.getByRole('button', { name: 'Place a flock', exact: true }).click();
    await form.getByRole('button', { name: 'Yes, place a flock', exact: true }).click();
    await page.goto(`${server.url}/#/`);
    await expect.poll(houseCards, { timeout: 10_000 }).toBeGreaterThan(0);
    expect(problems).toEqual([]);
  });
});
