// The one reading pipeline and the one setpoint program over HTTP on both dialects: a reading's
// status and flags come from the rules in force (a site that loosens the temperature rule gets
// ok/warn where the defaults say alarm; one that tightens it gets alarm, and the alarm is raised
// by the same rule), for poultry houses and swine rooms alike; and a setpoint change runs the same
// program for both (draft audited, confirmation written to the controller, failed -> the draft
// stays and the previous version stays in force, both audited with one correlation id).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { closedTcpPort } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';
import { groupCommits } from '../../src/db/group-commit.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

const poultryRules = (name: string, rules: Item[]) => stringify({
  schema_version: 'v1', kind: 'industry-profile', industry_code: 'poultry', equipment_profile: 'tunnel-house', name, content: { alarm_rules: rules },
});
const tempRule = (offset: number): Item => ({
  id: 'climate:temp_high', metric: 'temp', comparator: 'gt', threshold: 'target_temp_c', offset, hysteresis: 0.5, hold_sec: 0,
  severity: 'critical', priority: 'P1', sla_target_sec: 900, title: `Temperature ${offset} °C above target`,
});
const WEANER = { phase_id: 'weaner-early', min_weight_kg: 5, max_weight_kg: 10, temp_min_c: 26, temp_max_c: 28, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 };
const swineProfile = (room: string, rules: Item[]) => stringify({
  schema_version: 'v1', industry_code: 'swine', equipment_profile: 'swine-room-climate', name: room, content: { phases: [WEANER], alarm_rules: rules },
});
const swineTempRule = (offset: number): Item => ({
  id: 'swine-climate:temp_high', metric: 'temp_c', comparator: 'gte', threshold: 'temp_alarm_max_c', offset, hysteresis: 1,
  severity: 'high', priority: 'P1', sla_target_sec: 900, title: 'room temperature above the site limit',
});

