// Alarms: list with filters, ack (404, twice = 409 with the first kept), tenant isolation, the
// one alarm service (raise bridges critical/high to status with the same correlation id), audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('alarms (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let opA: Client;
  let opB: Client;
  let security: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    security = await clientAs(env, server, { subject: 'sec', role: 'security', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  it('raises through the alarm service; critical/high bridge a status event with the same correlation id', async () => {
    const alarms = server.services.alarms!;
    const high = await alarms.raise({ tenant_id: 'tA', site_id: 'farm-1', severity: 'high', source: 'poultry-rules', title: 'House 3 temperature high', correlation_id: 'corr-high-1' });
    const low = await alarms.raise({ tenant_id: 'tA', severity: 'low', source: 'poultry-rules', title: 'Feed level low' });
    expect(high).toMatchObject({ state: 'open', scope: 'site', acknowledged_by: null });
    expect(low.scope).toBe('tenant');
    // The contract's bridge for critical/high only; the alarm view's alarm_changed for every severity.
    // alarm_changed is published on its own turn after the raise.
    await expect.poll(async () => (await opA.get('/api/v1/status/list?correlation_id=corr-high-1')).body.total).toBe(2);
    const events = (await opA.get('/api/v1/status/list?correlation_id=corr-high-1')).body.items as { event: string }[];
    const bridged = events.filter((e) => e.event !== 'alarm_changed');
    expect(bridged).toHaveLength(1);
    expect(bridged[0]).toMatchObject({ status: 'error', event: 'alarm_raised', tenant_id: 'tA', site_id: 'farm-1' });
    expect(events.filter((e) => e.event === 'alarm_changed')).toMatchObject([{ status: 'error', details: { kind: 'raised', item: { resource: 'alarms', urgent: true } } }]);
    await expect.poll(async () => (await opA.get(`/api/v1/status/list?correlation_id=${low.correlation_id}`)).body.total).toBe(1);
    expect((await opA.get(`/api/v1/status/list?correlation_id=${low.correlation_id}`)).body.items).toMatchObject([{ event: 'alarm_changed', status: 'warn', details: { item: { urgent: false, annunciated: true } } }]);
    const audit = (await master.get('/api/v1/audit/list?correlation_id=corr-high-1')).body.items;
    expect(audit.map((a: { action: string }) => a.action)).toContain('alarm.raise');
  });

  it('raises by command (tenant taken from the session) and lists with q, severity, state, scope', async () => {
    const r = await opA.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'manual', title: 'Gas leak suspected', message: 'smell near silo 2' });
    expect(r.status).toBe(201);
    expect(r.body.item).toMatchObject({ tenant_id: 'tA', severity: 'critical', state: 'open' });
    await opB.post('/api/v1/alarms/commands/raise', { severity: 'critical', source: 'manual', title: 'Gas leak B' });
    const list = await opA.get('/api/v1/alarms/list?severity=critical');
    expect(list.body.items.map((a: { title: string }) => a.title)).toEqual(['Gas leak suspected']);
    expect((await opA.get('/api/v1/alarms/list?q=SILO')).body.total).toBe(1);
    expect((await opA.get('/api/v1/alarms/list?state=open&scope=site')).body.items.every((a: { scope: string }) => a.scope === 'site')).toBe(true);
    expect((await master.get('/api/v1/alarms/list?q=Gas')).body.total).toBe(2);
    expect((await opA.get('/api/v1/alarms/list?severity=urgent')).status).toBe(400);
    expect((await security.post('/api/v1/alarms/commands/raise', { severity: 'low', source: 'x', title: 'y' })).status).toBe(403);
  });

  it('acknowledges once: acknowledged_by and comment stored; twice is 409 and keeps the first', async () => {
    const alarm = await server.services.alarms!.raise({ tenant_id: 'tA', severity: 'medium', source: 'rules', title: 'Water pressure drop' });
    const ack = await opA.post('/api/v1/alarms/commands/ack', { id: alarm.id, acknowledged_by: 'Anna', comment: 'valve checked' });
    expect(ack.status).toBe(200);
    expect(ack.body.item).toMatchObject({ id: alarm.id, state: 'acknowledged', acknowledged_by: 'Anna', comment: 'valve checked' });
    expect(ack.body.item.acknowledged_at).toBeTruthy();
    const again = await master.post('/api/v1/alarms/commands/ack', { id: alarm.id, acknowledged_by: 'Boris', comment: 'overwrite?' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('alarm_already_acknowledged');
    expect(again.body.error.message).toContain('Anna');
    const stored = (await opA.get(`/api/v1/alarms/${alarm.id}`)).body.item;
    expect(stored).toMatchObject({ acknowledged_by: 'Anna', comment: 'valve checked' });
    const trail = (await master.get(`/api/v1/audit/list?resource=alarms&action=alarm.ack`)).body.items;
    expect(trail.map((a: { result: string }) => a.result)).toEqual(expect.arrayContaining(['success', 'denied']));
  });

  it('defaults acknowledged_by to the caller; 404 alarm_not_found for a missing or foreign alarm', async () => {
    const alarm = await server.services.alarms!.raise({ tenant_id: 'tB', severity: 'info', source: 'rules', title: 'B only' });
    const foreign = await opA.post('/api/v1/alarms/commands/ack', { id: alarm.id });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('alarm_not_found');
    const missing = await opA.post('/api/v1/alarms/commands/ack', { id: 'no-such-alarm' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('alarm_not_found');
    const own = await opB.post('/api/v1/alarms/commands/ack', { id: alarm.id });
    expect(own.body.item.acknowledged_by).toBe('op-b');
    expect((await opA.post('/api/v1/alarms/commands/ack', { comment: 'no id' })).status).toBe(400);
  });

  it('two concurrent acknowledgements: exactly one wins', async () => {
    const alarm = await server.services.alarms!.raise({ tenant_id: 'tA', severity: 'low', source: 'rules', title: 'race' });
    const results = await Promise.all([opA.post('/api/v1/alarms/commands/ack', { id: alarm.id, acknowledged_by: 'one' }), master.post('/api/v1/alarms/commands/ack', { id: alarm.id, acknowledged_by: 'two' })]);
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
  });
});
