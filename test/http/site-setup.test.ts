// The site set-up list: a fresh box names every missing step in the installer's words, in
// commissioning order; as the box is commissioned through the API (cards, a flock, a controller
// on a real Modbus peer, the siren on a real I/O module, a notification channel and rule) each
// line turns done, and a controller that stops answering turns its line back to attention.
// Only the site's admins (and security) read it, each for their own tenant.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { startModbusPeer, stopAll, waitFor, type ModbusPeer } from '../field/helpers.js';
import { startIoPeer, type IoPeer } from '../field/peers/io-peer.js';

interface Line { id: string; order: number; title: string; state: string; words: string; module: string | null; screen: string | null }

describe('site set-up list', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let tenant = '';
  let controller: ModbusPeer;
  let io: IoPeer;

  const lines = async (c: Client = admin): Promise<Line[]> => {
    const r = await c.get('/api/v1/site-setup/list');
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    return r.body.items as Line[];
  };
  const line = async (id: string) => (await lines()).find((l) => l.id === id)!;

  beforeAll(async () => {
    controller = await startModbusPeer('tcp', '0');
    await controller.set('ir', 0, [215]);
    io = await startIoPeer('tcp', '0');
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    tenant = (JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string }).tenant_id;
    const owner = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'installer', role: 'admin', scope_type: 'tenant', tenant_id: tenant }, owner.contract);
  }, 90_000);
  afterAll(async () => {
    await env?.cleanup();
    await io?.stop();
    await stopAll();
  });

  it('on a fresh box: every step in order, what is missing said in words, each linked to its screen', async () => {
    const all = await lines();
    expect(all.map((l) => l.id)).toEqual(['https', 'people', 'poultry-units', 'poultry-controllers', 'siren', 'notifications', 'master']);
    expect(all.map((l) => l.order)).toEqual([...all.map((l) => l.order)].sort((a, b) => a - b));
    const by = Object.fromEntries(all.map((l) => [l.id, l]));
    // the test server runs without HTTPS: that is a missing step, with what it costs the farm
    expect(by.https).toMatchObject({ state: 'missing', screen: null, module: null });
    expect(by.https!.words).toMatch(/plain HTTP/);
    expect(by.people).toMatchObject({ state: 'missing', module: 'passkeys' });
    expect(by.people!.words).toMatch(/No operator card yet/);
    expect(by['poultry-units']).toMatchObject({ state: 'missing', module: 'poultry' });
    expect(by['poultry-controllers']!.words).toMatch(/No controller added/);
    expect(by.siren).toMatchObject({ state: 'missing', module: 'alarm-relay' });
    expect(by.siren!.words).toBe('No siren output: an unacknowledged P1 sounds only on the tablets, and no watchdog output: a dialler cannot tell that the box itself stopped.');
    expect(by.notifications).toMatchObject({ state: 'missing', module: 'notifications' });
    expect(by.master).toMatchObject({ state: 'optional', screen: 'settings' });
    // words for people: no snake_case, no HTTP code
    for (const l of all) expect(l.words, l.id).not.toMatch(/\b[a-z]+_[a-z]+\b(?<!https_port)|\b[45]\d\d\b/);
  });

  it('only the site\'s admins and security read it, for their own tenant', async () => {
    const operator = await clientAs(env, server, { subject: 'crew', role: 'operator', scope_type: 'tenant', tenant_id: tenant }, admin.contract);
    expect((await operator.get('/api/v1/site-setup/list')).body.error.code).toBe('rbac_forbidden');
    const security = await clientAs(env, server, { subject: 'auditor', role: 'security', scope_type: 'tenant', tenant_id: tenant }, admin.contract);
    expect((await security.get('/api/v1/site-setup/list')).status).toBe(200);
    // another farm's admin: its own (empty) cards, not this box's
    expect((await admin.post('/api/v1/passkeys/commands/issue', { ttl_minutes: 60, holder: 'Anna', type: 'rfid', scope: 'tenant', tenant_id: tenant, role: 'operator' })).status).toBe(201);
    const other = await clientAs(env, server, { subject: 'other', role: 'admin', scope_type: 'tenant', tenant_id: 'another-farm' }, admin.contract);
    expect((await lines(other)).find((l) => l.id === 'people')!.words).toMatch(/^0 admin cards and 0 operator cards/);
  });

  it('turns done step by step as the box is commissioned', async () => {
    // people: an operator card (issued above) and two admin cards
    for (const holder of ['Installer', 'Farm manager']) {
      const issued = await admin.post('/api/v1/passkeys/commands/issue', { ttl_minutes: 600, holder, type: 'rfid', scope: 'tenant', tenant_id: tenant, role: 'admin' });
      expect(issued.status, JSON.stringify(issued.body)).toBe(201);
    }
    expect(await line('people')).toMatchObject({ state: 'done', words: '2 admin cards and 1 operator card in use.' });

    // a controller on a real Modbus peer: its house appears, without a flock, and it answers
    const adapter = await admin.post('/api/v1/poultry-adapters', { item: {
      unit_id: '1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: controller.port, modbus_unit_id: 1,
      points: [{ key: 'target_temp_c', address: 0, scale: 10 }], readings: [{ key: 'temp', object_type: 'input register', address: 0, scale: 10 }], poll_period_s: 1,
    } });
    expect(adapter.status, JSON.stringify(adapter.body)).toBe(201);
    expect(await line('poultry-units')).toMatchObject({ state: 'attention', words: '1 house; no flock placed in 1: the climate curve and the flock\'s age start when one is.' });
    await waitFor(async () => (await line('poultry-controllers')).state === 'done', 15_000, 'the controller answering');
    expect((await line('poultry-controllers')).words).toBe('1 of 1 controller answering.');
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: '1', batch_id: 'B1', subtype: 'broiler', start_date: new Date().toISOString().slice(0, 10), birds_placed: 20_000 })).status).toBe(201);
    expect(await line('poultry-units')).toMatchObject({ state: 'done', words: '1 house, each with a flock: 1.' });

    // the siren on a real I/O module; the watchdog still missing
    const siren = await admin.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: io.port, coil: 0, period_s: 5 });
    expect(siren.status, JSON.stringify(siren.body)).toBe(200);
    expect(await line('siren')).toMatchObject({ state: 'attention', words: 'The siren sounds for P1 alarms; no watchdog output: a dialler cannot tell that the box itself stopped.' });

    // notifications: a channel alone sends nothing; with a P1 rule it is done
    const channel = await admin.post('/api/v1/notification-channels', { item: { id: 'mail', name: 'Farm office', kind: 'email', smtp_host: '127.0.0.1', smtp_port: 2525, smtp_tls: 'none', smtp_from: 'box@farm.test' } });
    expect(channel.status, JSON.stringify(channel.body)).toBe(201);
    expect((await line('notifications')).words).toMatch(/no rule sends anything yet/);
    expect((await admin.post('/api/v1/notification-rules', { item: { name: 'Only P2', channel_id: 'mail', priorities: ['P2'], recipients: ['office@farm.test'] } })).status).toBe(201);
    expect(await line('notifications')).toMatchObject({ state: 'attention' });
    expect((await line('notifications')).words).toMatch(/no rule covers P1 alarms/);
    expect((await admin.post('/api/v1/notification-rules', { item: { name: 'P1 at once', channel_id: 'mail', priorities: ['P1'], recipients: ['manager@farm.test'] } })).status).toBe(201);
    expect(await line('notifications')).toMatchObject({ state: 'done', words: '1 channel, 2 rules; P1 alarms are sent off site; send a test message to be sure.' });
  });

  it('a controller that stops answering turns its line to attention, naming it and since when', async () => {
    await controller.stop();
    await waitFor(async () => (await line('poultry-controllers')).state === 'attention', 20_000, 'the controller lost');
    expect((await line('poultry-controllers')).words).toMatch(/^0 of 1 controller answering\. house-1-climate \(House 1\), not answering since \d\d:\d\d\.$/);
  });

  it('HTTPS on: done, unless MQTT without TLS is open on the LAN, which it names', async () => {
    const tls = await createTestEnv('sqlite');
    try {
      let box = await tls.start({ https_port: '0', mqtt_port: '0', mqtt_tls_port: 'off', rpc_port: 'off' });
      const tenantOf = () => (JSON.parse(readFileSync(join(tls.dataDir, 'site.json'), 'utf8')) as { tenant_id: string }).tenant_id;
      const as = async () => clientAs(tls, box, { subject: 'installer', role: 'admin', scope_type: 'tenant', tenant_id: tenantOf() });
      const https = async () => ((await (await as()).get('/api/v1/site-setup/list')).body.items as Line[]).find((l) => l.id === 'https')!;
      const on = await https();
      expect(on.state).toBe('done');
      expect(on.words).toMatch(/^HTTPS on port \d+ with the box's own certificate authority \(fingerprint [0-9A-F:]{11}\.\.\.\)/);
      await box.close();
      box = await tls.start({ https_port: '0', mqtt_port: '0', mqtt_host: '0.0.0.0', mqtt_tls_port: 'off', rpc_port: 'off' });
      const open = await https();
      expect(open.state).toBe('attention');
      expect(open.words).toMatch(/MQTT without TLS is open on the LAN at 0\.0\.0\.0:0: device passwords cross it unprotected/);
    } finally {
      await tls.cleanup();
    }
  });
});
