// Issue 10 end to end, API level, on SQLite and PostgreSQL: a flock placed gets the default
// broiler curve (active phase at day 0 and at a later day), telemetry out of norm raises a P1
// alarm after its hold time that reaches the status stream and MQTT with the same correlation id,
// the operator acks it; an unacked alarm escalates on its own after its SLA; a setpoint acked by
// the operator is written to a Modbus peer (pymodbus over TCP, and RTU over a socat pty pair) and
// read back, with the dispatch status and audit record showing it; an unreachable controller
// gives `failed` with the contract's message and leaves the old version published.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import WebSocket from 'ws';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { closedTcpPort, removeDir, startModbusPeer, startPtyPair, stopAll, waitFor, type ModbusPeer, type PtyPair } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const today = () => new Date().toISOString().slice(0, 10);
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const secondsAgo = (s: number) => new Date(Date.now() - s * 1000).toISOString();

let tcp: ModbusPeer;
let rtu: ModbusPeer;
let pty: PtyPair;
beforeAll(async () => {
  pty = await startPtyPair();
  [tcp, rtu] = await Promise.all([startModbusPeer('tcp', '0'), startModbusPeer('rtu', pty.b)]);
}, 60_000);
afterAll(async () => {
  await stopAll();
  removeDir(pty.dir);
});

