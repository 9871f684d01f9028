// The embedded broker is made after the service is ready (src/modules/status/mqtt.ts): its
// listeners are bound at start, a client that connects before the broker exists is served once it
// does, a connection that goes away while it waits harms nothing, and a server stopped before the
// broker was made stops cleanly. Real mqtt.js clients against real servers.
import { connect as tcpConnect } from 'node:net';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import mqtt, { type MqttClient } from 'mqtt';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { BROKER_AFTER_READY_MS } from '../../src/modules/status/mqtt.js';

const MQTT = { mqtt_broker: 'embedded', mqtt_port: '0', mqtt_host: '127.0.0.1' };

function connectMqtt(port: number, password: string): Promise<MqttClient> {
  return new Promise((resolve, reject) => {
    const client = mqtt.connect(`mqtt://127.0.0.1:${port}`, { username: 'test', password, reconnectPeriod: 0, connectTimeout: 5000, clientId: `t-${randomBytes(4).toString('hex')}` });
    client.once('connect', () => resolve(client));
    client.once('error', (err) => { client.end(true); reject(err); });
  });
}

/** Subscribes to the tenant's status topic and resolves with the first status message's body. */
async function firstStatus(client: MqttClient, tenant: string): Promise<() => Promise<Record<string, unknown>>> {
  const got = new Promise<Record<string, unknown>>((resolve) =>
    client.on('message', (_topic, payload) => resolve(JSON.parse(payload.toString()) as Record<string, unknown>)));
  await new Promise<void>((resolve, reject) => client.subscribe(`cabinet/${tenant}/+/status`, { qos: 0 }, (err, granted) =>
    (err ? reject(err) : granted?.[0]?.qos === 128 ? reject(new Error('subscription refused')) : resolve())));
  return () => got;
}

describe('embedded MQTT broker made after ready', () => {
  let env: TestEnv;
  const clients: MqttClient[] = [];

  beforeAll(async () => { env = await createTestEnv('sqlite'); });
  afterAll(async () => {
    for (const c of clients) c.end(true);
    await env.cleanup();
  });

  it('serves a client that connects before the broker exists, and publishes to it', async () => {
    const server: RunningServer = await env.start(MQTT);
    const handle = server.services.mqtt!;
    expect(handle.mode).toBe('embedded');
    // Ready, listening, and the broker not made yet: this client waits for it.
    expect(server.services.lifecycle.state).toBe('ready');
    expect(handle.port).toBeGreaterThan(0);
    expect(handle.brokerMade!()).toBe(false);
    const token = await env.token(server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' });
    const client = await connectMqtt(handle.port!, token);
    clients.push(client);
    expect(handle.brokerMade!()).toBe(true);
    const status = await firstStatus(client, 'tA');
    const master = await clientAs(env, server);
    const opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    const saved = (await opA.post('/api/v1/status/commands/publish', { source: 'test', event: 'after_ready', status: 'ok' })).body.item;
    expect(await status()).toEqual(saved);
    // A wrong password is still refused by the broker made late.
    await expect(connectMqtt(handle.port!, 'forged.token.value')).rejects.toThrow(/bad username or password|not authorized/i);
    await server.close();
  });

  it('makes the broker after ready without a client; a connection that leaves while waiting harms nothing', async () => {
    const server = await env.start(MQTT);
    const handle = server.services.mqtt!;
    expect(handle.brokerMade!()).toBe(false);
    // Connects and goes away before the broker exists (reset: an error on a socket nobody reads yet).
    await new Promise<void>((resolve, reject) => {
      const s = tcpConnect(handle.port!, '127.0.0.1', () => { s.resetAndDestroy(); resolve(); });
      s.on('error', reject);
    });
    await new Promise((r) => setTimeout(r, BROKER_AFTER_READY_MS + 300));
    expect(handle.brokerMade!()).toBe(true);
    const client = await connectMqtt(handle.port!, await env.token(server));
    clients.push(client);
    expect(client.connected).toBe(true);
    await server.close();
  });

  it('stops cleanly before the broker is made, freeing its port', async () => {
    const server = await env.start(MQTT);
    const handle = server.services.mqtt!;
    const port = handle.port!;
    expect(handle.brokerMade!()).toBe(false);
    await server.close();
    expect(handle.brokerMade!()).toBe(false);
    await new Promise((r) => setTimeout(r, BROKER_AFTER_READY_MS + 100));
    expect(handle.brokerMade!()).toBe(false);
    // The port is free again: a plain listener can take it.
    const { createServer } = await import('node:net');
    const probe = createServer();
    await new Promise<void>((resolve, reject) => { probe.once('error', reject); probe.listen(port, '127.0.0.1', () => resolve()); });
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
});
