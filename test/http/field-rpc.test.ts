// The field-write endpoint as the binary serves it: its own listener, session tokens and roles
// from the real auth, audit records per item, and `cabinet rpc` for commissioning.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs } from '../helpers/client.js';
import { startModbusPeer, stopAll, type ModbusPeer } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';
import { cabinetArgs } from '../helpers/cabinet-main.js';

describe('field writes through the service (sqlite)', () => {
  let env: TestEnv;
  let server: RunningServer;
  let peer: ModbusPeer;
  let rpcUrl: string;

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    env = await createTestEnv('sqlite');
    server = await env.start({ rpc_port: '0' });
    rpcUrl = server.services.rpc?.url ?? '';
  });
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
  });

  const request = (value: number, address = 40) => ({
    jsonrpc: '2.0', protocol: 'modbus',
    params: [{ device_ip: '127.0.0.1', device_port: peer.port, object_type: 'holding register', object_address: address, data_type: 'int16', order: 'LE', value }],
  });
  const post = (body: unknown, headers: Record<string, string>) =>
    fetch(rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('listens on loopback on its own port', () => {
    expect(rpcUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/rpc$/);
    expect(new URL(rpcUrl).port).not.toBe(new URL(server.url).port);
  });

  it('refuses a request without a valid token and writes nothing', async () => {
    const none = await post(request(111), {});
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual([expect.stringContaining('auth_required')]);
    const forged = await post(request(111), { authorization: 'Bearer eyJhbGciOiJub25lIn0.e30.' });
    expect(forged.status).toBe(401);
    expect(await peer.hr(40, 1)).toEqual([0]);
  });

  it('refuses a role without the write permission', async () => {
    const token = await env.token(server, { role: 'security' });
    const res = await post(request(222), { authorization: `Bearer ${token}` });
    expect(res.status).toBe(403);
    expect(await peer.hr(40, 1)).toEqual([0]);
  });

  it('writes for an operator, and audits the item with actor and correlation id', async () => {
    const token = await env.token(server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'op-anna' });
    const res = await post(request(-1234), { authorization: `Bearer ${token}`, 'x-correlation-id': 'corr-field-1' });
    const second = await post(request(5, 42), { authorization: `Bearer ${token}` });
    expect(second.status).toBe(200);
    expect(res.status).toBe(200);
    expect(await peer.hrHex(40, 1)).toBe('fb2e');
    const admin = await clientAs(env, server);
    const audit = await admin.get('/api/v1/audit/list?actor=op-anna');
    expect(audit.body.items).toHaveLength(2);
    expect(audit.body.items[1]).toMatchObject({ actor: 'op-anna', action: 'field.write.modbus', result: 'success', correlation_id: 'corr-field-1' });
    expect(audit.body.items[1].details).toMatchObject({ values: { value: -1234, object_address: 40 }, outcome: 'ok' });
    expect(JSON.stringify(audit.body)).not.toContain(token);
    // The operator's tenant sees its own write in the audit trail.
    const tenantAdmin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, admin.contract);
    expect((await tenantAdmin.get('/api/v1/audit/list?actor=op-anna')).body.total).toBe(2);
  });

  it('sends one request with `cabinet rpc`', async () => {
    const token = await env.token(server, { role: 'admin' });
    const file = join(mkdtempSync(join(tmpdir(), 'cabinet-rpc-')), 'req.json');
    writeFileSync(file, JSON.stringify(request(777, 41)));
    // Asynchronous: the server answering it runs in this process.
    const cli = await promisify(execFile)(process.execPath, await cabinetArgs('rpc', '--file', file, '--url', rpcUrl), {
      encoding: 'utf8', timeout: 60_000, env: { ...process.env, CABINET_TOKEN: token },
    });
    expect(cli.stderr).toBe('');
    expect(cli.stdout).toMatch(/^HTTP 200/);
    expect(await peer.hr(41, 1)).toEqual([777]);
  });
});
