// The one alarm inbox in Debian's Chromium (cloud-multi, so poultry and swine alarms live side by
// side with the site's own alarms). It lists the shell's one alarm store (the box's alarm view) in
// the box's order, each alarm's state in words with who by name and when, colour from the box's
// tone; the work is done from it: acknowledge, comment (listed with the person's name), shelve with
// a reason and a duration (Unshelve only on a shelved alarm), reset for an admin on a latched alarm
// back to normal (never for an operator); the history shows raised, back-to-normal, acknowledged-by
// and reset times; a cleared alarm has no red badge; every target fits a gloved finger (44 px).
// Its own master; the browser is the one of test/e2e/alarm-inbox.test.ts, which registers these tests.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { stringify } from 'yaml';
import { createTestEnv, type TestEnv } from '../../helpers/server.js';
import { clientAs, type Client } from '../../helpers/client.js';
import type { RunningServer } from '../../../src/server.js';
import { axeSerious, newPage, rfidLogin, shoot } from '../browser.js';
import { forbiddenOn } from '../farm-words.js';
import { watchLiveFeed } from '../live-feed.js';

/** A clock time as the shell writes it on a 24-hour en-GB site: "01:31". */
const CLOCK = /\b([01]\d|2[0-3]):[0-5]\d\b/;
/** A time ahead (a shelve's end): on another day than today the shell says its date before it ("30 Nov 2026, 00:21"). */
const LATER = new RegExp(`(?:\\d{1,2} \\w{3} \\d{4}, )?${CLOCK.source}`);
const WEANER = { phase_id: 'weaner-early', min_weight_kg: 5, max_weight_kg: 10, temp_min_c: 26, temp_max_c: 28, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 };
const LATCHED_RULE = {
  id: 'swine-climate:temp_high', metric: 'temp_c', comparator: 'gte', threshold: 'temp_alarm_max_c', hysteresis: 1,
  severity: 'high', priority: 'P1', sla_target_sec: 900, title: 'Room temperature above the limit', latched: true,
};

