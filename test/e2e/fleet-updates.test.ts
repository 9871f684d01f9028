// The fleet sees every update, and a box's admin sees their box's, in Debian's Chromium with real
// servers: a master (cloud-multi) holding two signed releases (the version the boxes run, to go back
// to, and 90.1.0), and two boxes (edge-single, in this process) syncing to it over HTTP: north-barn
// with the fleet's key and a maintenance window that is closed now, west-barn with another key (it
// refuses the release's signature). A rollout with both as canaries (threshold 50 %) pauses by
// itself when west-barn fails. The fleet screen shows each site's versions, step and why; the
// releases screen the rollout's waves with their sites, the failure rate against the threshold and
// why it is paused; a fleet admin holds a site's updates with a reason, resumes and pauses the
// rollout. The box's own screen shows its step, window and what the install waits for, and says
// since when the box does not answer once it stops. In English and Russian, both orientations,
// nothing cut, axe clean, screenshots of each.
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { signManifest } from '../../src/runtime/release-signature.js';
import { debianArch } from '../../src/modules/updates/state.js';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator, type Translator } from '../../src/i18n/translate.js';
import { axeSerious, LANDSCAPE, launch, newPage, PORTRAIT, rfidLogin, shoot } from './browser.js';
import pkg from '../../package.json' with { type: 'json' };

type Lang = 'en' | 'ru';
const words = (lang: Lang): Translator => makeTranslator(lang, formatLocale(lang, undefined), BUILT_IN[lang], BUILT_IN.en);

const ARCH = debianArch();
const RUNNING = pkg.version;
const TARGET = '90.1.0';
const NORTH = 'north-barn@green-acres';
const WEST = 'west-barn@green-acres';
const SOUTH = 'south-barn@green-acres';

const fleetKey = generateKeyPairSync('ed25519');
const otherKey = generateKeyPairSync('ed25519');
const pem = (k: ReturnType<typeof generateKeyPairSync>['publicKey']) => k.export({ type: 'spki', format: 'pem' }).toString();

/** A maintenance window that is closed now (it opens in three hours, UTC). */
function closedWindow(): string {
  const h = (new Date().getUTCHours() + 3) % 24;
  const hh = (n: number) => String(n % 24).padStart(2, '0');
  return `${hh(h)}:00-${hh(h + 1)}:00`;
}

/** Minimal element shape for code run in the page (the test's tsconfig has no DOM types). */
interface Box { tagName: string; className: string; textContent: string | null; scrollWidth: number; clientWidth: number; getBoundingClientRect(): { left: number; right: number; width: number }; ownerDocument: { documentElement: { clientWidth: number } } }

/** Elements of a screen whose text is cut or runs past their box or the screen's edge. */
async function overflowing(page: Page, root: string): Promise<string[]> {
  const sel = ['h1', 'h2', 'h3', 'h4', 'p', 'dt', 'dd', 'li', 'label', 'button', '.badge', 'code'].map((s) => `${root} ${s}`).join(', ');
  return page.locator(sel).evaluateAll((els) =>
    (els as unknown as Box[]).flatMap((e) => {
      const r = e.getBoundingClientRect();
      if (r.width === 0) return [];
      const cut = e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1;
      const out = r.right > e.ownerDocument.documentElement.clientWidth + 1 || r.left < -1;
      return cut || out ? [`${e.tagName.toLowerCase()}.${e.className} "${(e.textContent ?? '').trim().slice(0, 50)}" scroll ${e.scrollWidth} > client ${e.clientWidth}, right ${Math.round(r.right)}`] : [];
    }),
  );
}

/** Both orientations: nothing cut, axe clean; then the screenshots. */
async function fitsAndShoot(page: Page, root: string, name: string): Promise<void> {
  const found: string[] = [];
  for (const size of [LANDSCAPE, PORTRAIT]) {
    await page.setViewportSize(size);
    await page.waitForFunction((wd) => (globalThis as unknown as { innerWidth: number }).innerWidth === wd, size.width);
    for (const o of await overflowing(page, root)) found.push(`${size.width}x${size.height}: ${o}`);
    for (const v of await axeSerious(page)) found.push(`${size.width}x${size.height}: axe ${v}`);
  }
  await page.setViewportSize(LANDSCAPE);
  expect(found).toEqual([]);
  await shoot(page, name);
}

