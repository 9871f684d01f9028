// The master dials nobody's address (cloud-multi): a tenant admin's read-now of every industry's
// adapters, an adapter profile it would poll, a field write, a poll handed to the poller, and
// notification targets on loopback or private addresses are refused before any connection. A
// listener on loopback records every connection made to it: it must see none. (Before: read-now
// answered 502 "Connection refused 127.0.0.1:1" — the master had dialled the address.)
import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { checkTarget, notPublic } from '../../src/runtime/egress.js';

describe('the master cloud dials nobody\'s address', () => {
  let env: TestEnv;
  let server: RunningServer;
  let tenant: Client;
  let trap: Server;
  let port: number;
  const connections: string[] = [];

  beforeAll(async () => {
    trap = createServer((socket) => { connections.push(`${socket.remoteAddress}:${socket.remotePort}`); socket.destroy(); });
    await new Promise<void>((resolve) => trap.listen(0, '127.0.0.1', () => resolve()));
    port = (trap.address() as AddressInfo).port;
    env = await createTestEnv('sqlite');
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    tenant = await clientAs(env, server, { subject: 'tenant-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a' }, master.contract);
  });
  afterAll(async () => {
    await env.cleanup();
    trap.close();
  });

  const link = () => ({ transport: 'modbus-tcp', host: '127.0.0.1', port });

  it('refuses read-now of every industry\'s adapters with 409 not_on_master', async () => {
    const reading = { object_type: 'input register', address: 0, data_type: 'int16', scale: 10 };
    for (const [industry, key] of [['poultry', 'temp'], ['swine', 'temp'], ['melioration', 'air_temp_c']] as const) {
      const res = await tenant.post(`/api/v1/${industry}-adapters/commands/read-now`, { ...link(), reading: { key, ...reading } });
      expect(res.status, `${industry}: ${JSON.stringify(res.body)}`).toBe(409);
      expect(res.body.error.code).toBe('not_on_master');
      expect(res.body.error.message).toMatch(/master cloud has no field bus/);
    }
  });

  it('refuses to save an adapter profile it would poll; nothing is stored', async () => {
    const res = await tenant.post('/api/v1/poultry-adapters', { item: { unit_id: 'H1', controller_id: 'h1', ...link(), points: [{ key: 'target_temp_c', address: 1 }], readings: [{ key: 'temp', object_type: 'input register', address: 0 }] } });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('not_on_master');
    expect((await tenant.get('/api/v1/poultry-adapters/list')).body.total).toBe(0);
  });

  it('polls no device and writes to none, whatever reaches the poller or the field service', async () => {
    server.services.poller.set([{
      id: 'poultry:planted', industry: 'poultry', tenant_id: 'farm-a', site_id: null, unit_id: 'H1', controller_id: 'planted', transport: 'modbus-tcp',
      host: '127.0.0.1', port, modbus_unit_id: 1, device_instance: undefined, serial_path: undefined, period_ms: 100, loss_after_misses: 1,
      points: [{ key: 'temp', kind: 'reading', table: 'input', address: 0, data_type: 'int16', order: 'LE', scale: 10, offset: 0 }],
    } as never]);
    const write = await server.services.field.execute({ protocol: 'modbus', params: [{ ip: '127.0.0.1', port, object_type: 'holding register', object_address: 1, data_type: 'int16', value: 1 }] },
      { id: 'test', tenant_id: 'farm-a' } as never, 'c-1');
    expect(write).toMatchObject({ ok: false, status: 400 });
    expect(() => server.services.field.modbusBus({ kind: 'tcp', host: '127.0.0.1', port })).toThrow(/master cloud has no field bus/);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(connections).toEqual([]);
  });

  it('refuses webhook and SMTP targets on loopback, link-local or private addresses', async () => {
    const key = 'a-webhook-key-0123456789abcdef';
    for (const url of [`http://127.0.0.1:${port}/hook`, 'http://localhost:8080/x', 'http://169.254.169.254/latest/meta-data', 'http://10.1.2.3/hook', 'http://[::1]:9/hook', 'http://[::ffff:192.168.1.1]/x']) {
      const res = await tenant.post('/api/v1/notification-channels', { item: { name: 'hook', kind: 'webhook', webhook_url: url, webhook_key: key } });
      expect(res.status, url).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'item.webhook_url', reason: 'private_address' }]);
    }
    const mail = await tenant.post('/api/v1/notification-channels', { item: { name: 'mail', kind: 'email', smtp_host: '192.168.0.10', smtp_from: 'a@farm.test' } });
    expect(mail.status).toBe(400);
    expect(mail.body.error.details).toEqual([{ field: 'item.smtp_host', reason: 'private_address' }]);
    // A public address is accepted as before.
    expect((await tenant.post('/api/v1/notification-channels', { item: { name: 'ok', kind: 'webhook', webhook_url: 'https://hooks.example.com/x', webhook_key: key } })).status).toBe(201);
    expect(connections).toEqual([]);
  });

  it('checks a name again before each delivery: one that resolves into the master\'s network is refused', async () => {
    const config = { mode: 'cloud-multi', master_private_targets: false } as const;
    await expect(checkTarget(config, 'localhost', 'the webhook host')).rejects.toThrow(/resolves to .*loopback, link-local or private/);
    await expect(checkTarget({ ...config, master_private_targets: true }, 'localhost', 'the webhook host')).resolves.toBeUndefined();
    await expect(checkTarget({ mode: 'edge-single', master_private_targets: false }, '127.0.0.1', 'the webhook host')).resolves.toBeUndefined();
    for (const a of ['127.0.0.1', '10.0.0.1', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '::1', 'fe80::1', 'fd00::1', '::ffff:10.0.0.1', '::ffff:127.0.0.1']) expect(notPublic(a), a).toBe(true);
    for (const a of ['8.8.8.8', '1.1.1.1', '172.32.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8']) expect(notPublic(a), a).toBe(false);
  });
});
