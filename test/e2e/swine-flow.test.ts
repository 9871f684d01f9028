// End to end in cloud-multi: a swine site of one tenant beside a poultry site of another. Out-of-
// norm room telemetry raises an industry alarm that reaches the swine tenant's status WebSocket
// stream and MQTT with the mapped status and the same correlation id; the poultry tenant's
// industry alarm reaches only its own stream; neither tenant sees the other's rows in any list.
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import mqtt, { type MqttClient } from 'mqtt';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

interface StreamEvent { id: number; tenant_id: string | null; site_id: string | null; event: string; status: string; source: string; correlation_id: string | null; details: Record<string, unknown> | null }

async function until<T>(fn: () => T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function openStream(server: RunningServer, token: string) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/api/v1/status/stream`, { headers: { authorization: `Bearer ${token}` } });
  const events: StreamEvent[] = [];
  let ready = false;
  ws.on('message', (raw) => {
    const m = JSON.parse(String(raw)) as { type: string; data?: StreamEvent };
    if (m.type === 'ready') ready = true;
    if (m.type === 'event') events.push(m.data!);
  });
  ws.on('error', () => undefined);
  return { ws, events, ready: () => until(() => ready, 'stream ready') };
}

function openMqtt(url: string, token: string, topic: string): Promise<{ client: MqttClient; got: { topic: string; body: Record<string, unknown> }[] }> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { username: 'e2e', password: token, reconnectPeriod: 0, connectTimeout: 5000, clientId: `e2e-${randomBytes(4).toString('hex')}` });
    const got: { topic: string; body: Record<string, unknown> }[] = [];
    client.on('message', (t, payload) => got.push({ topic: t, body: JSON.parse(payload.toString()) as Record<string, unknown> }));
    client.once('connect', () => client.subscribe(topic, { qos: 0 }, (err) => (err ? reject(err) : resolve({ client, got }))));
    client.once('error', reject);
  });
}

describe.each(DIALECTS)('swine site beside a poultry site (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let swineOp: Client;
  let swineAdmin: Client;
  let poultryAdmin: Client;
  let swineToken: string;
  let poultryToken: string;
  const mqttClients: MqttClient[] = [];
  const sockets: WebSocket[] = [];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1' });
    swineToken = await env.token(server, { subject: 'swine-op', role: 'operator', scope_type: 'tenant', tenant_id: 'pig-co', site_id: 'sow-farm' });
    poultryToken = await env.token(server, { subject: 'poultry-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'bird-co', site_id: 'broiler-farm' });
    const { createClient } = await import('../helpers/client.js');
    swineOp = await createClient(server.url, { authorization: `Bearer ${swineToken}` });
    swineAdmin = await clientAs(env, server, { subject: 'swine-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'pig-co', site_id: 'sow-farm' }, swineOp.contract);
    poultryAdmin = await createClient(server.url, { authorization: `Bearer ${poultryToken}` }, swineOp.contract);
  });
  afterAll(async () => {
    for (const c of mqttClients) c.end(true);
    for (const s of sockets) s.close();
    await env.cleanup();
  });

  it('raises a swine alarm to its own tenant stream and MQTT only, and keeps every list apart', async () => {
    const swineStream = openStream(server, swineToken);
    const poultryStream = openStream(server, poultryToken);
    sockets.push(swineStream.ws, poultryStream.ws);
    await swineStream.ready();
    await poultryStream.ready();
    const url = `mqtt://127.0.0.1:${server.services.mqtt!.port}`;
    const swineMqtt = await openMqtt(url, swineToken, 'cabinet/pig-co/sow-farm/#');
    const poultryMqtt = await openMqtt(url, poultryToken, 'cabinet/bird-co/broiler-farm/#');
    mqttClients.push(swineMqtt.client, poultryMqtt.client);

    // The poultry tenant publishes an industry alarm on its own site.
    const poultryCorr = `poultry-e2e-${dialect}`;
    const pub = await poultryAdmin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', unit_id: 'house-2', severity: 'critical', title: 'House 2 ventilation failure', correlation_id: poultryCorr, priority: 'P1', sla_target_sec: 300 });
    expect(pub.status).toBe(201);
    const poultryEvent = await until(() => poultryStream.events.find((e) => e.correlation_id === poultryCorr && e.event === 'alarm_raised'), 'poultry bridged event');
    expect(poultryEvent).toMatchObject({ status: 'error', event: 'alarm_raised', source: 'poultry-alarms', tenant_id: 'bird-co', site_id: 'broiler-farm' });

    // The swine site: a normal reading, then a weaner room far too hot.
    expect((await swineAdmin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'weaner-1', avg_weight_kg: 9, temp_c: 27, nh3_ppm: 10 })).body.item.status).toBe('ok');
    const corr = `swine-e2e-${dialect}`;
    // The room has been too hot since 150 s ago (the rule holds a breach 120 s): this reading raises.
    await swineAdmin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'weaner-1', avg_weight_kg: 9, temp_c: 32.1, nh3_ppm: 10, ts: new Date(Date.now() - 150_000).toISOString() });
    const hot = await swineAdmin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'weaner-1', avg_weight_kg: 9, temp_c: 32.4, nh3_ppm: 10 }, { 'x-request-id': corr });
    expect(hot.body.item).toMatchObject({ status: 'alarm', out_of_norm_flags: ['temp_high'] });
    const [raised] = hot.body.item.alarms;
    expect(raised).toMatchObject({ severity: 'high', priority: 'P1', correlation_id: corr });

    const swineEvent = await until(() => swineStream.events.find((e) => e.correlation_id === corr && e.event === 'alarm_raised'), 'swine bridged event on the WebSocket');
    expect(swineEvent).toMatchObject({ status: 'error', event: 'alarm_raised', source: 'swine-alarms', tenant_id: 'pig-co', site_id: 'sow-farm' });
    expect(swineEvent.details).toMatchObject({ alarm_id: raised.id, industry_code: 'swine', unit_id: 'weaner-1', severity: 'high', priority: 'P1' });
    const overMqtt = await until(() => swineMqtt.got.find((g) => g.topic.endsWith('/status') && g.body.correlation_id === corr && g.body.event === 'alarm_raised'), 'swine status over MQTT');
    expect(overMqtt.body).toMatchObject({ status: 'error', event: 'alarm_raised' });
    const alarmOverMqtt = await until(() => swineMqtt.got.find((g) => g.topic.endsWith('/alarms') && (g.body.alarm as { correlation_id?: string } | undefined)?.correlation_id === corr), 'swine alarm over MQTT');
    expect(alarmOverMqtt.body).toMatchObject({ kind: 'raised', alarm: { industry_code: 'swine', severity: 'high', state: 'active' } });

    // A medium swine alarm published by hand maps to warn.
    const medium = await swineAdmin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'swine', unit_id: 'weaner-1', severity: 'medium', title: 'Creep lamp check', correlation_id: `swine-medium-${dialect}` });
    expect(medium.status).toBe(201);
    expect((await until(() => swineStream.events.find((e) => e.correlation_id === `swine-medium-${dialect}` && e.event === 'alarm_raised'), 'medium event')).status).toBe('warn');

    // Back in the band: the alarm is cleared, and that too reaches the stream.
    await swineAdmin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'weaner-1', avg_weight_kg: 9, temp_c: 27.2 });
    await until(() => swineStream.events.find((e) => e.correlation_id === corr && e.event === 'alarm_cleared'), 'cleared event');

    // Neither tenant saw the other's events.
    expect(poultryStream.events.some((e) => e.tenant_id !== 'bird-co')).toBe(false);
    expect(swineStream.events.some((e) => e.tenant_id !== 'pig-co')).toBe(false);
    expect(poultryStream.events.some((e) => e.correlation_id === corr)).toBe(false);
    expect(swineStream.events.some((e) => e.correlation_id === poultryCorr)).toBe(false);
    expect(poultryMqtt.got.some((g) => JSON.stringify(g.body).includes(corr))).toBe(false);
    expect(swineMqtt.got.some((g) => JSON.stringify(g.body).includes(poultryCorr))).toBe(false);

    // Nor each other's rows.
    const swineAlarms = (await swineOp.get('/api/v1/industry-alarms/list')).body.items as { tenant_id: string; industry_code: string }[];
    expect(swineAlarms.length).toBe(2);
    expect(swineAlarms.every((a) => a.tenant_id === 'pig-co' && a.industry_code === 'swine')).toBe(true);
    const poultryAlarms = (await poultryAdmin.get('/api/v1/industry-alarms/list')).body.items as { tenant_id: string; industry_code: string; correlation_id: string }[];
    expect(poultryAlarms.map((a) => a.correlation_id)).toEqual([poultryCorr]);
    expect((await poultryAdmin.get('/api/v1/industry-alarms/list?industry_code=swine')).body.total).toBe(0);
    expect((await swineOp.get('/api/v1/industry-alarms/list?industry_code=poultry')).body.total).toBe(0);
    expect((await swineOp.get(`/api/v1/industry-alarms/${pub.body.item.id}`)).status).toBe(404);
    expect((await poultryAdmin.get(`/api/v1/industry-alarms/${raised.id}`)).status).toBe(404);
    expect((await poultryAdmin.get('/api/v1/swine-climate/list')).body.total).toBe(0);
    expect((await swineOp.get('/api/v1/swine-climate/list')).body.total).toBe(4);
    expect((await poultryAdmin.get('/api/v1/status/list?source=swine-alarms')).body.total).toBe(0);
    expect((await swineOp.get('/api/v1/status/list?source=poultry-alarms')).body.total).toBe(0);
    expect((await poultryAdmin.get('/api/v1/industry-alarms/list?tenant_id=pig-co')).body.error.code).toBe('tenant_boundary_denied');
  });
});