describe.each(DIALECTS)('poultry flow end to end (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let op: Client;
  let mq: MqttClient;
  const got: { topic: string; body: Item }[] = [];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({
      telemetry_flush_ms: '20',
      mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', alarm_escalation_interval_ms: '100',
      field: JSON.stringify({ request_timeout_ms: 500, retries: 0, modbus: { serial: { path: pty.a, baud_rate: 19200 } } }),
    });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'site-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-anna', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    const token = await env.token(server, { subject: 'tablet', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    mq = await new Promise<MqttClient>((resolve, reject) => {
      const c = mqtt.connect(`mqtt://127.0.0.1:${server.services.mqtt!.port}`, { username: 'test', password: token, reconnectPeriod: 0, clientId: `t-${randomBytes(4).toString('hex')}` });
      c.on('message', (topic, payload) => got.push({ topic, body: JSON.parse(payload.toString()) as Item }));
      c.once('connect', () => c.subscribe('cabinet/tA/#', { qos: 0 }, (err) => (err ? reject(err) : resolve(c))));
      c.once('error', reject);
    });
  }, 60_000);
  afterAll(async () => {
    mq?.end(true);
    await env.cleanup();
  });

  it('places a flock with the default broiler curve, active by age at day 0 and at day 20', async () => {
    const placed = await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: today(), birds_placed: 30_000 });
    expect(placed.status).toBe(201);
    expect(placed.body.item).toMatchObject({ house_id: 'H1', status: 'active', current_age_days: 0, climate_source: 'default-broiler-curve', site_id: 'farm-1' });
    const active = await op.get('/api/v1/poultry-climate/list?house_id=H1&age_mode=active');
    expect(active.body.items).toHaveLength(1);
    expect(active.body.items[0]).toMatchObject({ age_phase_id: 'd00-03', target_temp_c: 32.5, co2_max_ppm: 3000, nh3_max_ppm: 20, active_by_age: true, current_age_days: 0, version_id: 1, state: 'published' });
    const day20 = await op.get('/api/v1/poultry-climate/list?house_id=H1&current_age_days=20');
    expect(day20.body.total).toBe(7);
    expect(day20.body.items.filter((i: Item) => i.active_by_age).map((i: Item) => [i.age_phase_id, i.target_temp_c])).toEqual([['d15-21', 25.5]]);
    const last = await op.get('/api/v1/poultry-climate/list?house_id=H1&current_age_days=40&age_mode=active');
    expect(last.body.items.map((i: Item) => i.target_temp_c)).toEqual([20]);
  });

  it('raises a P1 alarm after the hold time, bridged to status and MQTT with one correlation id; the operator acks it', async () => {
    // The tablet's status stream, open before the breach.
    const streamed: Item[] = [];
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/v1/status/stream`, { headers: { authorization: `Bearer ${await env.token(server, { subject: 'tablet', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' })}` } });
    ws.on('message', (data) => streamed.push(JSON.parse(String(data)) as Item));
    await waitFor(() => streamed.some((m) => m.type === 'ready'), 10_000, 'status stream ready');
    // A house placed yesterday: readings from a few minutes ago are its flock's at any time (H1's
    // flock, placed today, did not exist yet just after midnight), in the phase of day 0 (d00-03).
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H0', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(1), birds_placed: 30_000 })).status).toBe(201);
    // Hold time 120 s: the breach starts 110 s ago, and a reading 15 s ahead (clock skew allowed up to 60 s) completes it.
    const first = await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H0', ts: secondsAgo(110), temp: 36.2, humidity: 65, co2: 1800, nh3: 8, ventilation: 40 });
    expect(first.status).toBe(200);
    expect(first.body.item).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'], age_phase_id: 'd00-03', alarms: [{ rule_id: 'climate:temp_high', action: 'pending' }] });
    const second = await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H0', ts: secondsAgo(-15), temp: 36.4 });
    const raised = second.body.item.alarms[0];
    expect(raised).toMatchObject({ rule_id: 'climate:temp_high', action: 'raised', priority: 'P1' });
    const alarm = (await op.get(`/api/v1/poultry-alarms/list?house_id=H0&status=active`)).body.items[0];
    expect(alarm).toMatchObject({ id: raised.alarm_id, house_id: 'H0', batch_id: 'B1', severity: 'critical', priority: 'P1', bridged_to_status: true, sla_target_sec: 900, correlation_id: raised.correlation_id });
    const status = (await op.get(`/api/v1/status/list?correlation_id=${alarm.correlation_id}`)).body.items;
    expect(status.map((s: Item) => [s.event, s.status])).toContainEqual(['alarm_raised', 'error']);
    await waitFor(() => got.some((g) => g.body.correlation_id === alarm.correlation_id && g.topic.endsWith('/status')), 10_000, 'bridged status on MQTT');
    await waitFor(() => streamed.some((m) => m.type === 'event' && m.data.correlation_id === alarm.correlation_id && m.data.event === 'alarm_raised'), 10_000, 'bridged status on the WebSocket');
    ws.close();
    const ack = await op.post('/api/v1/poultry-alarms/commands/ack', { id: alarm.id, assignee: 'op-anna' });
    expect(ack.body.item).toMatchObject({ status: 'acked', assignee: 'op-anna' });
    expect(ack.body.item.acked_at).toBeTruthy();
    expect((await op.post('/api/v1/poultry-alarms/commands/ack', { id: alarm.id })).body.error.code).toBe('alarm_already_acknowledged');
  });

  it('takes a house controller\'s readings over MQTT the same way as commands/telemetry', async () => {
    const controller = await env.token(server, { subject: 'device:H0', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const dev = await new Promise<MqttClient>((resolve, reject) => {
      const c = mqtt.connect(`mqtt://127.0.0.1:${server.services.mqtt!.port}`, { username: 'test', password: controller, reconnectPeriod: 0, clientId: `h1-${randomBytes(4).toString('hex')}` });
      c.once('connect', () => resolve(c));
      c.once('error', reject);
    });
    const ts = secondsAgo(5);
    dev.publish('cabinet/tA/farm-1/telemetry/H0', JSON.stringify([{ metric: 'temperature', value: 89.6, unit: 'F', ts }, { metric: 'humidity', value: 66, ts }, { metric: 'nh3', value: 9, ts }]), { qos: 1 });
    // Through the API, as a screen reads it: MQTT climate readings are committed on the whole
    // minute (telemetry_hold_ms), and the list merges what is held.
    const reading = await (async () => {
      for (let i = 0; i < 200; i++) {
        const rows = (await op.get('/api/v1/poultry-climate-readings/list?house_id=H0&limit=50')).body.items as Item[];
        const hit = rows.find((r) => r.source === 'mqtt');
        if (hit) return hit;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('no MQTT climate reading');
    })();
    dev.end(true);
    expect(reading).toMatchObject({ temp: 32, humidity: 66, nh3: 9, status: 'ok', age_phase_id: 'd00-03', batch_id: 'B1', tenant_id: 'tA' });
  });

  it('escalates an unacknowledged alarm on its own once its SLA has passed', async () => {
    // A house whose flock was placed two days ago, so that readings from 20 minutes ago are the
    // flock's whatever the time (H1's flock was placed today: just after midnight they would be
    // from before its placement), still in the phase (d00-03, minimum ventilation 10 %) H1 is in.
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H5', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(2), birds_placed: 30_000 })).status).toBe(201);
    // A controller's buffered readings from 20 minutes ago: the ventilation breach (hold 60 s, SLA 600 s) is overdue already.
    const breach = await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H5', ts: secondsAgo(1300), ventilation: 2 });
    expect(breach.body.item).toMatchObject({ age_phase_id: 'd00-03', out_of_norm_flags: ['ventilation_low'] });
    // The hold time has passed: this reading raises it, unless the rule scheduler did first.
    await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H5', ts: secondsAgo(1200), ventilation: 1 });
    const open = (await op.get('/api/v1/poultry-alarms/list?house_id=H5&status=active')).body.items;
    const id = open.find((a: Item) => a.rule_id === 'climate:ventilation_low').id;
    const escalated = await (async () => {
      for (let i = 0; i < 100; i++) {
        const item = (await op.get(`/api/v1/poultry-alarms/${id}`)).body.item;
        if (item.escalation_level >= 1) return item;
        await new Promise((res) => setTimeout(res, 50));
      }
      throw new Error('not escalated');
    })();
    expect(escalated).toMatchObject({ status: 'active', sla_breached: true, priority: 'P1' });
    const audit = (await admin.get(`/api/v1/audit/list?action=alarm.escalate&limit=50`)).body.items;
    expect(audit.some((a: Item) => a.actor === 'sla-escalator' && a.correlation_id === escalated.correlation_id)).toBe(true);
  });

  for (const transport of ['modbus-tcp', 'modbus-rtu'] as const) {
    it(`writes a confirmed setpoint to the controller over ${transport} and reads it back`, async () => {
      const house = transport === 'modbus-tcp' ? 'H2' : 'H3';
      await admin.post('/api/v1/poultry-flock/commands/place', { house_id: house, batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(10) });
      const where = transport === 'modbus-tcp' ? { host: '127.0.0.1', port: tcp.port } : { serial_path: pty.a };
      const adapter = await admin.post('/api/v1/poultry-adapters', { item: { unit_id: house, controller_id: `${house}-climate`, transport, modbus_unit_id: 1, ...where, points: [{ key: 'target_temp_c', address: 100, data_type: 'int16', scale: 10 }, { key: 'min_ventilation_pct', address: 101, data_type: 'uint16' }] } });
      expect(adapter.status).toBe(201);
      const proposed = await op.post('/api/v1/poultry-climate/commands/setpoint', { house_id: house, batch_id: 'B1', age_phase_id: 'd08-14', target_temp_c: 27.5, change_note: 'chicks huddling' });
      expect(proposed.status).toBe(201);
      expect(proposed.body.item).toMatchObject({ state: 'draft', version_id: 2, target_temp_c: 27.5, adapter_dispatch: { adapter_profile_id: adapter.body.item.id, controller_id: `${house}-climate`, transport, status: 'pending' } });
      const peer = transport === 'modbus-tcp' ? tcp : rtu;
      await peer.reset(); // the peers serve both dialects' runs
      expect((await peer.hr(100, 1))[0]).not.toBe(275);
      const ack = await admin.post('/api/v1/poultry-climate/commands/ack', { id: proposed.body.item.id });
      expect(ack.status).toBe(200);
      expect(ack.body.item).toMatchObject({ state: 'published', version_id: 2, adapter_dispatch: { status: 'verified', controller_id: `${house}-climate`, transport, message: null } });
      expect(ack.body.item.adapter_dispatch.written).toEqual([{ key: 'target_temp_c', value: 27.5, address: '100', verified: true }]);
      expect((await peer.hr(100, 1))[0]).toBe(275);
      const versions = (await op.get(`/api/v1/poultry-climate/list?house_id=${house}&age_phase_id=d08-14&sort=version_id`)).body.items;
      expect(versions.map((v: Item) => [v.version_id, v.state])).toEqual([[1, 'archived'], [2, 'published']]);
      const audit = (await admin.get(`/api/v1/audit/list?limit=50`)).body.items.filter((a: Item) => a.correlation_id === proposed.body.item.correlation_id);
      expect(audit.map((a: Item) => a.action)).toEqual(expect.arrayContaining(['poultry.climate.setpoint', 'poultry.climate.ack', `field.write.${transport === 'modbus-tcp' ? 'modbus' : 'modbus-rtu'}`]));
      expect(audit.find((a: Item) => a.action.startsWith('field.write')).details).toMatchObject({ outcome: 'ok', verified: true });
    }, 30_000);
  }

  it('an unreachable controller gives failed with the contract message and the old version stays published', async () => {
    const port = await closedTcpPort();
    await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H4', batch_id: 'B1', subtype: 'broiler', start_date: daysAgo(10) });
    await admin.post('/api/v1/poultry-adapters', { item: { unit_id: 'H4', controller_id: 'H4-climate', transport: 'modbus-tcp', host: '127.0.0.1', port, points: [{ key: 'target_temp_c', address: 100, scale: 10 }] } });
    const proposed = await op.post('/api/v1/poultry-climate/commands/setpoint', { house_id: 'H4', batch_id: 'B1', age_phase_id: 'd08-14', target_temp_c: 26 });
    const ack = await admin.post('/api/v1/poultry-climate/commands/ack', { id: proposed.body.item.id });
    expect(ack.status).toBe(200);
    expect(ack.body.item).toMatchObject({ state: 'draft', version_id: 2, adapter_dispatch: { status: 'failed', controller_id: 'H4-climate', transport: 'modbus-tcp' } });
    expect(ack.body.item.adapter_dispatch.message).toBe(`Connection refused 127.0.0.1:${port} addr:100`);
    const active = (await op.get('/api/v1/poultry-climate/list?house_id=H4&age_mode=active')).body.items;
    expect(active.map((v: Item) => [v.version_id, v.state, v.target_temp_c])).toEqual([[1, 'published', 28]]);
  }, 30_000);
});