/** English texts (without arguments) of these areas that read differently in Russian. */
function englishOnly(prefixes: string[]): Set<string> {
  const en = BUILT_IN.en;
  return new Set(Object.keys(en).filter((k) => prefixes.some((p) => k.startsWith(p)) && !en[k]!.includes('{') && BUILT_IN.ru[k] !== en[k]).map((k) => en[k]!));
}
async function leafTexts(page: Page, root: string): Promise<string[]> {
  return page.locator(`${root} *`).evaluateAll((els) =>
    (els as unknown as { childElementCount: number; textContent: string | null }[]).filter((e) => e.childElementCount === 0).map((e) => (e.textContent ?? '').trim()));
}

/** Waits (outside a test: expect.poll is for tests) until `read` gives what `want` is, else fails with what it gave last. */
async function until<T>(what: string, read: () => Promise<T>, want: T, timeoutMs: number): Promise<void> {
  const end = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await read();
    if (JSON.stringify(last) === JSON.stringify(want)) return;
    if (Date.now() > end) throw new Error(`${what}: still ${JSON.stringify(last)}, waited for ${JSON.stringify(want)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** `clock`: Playwright's clock in the page (it keeps the real pace until a test runs it ahead). */
async function inLanguage(browser: Browser, url: string, card: string, lang: Lang, opts: { clock?: boolean } = {}) {
  const { page, context, problems } = await newPage(browser);
  if (opts.clock) await context.clock.install();
  await context.addInitScript((l) => (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } }).localStorage.setItem('cabinet-i18n.choice', l), lang);
  await rfidLogin(page, url, card);
  await page.waitForFunction((l) => (globalThis as unknown as { document: { documentElement: { lang: string } } }).document.documentElement.lang === l, lang);
  return { page, context, problems };
}

describe('software updates in the fleet view, the releases screen and the box', () => {
  let keyDir: string;
  let masterEnv: TestEnv;
  let northEnv: TestEnv;
  let westEnv: TestEnv;
  let master: RunningServer;
  let north: RunningServer | undefined;
  let browser: Browser;
  let token = '';
  let fleetCard = '';
  let securityCard = '';
  let boxCard = '';
  let window = '';
  let rolloutId = '';

  const api = async (method: string, path: string, body?: unknown) => {
    const r = await fetch(`${master.url}${path}`, { method, headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined });
    const json = (await r.json()) as { item?: Record<string, unknown>; items?: Record<string, unknown>[] };
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(json)}`);
    return json;
  };
  const site = async (id: string) => ((await api('GET', '/api/v1/sync-sites/list?limit=10')).items ?? []).find((s) => s.id === id);
  const rollout = async () => (await api('GET', `/api/v1/release-rollouts/${rolloutId}`)).item!;

  /** create, the chunks, attach the signature, publish: as `cabinet release upload` does. */
  const publish = async (version: string, size: number) => {
    const bytes = randomBytes(size);
    const sha256 = createHash('sha256').update(bytes).digest('hex');
    const signed = JSON.stringify(signManifest(fleetKey.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), { package: 'cabinet', version, arch: ARCH, size, sha256, signed_at: new Date().toISOString() }));
    await api('POST', '/api/v1/releases/commands/create', { version, notes: `Version ${version}: steadier ventilation curves.\nFixes the night heater.` });
    const MiB = 1024 * 1024;
    for (let idx = 0; idx * MiB < size; idx++) {
      const r = await fetch(`${master.url}/api/v1/releases/${version}/packages/${ARCH}/chunks/${idx}`, { method: 'PUT', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/octet-stream' }, body: bytes.subarray(idx * MiB, (idx + 1) * MiB) });
      expect(r.status, await r.clone().text()).toBe(200);
    }
    await api('POST', '/api/v1/releases/commands/attach', { id: version, arch: ARCH, signed });
    await api('POST', '/api/v1/releases/commands/publish', { id: version });
  };

  beforeAll(async () => {
    keyDir = mkdtempSync(join(tmpdir(), 'cabinet-fleet-updates-'));
    const fleetPub = join(keyDir, 'release.pub');
    const otherPub = join(keyDir, 'other.pub');
    writeFileSync(fleetPub, pem(fleetKey.publicKey));
    writeFileSync(otherPub, pem(otherKey.publicKey));
    masterEnv = await createTestEnv('sqlite');
    northEnv = await createTestEnv('sqlite');
    westEnv = await createTestEnv('sqlite');
    master = await masterEnv.start({ mode: 'cloud-multi', mqtt_broker: 'off', release_public_key: fleetPub });
    token = await masterEnv.token(master);
    const fleet = await clientAs(masterEnv, master);
    const issued = await fleet.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'fleet team', role: 'admin', ttl_minutes: 60, scope: 'master', card_uid: '04F1EE7035' });
    expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    fleetCard = issued.body.item.credential as string;
    const security = await fleet.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'fleet auditor', role: 'security', ttl_minutes: 60, scope: 'master', card_uid: '04F1EE7036' });
    expect(security.status, JSON.stringify(security.body)).toBe(201);
    securityCard = security.body.item.credential as string;
    const reg = async (site_id: string) => {
      const r = await fleet.post('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'green-acres', site_id, industry_code: 'poultry' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      return r.body.item.credential as string;
    };
    writeFileSync(join(northEnv.dataDir, 'site-credential'), `${await reg('north-barn')}\n`, { mode: 0o600 });
    writeFileSync(join(westEnv.dataDir, 'site-credential'), `${await reg('west-barn')}\n`, { mode: 0o600 });
    await reg('south-barn'); // registered, its box never connected
    await publish(RUNNING, 150_000);
    await publish(TARGET, 1_200_000);
    window = closedWindow();
    const sync = { mqtt_broker: 'off', sync_master_url: master.url, sync_interval_ms: '200', sync_heartbeat_ms: '500', sync_backoff_max_ms: '500' };
    north = await northEnv.start({ ...sync, release_public_key: fleetPub, update_window: window });
    await westEnv.start({ ...sync, release_public_key: otherPub });
    // The box's admin card (tenant scope), for its own screen.
    const tenant = (JSON.parse(readFileSync(join(northEnv.dataDir, 'site.json'), 'utf8')) as { tenant_id: string }).tenant_id;
    const owner = await clientAs(northEnv, north);
    const admin: Client = await clientAs(northEnv, north, { subject: 'installer', role: 'admin', scope_type: 'tenant', tenant_id: tenant }, owner.contract);
    const card = await admin.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Farm admin', scope: 'tenant', tenant_id: tenant, role: 'admin', ttl_minutes: 600 });
    expect(card.status, JSON.stringify(card.body)).toBe(201);
    boxCard = card.body.item.credential as string;
    // Both boxes have told the master their version and arch before the rollout.
    await until('both boxes report their arch', async () => [(await site(NORTH))?.update_arch, (await site(WEST))?.update_arch], [ARCH, ARCH], 30_000);
    const created = await api('POST', '/api/v1/release-rollouts/commands/create', { release_id: TARGET, canary_site_ids: [NORTH, WEST], waves: [100], failure_threshold_percent: 50, proof_timeout_s: 900 });
    rolloutId = created.item!.id as string;
    // north-barn downloads and verifies, then waits for its window; west-barn refuses the signature; the rollout pauses.
    await until('north waits, west failed, the rollout paused', async () => [(await site(NORTH))?.update_step, (await site(WEST))?.update_step, (await rollout()).state], ['waiting_for_window', 'failed', 'paused'], 40_000);
    browser = await launch();
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await westEnv?.cleanup();
    await northEnv?.cleanup();
    await masterEnv?.cleanup();
    rmSync(keyDir, { recursive: true, force: true });
  });

  it('ru: the sites\' versions and steps, the rollout paused by its failure rate, in Russian, fitting both orientations', async () => {
    const w = words('ru');
    const { page, context, problems } = await inLanguage(browser, master.url, fleetCard, 'ru');
    const card = (id: string) => page.locator(`[data-resource="sync-sites"] [data-site="${id}"]`);
    await expect.poll(() => card(NORTH).locator('[data-field="update"] .badge').textContent(), { timeout: 20_000 }).toBe(w.t('updates.step.waiting_for_window'));
    expect(await card(NORTH).locator('[data-field="update-reason"]').textContent()).toBe(w.t('updates.view.wait.window'));
    expect(await card(NORTH).locator('[data-field="target"]').textContent()).toBe(TARGET);
    expect(await card(NORTH).locator('[data-field="previous"]').textContent()).toBe(RUNNING);
    expect(await card(WEST).locator('[data-field="update"] .badge').textContent()).toBe(w.t('updates.step.failed'));
    expect(await card(SOUTH).locator('[data-field="update"] .badge').textContent()).toBe(w.t('updates.view.step.unreported'));
    const sitesEnglish = (await leafTexts(page, '[data-resource="sync-sites"]')).filter((x) => englishOnly(['fleet.', 'updates.']).has(x));
    expect(sitesEnglish, 'English left on the fleet sites').toEqual([]);
    await fitsAndShoot(page, '[data-resource="sync-sites"]', 'fleet-updates-sites-ru');

    await page.goto(`${master.url}/#/m/releases`);
    const ro = page.locator(`[data-rollout="${rolloutId}"]`);
    await ro.waitFor();
    expect(await page.locator('#h-fleet-releases').textContent()).toBe(w.t('fleet.releases.title'));
    expect(await ro.locator('[data-badge="state"]').textContent()).toBe(w.t('fleet.rollout.state.paused'));
    expect(await ro.locator('[data-note]').textContent()).toBe(w.t('fleet.rollout.paused_rate', { rate: 100, threshold: 50, failed: 1, finished: 1 }));
    expect(await ro.locator('[data-field="failure-rate"]').textContent()).toBe(w.t('fleet.rollout.rate', { rate: w.t('fleet.rollout.rate_value', { rate: 100 }), threshold: 50 }));
    expect(await ro.locator('[data-wave="0"] h4 span').first().textContent()).toBe(w.t('fleet.wave.canaries'));
    expect(await ro.locator(`[data-wave="0"] [data-site="${NORTH}"] .badge`).textContent()).toBe(w.t('updates.step.waiting_for_window'));
    expect(await ro.locator(`[data-wave="0"] [data-site="${WEST}"]`).getAttribute('data-outcome')).toBe('failed');
    expect(await ro.locator('[data-wave="1"] h4 span').first().textContent()).toBe(w.t('fleet.wave.percent', { k: 1, percent: 100 }));
    expect(await ro.locator('[data-wave="1"]').getAttribute('data-started')).toBe('false');
    expect(await page.locator(`[data-release="${TARGET}"] [data-badge="state"]`).textContent()).toBe(w.t('fleet.release.state.published'));
    expect(await page.locator(`[data-release="${TARGET}"] [data-arch="${ARCH}"]`).getAttribute('data-complete')).toBe('true');
    expect(await page.locator('[data-upload-note] code').textContent()).toBe('cabinet release upload');
    const releasesEnglish = (await leafTexts(page, '.fleet-releases')).filter((x) => englishOnly(['fleet.', 'updates.']).has(x));
    expect(releasesEnglish, 'English left on the releases screen').toEqual([]);
    await fitsAndShoot(page, '.fleet-releases', 'fleet-updates-rollout-ru');
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('en: a fleet admin holds a site\'s updates with a reason, then resumes and pauses the rollout', async () => {
    const { page, context, problems } = await inLanguage(browser, master.url, fleetCard, 'en');
    const south = page.locator(`[data-resource="sync-sites"] [data-site="${SOUTH}"]`);
    const northCard = page.locator(`[data-resource="sync-sites"] [data-site="${NORTH}"]`);
    await expect.poll(() => northCard.locator('[data-field="update"] .badge').textContent(), { timeout: 20_000 }).toBe('Waiting to install');
    expect(await northCard.locator('[data-field="update-reason"]').textContent()).toBe('Waits for its maintenance window.');
    expect(await northCard.locator('[data-field="update"]').textContent()).toMatch(/^Waiting to install since (?:\d\d:\d\d:\d\d|[^:]+, \d\d:\d\d)$/);

    // Hold: asked why (required), then said on the card and kept by the master.
    await south.locator('button', { hasText: 'More about this site' }).click();
    await south.locator('[data-action="hold"]').click();
    await south.locator('form[data-form="hold"] button[type="submit"]').click();
    expect(await south.locator('.reason-action .error').textContent()).toBe('Please say why.');
    await south.locator('form[data-form="hold"] input[name="reason"]').fill('box being replaced');
    await south.locator('form[data-form="hold"] button[type="submit"]').click();
    await expect.poll(() => south.locator('[data-hold]').textContent(), { timeout: 10_000 }).toMatch(/^Updates held by .+ since (?:\d\d:\d\d:\d\d|[^:]+, \d\d:\d\d): box being replaced$/);
    expect(await site(SOUTH)).toMatchObject({ update_hold: true, update_hold_reason: 'box being replaced' });
    await fitsAndShoot(page, '[data-resource="sync-sites"]', 'fleet-updates-sites-en');
    await south.locator('[data-action="release-hold"]').click();
    await south.locator('form[data-form="release-hold"] button[type="submit"]').click();
    await expect.poll(() => south.locator('[data-hold]').count(), { timeout: 10_000 }).toBe(0);
    expect((await site(SOUTH))?.update_hold).toBe(false);

    // The rollout: paused by its failure rate; resumed (the failure accepted), then paused with a reason.
    await page.goto(`${master.url}/#/m/releases`);
    const ro = page.locator(`[data-rollout="${rolloutId}"]`);
    await ro.waitFor();
    expect(await ro.locator('[data-note]').textContent()).toBe('Paused: 1 of 1 finished sites failed or went back (100 %), above the threshold of 50 %. Look at the failed sites below, then resume or stop the rollout.');
    expect(await ro.locator('[data-field="failure-rate"]').textContent()).toBe('100 %, pauses above 50 %');
    expect(await ro.locator('[data-field="wave"]').textContent()).toBe('Canary sites');
    expect(await ro.locator('[data-field="proof"]').textContent()).toBe('15 min');
    expect(await ro.locator(`[data-site="${NORTH}"] .badge`).textContent()).toBe('Waiting to install');
    expect(await ro.locator(`[data-site="${WEST}"] .badge`).textContent()).toBe('Failed');
    expect(await ro.locator(`[data-site="${WEST}"] .wave-reason`).textContent()).toContain(`The signature of version ${TARGET} does not verify`);
    expect(await ro.locator('[data-action="pause"]').count()).toBe(0);
    expect(await page.locator(`[data-release="${TARGET}"] [data-arch="${ARCH}"]`).textContent()).toBe(`${ARCH}: 1.2 MB, checked and complete`);
    expect(await page.locator(`[data-release="${TARGET}"] .release-notes`).textContent()).toBe(`Version ${TARGET}: steadier ventilation curves.\nFixes the night heater.`);
    await fitsAndShoot(page, '.fleet-releases', 'fleet-updates-rollout-en');

    await ro.locator('[data-action="resume"]').click();
    await ro.locator('form[data-form="resume"] button[type="submit"]').click();
    await expect.poll(() => ro.locator('[data-badge="state"]').textContent(), { timeout: 10_000 }).toBe('Running');
    expect(await ro.locator('[data-field="failure-rate"]').textContent()).toBe('0 %, pauses above 50 %');
    await ro.locator('[data-action="pause"]').click();
    await ro.locator('form[data-form="pause"] input[name="reason"]').fill('checking north-barn first');
    await ro.locator('form[data-form="pause"] button[type="submit"]').click();
    await expect.poll(() => ro.locator('[data-badge="state"]').textContent(), { timeout: 10_000 }).toBe('Paused');
    expect(await ro.locator('[data-note]').textContent()).toMatch(/^The master's note: paused by .+: checking north-barn first$/);
    expect(await rollout()).toMatchObject({ state: 'paused' });
    expect(await ro.locator('[data-action="abort"]').count()).toBe(1);
    await shoot(page, 'fleet-updates-rollout-paused-en');
    expect(problems).toEqual([]);
    await context.close();
  }, 90_000);

  it('security (reads, may not command): the same screens without hold, pause, resume, abort or start', async () => {
    const { page, context, problems } = await inLanguage(browser, master.url, securityCard, 'en');
    const northCard = page.locator(`[data-resource="sync-sites"] [data-site="${NORTH}"]`);
    await expect.poll(() => northCard.locator('[data-field="update"] .badge').textContent(), { timeout: 20_000 }).toBe('Waiting to install');
    await northCard.locator('button', { hasText: 'More about this site' }).click();
    await northCard.locator('.site-more').waitFor();
    expect(await page.locator('[data-resource="sync-sites"] [data-action]').count()).toBe(0);
    await page.goto(`${master.url}/#/m/releases`);
    await page.locator(`[data-rollout="${rolloutId}"]`).waitFor();
    expect(await page.locator('.fleet-releases [data-action]').count()).toBe(0);
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);

  for (const lang of ['en', 'ru'] as const) {
    it(`${lang}: the box's own screen: step, window, what the install waits for`, async () => {
      const w = words(lang);
      const { page, context, problems } = await inLanguage(browser, north!.url, boxCard, lang, { clock: lang === 'ru' });
      await page.goto(`${north!.url}/#/m/updates`);
      const now = page.locator('[data-update-step]');
      await now.waitFor();
      await expect.poll(() => now.getAttribute('data-update-step'), { timeout: 20_000 }).toBe('waiting_for_window');
      expect(await page.locator('#h-software-updates').textContent()).toBe(w.t('updates.screen.title'));
      expect(await now.locator('[data-badge="step"]').textContent()).toBe(w.t('updates.step.waiting_for_window'));
      expect(await now.locator('[data-field="reason"]').textContent()).toBe(w.t('updates.reason.outside_window', { window, timezone: 'UTC' }));
      expect(await now.locator('[data-field="running"]').textContent()).toBe(RUNNING);
      expect(await now.locator('[data-field="target"]').textContent()).toBe(TARGET);
      expect(await page.locator('[data-field="window"]').textContent()).toContain(`${window} (UTC)`);
      expect(await page.locator('[data-waits] li').allTextContents()).toEqual([w.t('updates.waiting.window')]);
      expect(await page.locator('[data-field="go-back"]').textContent()).toBe(w.t('updates.screen.go_back_kept', { version: RUNNING }));
      if (lang === 'ru') {
        const english = (await leafTexts(page, '.software-updates')).filter((x) => englishOnly(['updates.']).has(x));
        expect(english, 'English left on the box\'s update screen').toEqual([]);
      }
      await fitsAndShoot(page, '.software-updates', `box-updates-${lang}`);
      if (lang === 'ru') {
        // The box stops: within a refresh the screen says since when it does not answer, the last state kept.
        await north!.close();
        north = undefined;
        // One refresh (10 s) of the tablet's time, at once: the screen reads again and finds the box gone.
        await page.clock.runFor(10_000);
        const note = page.locator('.software-updates [data-down-since]');
        await note.waitFor({ timeout: 20_000 });
        expect(await note.textContent()).toMatch(/^Блок не отвечает \(или нет сети\) с .+\. Показано состояние на .+\.$/);
        expect(await page.locator('[data-update-step]').getAttribute('data-update-step')).toBe('waiting_for_window');
        await shoot(page, 'box-updates-down-ru');
      }
      expect(problems.filter((p) => !/Failed to fetch|ERR_CONNECTION_REFUSED/.test(p))).toEqual([]);
      await context.close();
    }, 60_000);
  }

  it('en: a fleet admin stops the rollout for good, then starts another from the release, its canary picked from the sites', async () => {
    const { page, context, problems } = await inLanguage(browser, master.url, fleetCard, 'en');
    await page.goto(`${master.url}/#/m/releases`);
    const ro = page.locator(`[data-rollout="${rolloutId}"]`);
    await ro.waitFor();
    const release = page.locator(`[data-release="${TARGET}"]`);
    // A rollout of this release is under way: none can be started beside it.
    expect(await release.locator('[data-action="start-rollout"]').count()).toBe(0);
    await ro.locator('[data-action="abort"]').click();
    await ro.locator('form[data-form="abort"] input[name="reason"]').fill('replaced by a smaller rollout');
    await ro.locator('form[data-form="abort"] button[type="submit"]').click();
    await expect.poll(() => ro.locator('[data-badge="state"]').textContent(), { timeout: 10_000 }).toBe('Stopped for good');
    expect(await ro.locator('[data-note]').textContent()).toMatch(/^The master's note: aborted by .+: replaced by a smaller rollout$/);
    expect(await ro.locator('[data-action]').count()).toBe(0);

    await release.locator('[data-action="start-rollout"]').click();
    const form = release.locator('form[data-form="start-rollout"]');
    await form.locator(`input[name="canary"][value="${NORTH}"]`).check();
    await form.locator('input[name="waves"]').fill('100, 50');
    await form.locator('button[type="submit"]').click();
    expect(await release.locator('.error').textContent()).toBe('Waves are whole percentages from 1 to 100, each larger than the one before (for example 50, 100).');
    await form.locator('input[name="waves"]').fill('100');
    await form.locator('input[name="proof_minutes"]').fill('20');
    await fitsAndShoot(page, '.fleet-releases', 'fleet-updates-start-en');
    await form.locator('button[type="submit"]').click();
    const started = page.locator('[data-rollout][data-state="running"]');
    await started.waitFor({ timeout: 15_000 });
    expect(await started.locator(`[data-wave="0"] [data-site="${NORTH}"]`).count()).toBe(1);
    expect(await started.locator('[data-field="proof"]').textContent()).toBe('20 min');
    const id = await started.getAttribute('data-rollout');
    expect((await api('GET', `/api/v1/release-rollouts/${id}`)).item).toMatchObject({ release_id: TARGET, canary_site_ids: [NORTH], waves: [100], failure_threshold_percent: 20, proof_timeout_s: 1200 });
    expect(problems).toEqual([]);
    await context.close();
  }, 60_000);
});
