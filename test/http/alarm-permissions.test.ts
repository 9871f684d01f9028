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
  it('swine as poultry: room readings, feed and water ingest are for admins and integrations; the crew sets room setpoints and keeps production and biosecurity', async () => {
    const room = (who: string) => `room-${who}`;
    await adminsOnly('/api/v1/swine-climate/commands/telemetry', (who) => ({ room_id: room(who), avg_weight_kg: 8, temp_c: 27 }));
    await adminsOnly('/api/v1/swine-climate/sensors/commands/ingest', (who) => ({ room_id: room(who), avg_weight_kg: 8, readings: [{ kind: 'temperature', value: 27, unit: 'C' }] }));
    await adminsOnly('/api/v1/swine-feeding/commands/ingest', (who) => ({ room_id: room(who), category: 'finisher', head_count: 50, avg_weight_kg: 100, feed_kg: 133 }));
    await adminsOnly('/api/v1/swine-water/commands/ingest', (who) => ({ room_id: room(who), category: 'finisher', head_count: 50, avg_weight_kg: 100, water_l: 400 }));
    // Nothing the operator sent was stored.
    for (const r of ['swine-climate', 'swine-feeding', 'swine-water']) {
      expect((await admin.get(`/api/v1/${r}/list?room_id=room-operator`)).body.total, r).toBe(0);
      expect((await admin.get(`/api/v1/${r}/list?room_id=room-admin`)).body.total, r).toBeGreaterThan(0);
    }
    expect((await op.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-op', target_temp_c: 24 })).status).toBe(201);
    expect((await op.post('/api/v1/swine-production/commands/ingest', { batch_id: 'B1', room_id: 'room-op', category: 'finisher', metric_date: daysAgo(1), head_count: 100, avg_weight_kg: 30 })).status).toBe(201);
    expect((await op.post('/api/v1/swine-biosecurity/commands/ingest', { kind: 'entry', person: 'Vet', downtime_hours: 72, shower_in: true })).status).toBe(201);
    // A swine alarm: operators acknowledge and shelve it on industry-alarms; reset is for admins.
    const pub = await integration.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', unit_id: 'room-1', severity: 'high', priority: 'P1', title: 'Room too hot' });
    const id = pub.body.item.id as string;
    expect((await op.post('/api/v1/industry-alarms/commands/shelve', { id, reason: 'door open for loading', minutes: 15 })).body.item).toMatchObject({ shelved: true, shelved_by: 'op-a' });
    expect((await op.post('/api/v1/industry-alarms/commands/ack', { id })).body.item).toMatchObject({ alarm_state: 'acknowledged_active' });
    expect((await op.post('/api/v1/industry-alarms/commands/reset', { id })).status).toBe(403);
    expect((await admin.post('/api/v1/industry-alarms/commands/reset', { id })).body.item).toMatchObject({ condition: 'cleared' });
  });

  it('melioration as poultry: weather, station, soil and irrigation readings and fields for admins and integrations; operators acknowledge, shelve and switch modes', async () => {
    const soil = { crop: 'maize', field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.6, depletion_fraction: 0.5, kc: 1 };
    expect((await op.post('/api/v1/melioration-field', { item: { id: 'f-op', name: 'x', site_id: 's1', ...soil } })).status).toBe(403);
    expect((await admin.post('/api/v1/melioration-field', { item: { id: 'f1', name: 'North', site_id: 's1', area_ha: 10, ...soil } })).status).toBe(201);
    const ago = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
    let n = 0;
    await adminsOnly('/api/v1/melioration-weather/commands/ingest', () => ({ item: { site_id: 's1', source: 'service', day: daysAgo(1 + n++), latitude_deg: 45, t_max_c: 27, t_min_c: 14, rain_mm: 0 } }), [200, 201]);
    await adminsOnly('/api/v1/melioration-weather/commands/telemetry', () => ({ item: { site_id: 's1', station_id: 'ws-1', observed_at: ago(100 - n++), air_temp_c: 20 } }), [200, 201]);
    await adminsOnly('/api/v1/melioration-soil-moisture/commands/ingest', () => ({ item: { field_id: 'f1', probe_id: 'p1', depth_cm: 30, vwc_pct: 25, observed_at: ago(100 - n++) } }), [200, 201]);
    await adminsOnly('/api/v1/melioration-irrigation-machine/commands/ingest', () => ({ item: { field_id: 'f1', equipment_id: 'pivot-1', observed_at: ago(100 - n++), depth_mm: 5 } }), [200, 201]);
    await adminsOnly('/api/v1/melioration-irrigation-drip/commands/ingest', () => ({ item: { field_id: 'f1', equipment_id: 'line-1', observed_at: ago(100 - n++), depth_mm: 2 } }), [200, 201]);
    // Two of each (the admin's and the integration's), none of the operator's.
    for (const r of ['melioration-soil-moisture', 'melioration-irrigation-machine', 'melioration-irrigation-drip']) {
      expect((await op.get(`/api/v1/${r}/list`)).body.total, r).toBe(2);
    }
    expect((await op.post('/api/v1/melioration-control-mode/commands/set', { field_id: 'f1', control_mode: 'A' })).status).toBe(200);

    const pub = await integration.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'melioration', unit_id: 'f1', severity: 'high', priority: 'P2', title: 'Water deficit' });
    const id = pub.body.item.id as string;
    expect((await op.post('/api/v1/melioration-alerts/commands/shelve', { id, reason: 'pivot under repair', minutes: 60 })).body.item).toMatchObject({ id, shelved: true, shelved_by: 'op-a', shelve_reason: 'pivot under repair' });
    expect((await op.post('/api/v1/melioration-alerts/commands/unshelve', { id })).body.item).toMatchObject({ shelved: false });
    expect((await op.post('/api/v1/melioration-alerts/commands/ack', { id })).body.item).toMatchObject({ alarm_state: 'acknowledged_active', acked_by: 'op-a', listed: true });
    const refused = await op.post('/api/v1/melioration-alerts/commands/reset', { id });
    expect(refused.status).toBe(403);
    expect((await op.get(`/api/v1/melioration-alerts/${id}`)).body.item.condition).toBe('active');
    expect((await admin.post('/api/v1/melioration-alerts/commands/reset', { id, comment: 'probe replaced' })).body.item).toMatchObject({ condition: 'cleared', alarm_state: 'normal', listed: false });
  });
});
