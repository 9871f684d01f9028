// MQTT with real mqtt.js clients: the embedded Aedes broker (token auth, per-tenant topic
// authorisation, status events out, telemetry in), the port-taken path, and the external
// broker mode against the Mosquitto on 127.0.0.1:1883 (skipped when none is running).
import { createServer, connect as tcpConnect, type AddressInfo } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { sql } from 'drizzle-orm';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

interface Received { topic: string; body: Record<string, unknown> }

async function until<T>(fn: () => Promise<T | undefined> | T | undefined, ms = 10_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function connectMqtt(url: string, password?: string): Promise<{ client: MqttClient; got: Received[] }> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(url, { username: 'test', password, reconnectPeriod: 0, connectTimeout: 5000, clientId: `t-${randomBytes(4).toString('hex')}` });
    const got: Received[] = [];
    client.on('message', (topic, payload) => {
      // A subscriber under cabinet/# also sees what devices publish, malformed payloads included.
      let body: Record<string, unknown>;
      try { body = JSON.parse(payload.toString()) as Record<string, unknown>; } catch { body = { unparsed: payload.toString() }; }
      got.push({ topic, body });
    });
    client.once('connect', () => resolve({ client, got }));
    client.once('error', (err) => { client.end(true); reject(err); });
  });
}

const subscribe = (client: MqttClient, topic: string) =>
  new Promise<number>((resolve, reject) =>
    client.subscribe(topic, { qos: 0 }, (err, granted) => {
      // mqtt.js reports a refused subscription (SUBACK 128) as an error carrying the packet.
      const refused = (err as { packet?: { granted?: number[] } } | null)?.packet?.granted?.[0];
      if (err) return refused === 128 ? resolve(128) : reject(err);
      resolve(granted?.[0]?.qos ?? -1);
    }));

