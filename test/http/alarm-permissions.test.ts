// Permissions as a farm sets them (docs/alarms.md): operators acknowledge, shelve and propose
// and confirm setpoints; readings, thresholds, alarm publish/evaluate/escalate/reset,
// out of service and the end of a site alarm are for admins and integrations (an admin-role
// service token of the tenant, as a SCADA or feed-mill integration is issued). Both engines.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);

describe.each(DIALECTS)('alarm and reading permissions (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let integration: Client;
  let admin: Client;
  let op: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    integration = await clientAs(env, server, { subject: 'integration:scada', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', ttlMinutes: 60 }, master.contract);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(5), birds_placed: 10_000 })).status).toBe(201);
  });
  afterAll(async () => env.cleanup());

  /** The operator is refused (403 rbac_forbidden, nothing changed); a tenant admin and an integration are served. */
  const adminsOnly = async (path: string, body: (who: 'admin' | 'integration' | 'operator') => Record<string, unknown>, ok: number[] = [200, 201]) => {
    const refused = await op.post(path, body('operator'));
    expect(refused.status, `operator ${path}`).toBe(403);
    expect(refused.body.error.code).toBe('rbac_forbidden');
    const a = await admin.post(path, body('admin'));
    expect(ok, `admin ${path}: ${JSON.stringify(a.body)}`).toContain(a.status);
    const i = await integration.post(path, body('integration'));
    expect(ok, `integration ${path}: ${JSON.stringify(i.body)}`).toContain(i.status);
    return { admin: a, integration: i };
  };

  it('readings, feed/water ingest and thresholds: devices, integrations and admins only', async () => {
    let n = 0;
    await adminsOnly('/api/v1/poultry-climate/commands/telemetry', () => ({ house_id: 'H1', temp: 30, ts: new Date(Date.now() - 60_000 + n++ * 1000).toISOString() }));
    await adminsOnly('/api/v1/poultry-climate/sensors/commands/ingest', () => ({ house_id: 'H1', readings: [{ kind: 'temperature', value: 30, unit: 'C' }] }));
    let counter = 100;
    await adminsOnly('/api/v1/poultry-feedwater/commands/ingest', () => ({ house_id: 'H1', batch_id: 'B1', water_counter_l: (counter += 10), birds: 10_000 }));
    await adminsOnly('/api/v1/poultry-feedwater/commands/set-thresholds', () => ({ house_id: 'H1', batch_id: 'B1', water_alarm_pct: 30 }), [200, 201]);
    // Nothing the operator sent was stored: four climate readings, two each from the admin and the integration.
    expect((await op.get('/api/v1/poultry-climate-readings/list?house_id=H1')).body.total).toBe(4);
  });

  it('alarm publish, evaluate, escalate and reset: admins and integrations; acknowledge and shelve: operators too', async () => {
    const pub = await adminsOnly('/api/v1/poultry-alarms/commands/publish', (who) => ({ house_id: 'H1', severity: 'high', priority: 'P2', title: `Feeder jam (${who})` }), [201]);
    await adminsOnly('/api/v1/poultry-alarms/commands/evaluate', () => ({}));
    await adminsOnly('/api/v1/industry-alarms/commands/publish', (who) => ({ industry_code: 'poultry', unit_id: 'H1', severity: 'medium', title: `Door open (${who})` }), [201]);
    const esc = await op.post('/api/v1/poultry-alarms/commands/escalate', { id: pub.admin.body.item.id, force: true });
    expect(esc.status).toBe(403);
    expect((await admin.post('/api/v1/poultry-alarms/commands/escalate', { id: pub.admin.body.item.id, force: true })).body.item.escalation_level).toBe(1);

    const id = pub.integration.body.item.id as string;
    expect((await op.post('/api/v1/poultry-alarms/commands/shelve', { id, reason: 'feeder being cleared', minutes: 20 })).body.item).toMatchObject({ shelved: true });
    expect((await op.post('/api/v1/poultry-alarms/commands/unshelve', { id })).status).toBe(200);
    expect((await op.post('/api/v1/poultry-alarms/commands/ack', { id })).body.item).toMatchObject({ alarm_state: 'acknowledged_active', acked_by: 'op-a' });
    expect((await op.post('/api/v1/poultry-alarms/commands/reset', { id })).status).toBe(403);
    expect((await op.post('/api/v1/industry-alarms/commands/reset', { id })).status).toBe(403);
    expect((await admin.post('/api/v1/poultry-alarms/commands/reset', { id })).body.item).toMatchObject({ condition: 'cleared', alarm_state: 'normal' });
    const other = pub.admin.body.item.id as string;
    expect((await integration.post('/api/v1/industry-alarms/commands/reset', { id: other })).body.item).toMatchObject({ condition: 'cleared', alarm_state: 'unacknowledged_cleared' });

    await adminsOnly('/api/v1/industry-alarms/commands/out-of-service', () => ({ industry_code: 'poultry', unit_id: 'H2', reason: 'washout' }));
    expect((await op.post('/api/v1/alarms/commands/clear', { id: 'x' })).status).toBe(403);
    const site = await op.post('/api/v1/alarms/commands/raise', { severity: 'high', source: 'manual', title: 'Fence down' });
    expect((await integration.post('/api/v1/alarms/commands/clear', { id: site.body.item.id })).status).toBe(200);
  });

  it('operators propose setpoints and confirm them (the write to the controller), as at the controller\'s panel; they still may not send readings', async () => {
    const draft = await op.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'late', day_from: 300, day_to: 301, target_temp_c: 19 });
    expect(draft.status).toBe(201);
    expect(draft.body.item.state).toBe('draft');
    expect((await op.post('/api/v1/poultry-climate/commands/ack', { id: draft.body.item.id })).body.item.state).toBe('published');
    const second = await op.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H1', batch_id: 'B1', age_phase_id: 'late', day_from: 300, day_to: 301, target_temp_c: 20 });
    expect((await admin.post('/api/v1/poultry-climate/commands/ack', { id: second.body.item.id })).body.item.state).toBe('published');
    // Confirming is its own action: it grants nothing else of the climate resource.
    expect((await op.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H1', temp: 21 })).status).toBe(403);
  });
});