describe.each(DIALECTS)('one reading pipeline, one setpoint program (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  const as = async (tenant: string, role = 'admin', site?: string) =>
    clientAs(env, server, { subject: `${role}-${tenant}`, role, scope_type: 'tenant', tenant_id: tenant, ...(site ? { site_id: site } : {}) }, master.contract);

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    master = await clientAs(env, server);
  });
  afterAll(async () => env.cleanup());

  /** A tenant with a broiler flock in H1 whose active phase has a ±5 °C band; answers the client and the target. */
  async function poultryTenant(tenant: string, rules?: Item[]) {
    const c = await as(tenant);
    expect((await c.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(5) })).status).toBe(201);
    const phase = (await c.get('/api/v1/poultry-climate/list?house_id=H1&age_mode=active')).body.items[0];
    const draft = await c.post('/api/v1/poultry-climate/commands/setpoint', { profile_id: phase.id, temp_tolerance_c: 5 });
    expect((await c.post('/api/v1/poultry-climate/commands/ack', { id: draft.body.item.id })).body.item).toMatchObject({ state: 'published', temp_tolerance_c: 5, adapter_dispatch: { status: 'not_configured' } });
    if (rules) expect((await c.post('/api/v1/poultry-profiles/commands/import-yaml', { yaml: poultryRules(`${tenant} rules`, rules), publish: true })).status).toBeLessThan(300);
    return { c, target: phase.target_temp_c as number };
  }

  it('judges a poultry reading by the rules in force: loosened -> ok, tightened -> alarm with the alarm raised; status and alarms agree', async () => {
    const defaults = await poultryTenant('tD');
    const loose = await poultryTenant('tL', [tempRule(6)]);
    const tight = await poultryTenant('tT', [tempRule(1)]);
    const tele = (t: { c: Client; target: number }, delta: number) => t.c.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: t.target + delta });

    // 4 °C above target, inside the ±5 °C band: the default rule (3 °C, 120 s hold) says alarm and holds; the loosened (6 °C) one says ok.
    const d = (await tele(defaults, 4)).body.item;
    expect(d).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'], alarms: [{ rule_id: 'climate:temp_high', action: 'pending' }] });
    const l = await tele(loose, 4);
    expect(l.status).toBe(200);
    expect(l.body.item).toMatchObject({ status: 'ok', out_of_norm_flags: [], alarms: [] });
    // 2 °C above target: inside the band, below the default rule -> ok; the tightened (1 °C, no hold) rule -> alarm, raised now.
    expect((await tele(defaults, 2)).body.item).toMatchObject({ status: 'ok', out_of_norm_flags: [] });
    const t = (await tele(tight, 2)).body.item;
    expect(t).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'], alarms: [{ rule_id: 'climate:temp_high', action: 'raised' }] });
    const alarm = (await tight.c.get(`/api/v1/poultry-alarms/${t.alarms[0].alarm_id}`)).body.item;
    expect(alarm).toMatchObject({ status: 'active', rule_id: 'climate:temp_high', house_id: 'H1', metric: 'temp' });
    expect(alarm.details.threshold).toBe(tight.target + 1);
    // Back at the target: ok, and the same rule clears its alarm.
    expect((await tele(tight, 0)).body.item).toMatchObject({ status: 'ok', alarms: [{ rule_id: 'climate:temp_high', action: 'cleared' }] });
    // The stored readings carry the same judgement as the answers.
    const stored = (await tight.c.get('/api/v1/poultry-climate-readings/list?house_id=H1&sort=ts')).body.items.map((r: Item) => r.status);
    expect(stored).toEqual(['alarm', 'ok']);
    // Nothing leaked between tenants: the loosened tenant has no poultry alarm at all.
    expect((await loose.c.get('/api/v1/poultry-alarms/list')).body.total).toBe(0);
  });

  it('a reading typed by a person (a card session) is manual: it may be stored and judged, but never ends a condition the equipment raised', async () => {
    const t = await poultryTenant('tM', [tempRule(1)]);
    // The session a card login opens: its subject is the card's passkey id.
    const card = (await master.post('/api/v1/passkeys/commands/issue', { type: 'rfid', holder: 'Night shift', scope: 'tenant', tenant_id: 'tM', role: 'admin', ttl_minutes: 60, card_uid: '04E0000001' })).body.item as Item;
    expect(card.id).toMatch(/^PK-/);
    const person = await clientAs(env, server, { subject: card.id as string, role: 'admin', scope_type: 'tenant', tenant_id: 'tM' }, master.contract);
    const tele = (c: Client, delta: number) => c.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: t.target + delta });
    const raised = (await tele(t.c, 3)).body.item;
    expect(raised).toMatchObject({ status: 'alarm', alarms: [{ rule_id: 'climate:temp_high', action: 'raised' }] });
    // Typed at the tablet, back at the target: judged ok, stored as manual, and the alarm stays.
    const typedRes = await tele(person, 0);
    const typed = typedRes.body.item;
    expect(typedRes.status, JSON.stringify(typedRes.body)).toBe(200);
    expect(typed).toMatchObject({ status: 'ok', alarms: [] });
    const open = async () => (await t.c.get('/api/v1/poultry-alarms/list?house_id=H1&status=active')).body.items as Item[];
    expect((await open()).map((a) => a.rule_id)).toEqual(['climate:temp_high']);
    const sources = async () => (await t.c.get('/api/v1/poultry-climate-readings/list?house_id=H1&sort=ts')).body.items.map((r: Item) => r.source);
    expect(await sources()).toEqual(['api', 'manual']);
    // The integration's reading back in range ends it.
    expect((await tele(t.c, 0)).body.item).toMatchObject({ status: 'ok', alarms: [{ rule_id: 'climate:temp_high', action: 'cleared' }] });
    expect(await open()).toEqual([]);
  });

  it('judges a swine reading by the room profile\'s rules in force the same way', async () => {
    const c = await as('tS', 'admin', 'farm-1');
    const imp = async (room: string, rules: Item[]) => expect((await c.post('/api/v1/industry-profiles/commands/import', { yaml: swineProfile(room, rules), site_id: 'farm-1', publish: true })).status).toBeLessThan(300);
    await imp('loose', [swineTempRule(3)]); // alarm from 6 °C above the band
    await imp('tight', [swineTempRule(-2)]); // alarm from 1 °C above the band
    const tele = (room: string, temp_c: number, ts?: string) => c.post('/api/v1/swine-climate/commands/telemetry', { room_id: room, avg_weight_kg: 8, temp_c, ...(ts ? { ts } : {}) });

    // 32 °C is 4 °C above the weaner band (26-28): the default rule (3 °C, held 120 s) raises once
    // the breach has lasted its hold; the loosened one only warns. The profile's rules carry no
    // hold, so they raise at the first reading.
    expect((await tele('default-room', 32, new Date(Date.now() - 150_000).toISOString())).body.item).toMatchObject({ status: 'alarm', alarms: [] });
    const d = (await tele('default-room', 32)).body.item;
    expect(d).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'] });
    expect(d.alarms.map((a: Item) => a.rule_id)).toEqual(['swine-climate:temp_high']);
    expect(d.reading.alarm_ids).toEqual([d.alarms[0].id]);
    const l = (await tele('loose', 32)).body.item;
    expect(l).toMatchObject({ status: 'warn', out_of_norm_flags: ['temp_high'], alarms: [] });
    // 29.5 °C, 1.5 °C above the band: warn by default, alarm (raised) where the rule was tightened.
    expect((await tele('default-room-2', 29.5)).body.item).toMatchObject({ status: 'warn', alarms: [] });
    const t = (await tele('tight', 29.5)).body.item;
    expect(t).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'] });
    expect(t.alarms).toHaveLength(1);
    const open = (await c.get('/api/v1/industry-alarms/list?industry_code=swine&status=active')).body.items.map((a: Item) => a.unit_id).sort();
    expect(open).toEqual(['default-room', 'tight']);
    expect((await tele('tight', 27)).body.item).toMatchObject({ status: 'ok', alarms: [] });
    expect((await c.get('/api/v1/industry-alarms/list?industry_code=swine&status=active')).body.items.map((a: Item) => a.unit_id)).toEqual(['default-room']);
  });

  it('keeps a reading and its rule state that arrive while another caller\'s transaction is open, when that transaction rolls back', async () => {
    const { c, target } = await poultryTenant('tX', [tempRule(1)]);
    const db = server.services.db;
    let answer: Promise<{ status: number; body: Item }> | undefined;
    // Another caller opens a transaction, lets the event loop run (the reading is served
    // meanwhile), then fails: only its own writes may roll back.
    await expect(db.transaction(async () => {
      answer = c.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: target + 0.5 });
      await new Promise((resolve) => setTimeout(resolve, 200));
      throw new Error('the other caller fails');
    })).rejects.toThrow('the other caller fails');
    expect((await answer!).body.item).toMatchObject({ status: 'ok' });
    // A breach of the tightened rule (no hold): raised, and its state written.
    expect((await c.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: target + 2 })).body.item).toMatchObject({ status: 'alarm', alarms: [{ action: 'raised' }] });
    // Still beyond the rule: the state read back is raised, so nothing is raised twice.
    expect((await c.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: target + 2.5 })).body.item).toMatchObject({ status: 'alarm', alarms: [] });
    const stored = (await c.get('/api/v1/poultry-climate-readings/list?house_id=H1&sort=ts')).body.items.map((r: Item) => r.status);
    expect(stored).toEqual(['ok', 'alarm', 'alarm']);
    expect((await c.get('/api/v1/poultry-alarms/list')).body.total).toBe(1);
  });

  it('stores readings sent at once through the group commit, each answered only once stored, poultry and swine alike, judged one by one', async () => {
    const { c, target } = await poultryTenant('tG', [tempRule(1)]);
    const before = groupCommits(server.services.db);
    const t0 = Date.now() - 60_000;
    const sent = await Promise.all(Array.from({ length: 24 }, (_, i) => i % 2
      ? c.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'R9', avg_weight_kg: 8, ts: new Date(t0 + i * 1000).toISOString(), temp_c: 27 })
      : c.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', ts: new Date(t0 + i * 1000).toISOString(), temp: i === 10 ? target + 2 : target }).then(async (res) => {
        // Answered: stored, so a read on another connection finds it at once.
        const stored = (await c.get('/api/v1/poultry-climate-readings/list?house_id=H1&limit=100')).body.items as Item[];
        expect(stored.map((r) => r.ts)).toContain(new Date(t0 + i * 1000).toISOString());
        return res;
      })));
    expect(sent.map((r) => r.status).every((s) => s === 200 || s === 201)).toBe(true);
    // Each reading judged by itself: the one beyond the rule is alarm, the others ok.
    expect(sent.filter((_, i) => i % 2 === 0).map((r) => r.body.item.status)).toEqual(Array.from({ length: 12 }, (_, k) => (k === 5 ? 'alarm' : 'ok')));
    expect((await c.get('/api/v1/poultry-climate-readings/list?house_id=H1')).body.total).toBe(12);
    expect((await c.get('/api/v1/swine-climate/list?room_id=R9')).body.total).toBe(12);
    // Every reading is in a commit (how many share one depends on how the requests arrive; the
    // unit test test/unit/group-commit.test.ts shows the sharing).
    expect(groupCommits(server.services.db) - before).toBeGreaterThan(0);
  });

  it('runs the same setpoint program for poultry and swine: audited draft, failed write keeps the draft and the version in force', async () => {
    const closed = await closedTcpPort();
    const adapter = (unit: string) => ({ item: { unit_id: unit, controller_id: `${unit}-ctl`, transport: 'modbus-tcp', host: '127.0.0.1', port: closed, points: [{ key: 'target_temp_c', address: 10, scale: 10 }] } });
    const poultry = await as('tP');
    const swine = await as('tW', 'admin', 'farm-1');
    expect((await poultry.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(5) })).status).toBe(201);
    expect((await poultry.post('/api/v1/poultry-adapters', adapter('H1'))).status).toBe(201);
    expect((await swine.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'r1', target_temp_c: 24 })).body.item).toMatchObject({ state: 'draft', adapter_dispatch: { status: 'not_configured' } });
    expect((await swine.post('/api/v1/swine-adapters', adapter('r1'))).status).toBe(201);

    const phase = (await poultry.get('/api/v1/poultry-climate/list?house_id=H1&age_mode=active')).body.items[0];
    const pDraft = await poultry.post('/api/v1/poultry-climate/commands/setpoint', { profile_id: phase.id, target_temp_c: phase.target_temp_c - 1 }, { 'x-request-id': `pp-${dialect}` });
    expect(pDraft.body.item).toMatchObject({ state: 'draft', adapter_dispatch: { status: 'pending', controller_id: 'H1-ctl' } });
    const pAck = (await poultry.post('/api/v1/poultry-climate/commands/ack', { id: pDraft.body.item.id })).body.item;
    const sOut = (await swine.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'r1', target_temp_c: 23 }, { 'x-request-id': `sw-${dialect}` })).body.item;
    for (const out of [pAck, sOut]) {
      expect(out).toMatchObject({ state: 'draft', adapter_dispatch: { status: 'failed' } });
      expect(out.adapter_dispatch.message).toContain(`Connection refused 127.0.0.1:${closed}`);
    }
    // The version in force did not move.
    expect((await poultry.get(`/api/v1/poultry-climate/${phase.id}`)).body.item).toMatchObject({ state: 'published', target_temp_c: phase.target_temp_c });
    expect((await swine.get('/api/v1/swine-setpoints/list?room_id=r1&state=published')).body.total).toBe(0);
    // Both audited the same way under one correlation id: the draft, then the failed confirmation.
    const trail = async (id: string) => (await master.get(`/api/v1/audit/list?correlation_id=${id}&sort=created_at`)).body.items.map((a: Item) => `${a.action}:${a.result}`);
    expect(await trail(`pp-${dialect}`)).toEqual(expect.arrayContaining(['poultry.climate.setpoint:success', 'poultry.climate.ack:error']));
    expect(await trail(`sw-${dialect}`)).toEqual(expect.arrayContaining(['swine.climate.setpoint:success', 'setpoint.dispatch:error']));
  });
});