describe.each(DIALECTS)('embedded MQTT broker (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let url: string;
  let opA: Client;
  let master: Client;
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', telemetry_flush_ms: '10', mqtt_session_recheck_ms: '100' });
    expect(server.services.mqtt?.mode).toBe('embedded');
    url = `mqtt://127.0.0.1:${server.services.mqtt!.port}`;
    master = await clientAs(env, server);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
  });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    await env.cleanup();
  });

  const open = async (claims?: Record<string, unknown>) => {
    const c = await connectMqtt(url, await env.token(server, claims as never));
    clients.push(c.client);
    return c;
  };

  it('refuses a client without credentials or with a forged token', async () => {
    await expect(connectMqtt(url)).rejects.toThrow(/bad username or password|not authorized/i);
    await expect(connectMqtt(url, 'forged.token.value')).rejects.toThrow(/bad username or password|not authorized/i);
  });

  it('disconnects a client whose session ended', async () => {
    const token = await env.token(server, { subject: 'op-leaving', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const { client } = await connectMqtt(url, token);
    clients.push(client);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    expect((await master.post('/api/v1/auth/commands/logout', undefined, { authorization: `Bearer ${token}` })).body.item.logged_out).toBe(true);
    await closed;
    expect(client.connected).toBe(false);
  });

  it('lets a tenant subscribe only under its own tenant (no wildcard escape)', async () => {
    const { client } = await open({ subject: 'dev-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    expect(await subscribe(client, 'cabinet/tA/+/status')).toBe(0);
    expect(await subscribe(client, 'cabinet/tB/+/status')).toBe(128);
    expect(await subscribe(client, 'cabinet/+/+/status')).toBe(128);
    expect(await subscribe(client, 'cabinet/#')).toBe(128);
    expect(await subscribe(client, '#')).toBe(128);
    expect(await subscribe(client, '$SYS/#')).toBe(128);
    const site = await open({ subject: 'dev-a-s1', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 's1' });
    expect(await subscribe(site.client, 'cabinet/tA/s1/status')).toBe(0);
    expect(await subscribe(site.client, 'cabinet/tA/+/status')).toBe(128);
  });

  it('publishes stored status events to the own tenant\'s subscribers only; the master sees all', async () => {
    const a = await open({ subject: 'sub-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const b = await open({ subject: 'sub-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' });
    const m = await open();
    await subscribe(a.client, 'cabinet/tA/#');
    await subscribe(b.client, 'cabinet/tB/#');
    await subscribe(m.client, 'cabinet/#');
    const forB = (await master.post('/api/v1/status/commands/publish', { tenant_id: 'tB', source: 'test', event: 'b_only', status: 'ok' })).body.item;
    const forA = (await opA.post('/api/v1/status/commands/publish', { site_id: 's1', source: 'test', event: 'a_event', status: 'warn' })).body.item;
    await until(() => a.got.some((g) => g.body.id === forA.id), 10_000, 'tenant A status event');
    await until(() => m.got.some((g) => g.body.id === forA.id) && m.got.some((g) => g.body.id === forB.id), 10_000, 'master events');
    await until(() => b.got.some((g) => g.body.id === forB.id), 10_000, 'tenant B status event');
    const received = a.got.find((g) => g.body.id === forA.id)!;
    expect(received.topic).toBe('cabinet/tA/s1/status');
    expect(received.body).toEqual(forA);
    expect(a.got.some((g) => g.body.id === forB.id)).toBe(false);
    expect(b.got.some((g) => g.body.id === forA.id)).toBe(false);
    const alarm = await server.services.alarms!.raise({ tenant_id: 'tA', severity: 'low', source: 'rules', title: 'over mqtt' });
    await until(() => a.got.some((g) => g.topic === 'cabinet/tA/_/alarms' && (g.body.alarm as { id: string }).id === alarm.id), 10_000, 'alarm');
  });

  it('stores telemetry a device publishes; a publish into another tenant is refused and stored nowhere', async () => {
    const dev = await open({ subject: 'device:th-9', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    dev.client.publish('cabinet/tA/farm-1/telemetry/th-9', JSON.stringify({ metric: 'temperature', value: 23.5, unit: 'C', latency_ms: 12 }), { qos: 1 });
    dev.client.publish('cabinet/tA/farm-1/telemetry/th-9', JSON.stringify([{ metric: 'humidity', value: 55 }, { metric: 'co2', value: 900, status: 'warn' }]), { qos: 1 });
    const rows = await until(async () => {
      const res = await opA.get('/api/v1/devices/telemetry/list?device_id=th-9');
      // Items and total are two queries (in parallel on PostgreSQL): a batch committed between them shows in one only.
      return res.body.total === 3 && res.body.items.length === 3 ? res.body.items : undefined;
    }, 10_000, 'telemetry rows');
    expect(rows.every((r: { tenant_id: string; site_id: string }) => r.tenant_id === 'tA' && r.site_id === 'farm-1')).toBe(true);
    expect(rows.map((r: { metric: string }) => r.metric).sort()).toEqual(['co2', 'humidity', 'temperature']);
    const intruder = await open({ subject: 'device:x', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const closed = new Promise<void>((resolve) => intruder.client.once('close', () => resolve()));
    intruder.client.publish('cabinet/tB/farm-1/telemetry/x-1', JSON.stringify({ metric: 'temperature', value: 99 }), { qos: 1 });
    await closed;
    // A later, allowed point arrives; the refused one never does.
    dev.client.publish('cabinet/tA/farm-1/telemetry/th-9', JSON.stringify({ metric: 'marker', value: 1 }), { qos: 1 });
    await until(async () => (await opA.get('/api/v1/devices/telemetry/list?metric=marker')).body.total === 1 || undefined, 10_000, 'marker');
    expect((await master.get('/api/v1/devices/telemetry/list?device_id=x-1')).body.total).toBe(0);
  });

  it('refuses bad telemetry payloads (one point, a list, {points}), counts and logs them, and stores none of their points', async () => {
    const dev = await open({ subject: 'device:bad-1', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const stats = server.services.mqtt!.stats;
    const before = { received: stats.received, rejected: stats.rejected };
    const topic = 'cabinet/tA/farm-1/telemetry/bad-1';
    const bad = [
      '{not json',
      JSON.stringify({ metric: 'temperature', value: 'hot' }),
      JSON.stringify({ metric: 'temperature', value: 1, colour: 'red' }),
      JSON.stringify([{ metric: 'temperature', value: 1 }, { metric: 'temperature', value: '2' }]),
      JSON.stringify({ points: [{ metric: 'temperature', value: 2, ts: 'yesterday' }] }),
      JSON.stringify([]),
    ];
    for (const body of bad) dev.client.publish(topic, body, { qos: 1 });
    dev.client.publish(topic, JSON.stringify({ metric: 'good', value: 3 }), { qos: 1 });
    await until(async () => (await opA.get('/api/v1/devices/telemetry/list?device_id=bad-1')).body.total === 1 || undefined, 10_000, 'the good point');
    expect((await opA.get('/api/v1/devices/telemetry/list?device_id=bad-1')).body.items.map((i: { metric: string }) => i.metric)).toEqual(['good']);
    expect(stats.rejected - before.rejected).toBe(bad.length);
    expect(stats.received - before.received).toBe(1);
    expect(env.logs.some((l) => l.msg === 'MQTT telemetry payload refused')).toBe(true);
  });
});

describe('MQTT start-up paths', () => {
  let env: TestEnv;
  beforeAll(async () => { env = await createTestEnv('sqlite'); });
  afterAll(async () => env.cleanup());

  it('says clearly when the MQTT port is taken, and HTTP goes on', async () => {
    const blocker = createServer();
    await new Promise<void>((r) => blocker.listen(0, '127.0.0.1', () => r()));
    const port = (blocker.address() as AddressInfo).port;
    try {
      const server = await env.start({ mqtt_broker: 'auto', mqtt_port: String(port), mqtt_host: '127.0.0.1' });
      expect(server.services.mqtt?.mode).toBe('off');
      expect(env.logs.some((l) => l.msg === `MQTT port ${port} is in use; that listener is off, HTTP goes on`)).toBe(true);
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
      await server.close();
    } finally {
      blocker.close();
    }
  });

  const mosquitto = () => new Promise<boolean>((resolve) => {
    const s = tcpConnect(1883, '127.0.0.1');
    s.once('connect', () => { s.destroy(); resolve(true); });
    s.once('error', () => resolve(false));
  });

  it('cloud-multi with mqtt_url: publishes status events to and ingests telemetry from an external broker', async (ctx) => {
    if (!(await mosquitto())) ctx.skip();
    const prefix = `cabinet-test-${randomBytes(4).toString('hex')}`;
    const server = await env.start({ mode: 'cloud-multi', mqtt_url: 'mqtt://127.0.0.1:1883', mqtt_topic_prefix: prefix, telemetry_flush_ms: '10' });
    expect(server.services.mqtt?.mode).toBe('external');
    await server.services.mqtt!.ready;
    const api = await clientAs(env, server, { subject: 'op', role: 'operator', scope_type: 'tenant', tenant_id: 'tX' });
    const ext = await connectMqtt('mqtt://127.0.0.1:1883');
    try {
      await subscribe(ext.client, `${prefix}/#`);
      const event = (await api.post('/api/v1/status/commands/publish', { source: 'ext', event: 'external_ok', status: 'ok' })).body.item;
      await until(() => ext.got.find((g) => g.topic === `${prefix}/tX/_/status` && g.body.id === event.id), 10_000, 'status over external broker');
      ext.client.publish(`${prefix}/tX/s9/telemetry/ext-1`, JSON.stringify({ metric: 'level', value: 7 }), { qos: 1 });
      await until(async () => (await api.get('/api/v1/devices/telemetry/list?device_id=ext-1')).body.total === 1 || undefined, 10_000, 'external telemetry');
    } finally {
      ext.client.end(true);
      await server.close();
    }
  });
});

describe('a trickle of points is gathered into few commits (flash wear), with the default telemetry_flush_ms', () => {
  let env: TestEnv;
  let server: RunningServer;
  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1' });
  });
  afterAll(async () => { await env.cleanup(); });

  it('30 points from 10 sensors over 3 s are two or three commits, not one per point or per 200 ms', async () => {
    expect(server.services.config.telemetry_flush_ms).toBe(2000);
    const url = `mqtt://127.0.0.1:${server.services.mqtt!.port}`;
    const { client } = await connectMqtt(url, await env.token(server, { subject: 'device:trickle', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' } as never));
    const writer = server.services.telemetry!.writer;
    try {
      const before = { batches: writer.stats.batches, written: writer.stats.written };
      const acks: Promise<unknown>[] = [];
      for (let i = 0; i < 30; i++) {
        acks.push(client.publishAsync(`cabinet/tA/farm-1/telemetry/trickle-${i % 10}`, JSON.stringify({ metric: 'temperature', value: 20 + i / 10 }), { qos: 1 }));
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await Promise.all(acks);
      expect(writer.stats.written - before.written).toBe(30);
      // Every 2 s at most: 3 s of points are 2 commits, 3 when the first window opened late.
      expect(writer.stats.batches - before.batches).toBeLessThanOrEqual(3);
    } finally {
      client.end(true);
    }
  });
});

describe('a QoS 1 acknowledgement means stored', () => {
  let env: TestEnv;
  let server: RunningServer;
  let url: string;
  const FLUSH_MS = 1200;
  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    // A long batch timer: a point waits for it before it is stored.
    server = await env.start({ mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1', telemetry_flush_ms: String(FLUSH_MS) });
    url = `mqtt://127.0.0.1:${server.services.mqtt!.port}`;
  });
  afterAll(async () => { await env.cleanup(); });

  const device = () => env.token(server, { subject: 'device:ack-1', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' } as never);
  const stored = async (metric: string) => {
    const rows = await server.services.db.rows<{ n: number }>(sqlCount(metric));
    return Number(rows[0]?.n ?? 0);
  };

  it('the PUBACK comes once the point is in the database, not when it is queued', async () => {
    const { client } = await connectMqtt(url, await device());
    try {
      const t0 = Date.now();
      await client.publishAsync('cabinet/tA/farm-1/telemetry/ack-1', JSON.stringify({ metric: 'acked', value: 1 }), { qos: 1 });
      const waited = Date.now() - t0;
      // At the acknowledgement the point is already stored (before: acknowledged at once, stored a batch later).
      expect(await stored('acked')).toBe(1);
      expect(waited).toBeGreaterThanOrEqual(FLUSH_MS - 100);
    } finally {
      client.end(true);
    }
  });

  it('a point the box could not store is never acknowledged: the connection closes and the client may send it again', async () => {
    const { client } = await connectMqtt(url, await device());
    // The points tables gone (on SQLite a gathered point waits in the recent one): the batch fails to be written.
    await server.services.db.exec('alter table telemetry_points rename to telemetry_points_away');
    await server.services.db.exec('alter table telemetry_points_recent rename to telemetry_points_recent_away');
    try {
      let acked = false;
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      client.publish('cabinet/tA/farm-1/telemetry/ack-1', JSON.stringify({ metric: 'lost', value: 1 }), { qos: 1 }, (err) => { if (!err) acked = true; });
      await closed;
      expect(acked).toBe(false);
      expect(server.services.mqtt!.stats.rejected).toBeGreaterThanOrEqual(1);
    } finally {
      await server.services.db.exec('alter table telemetry_points_away rename to telemetry_points');
      await server.services.db.exec('alter table telemetry_points_recent_away rename to telemetry_points_recent');
      client.end(true);
    }
  });
});

function sqlCount(metric: string) {
  return sql`select count(*) as n from device_telemetry where metric = ${metric}`;
}
