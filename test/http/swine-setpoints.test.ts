// swine-climate/commands/setpoint through the shared setpoint dispatch: a room controller on
// Modbus TCP (Debian's pymodbus) gets the values written and read back (verified, the new version
// published, the previous archived, audit with the correlation id); an unreachable controller
// gives failed with the field service's message and leaves the previous version in force; a room
// without an adapter profile is not_configured. Adapters and setpoints are tenant-isolated.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { closedTcpPort, startModbusPeer, stopAll, type ModbusPeer } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('swine setpoints (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let peer: ModbusPeer;
  let admin: Client;
  let op: Client;
  let other: Client;
  let master: Client;

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', mqtt_broker: 'off' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    other = await clientAs(env, server, { subject: 'op-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
  });

  it('writes to the room controller, verifies, publishes; a failed write keeps the previous version', async () => {
    const adapter = await admin.post('/api/v1/swine-adapters', { item: {
      unit_id: 'room-1', controller_id: 'room-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, modbus_unit_id: 1,
      points: [{ key: 'target_temp_c', address: 10, data_type: 'int16', scale: 10 }, { key: 'min_ventilation_pct', address: 11, data_type: 'uint16' }],
    } });
    expect(adapter.status).toBe(201);
    expect((await op.post('/api/v1/swine-adapters', { item: { unit_id: 'x', controller_id: 'x', transport: 'modbus-tcp', host: '127.0.0.1', points: [{ key: 'target_temp_c', address: 1 }] } })).body.error.code).toBe('rbac_forbidden');

    // Operators set their rooms' setpoints (action confirm, as poultry's confirmation); a security session may not.
    const sec = await clientAs(env, server, { subject: 'sec-a', role: 'security', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    expect((await sec.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-1', target_temp_c: 30 })).status).toBe(403);
    const byOperator = await op.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-op', target_temp_c: 24 });
    expect(byOperator.status).toBe(201);
    expect(byOperator.body.item).toMatchObject({ room_id: 'room-op', target_temp_c: 24 });
    const first = await admin.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-1', target_temp_c: 26.5, min_ventilation_pct: 15 }, { 'x-request-id': `sp-1-${dialect}` });
    expect(first.status).toBe(201);
    expect(first.body.item).toMatchObject({ room_id: 'room-1', site_id: 'farm-1', version_id: 1, state: 'published', target_temp_c: 26.5, min_ventilation_pct: 15 });
    expect(first.body.item.adapter_dispatch).toMatchObject({ status: 'verified', adapter_profile_id: adapter.body.item.id, controller_id: 'room-1-climate', transport: 'modbus-tcp', correlation_id: `sp-1-${dialect}` });
    expect(await peer.hr(10, 2)).toEqual([265, 15]);

    const second = await admin.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-1', target_temp_c: 25 });
    expect(second.body.item).toMatchObject({ version_id: 2, state: 'published', target_temp_c: 25, min_ventilation_pct: 15 });
    expect(await peer.hr(10, 2)).toEqual([250, 15]);

    // The controller moves to an address nobody answers: failed, the draft stays, version 2 stays in force.
    const closed = await closedTcpPort();
    expect((await admin.delete(`/api/v1/swine-adapters/${adapter.body.item.id}`)).status).toBe(200);
    expect((await admin.post('/api/v1/swine-adapters', { item: { unit_id: 'room-1', controller_id: 'room-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: closed, points: [{ key: 'target_temp_c', address: 10, scale: 10 }] } })).status).toBe(201);
    const failed = await admin.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-1', target_temp_c: 20 }, { 'x-request-id': `sp-3-${dialect}` });
    expect(failed.status).toBe(201);
    expect(failed.body.item).toMatchObject({ version_id: 3, state: 'draft' });
    expect(failed.body.item.adapter_dispatch).toMatchObject({ status: 'failed' });
    expect(failed.body.item.adapter_dispatch.message).toContain(`Connection refused 127.0.0.1:${closed}`);
    expect(await peer.hr(10, 1)).toEqual([250]);
    const versions = (await op.get('/api/v1/swine-setpoints/list?room_id=room-1&sort=version_id')).body.items.map((r: { version_id: number; state: string }) => `${r.version_id}:${r.state}`);
    expect(versions).toEqual(['1:archived', '2:published', '3:draft']);

    const trail = (await master.get(`/api/v1/audit/list?correlation_id=sp-3-${dialect}`)).body.items.map((a: { action: string; result: string }) => `${a.action}:${a.result}`);
    expect(trail).toContain('setpoint.dispatch:error');
    expect((await master.get(`/api/v1/audit/list?correlation_id=sp-1-${dialect}&action=setpoint.dispatch`)).body.items[0].result).toBe('success');

    const none = await admin.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-no-controller', target_temp_c: 22 });
    expect(none.body.item).toMatchObject({ state: 'draft', adapter_dispatch: { status: 'not_configured' } });
  });

  it('refuses bad setpoints and keeps tenants apart', async () => {
    const before = (await op.get('/api/v1/swine-setpoints/list')).body.total;
    for (const body of [{ room_id: 'room-1' }, { room_id: 'room-1', target_temp_c: 80 }, { room_id: 'room-1', min_ventilation_pct: 60, max_ventilation_pct: 40 }, { target_temp_c: 22 }, { room_id: 'room-1', target_temp_c: '22' }]) {
      const r = await admin.post('/api/v1/swine-climate/commands/setpoint', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
    }
    expect((await op.get('/api/v1/swine-setpoints/list')).body.total).toBe(before);
    expect((await other.get('/api/v1/swine-setpoints/list')).body.total).toBe(0);
    expect((await other.get('/api/v1/swine-adapters/list')).body.total).toBe(0);
    const mine = (await op.get('/api/v1/swine-adapters/list')).body.items[0];
    expect((await other.delete(`/api/v1/swine-adapters/${mine.id}`)).status).toBe(404);
    // B's setpoint for a room of the same name finds no adapter of B's: nothing is written to A's controller.
    const b = await other.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-1', target_temp_c: 30 });
    expect(b.body.item.adapter_dispatch.status).toBe('not_configured');
    expect(await peer.hr(10, 1)).toEqual([250]);
  });
});
