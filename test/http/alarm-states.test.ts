// The alarm states of ISA-18.2 on both alarm resources, both engines: the condition apart from
// the acknowledgement (four states, filterable, the operator's list), a rule that fires again
// while acknowledged-active raises nothing new, latched alarms and the admin's reset, shelving
// with an expiry, out of service per unit, flood grouping; each transition audited.
// The device side (a rule engine raising and clearing) calls the one alarm service as the rule
// engines do; everything a person does goes through HTTP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import type { IndustryAlarmService, RaiseEventInput } from '../../src/industry/alarm-service.js';

type Item = Record<string, unknown> & { id: string };

describe.each(DIALECTS)('alarm states (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let admin: Client;
  let op: Client;
  let alarms: IndustryAlarmService;

  const rule = (rule_id: string, over: Partial<RaiseEventInput> = {}): RaiseEventInput => ({
    tenant_id: 'tA', site_id: 'farm-1', industry_code: 'poultry', unit_id: 'house-1', rule_id, metric: 'temp', value: 31,
    severity: 'critical', priority: 'P1', source: 'poultry-rules', title: `House 1: ${rule_id}`, actor: 'poultry-rules', ...over,
  });
  const get = async (id: string): Promise<Item> => (await op.get(`/api/v1/industry-alarms/${id}`)).body.item;
  /** The alarm's audit records (by its correlation id), as action:result, sorted (records of one millisecond have no order). */
  const trail = async (id: string): Promise<string[]> => {
    const corr = (await get(id)).correlation_id as string;
    return ((await master.get(`/api/v1/audit/list?correlation_id=${corr}&limit=100`)).body.items as { action: string; details: { id?: string }; result: string }[])
      .filter((a) => a.details?.id === id).map((a) => `${a.action}:${a.result}`).sort();
  };
  const sorted = (xs: string[]) => [...xs].sort();

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', alarm_flood_count: '3', alarm_flood_window_min: '10' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    alarms = server.services.industryAlarms!;
  });
  afterAll(async () => env.cleanup());

  it('tells the four states apart: acknowledged-active stays listed, acknowledged and cleared leaves the list', async () => {
    const { event } = await alarms.raise(rule('climate:temp_high'));
    expect(event).toMatchObject({ status: 'active', condition: 'active', alarm_state: 'unacknowledged_active', listed: true, acked_at: null, cleared_at: null, raise_count: 1 });

    const acked = await op.post('/api/v1/industry-alarms/commands/ack', { id: event.id });
    expect(acked.status).toBe(200);
    expect(acked.body.item).toMatchObject({ status: 'acked', condition: 'active', alarm_state: 'acknowledged_active', listed: true, cleared_at: null });

    // The rule fires again while its alarm is acknowledged and active: no new alarm.
    const again = await alarms.raise(rule('climate:temp_high', { value: 32 }));
    expect(again).toMatchObject({ created: false });
    expect(again.event.id).toBe(event.id);
    expect((await op.get('/api/v1/industry-alarms/list?rule_id=climate:temp_high')).body.total).toBe(1);

    const listed = (await op.get('/api/v1/industry-alarms/list?listed=true&alarm_state=acknowledged_active')).body.items as Item[];
    expect(listed.map((a) => a.id)).toContain(event.id);

    await alarms.clear({ tenant_id: 'tA', industry_code: 'poultry', unit_id: 'house-1', rule_id: 'climate:temp_high', actor: 'poultry-rules' });
    expect(await get(event.id)).toMatchObject({ status: 'cleared', condition: 'cleared', alarm_state: 'normal', listed: false });
    expect(((await op.get('/api/v1/industry-alarms/list?listed=true')).body.items as Item[]).map((a) => a.id)).not.toContain(event.id);
    expect(((await op.get('/api/v1/industry-alarms/list?alarm_state=normal')).body.items as Item[]).map((a) => a.id)).toContain(event.id);
    expect((await get(event.id)).acked_at).toBeTruthy();
    expect(await trail(event.id)).toEqual(sorted(['alarm.raise:success', 'alarm.ack:success', 'alarm.clear:success']));
  });

  it('a cleared unacknowledged P1 or P2 stays listed until acknowledged; a low alarm without priority goes normal by itself', async () => {
    for (const priority of ['P1', 'P2'] as const) {
      const { event } = await alarms.raise(rule(`line:pressure_${priority}`, { priority, severity: priority === 'P1' ? 'critical' : 'high' }));
      await alarms.clear({ id: event.id, tenant_id: 'tA', actor: 'poultry-rules' });
      const cleared = await get(event.id);
      expect(cleared).toMatchObject({ status: 'cleared', condition: 'cleared', alarm_state: 'unacknowledged_cleared', listed: true, acked_at: null });
      expect(cleared.cleared_at).toBeTruthy();
      expect(((await op.get('/api/v1/industry-alarms/list?alarm_state=unacknowledged_cleared')).body.items as Item[]).map((a) => a.id)).toContain(event.id);
      const ack = await op.post('/api/v1/industry-alarms/commands/ack', { id: event.id });
      expect(ack.body.item).toMatchObject({ status: 'cleared', alarm_state: 'normal', listed: false });
    }
    const { event: low } = await alarms.raise(rule('feed:level_low', { priority: null, severity: 'low' }));
    await alarms.clear({ id: low.id, tenant_id: 'tA', actor: 'poultry-rules' });
    expect(await get(low.id)).toMatchObject({ condition: 'cleared', alarm_state: 'normal', listed: false, acked_at: null });
  });

  it('a latched alarm stays active after its condition returns until an admin resets it; reset is refused where not allowed', async () => {
    const pub = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', site_id: 'farm-1', unit_id: 'house-2', severity: 'critical', priority: 'P1', title: 'House 2: heater flame failure', latched: true });
    expect(pub.status).toBe(201);
    const id = pub.body.item.id as string;
    expect(pub.body.item).toMatchObject({ latched: true, resettable: true, returned_at: null });

    // Still present: an admin cannot reset a latched alarm yet.
    const early = await admin.post('/api/v1/industry-alarms/commands/reset', { id });
    expect(early.status).toBe(409);
    expect(early.body.error.details[0].reason).toBe('condition_present');

    await alarms.clear({ id, tenant_id: 'tA', actor: 'device' });
    const returned = await get(id);
    expect(returned).toMatchObject({ condition: 'active', status: 'active', alarm_state: 'unacknowledged_active', listed: true, cleared_at: null });
    expect(returned.returned_at).toBeTruthy();

    expect((await op.post('/api/v1/industry-alarms/commands/reset', { id })).status).toBe(403);
    const reset = await admin.post('/api/v1/industry-alarms/commands/reset', { id, comment: 'flame sensor replaced' });
    expect(reset.status).toBe(200);
    expect(reset.body.item).toMatchObject({ condition: 'cleared', status: 'cleared', alarm_state: 'unacknowledged_cleared', listed: true });
    const twice = await admin.post('/api/v1/industry-alarms/commands/reset', { id });
    expect(twice.status).toBe(409);
    expect(twice.body.error.details[0].reason).toBe('condition_cleared');

    const fixed = await admin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', unit_id: 'house-2', severity: 'high', priority: 'P2', title: 'House 2: no reset', resettable: false });
    const refused = await admin.post('/api/v1/industry-alarms/commands/reset', { id: fixed.body.item.id });
    expect(refused.status).toBe(409);
    expect(refused.body.error.details[0].reason).toBe('not_resettable');
    expect((await get(fixed.body.item.id)).condition).toBe('active');

    expect(await trail(id)).toEqual(sorted(['alarm.raise:success', 'alarm.reset:denied', 'alarm.return:success', 'alarm.reset:success', 'alarm.reset:denied']));
    const audit = ((await master.get(`/api/v1/audit/list?action=alarm.reset&result=success&limit=50`)).body.items as { details: { id: string; comment: string } }[]).find((a) => a.details.id === id);
    expect(audit?.details.comment).toBe('flame sensor replaced');
  });

  it('shelves with a reason and an expiry: listed as shelved, left out of the annunciator count, back by itself when the time is up', async () => {
    const { event } = await alarms.raise(rule('climate:co2_high', { unit_id: 'house-3' }));
    const annunciated = async () => ((await op.get('/api/v1/industry-alarms/list?alarm_state=unacknowledged_active&shelved=false&out_of_service=false&limit=200')).body.items as Item[]).map((a) => a.id);
    expect(await annunciated()).toContain(event.id);

    expect((await op.post('/api/v1/industry-alarms/commands/shelve', { id: event.id, reason: 'sensor recalibration', minutes: 481 })).status).toBe(400);
    expect((await op.post('/api/v1/industry-alarms/commands/shelve', { id: event.id, minutes: 30 })).status).toBe(400);
    const shelved = await op.post('/api/v1/industry-alarms/commands/shelve', { id: event.id, reason: 'sensor recalibration', minutes: 30 });
    expect(shelved.status).toBe(200);
    expect(shelved.body.item).toMatchObject({ shelved: true, shelved_by: 'op-a', shelve_reason: 'sensor recalibration', alarm_state: 'unacknowledged_active', listed: true });
    const until = Date.parse(shelved.body.item.shelved_until);
    expect(until - Date.now()).toBeGreaterThan(29 * 60_000);
    expect(until - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    expect(await annunciated()).not.toContain(event.id);
    expect(((await op.get('/api/v1/industry-alarms/list?shelved=true')).body.items as Item[]).map((a) => a.id)).toContain(event.id);
    // Shelved alarms are not escalated by the box.
    expect((await alarms.overdue(new Date(Date.now() + 86_400_000))).map((a) => a.id)).not.toContain(event.id);

    // Not yet due: nothing changes.
    expect((await alarms.expireShelves(new Date(until - 1000))).map((a) => a.id)).not.toContain(event.id);
    expect((await get(event.id)).shelved).toBe(true);
    // The escalator's pass ends shelves whose time is up (time injected).
    expect((await alarms.expireShelves(new Date(until + 1000))).map((a) => a.id)).toContain(event.id);
    // Back; the last shelve's why stays for the alarm's history.
    expect(await get(event.id)).toMatchObject({ shelved: false, shelved_until: null, shelve_reason: 'sensor recalibration', shelved_by: 'op-a', annunciated: true });
    expect(await annunciated()).toContain(event.id);

    await op.post('/api/v1/industry-alarms/commands/shelve', { id: event.id, reason: 'fan service', minutes: 5 });
    const unshelved = await op.post('/api/v1/industry-alarms/commands/unshelve', { id: event.id });
    expect(unshelved.body.item).toMatchObject({ shelved: false, shelved_until: null });
    expect((await op.post('/api/v1/industry-alarms/commands/unshelve', { id: event.id })).status).toBe(409);

    await alarms.clear({ id: event.id, tenant_id: 'tA', actor: 'poultry-rules' });
    const late = await op.post('/api/v1/industry-alarms/commands/shelve', { id: event.id, reason: 'too late', minutes: 5 });
    expect(late.status).toBe(409);
    const actions = await trail(event.id);
    expect(actions).toEqual(sorted(['alarm.raise:success', 'alarm.shelve:success', 'alarm.unshelve:success', 'alarm.shelve:success', 'alarm.unshelve:success', 'alarm.clear:success', 'alarm.shelve:denied']));
    const expiry = ((await master.get('/api/v1/audit/list?action=alarm.unshelve&limit=100')).body.items as { actor: string; details: { id: string; expired: boolean } }[]).filter((a) => a.details.id === event.id);
    expect(expiry.map((a) => a.details.expired).sort()).toEqual([false, true]);
  });

  it('takes a unit out of service for maintenance: its open and new alarms are marked, not annunciated; return to service undoes it', async () => {
    const { event: open } = await alarms.raise(rule('climate:temp_low', { unit_id: 'house-9' }));
    expect((await op.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'poultry', unit_id: 'house-9', reason: 'heater service' })).status).toBe(403);
    const out = await admin.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'poultry', unit_id: 'house-9', reason: 'heater service' });
    expect(out.status).toBe(200);
    expect(out.body.item).toMatchObject({ alarms: 1, unit: { unit_id: 'house-9', reason: 'heater service', by: 'admin-a' } });
    expect((await get(open.id)).out_of_service).toBe(true);
    const { event: later } = await alarms.raise(rule('climate:humidity_high', { unit_id: 'house-9' }));
    expect(later.out_of_service).toBe(true);
    const oos = ((await op.get('/api/v1/industry-alarms/list?out_of_service=true')).body.items as Item[]).map((a) => a.id);
    expect(oos).toEqual(expect.arrayContaining([open.id, later.id]));
    expect((await alarms.overdue(new Date(Date.now() + 86_400_000))).map((a) => a.id)).not.toContain(open.id);

    const back = await admin.post('/api/v1/industry-alarms/commands/return-to-service', { industry_code: 'poultry', unit_id: 'house-9' });
    expect(back.body.item).toMatchObject({ alarms: 2, unit: null });
    expect((await get(later.id)).out_of_service).toBe(false);
    const { event: after } = await alarms.raise(rule('climate:nh3_high', { unit_id: 'house-9' }));
    expect(after.out_of_service).toBe(false);
    for (const action of ['alarm.out_of_service', 'alarm.return_to_service']) {
      const records = (await master.get(`/api/v1/audit/list?action=${action}&limit=50`)).body.items as { actor: string; details: { unit_id: string } }[];
      expect(records.filter((a) => a.details.unit_id === 'house-9' && a.actor === 'admin-a'), action).toHaveLength(1);
    }
    expect((await admin.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'cattle', unit_id: 'x' })).status).toBe(400);
  });

  it('groups a chattering rule: more than alarm_flood_count raises within the window become one alarm with a count', async () => {
    const start = Date.now();
    const at = (min: number) => new Date(start + min * 60_000);
    const key = { tenant_id: 'tA', industry_code: 'poultry' as const, unit_id: 'house-5', rule_id: 'line:pressure_low', actor: 'poultry-rules' };
    const outcomes: boolean[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await alarms.raise(rule('line:pressure_low', { unit_id: 'house-5', severity: 'high', priority: 'P2', now: at(i) }));
      outcomes.push(Boolean(r.grouped));
      await alarms.clear({ ...key, now: at(i + 0.5) });
    }
    expect(outcomes).toEqual([false, false, false, true, true, true]);
    const events = (await op.get('/api/v1/industry-alarms/list?rule_id=line:pressure_low&unit_id=house-5&sort=raised_at&order=asc')).body.items as Item[];
    expect(events).toHaveLength(3);
    expect(events.map((e) => e.raise_count)).toEqual([1, 1, 4]);
    expect(events[2]).toMatchObject({ condition: 'cleared', alarm_state: 'unacknowledged_cleared', listed: true });
    expect(Date.parse(events[2]!.last_raised_at as string)).toBe(at(5).getTime());

    // A grouped raise is a new occurrence: active and unacknowledged again, even after an acknowledgement.
    await op.post('/api/v1/industry-alarms/commands/ack', { id: events[2]!.id });
    const r = await alarms.raise(rule('line:pressure_low', { unit_id: 'house-5', severity: 'high', priority: 'P2', now: at(7) }));
    expect(r.event).toMatchObject({ id: events[2]!.id, raise_count: 5, condition: 'active', alarm_state: 'unacknowledged_active', acked_at: null, cleared_at: null });
    const grouped = ((await master.get('/api/v1/audit/list?action=alarm.raise&limit=200')).body.items as { details: { id: string; grouped?: boolean } }[]).filter((a) => a.details.id === events[2]!.id && a.details.grouped);
    expect(grouped).toHaveLength(4);

    // Out of the window: a separate alarm again.
    await alarms.clear({ ...key, now: at(8) });
    const fresh = await alarms.raise(rule('line:pressure_low', { unit_id: 'house-5', severity: 'high', priority: 'P2', now: at(30) }));
    expect(fresh).toMatchObject({ created: true });
    expect(fresh.event.raise_count).toBe(1);
  });

  it('site alarms have the same condition and states: an admin or integration clears, an operator acknowledges', async () => {
    const raised = await op.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'manual', title: 'Gas smell at silo 2' });
    const id = raised.body.item.id as string;
    expect(raised.body.item).toMatchObject({ state: 'open', condition: 'active', alarm_state: 'unacknowledged_active', listed: true, cleared_at: null });
    expect((await op.post('/api/v1/alarms/commands/clear', { id })).status).toBe(403);
    const cleared = await admin.post('/api/v1/alarms/commands/clear', { id, comment: 'vented' });
    expect(cleared.status).toBe(200);
    expect(cleared.body.item).toMatchObject({ state: 'open', condition: 'cleared', alarm_state: 'unacknowledged_cleared', listed: true });
    expect((await admin.post('/api/v1/alarms/commands/clear', { id })).status).toBe(409);
    expect(((await op.get('/api/v1/alarms/list?listed=true')).body.items as Item[]).map((a) => a.id)).toContain(id);
    const ack = await op.post('/api/v1/alarms/commands/ack', { id });
    expect(ack.body.item).toMatchObject({ state: 'acknowledged', condition: 'cleared', alarm_state: 'normal', listed: false });

    const other = await op.post('/api/v1/alarms/commands/raise', { severity: 'high', source: 'manual', title: 'Door open' });
    const ackFirst = await op.post('/api/v1/alarms/commands/ack', { id: other.body.item.id });
    expect(ackFirst.body.item).toMatchObject({ alarm_state: 'acknowledged_active', listed: true, condition: 'active' });
    // An integration (a master-scope admin token) says the condition ended.
    const byIntegration = await master.post('/api/v1/alarms/commands/clear', { id: other.body.item.id });
    expect(byIntegration.body.item).toMatchObject({ alarm_state: 'normal', listed: false });

    const info = await op.post('/api/v1/alarms/commands/raise', { severity: 'info', source: 'manual', title: 'Feed delivery due' });
    expect((await admin.post('/api/v1/alarms/commands/clear', { id: info.body.item.id })).body.item).toMatchObject({ alarm_state: 'normal', listed: false, acknowledged_at: null });
    expect((await admin.post('/api/v1/alarms/commands/clear', { id: 'no-such' })).status).toBe(404);
    const actions = ((await master.get(`/api/v1/audit/list?resource=alarms&correlation_id=${raised.body.item.correlation_id}&limit=100`)).body.items as { action: string; details: { id: string } }[]).filter((a) => a.details.id === id).map((a) => a.action);
    expect(actions.sort()).toEqual(['alarm.ack', 'alarm.clear', 'alarm.raise']);
  });
});
