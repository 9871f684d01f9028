// Device credentials for MQTT and MQTT over TLS on loopback, with real mqtt.js clients: a
// credential is issued once (stored as a digest), publishes its own telemetry over TLS with the
// box's CA and is stored, is refused on any other topic, never opens the HTTP API, is listed with
// its last use and, revoked, is disconnected at once. The LAN side (a session token refused from
// another host, plaintext closed to the LAN, mosquitto_pub) is test/e2e/mqtt-lan.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

async function until<T>(fn: () => Promise<T | undefined | false> | T | undefined | false, what: string, ms = 10_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v as T;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const connect = (url: string, password: string, ca?: string) => new Promise<MqttClient>((resolve, reject) => {
  const client = mqtt.connect(url, { username: 'th-1', password, reconnectPeriod: 0, connectTimeout: 5000, clientId: `t-${randomBytes(4).toString('hex')}`, ...(ca ? { ca, rejectUnauthorized: true } : {}) });
  client.once('connect', () => resolve(client));
  client.once('error', (err) => { client.end(true); reject(err); });
});

const subscribe = (client: MqttClient, topic: string) => new Promise<number>((resolve, reject) =>
  client.subscribe(topic, { qos: 0 }, (err, granted) => {
    const refused = (err as { packet?: { granted?: number[] } } | null)?.packet?.granted?.[0];
    if (err) return refused === 128 ? resolve(128) : reject(err);
    resolve(granted?.[0]?.qos ?? -1);
  }));

describe.each(DIALECTS)('device credentials and MQTT over TLS (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let ca: string;
  let tls: string;
  let plain: string;
  let issued: { id: string; credential: string; topics: { publish: string; subscribe: string } };
  const clients: MqttClient[] = [];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'embedded', mqtt_port: '0', mqtt_tls_port: '0', telemetry_flush_ms: '10', mqtt_session_recheck_ms: '60000' });
    expect(server.services.mqtt?.tlsPort).toBeGreaterThan(0);
    ca = readFileSync(join(env.dataDir, 'tls', 'ca.crt'), 'utf8');
    tls = `mqtts://127.0.0.1:${server.services.mqtt!.tlsPort}`;
    plain = `mqtt://127.0.0.1:${server.services.mqtt!.port}`;
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'farm-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    const res = await admin.post('/api/v1/device-credentials/commands/issue', { device_id: 'th-1', site_id: 'farm-1', name: 'House 1 thermometer' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    issued = res.body.item;
  });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    await env.cleanup();
  });

  it('issues a credential once, lists it without its secret, and only an admin may', async () => {
    expect(issued.credential).toMatch(/^MQD-[A-Za-z0-9_-]{43}$/);
    expect(issued.topics).toEqual({ publish: 'cabinet/tA/farm-1/telemetry/th-1', subscribe: 'cabinet/tA/farm-1/commands/th-1' });
    const listed = (await admin.get('/api/v1/device-credentials/list')).body.items;
    expect(listed).toHaveLength(1);
    expect(listed[0]).toMatchObject({ id: issued.id, device_id: 'th-1', tenant_id: 'tA', site_id: 'farm-1', status: 'active', last_used_at: null });
    expect(JSON.stringify(listed)).not.toContain(issued.credential);
    expect(listed[0]).not.toHaveProperty('credential_digest');
    const operator = await clientAs(env, server, { subject: 'op', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, admin.contract);
    expect((await operator.post('/api/v1/device-credentials/commands/issue', { device_id: 'x' })).status).toBe(403);
    const other = await clientAs(env, server, { subject: 'b-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, admin.contract);
    expect((await other.get('/api/v1/device-credentials/list')).body.total).toBe(0);
  });

  it('never opens the HTTP API', async () => {
    for (const path of ['/api/v1/devices/telemetry/list', '/api/v1/device-credentials/list']) {
      const res = await fetch(`${server.url}${path}`, { headers: { authorization: `Bearer ${issued.credential}` } });
      expect(res.status, path).toBe(401);
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('auth_required');
    }
  });

  it('publishes its telemetry over TLS with the box\'s CA; it is stored and the credential\'s last use listed', async () => {
    const client = await connect(tls, issued.credential, ca);
    clients.push(client);
    await client.publishAsync(issued.topics.publish, JSON.stringify({ metric: 'temperature', value: 21.5 }), { qos: 1 });
    const rows = await until(async () => {
      const res = await admin.get('/api/v1/devices/telemetry/list?device_id=th-1');
      return res.body.total === 1 && res.body.items;
    }, 'the point');
    expect(rows[0]).toMatchObject({ tenant_id: 'tA', site_id: 'farm-1', device_id: 'th-1', metric: 'temperature', value: 21.5 });
    const item = await until(async () => {
      const got = (await admin.get(`/api/v1/device-credentials/${issued.id}`)).body.item;
      return got.last_used_at !== null && got;
    }, 'last use');
    expect(item.last_address).toMatch(/127\.0\.0\.1$/);
    // Its own commands topic only; no wildcard, no other device's.
    expect(await subscribe(client, issued.topics.subscribe)).toBe(0);
    expect(await subscribe(client, 'cabinet/tA/farm-1/commands/th-2')).toBe(128);
    expect(await subscribe(client, 'cabinet/tA/farm-1/commands/+')).toBe(128);
    expect(await subscribe(client, 'cabinet/tA/#')).toBe(128);
  });

  it('is refused on another device\'s topic: the connection closes and nothing is stored', async () => {
    for (const topic of ['cabinet/tA/farm-1/telemetry/th-2', 'cabinet/tA/_/telemetry/th-1', 'cabinet/tB/farm-1/telemetry/th-1', 'cabinet/tA/farm-1/status']) {
      const client = await connect(tls, issued.credential, ca);
      clients.push(client);
      const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
      client.publish(topic, JSON.stringify({ metric: 'intruder', value: 1 }), { qos: 1 });
      await closed;
    }
    const marker = await connect(tls, issued.credential, ca);
    clients.push(marker);
    await marker.publishAsync(issued.topics.publish, JSON.stringify({ metric: 'marker', value: 1 }), { qos: 1 });
    await until(async () => (await admin.get('/api/v1/devices/telemetry/list?metric=marker')).body.total === 1, 'marker');
    expect((await admin.get('/api/v1/devices/telemetry/list?metric=intruder')).body.total).toBe(0);
  });

  it('refuses a wrong credential and TLS without the box\'s CA', async () => {
    await expect(connect(tls, `MQD-${randomBytes(32).toString('base64url')}`, ca)).rejects.toThrow(/bad username or password|not authori/i);
    await expect(connect(tls, issued.credential)).rejects.toThrow(/self-signed|unable to verify|certificate/i);
  });

  it('takes a person\'s session token on loopback (local tools), over TLS and plaintext', async () => {
    const token = await env.token(server, { subject: 'local-tool', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const overTls = await connect(tls, token, ca);
    clients.push(overTls);
    const overPlain = await connect(plain, token);
    clients.push(overPlain);
    expect(overTls.connected && overPlain.connected).toBe(true);
  });

  it('revoked, its connections close at once and it connects no more', async () => {
    const extra = (await admin.post('/api/v1/device-credentials/commands/issue', { device_id: 'th-9', site_id: 'farm-1' })).body.item;
    const client = await connect(tls, extra.credential, ca);
    clients.push(client);
    const closed = new Promise<void>((resolve) => client.once('close', () => resolve()));
    const t0 = Date.now();
    const revoked = await admin.post('/api/v1/device-credentials/commands/revoke', { id: extra.id });
    expect(revoked.body.item).toMatchObject({ id: extra.id, status: 'revoked' });
    await closed;
    // At once, not at the next recheck (a minute here).
    expect(Date.now() - t0).toBeLessThan(5000);
    await expect(connect(tls, extra.credential, ca)).rejects.toThrow(/bad username or password|not authori/i);
    const denied = server.services.security;
    await denied.flush();
    const log = (await admin.get('/api/v1/device-credentials/list?status=revoked')).body.items;
    expect(log.map((i: { id: string }) => i.id)).toEqual([extra.id]);
  });
});
