// The alarm view (alarm-view/list, alarm-view/summary) and its events, on both engines: every
// state change of an alarm is one bus event and one alarm_changed status event carrying the new
// state; annunciated and urgent follow the state (acknowledged, back to normal, shelved, out of
// service); the summary's counts match the list; tenant, site and role scoping as for the alarm
// resources; a rule whose alarm cannot be raised is not marked raised, says so, and is retried.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import type { AlarmEvent } from '../../src/realtime/bus.js';
import type { AlarmSummary, AlarmViewItem } from '../../src/industry/alarm-view-item.js';
import type { RaiseEventInput } from '../../src/industry/alarm-service.js';
import { climateRules } from '../../src/modules/swine/climate-rules.js';

const WEANER = { phase_id: 'weaner-early', min_weight_kg: 5, max_weight_kg: 10, temp_min_c: 26, temp_max_c: 28, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 };
const TEMP_RULE = { id: 'swine-climate:temp_high', metric: 'temp_c', comparator: 'gte', threshold: 'temp_alarm_max_c', hysteresis: 1, severity: 'high', priority: 'P1', sla_target_sec: 900, title: 'room temperature above the limit' };

describe.each(DIALECTS)('alarm view (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let admin: Client;
  let op: Client;
  let opSite2: Client;
  let opOther: Client;
  let security: Client;
  let integration: Client;
  const events: AlarmEvent[] = [];
  let lastStatusId = 0;

  const raise = (over: Partial<RaiseEventInput>) => server.services.industryAlarms.raise({
    tenant_id: 'tA', site_id: 'farm-1', industry_code: 'swine', unit_id: 'room-1', metric: 'temp_c', value: 31, severity: 'critical', priority: 'P1',
    source: 'test', title: 'Room 1: too hot', actor: 'test', details: { threshold: 28, comparator: 'gt' }, ...over,
  });
  const list = async (c: Client, q = '') => {
    const r = await c.get(`/api/v1/alarm-view/list${q}`);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body as { items: AlarmViewItem[]; total: number };
  };
  const summary = async (c: Client) => (await c.get('/api/v1/alarm-view/summary')).body.item as AlarmSummary;
  const itemOf = async (c: Client, id: string) => (await list(c)).items.find((i) => i.id === id);
  /** The alarm_changed status events since the last call, as the stream's fallback (status/list?since=) gives them. */
  const changes = async (c: Client = admin) => {
    const r = await c.get(`/api/v1/status/list?since=${lastStatusId}&limit=500`);
    const items = r.body.items as { id: number; event: string; status: string; details: { kind: string; item: AlarmViewItem } }[];
    if (items.length) lastStatusId = items[items.length - 1]!.id;
    return items.filter((e) => e.event === 'alarm_changed');
  };
  /** Runs a change and answers the bus events and alarm_changed status events it caused. */
  const step = async (what: () => Promise<unknown>) => {
    await changes();
    events.length = 0;
    await what();
    // The status event is published after the bus event, on its own turn: wait until each bus
    // event's is stored (and a little more, so an extra one would be seen).
    const stream: Awaited<ReturnType<typeof changes>> = [];
    for (let i = 0; i < 100 && stream.length < events.length; i++) {
      stream.push(...(await changes()));
      if (stream.length < events.length) await new Promise((r) => setTimeout(r, 50));
    }
    await new Promise((r) => setTimeout(r, 100));
    stream.push(...(await changes()));
    return { bus: [...events], stream };
  };

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opSite2 = await clientAs(env, server, { subject: 'op-a2', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-2' }, master.contract);
    opOther = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    security = await clientAs(env, server, { subject: 'sec-a', role: 'security', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    integration = await clientAs(env, server, { subject: 'integration:climate', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    server.services.bus.on('alarm', (e) => events.push(e));
    const yaml = stringify({ schema_version: 'v1', industry_code: 'swine', equipment_profile: 'swine-room-climate', name: 'room-9', content: { phases: [WEANER], alarm_rules: [TEMP_RULE] } });
    expect((await admin.post('/api/v1/industry-profiles/commands/import', { yaml, site_id: 'farm-1', publish: true })).status).toBeLessThan(300);
  });
  afterAll(async () => env.cleanup());

  it('every state change is one bus event and one alarm_changed event carrying the new state', async () => {
    let id = '';
    const raised = await step(async () => { id = (await raise({})).event.id; });
    expect(raised.bus.map((e) => e.kind)).toEqual(['raised']);
    expect(raised.stream.map((e) => e.details.kind)).toEqual(['raised']);
    expect(raised.stream[0]!.status).toBe('error');
    expect(raised.stream[0]!.details.item).toMatchObject({ id, state: 'unacknowledged_active', annunciated: true, urgent: true, tone: 'alarm', where: 'Room 1', cause: 'Temperature 31 °C, above the limit of 28 °C' });

    const steps: [string, () => Promise<unknown>, Partial<AlarmViewItem>][] = [
      ['acknowledged', () => op.post('/api/v1/industry-alarms/commands/ack', { id }), { state: 'acknowledged_active', annunciated: false, urgent: false, tone: 'alarm', acked_by: 'op-a' }],
      ['commented', () => op.post('/api/v1/industry-alarms/commands/comment', { id, text: 'fans checked' }), { state: 'acknowledged_active' }],
      ['shelved', () => op.post('/api/v1/industry-alarms/commands/shelve', { id, reason: 'sensor swap', minutes: 30 }), { state: 'shelved', tone: 'muted', shelve_reason: 'sensor swap' }],
      // The last shelve's who, when and why stay for the history; shelved_until says it is over.
      ['unshelved', () => op.post('/api/v1/industry-alarms/commands/unshelve', { id }), { state: 'acknowledged_active', shelved_until: null, shelved_by: 'op-a', shelve_reason: 'sensor swap' }],
      ['out_of_service', () => admin.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'swine', unit_id: 'room-1', reason: 'washing' }), { state: 'out_of_service', tone: 'muted' }],
      ['returned_to_service', () => admin.post('/api/v1/industry-alarms/commands/return-to-service', { industry_code: 'swine', unit_id: 'room-1' }), { state: 'acknowledged_active' }],
      ['reset', () => admin.post('/api/v1/industry-alarms/commands/reset', { id, comment: 'replaced' }), { state: 'normal', condition: 'cleared', reset_by: 'admin-a', tone: 'muted' }],
    ];
    for (const [kind, act, expected] of steps) {
      const s = await step(act);
      expect(s.bus.map((e) => e.kind), kind).toEqual([kind]);
      expect(s.stream.map((e) => e.details.kind), kind).toEqual([kind]);
      expect(s.stream[0]!.details.item, kind).toMatchObject({ id, ...expected });
    }
    expect(raised.stream[0]!.details.item.comments).toEqual([]);
    // The past: in the history, with who acknowledged, the comment and the reset.
    const past = (await list(op, '?history=true')).items.find((i) => i.id === id)!;
    expect(past).toMatchObject({ state: 'normal', acked_by: 'op-a', reset_by: 'admin-a', applicable: ['comment'] });
    expect(past.comments.map((c) => c.text)).toEqual(['fans checked']);
    expect(await itemOf(op, id)).toBeUndefined();
    // One alarm by its key, in any state; another tenant's key is not found.
    const one = await op.get(`/api/v1/alarm-view/${encodeURIComponent(`industry-alarms:${id}`)}`);
    expect(one.status).toBe(200);
    expect(one.body.item).toMatchObject({ id, state: 'normal', reset_by: 'admin-a' });
    const foreign = await opOther.get(`/api/v1/alarm-view/${encodeURIComponent(`industry-alarms:${id}`)}`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('alarm_not_found');
    expect((await op.get('/api/v1/alarm-view/nothing-here')).status).toBe(404);
  });

  it('a shelve that runs out is one event, and the alarm is annunciated again', async () => {
    // the raise and the shelve through step(): their own alarm_changed events (published on their
    // own turn) are taken before the expiry's, which a loaded machine otherwise mixed in
    let event!: Awaited<ReturnType<typeof raise>>['event'];
    await step(async () => { ({ event } = await raise({ unit_id: 'room-2', title: 'Room 2: too hot' })); });
    await step(() => op.post('/api/v1/industry-alarms/commands/shelve', { id: event.id, reason: 'vet visit', minutes: 1 }));
    expect(await itemOf(op, event.id)).toMatchObject({ state: 'shelved', annunciated: false, urgent: false });
    const s = await step(() => server.services.industryAlarms.expireShelves(new Date(Date.now() + 2 * 60_000)));
    expect(s.bus.filter((e) => e.alarm.id === event.id).map((e) => e.kind)).toEqual(['shelve_expired']);
    expect(s.stream.filter((e) => e.details.item.id === event.id).map((e) => e.details.item.state)).toEqual(['unacknowledged_active']);
    expect(await itemOf(op, event.id)).toMatchObject({ state: 'unacknowledged_active', annunciated: true, urgent: true });
  });

  it('a returned unacknowledged alarm is annunciated, not urgent; a latched one reads latched', async () => {
    const { event } = await raise({ unit_id: 'room-3', rule_id: 'r:plain', title: 'Room 3: too hot' });
    const cleared = await step(() => server.services.industryAlarms.clear({ tenant_id: 'tA', industry_code: 'swine', unit_id: 'room-3', rule_id: 'r:plain', actor: 'test' }));
    expect(cleared.stream.map((e) => e.details.kind)).toEqual(['cleared']);
    expect(await itemOf(op, event.id)).toMatchObject({ state: 'unacknowledged_cleared', condition: 'cleared', annunciated: true, urgent: false, tone: 'warn' });

    const latched = await raise({ unit_id: 'room-4', rule_id: 'r:latched', latched: true, title: 'Room 4: froze' });
    const ret = await step(() => server.services.industryAlarms.clear({ tenant_id: 'tA', industry_code: 'swine', unit_id: 'room-4', rule_id: 'r:latched', actor: 'test' }));
    expect(ret.bus.map((e) => e.kind)).toEqual(['returned']);
    // Still active until an admin resets it, counted, but the process is back: it no longer sounds, and is amber.
    expect(await itemOf(op, latched.event.id)).toMatchObject({ state: 'latched', condition: 'active', annunciated: true, urgent: false, tone: 'warn', applicable: ['ack', 'comment', 'shelve', 'reset'] });
  });

  it('a P2 communication loss reaches the stream; an alarm raised out of service is neither annunciated nor urgent', async () => {
    const p2 = await step(() => raise({ unit_id: 'room-5', metric: 'comm_loss', rule_id: 'comm_loss:ctl-5', severity: 'medium', priority: 'P2', title: 'Room 5 controller not answering', message: 'check its power and its cable', details: {} }));
    expect(p2.stream).toHaveLength(1);
    expect(p2.stream[0]!.details.item).toMatchObject({ priority: 'P2', comm_loss: true, annunciated: true, urgent: false, tone: 'warn', cause: 'check its power and its cable' });

    await admin.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'swine', unit_id: 'room-6', reason: 'empty' });
    const { event } = await raise({ unit_id: 'room-6', title: 'Room 6: too hot' });
    expect(await itemOf(op, event.id)).toMatchObject({ state: 'out_of_service', annunciated: false, urgent: false });
    await admin.post('/api/v1/industry-alarms/commands/return-to-service', { industry_code: 'swine', unit_id: 'room-6' });
    expect(await itemOf(op, event.id)).toMatchObject({ state: 'unacknowledged_active', annunciated: true, urgent: true });
  });

  it('the summary counts what the list holds, and its revision follows every change', async () => {
    const before = await summary(op);
    const items = (await list(op)).items;
    expect(before.listed).toBe(items.length);
    expect(before.annunciated).toBe(items.filter((i) => i.annunciated).length);
    expect(before.urgent).toBe(items.filter((i) => i.urgent).length);
    expect(before.by_priority.P1.urgent + before.by_priority.P2.urgent + before.by_priority.other.urgent).toBe(before.urgent);
    expect(before.by_state.shelved).toBe(items.filter((i) => i.state === 'shelved').length);
    // The list's order: urgent first.
    const firstCalm = items.findIndex((i) => !i.urgent);
    expect(items.slice(firstCalm).some((i) => i.urgent)).toBe(false);
    // A site alarm is in the same view.
    const site = await admin.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'feed-mill', title: 'Feed silo empty' });
    const after = await summary(op);
    expect(after.revision).not.toBe(before.revision);
    expect(after.urgent).toBe(before.urgent + 1);
    expect(await itemOf(op, site.body.item.id)).toMatchObject({ resource: 'alarms', urgent: true, applicable: ['ack'] });
    expect((await summary(op)).revision).toBe(after.revision);
  });

  it('is scoped as the alarm resources are: tenant, bound site, role', async () => {
    const { event } = await raise({ unit_id: 'room-7', title: 'Room 7: too hot' });
    expect(await itemOf(op, event.id)).toBeDefined();
    expect(await itemOf(security, event.id)).toBeDefined();
    expect(await itemOf(opOther, event.id)).toBeUndefined();
    expect((await summary(opOther)).listed).toBe(0);
    // A session bound to farm-2 does not see farm-1's alarms.
    expect(await itemOf(opSite2, event.id)).toBeUndefined();
    // Bad input is a 400 with the contract's envelope, not an empty list.
    const bad = await op.get('/api/v1/alarm-view/list?industry_code=fishing');
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('validation_error');
  });

  it('a rule whose alarm cannot be raised is not marked raised: it says so and the next pass raises it', async () => {
    const alarms = server.services.industryAlarms;
    const realRaise = alarms.raise;
    alarms.raise = async () => { throw new Error('disk full'); };
    let hot: Record<string, unknown>;
    try {
      await changes();
      hot = (await integration.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'room-9', avg_weight_kg: 8, temp_c: 32 })).body.item;
    } finally {
      alarms.raise = realRaise;
    }
    expect(hot!.alarms).toEqual([]);
    const states = (await master.get('/api/v1/status/list?limit=50&sort=id&order=desc')).body.items as { event: string; details: Record<string, unknown> }[];
    expect(states.find((e) => e.event === 'alarm_raise_failed')?.details).toMatchObject({ rule_id: 'swine-climate:temp_high', unit_id: 'room-9', error: 'disk full' });
    expect((await list(op, '?unit_id=room-9')).items).toEqual([]);
    // The scheduler's pass (the swine runtime's rule tick) raises it now that raising works.
    expect(await climateRules(server.services).tick()).toBe(1);
    expect((await list(op, '?unit_id=room-9')).items).toMatchObject([{ state: 'unacknowledged_active', urgent: true }]);
  });
});