/** Registers the English inbox's tests: their own master (cloud-multi), the file's browser. */
export function inboxInEnglish(shared: { browser: () => Browser }): void {
  describe('one alarm inbox in Chromium', () => {
    let env: TestEnv;
    let server: RunningServer;
    let admin: Client;
    let browser: Browser;
    const cards: Record<string, string> = {};
    const ids: Record<string, string> = {};

    beforeAll(async () => {
      env = await createTestEnv('sqlite');
      server = await env.start({ mqtt_broker: 'off', mode: 'cloud-multi', status_heartbeat_ms: '1000', alarm_escalation_interval_ms: '3600000' });
      const master = await clientAs(env, server);
      admin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
      for (const [name, role, uid] of [['Night shift', 'operator', '04C1000001'], ['Anna Berg', 'admin', '04C1000002']] as const) {
        const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: name, scope: 'tenant', tenant_id: 'farm-1', role, ttl_minutes: 60, card_uid: uid });
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        cards[name] = r.body.item.credential as string;
      }
      const publish = async (key: string, body: Record<string, unknown>) => {
        const r = await admin.post('/api/v1/industry-alarms/commands/publish', body);
        expect(r.status, JSON.stringify(r.body)).toBe(201);
        ids[key] = r.body.item.id as string;
      };
      await publish('acked', { industry_code: 'poultry', severity: 'high', priority: 'P2', unit_id: '1', title: 'Water line pressure low', metric: 'pressure_bar', value: 0.8, details: { threshold: 1.2, comparator: 'lt' } });
      await publish('swine', { industry_code: 'swine', severity: 'high', priority: 'P2', unit_id: 'room-3', title: 'Ventilation failure' });
      await publish('poultry', {
        industry_code: 'poultry', severity: 'critical', priority: 'P1', unit_id: '2', title: 'Temperature far above target', metric: 'temp', value: 31.4,
        sla_target_sec: 900, details: { threshold: 28, comparator: 'gt' },
      });
      const site = await admin.post('/api/v1/alarms/commands/raise', { severity: 'high', source: 'feed-mill', title: 'Power failure in the feed mill' });
      expect(site.status, JSON.stringify(site.body)).toBe(201);
      ids.site = site.body.item.id as string;
      // acknowledged by the night shift's card while the low pressure goes on: acknowledged, still active
      const op = await rfidSession(cards['Night shift']!);
      const ack = await fetch(`${server.url}/api/v1/industry-alarms/commands/ack`, { method: 'POST', headers: { cookie: op, 'content-type': 'application/json' }, body: JSON.stringify({ id: ids.acked }) });
      expect(ack.status).toBe(200);
      // A weaner room whose temperature rule latches: its alarm stays after the readings return, until an admin resets it.
      const yaml = stringify({ schema_version: 'v1', industry_code: 'swine', equipment_profile: 'swine-room-climate', name: 'room-9', content: { phases: [WEANER], alarm_rules: [LATCHED_RULE] } });
      const imported = await admin.post('/api/v1/industry-profiles/commands/import', { yaml, publish: true });
      expect(imported.status, JSON.stringify(imported.body)).toBeLessThan(300);
      browser = shared.browser();
    }, 120_000);
    afterAll(async () => {
      await env?.cleanup();
    });

    /** A card session over HTTP, as the panel would open it: its cookie. */
    async function rfidSession(credential: string): Promise<string> {
      const json = { 'content-type': 'application/json' };
      const start = await fetch(`${server.url}/api/v1/auth/passkey/commands/start`, { method: 'POST', headers: json, body: JSON.stringify({ method: 'rfid' }) });
      const { item } = (await start.json()) as { item: { challenge_id: string } };
      const done = await fetch(`${server.url}/api/v1/auth/passkey/commands/complete`, { method: 'POST', headers: json, body: JSON.stringify({ challenge_id: item.challenge_id, credential }) });
      expect(done.status, await done.clone().text()).toBe(200);
      return (done.headers.get('set-cookie') ?? '').split(';')[0]!;
    }

    const item = (page: Page, key: string) => page.locator(`#inbox > li[data-alarm="${key}"]`);
    const swineReading = (room: string, temp_c: number, ts?: string) => admin.post('/api/v1/swine-climate/commands/telemetry', { room_id: room, avg_weight_kg: 8, temp_c, ...(ts ? { ts } : {}) });
    /** The default swine rule holds a breach 120 s: a hot reading from 150 s ago, then this one raises. */
    const heldHot = async (room: string, temp_c: number) => {
      await swineReading(room, temp_c, new Date(Date.now() - 150_000).toISOString());
      return swineReading(room, temp_c);
    };
    /** The box's own view of one alarm, as the lead's alarm view serves it. */
    const viewItem = async (key: string, history = false) =>
      ((await admin.get(`/api/v1/alarm-view/list?limit=500${history ? '&history=true' : ''}`)).body.items as { key: string }[]).find((a) => a.key === key) as Record<string, unknown> | undefined;

    /** Every control a finger must hit inside the inbox, smaller than 44 x 44 CSS px. */
    async function smallInboxTargets(scope: Locator): Promise<string[]> {
      const out: string[] = [];
      for (const el of await scope.locator('button, a.btn, input:not([type=radio]):not([type=checkbox]), textarea, select, label.choice').all()) {
        const box = await el.boundingBox();
        if (!box) continue;
        if (box.width < 44 || box.height < 44) out.push(`${(await el.textContent())?.trim().slice(0, 30) ?? ''} ${Math.round(box.width)}x${Math.round(box.height)}`);
      }
      return out;
    }

    it('lists the store in the box\'s order with each state in words, and an operator acknowledges from it', async () => {
      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, cards['Night shift']!);
      // the menu's Alarms entry opens the inbox
      await page.locator('.menu-btn').click();
      await page.locator('#menu li[data-module="alarms"] a').click();
      await page.locator('#inbox').waitFor();
      expect(page.url()).toMatch(/#\/alarms$/);
      const items = page.locator('#inbox > li');
      await expect.poll(() => items.count()).toBe(4);
      // The box's order, not one of the shell's: the same keys in the same order as alarm-view/list.
      const served = ((await admin.get('/api/v1/alarm-view/list?limit=500')).body.items as { key: string; state: string }[]).map((a) => `${a.key}|${a.state}`);
      const shown = await items.evaluateAll((els) => els.map((e) => `${e.getAttribute('data-alarm')}|${e.getAttribute('data-state')}`));
      expect(shown).toEqual(served);
      expect(shown[0]).toBe(`industry-alarms:${ids.poultry}|unacknowledged_active`);
      expect(shown.at(-1)).toBe(`industry-alarms:${ids.acked}|acknowledged_active`);
      const p1 = item(page, `industry-alarms:${ids.poultry}`);
      expect(await p1.textContent()).toContain('House 2: Temperature far above target');
      expect(await p1.locator('[data-field="state-words"]').textContent()).toBe('Active, not acknowledged');
      // an active P1 is the one red thing
      expect(await p1.locator('[data-badge="state"]').getAttribute('class')).toContain('tone-alarm');
      expect(await item(page, `industry-alarms:${ids.swine}`).textContent()).toContain('Room 3: Ventilation failure');
      expect(await item(page, `alarms:${ids.site}`).textContent()).toContain('Power failure in the feed mill');
      const acked = item(page, `industry-alarms:${ids.acked}`);
      // who, by the card holder's name, and when, for an operator too
      await expect.poll(() => acked.locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Acknowledged by Night shift at ${CLOCK.source}, still active$`));
      expect(await acked.locator('[data-badge="state"]').getAttribute('class')).not.toContain('tone-alarm');
      expect(await acked.locator('[data-ack]').count()).toBe(0);
      // the top bar counts the same store: three unacknowledged
      await expect.poll(() => page.locator('#alarm-count').getAttribute('data-total')).toBe('3');

      // the account of the P1: where, cause in words, SLA in words, no raw record for an operator
      await p1.locator('[data-action="more"]').click();
      const account = p1.locator('.alarm-account');
      await account.waitFor();
      const words = (await account.textContent()) ?? '';
      expect(words).toContain('House 2');
      expect(words).toMatch(/Temperature 31\.4 ?°C, above the limit of 28 ?°C/);
      expect(words).toMatch(/1[45] min left/);
      expect(await account.getByRole('button', { name: 'Details' }).count()).toBe(0);
      await acked.locator('[data-action="more"]').click();
      expect(await acked.locator('.acked-by').textContent()).toMatch(/^Night shift, (?:\d\d:\d\d:\d\d|[^:]+, \d\d:\d\d)$/);
      expect(await forbiddenOn(page)).toEqual([]);
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'alarm-inbox-operator');

      // acknowledged from the inbox: the swine alarm through industry-alarms, the site alarm through its own ack
      await item(page, `industry-alarms:${ids.swine}`).locator('[data-ack]').click();
      await expect.poll(() => item(page, `industry-alarms:${ids.swine}`).getAttribute('data-state')).toBe('acknowledged_active');
      await item(page, `alarms:${ids.site}`).locator('[data-ack]').click();
      await expect.poll(() => item(page, `alarms:${ids.site}`).getAttribute('data-state')).toBe('acknowledged_active');
      await expect.poll(() => page.locator('#alarm-count').getAttribute('data-total')).toBe('1');
      expect((await admin.get(`/api/v1/industry-alarms/${ids.swine}`)).body.item.status).toBe('acked');
      expect((await admin.get(`/api/v1/alarms/${ids.site}`)).body.item.state).toBe('acknowledged');
      // the feed mill's power is back: acknowledged and cleared, it leaves the inbox for the history
      expect((await admin.post('/api/v1/alarms/commands/clear', { id: ids.site })).status).toBe(200);
      await expect.poll(() => item(page, `alarms:${ids.site}`).count(), { timeout: 15_000 }).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);

    it('comments from the inbox: the comment shows with the person\'s name and the API has it; a failed save keeps the text', async () => {
      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, cards['Night shift']!);
      await page.goto(`${server.url}/#/alarms`);
      const row = item(page, `industry-alarms:${ids.swine}`);
      await row.waitFor();
      await row.locator('[data-action="comment"]').click();
      const form = row.locator('form[data-form="comment"]');
      await form.waitFor();
      const text = 'Fan 2 belt broken, spare fitted 02:10';
      await form.locator('textarea').fill(text);
      // The box refuses once (a proxy's answer): the error in words, nothing typed is lost.
      await page.route('**/api/v1/industry-alarms/commands/comment', (r) =>
        r.fulfill({ status: 409, contentType: 'application/json', body: JSON.stringify({ error: { code: 'lifecycle_conflict', message: 'the alarm changed meanwhile', details: [] } }) }),
      );
      await form.getByRole('button', { name: 'Save comment' }).click();
      await expect.poll(() => row.locator('[role="alert"]').textContent()).toContain('The alarm changed meanwhile');
      expect(await form.locator('textarea').inputValue()).toBe(text);
      await page.unroute('**/api/v1/industry-alarms/commands/comment');
      await shoot(page, 'alarm-inbox-comment-form');
      await form.getByRole('button', { name: 'Save comment' }).click();
      // listed on the alarm with who (the card holder's name) and when
      const comment = row.locator('[data-field="comments"] li').last();
      await expect.poll(() => comment.textContent()).toMatch(new RegExp(`^Night shift, ${CLOCK.source}: ${text}$`));
      await expect.poll(() => form.count()).toBe(0);
      const stored = (await admin.get(`/api/v1/industry-alarms/${ids.swine}`)).body.item.comments as { text: string; by: string }[];
      expect(stored.map((c) => c.text)).toEqual([text]);
      expect(await row.locator('[role="alert"]').count()).toBe(0);
      expect(await axeSerious(page)).toEqual([]);
      expect(problems.filter((p) => !p.includes('409'))).toEqual([]);
      await page.close();
    }, 90_000);

    it('shelves with a reason and a duration from the inbox; Unshelve only on the shelved alarm', async () => {
      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, cards['Night shift']!);
      await page.goto(`${server.url}/#/alarms`);
      const row = item(page, `industry-alarms:${ids.poultry}`);
      await row.waitFor();
      // Nothing is shelved: Unshelve is offered on no alarm at all.
      expect(await page.locator('#inbox [data-action="unshelve"]').count()).toBe(0);
      await row.locator('[data-action="shelve"]').click();
      const form = row.locator('form[data-form="shelve"]');
      await form.waitFor();
      expect(await form.locator('label.choice').allTextContents()).toEqual(['15 min', '1 h', '4 h', '8 h']);
      // The reason is required: without one nothing is sent and the form says so.
      await form.locator('label.choice', { hasText: /^1 h$/ }).click();
      await form.getByRole('button', { name: 'Shelve alarm' }).click();
      await expect.poll(() => row.locator('[role="alert"]').textContent()).toBe('Say why the alarm is shelved.');
      expect((await admin.get(`/api/v1/industry-alarms/${ids.poultry}`)).body.item.shelved).toBe(false);
      await form.locator('input[name="reason"]').fill('Sensor being replaced');
      expect(await smallInboxTargets(page.locator('#alarm-inbox'))).toEqual([]);
      await shoot(page, 'alarm-inbox-shelve-form');
      const before = Date.now();
      await form.getByRole('button', { name: 'Shelve alarm' }).click();
      await expect.poll(() => row.getAttribute('data-state')).toBe('shelved');
      const api = (await admin.get(`/api/v1/industry-alarms/${ids.poultry}`)).body.item as { shelved: boolean; shelve_reason: string; shelved_until: string };
      expect(api).toMatchObject({ shelved: true, shelve_reason: 'Sensor being replaced' });
      const minutes = (Date.parse(api.shelved_until) - before) / 60_000;
      expect(minutes).toBeGreaterThan(58);
      expect(minutes).toBeLessThan(62);
      expect(await row.locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Shelved until ${LATER.source} by Night shift \\(Sensor being replaced\\)$`));
      // Suppressed: no red, no Shelve again, Unshelve offered on it and on nothing else.
      expect(await row.locator('[data-badge="state"]').getAttribute('class')).not.toContain('tone-alarm');
      expect(await row.locator('[data-action="shelve"]').count()).toBe(0);
      await row.locator('[data-action="unshelve"]').waitFor();
      expect(await page.locator('#inbox [data-action="unshelve"]').count()).toBe(1);
      await shoot(page, 'alarm-inbox-shelved');
      await row.locator('[data-action="unshelve"]').click();
      await expect.poll(() => row.getAttribute('data-state')).toBe('unacknowledged_active');
      expect(await page.locator('#inbox [data-action="unshelve"]').count()).toBe(0);
      expect((await admin.get(`/api/v1/industry-alarms/${ids.poultry}`)).body.item.shelved).toBe(false);
      expect(await axeSerious(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    }, 90_000);

    it('offers Reset on a latched alarm back to normal to an admin, never to an operator; reset, it reads back to normal without red', async () => {
      const hot = await swineReading('room-9', 32);
      expect(hot.body.item.status, JSON.stringify(hot.body)).toBe('alarm');
      const id = hot.body.item.alarms[0].id as string;
      ids.latched = id;
      const key = `industry-alarms:${id}`;
      expect((await swineReading('room-9', 27)).body.item.status).toBe('ok');
      expect((await admin.get(`/api/v1/industry-alarms/${id}`)).body.item).toMatchObject({ latched: true, condition: 'active' });

      const op = await newPage(browser, { viewport: { width: 800, height: 1280 } });
      await rfidLogin(op.page, server.url, cards['Night shift']!);
      await op.page.goto(`${server.url}/#/alarms`);
      const opRow = item(op.page, key);
      await opRow.waitFor();
      expect(await opRow.getAttribute('data-state')).toBe('latched');
      expect(await opRow.locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Latched: back to normal at ${CLOCK.source}, an admin resets it$`));
      // the operator acknowledges it but may not reset it: no Reset anywhere on the screen
      expect(await opRow.locator('[data-ack]').count()).toBe(1);
      expect(await op.page.locator('#inbox [data-action="reset"]').count()).toBe(0);
      await shoot(op.page, 'alarm-inbox-latched-operator');
      expect(op.problems).toEqual([]);
      await op.page.close();

      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, cards['Anna Berg']!);
      await page.goto(`${server.url}/#/alarms`);
      const row = item(page, key);
      await row.waitFor();
      // An admin may reset any alarm whose condition is present (the override for a dead sensor); this one is back to normal and waits for it.
      expect(await row.locator('[data-action="reset"]').count()).toBe(1);
      await row.locator('[data-action="reset"]').click();
      const form = row.locator('form[data-form="reset"]');
      await form.locator('input[name="comment"]').fill('Heater thermostat checked');
      await shoot(page, 'alarm-inbox-reset-form');
      await form.getByRole('button', { name: 'Reset alarm' }).click();
      // Reset while nobody acknowledged it: back to normal, still to acknowledge; never red again.
      await expect.poll(() => row.getAttribute('data-state')).toBe('unacknowledged_cleared');
      expect(await row.locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Back to normal at ${CLOCK.source} — acknowledge$`));
      for (const cls of await row.locator('.badge').evaluateAll((els) => els.map((e) => e.className))) expect(cls).not.toContain('tone-alarm');
      expect(await row.getAttribute('data-tone')).not.toBe('alarm');
      expect(await row.locator('[data-action="reset"]').count()).toBe(0);
      expect(await row.locator('[data-action="shelve"]').count()).toBe(0);
      const api = (await admin.get(`/api/v1/industry-alarms/${id}`)).body.item;
      expect(api).toMatchObject({ condition: 'cleared', alarm_state: 'unacknowledged_cleared' });
      await shoot(page, 'alarm-inbox-reset-done');
      // acknowledged by the admin: it is over and goes to the history
      await row.locator('[data-ack]').click();
      await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(0);
      expect(problems).toEqual([]);
      await page.close();
    }, 120_000);

    it('the history lists past alarms with raised, back-to-normal, acknowledged-by-name and reset times, in muted colours', async () => {
      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, cards['Night shift']!);
      await page.goto(`${server.url}/#/alarms`);
      await page.locator('[data-tab="history"]').click();
      expect(page.url()).toContain('#/alarms?view=history');
      const history = page.locator('#history');
      await history.waitFor();
      const latched = history.locator(`li[data-alarm="industry-alarms:${ids.latched}"]`);
      await latched.waitFor();
      /** One time of the alarm's story: "what @ when". */
      const step = async (row: Locator, k: string) => {
        const s = row.locator(`[data-step="${k}"]`);
        return `${(await s.locator('dt').textContent()) ?? ''} @ ${(await s.locator('dd').textContent()) ?? ''}`;
      };
      const at = (what: string) => new RegExp(`^${what} @ ${CLOCK.source}$`);
      expect(await step(latched, 'raised')).toMatch(at('Raised'));
      expect(await step(latched, 'returned')).toMatch(at('Back to normal \\(latched: waits for a reset\\)'));
      expect(await step(latched, 'reset')).toMatch(at('Reset by Anna Berg'));
      expect(await step(latched, 'acknowledged')).toMatch(at('Acknowledged by Anna Berg'));
      // the site alarm: acknowledged by the night shift, then cleared by the feed mill
      const site = history.locator(`li[data-alarm="alarms:${ids.site}"]`);
      expect(await step(site, 'acknowledged')).toMatch(at('Acknowledged by Night shift'));
      expect(await step(site, 'cleared')).toMatch(at('Back to normal'));
      // newest first, as the box pages them, and never in alarm colours
      const served = ((await admin.get('/api/v1/alarm-view/list?history=true&limit=25')).body.items as { key: string }[]).map((a) => a.key);
      expect(await history.locator('> li').evaluateAll((els) => els.map((e) => e.getAttribute('data-alarm')))).toEqual(served);
      expect(await history.locator('.tone-alarm, .tone-warn, .tone-edge-alarm, .tone-edge-warn').count()).toBe(0);
      expect(await viewItem(`industry-alarms:${ids.latched}`, true)).toMatchObject({ state: 'normal', tone: 'muted' });
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'alarm-inbox-history');
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);

    it('an alarm whose readings cleared it reads "back to normal, acknowledge" without red; acknowledged-active stays while the condition is present', async () => {
      const { page, problems } = await newPage(browser);
      const feed = watchLiveFeed(page);
      await rfidLogin(page, server.url, cards['Night shift']!);
      // A room 4 °C above its band past the rule's hold: the default swine rule raises a P1.
      const hot = await heldHot('room-5', 32);
      expect(hot.body.item.status, JSON.stringify(hot.body)).toBe('alarm');
      const id = hot.body.item.alarms[0].id as string;
      await page.goto(`${server.url}/#/alarms`);
      const row = item(page, `industry-alarms:${id}`);
      await row.waitFor();
      expect(await row.getAttribute('data-tone')).toBe('alarm');
      await row.locator('[data-ack]').click();
      await expect.poll(() => row.getAttribute('data-state')).toBe('acknowledged_active');
      await swineReading('room-5', 31.8);
      // Still above its band: after the box's next heartbeat (it follows anything the reading changed), still listed.
      await feed.next();
      expect(await row.count()).toBe(1);
      // Back in the band: acknowledged and cleared, it leaves by itself.
      expect((await swineReading('room-5', 27)).body.item.status).toBe('ok');
      await expect.poll(() => row.count(), { timeout: 15_000 }).toBe(0);

      // Another room raised and cleared before anyone came: listed as back to normal, to acknowledge, not red.
      const hot2 = await heldHot('room-6', 32);
      const id2 = hot2.body.item.alarms[0].id as string;
      expect((await swineReading('room-6', 27)).body.item.status).toBe('ok');
      const back = item(page, `industry-alarms:${id2}`);
      await expect.poll(() => back.getAttribute('data-state'), { timeout: 15_000 }).toBe('unacknowledged_cleared');
      expect(await back.locator('[data-field="state-words"]').textContent()).toMatch(new RegExp(`^Back to normal at ${CLOCK.source} — acknowledge$`));
      expect(await back.locator('.tone-alarm').count()).toBe(0);
      expect(await back.getAttribute('class')).not.toContain('tone-edge-alarm');
      expect(await back.locator('[data-ack]').count()).toBe(1);
      // a cleared alarm cannot be shelved: the box says Shelve does not apply
      expect(await back.locator('[data-action="shelve"]').count()).toBe(0);
      expect(await viewItem(`industry-alarms:${id2}`)).toMatchObject({ condition: 'cleared' });
      await shoot(page, 'alarm-inbox-back-to-normal');
      expect(await forbiddenOn(page)).toEqual([]);
      expect(problems).toEqual([]);
      await page.close();
    }, 90_000);

    it('an admin opens the raw record behind Details; the pinned Alarms button opens the inbox; every target is at least 44 px', async () => {
      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, cards['Anna Berg']!);
      await page.goto(`${server.url}/#/settings`);
      await page.locator('#menu-order li[data-module="alarms"] input[type="checkbox"]').check();
      const quick = page.locator('[data-quick="alarms"]');
      await quick.waitFor();
      await quick.click();
      await page.locator('#inbox').waitFor();
      expect(page.url()).toContain('#/alarms');
      const acked = item(page, `industry-alarms:${ids.acked}`);
      await acked.locator('[data-action="more"]').click();
      await expect.poll(() => acked.locator('.acked-by').textContent()).toMatch(/^Night shift, /);
      await acked.getByRole('button', { name: 'Details' }).click();
      expect(await acked.locator('.raw-fields').textContent()).toContain(ids.acked);
      // the forms open, the targets measured in both orientations
      await item(page, `industry-alarms:${ids.swine}`).locator('[data-action="comment"]').click();
      await item(page, `industry-alarms:${ids.poultry}`).locator('[data-action="shelve"]').click();
      await page.locator('#inbox form[data-form="shelve"]').waitFor();
      for (const size of [{ width: 1280, height: 800 }, { width: 800, height: 1280 }]) {
        await page.setViewportSize(size);
        expect(await smallInboxTargets(page.locator('#alarm-inbox'))).toEqual([]);
      }
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'alarm-inbox-admin');
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);

    it('the fleet view lists the fleet\'s alarms through the same inbox, and says where the farms\' own alarms are', async () => {
      const master = await clientAs(env, server);
      const raised = await admin.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'site-north', title: 'Site north unreachable' });
      expect(raised.status, JSON.stringify(raised.body)).toBe(201);
      const r = await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Fleet desk', scope: 'master', role: 'admin', ttl_minutes: 60, card_uid: '04C1000003' });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
      const { page, problems } = await newPage(browser);
      await rfidLogin(page, server.url, r.body.item.credential as string);
      expect(await page.locator('#workspace-title').textContent()).toBe('Fleet overview');
      const fleet = page.locator('[data-inbox="embedded"]');
      await fleet.locator(`li[data-alarm="alarms:${raised.body.item.id}"]`).waitFor();
      expect(await fleet.locator('#inbox-scope-note').textContent()).toContain('acknowledged at the farm');
      expect(await axeSerious(page)).toEqual([]);
      await shoot(page, 'fleet-alarms');
      expect(problems).toEqual([]);
      await page.close();
    }, 60_000);
  });
}
