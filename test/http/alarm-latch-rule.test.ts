// A rule may declare latched: true (src/industry/rules.ts): the alarm it raises stays active after
// the readings return (returned_at set) until an admin resets it; a rule without it clears on
// return. Driven end to end over HTTP: a swine room profile's alarm_rules, room telemetry from an
// integration, the operator's acknowledgement and the admin's reset. Both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

type Item = Record<string, unknown> & { id: string };
const WEANER = { phase_id: 'weaner-early', min_weight_kg: 5, max_weight_kg: 10, temp_min_c: 26, temp_max_c: 28, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 };
const tempRule = (latched?: boolean) => ({
  id: 'swine-climate:temp_high', metric: 'temp_c', comparator: 'gte', threshold: 'temp_alarm_max_c', hysteresis: 1,
  severity: 'high', priority: 'P1', sla_target_sec: 900, title: 'room temperature above the limit', ...(latched === undefined ? {} : { latched }),
});

describe.each(DIALECTS)('latched alarm rules (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let integration: Client;
  let op: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    integration = await clientAs(env, server, { subject: 'integration:climate', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    const imp = async (room: string, latched?: boolean) => {
      const yaml = stringify({ schema_version: 'v1', industry_code: 'swine', equipment_profile: 'swine-room-climate', name: room, content: { phases: [WEANER], alarm_rules: [tempRule(latched)] } });
      const r = await admin.post('/api/v1/industry-profiles/commands/import', { yaml, site_id: 'farm-1', publish: true });
      expect(r.status, JSON.stringify(r.body)).toBeLessThan(300);
    };
    await imp('latched-room', true);
    await imp('plain-room', false);
  });
  afterAll(async () => env.cleanup());

  const tele = async (room: string, temp_c: number) => (await integration.post('/api/v1/swine-climate/commands/telemetry', { room_id: room, avg_weight_kg: 8, temp_c })).body.item;
  const get = async (id: string): Promise<Item> => (await op.get(`/api/v1/industry-alarms/${id}`)).body.item;

  it('a latched rule\'s alarm stays active after the value returns, until an admin resets it', async () => {
    // 32 °C is 4 °C above the weaner band (26-28), past the 3 °C alarm limit.
    const hot = await tele('latched-room', 32);
    expect(hot.status).toBe('alarm');
    const id = hot.alarms[0].id as string;
    expect(await get(id)).toMatchObject({ rule_id: 'swine-climate:temp_high', latched: true, condition: 'active', returned_at: null });
    // The condition is still present: no reset yet.
    const early = await admin.post('/api/v1/industry-alarms/commands/reset', { id });
    expect(early.status).toBe(409);
    expect(early.body.error.details[0].reason).toBe('condition_present');

    // Back in the band: the rule is normal again, the alarm stays active (returned) and listed.
    expect((await tele('latched-room', 27)).status).toBe('ok');
    const returned = await get(id);
    expect(returned).toMatchObject({ condition: 'active', status: 'active', alarm_state: 'unacknowledged_active', listed: true, cleared_at: null });
    expect(returned.returned_at).toBeTruthy();
    // Acknowledging does not end it; an operator cannot reset it.
    expect((await op.post('/api/v1/industry-alarms/commands/ack', { id })).body.item).toMatchObject({ alarm_state: 'acknowledged_active', listed: true });
    expect((await op.post('/api/v1/industry-alarms/commands/reset', { id })).status).toBe(403);
    expect((await get(id)).condition).toBe('active');
    const reset = await admin.post('/api/v1/industry-alarms/commands/reset', { id, comment: 'heater thermostat checked' });
    expect(reset.body.item).toMatchObject({ condition: 'cleared', alarm_state: 'normal', listed: false });
  });

  it('the same rule without latched clears with the readings', async () => {
    const hot = await tele('plain-room', 32);
    const id = hot.alarms[0].id as string;
    expect(await get(id)).toMatchObject({ latched: false, condition: 'active' });
    await tele('plain-room', 27);
    expect(await get(id)).toMatchObject({ condition: 'cleared', alarm_state: 'unacknowledged_cleared', returned_at: null });
  });

  it('refuses a rule whose latched is not a boolean, changing nothing', async () => {
    const yaml = stringify({ schema_version: 'v1', industry_code: 'swine', equipment_profile: 'swine-room-climate', name: 'bad-room', content: { phases: [WEANER], alarm_rules: [{ ...tempRule(), latched: 'yes' }] } });
    const before = (await admin.get('/api/v1/industry-profiles/list')).body.total as number;
    expect(before).toBe(2);
    const r = await admin.post('/api/v1/industry-profiles/commands/import', { yaml, site_id: 'farm-1', publish: true });
    expect(r.status).toBe(400);
    expect((await admin.get('/api/v1/industry-profiles/list')).body.total).toBe(before);
  });
});
