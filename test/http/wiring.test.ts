// The composition root on a real server: the field service is the root's, so with the RPC
// listener off (rpc_port off) a swine setpoint still reaches a real Modbus peer (Debian's
// pymodbus); once ready every core service is on the bag; on close every runtime takes its
// listeners off the bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { startModbusPeer, stopAll, type ModbusPeer } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('wiring (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let peer: ModbusPeer;
  let admin: Client;
  let master: Client;

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', mqtt_broker: 'off', rpc_port: 'off' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-w', role: 'admin', scope_type: 'tenant', tenant_id: 'tW', site_id: 'farm-w' }, master.contract);
  });
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
  });

  it('with rpc_port off there is no listener, and a setpoint confirm still writes to the controller', async () => {
    expect(server.services.rpc).toBeUndefined();
    expect(env.logs.some((l) => String(l.msg).startsWith('field-write RPC listening'))).toBe(false);
    expect(env.logs.some((l) => String(l.msg).startsWith('field-write RPC listener off'))).toBe(true);

    const adapter = await admin.post('/api/v1/swine-adapters', { item: {
      unit_id: 'room-w', controller_id: 'room-w-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, modbus_unit_id: 1,
      points: [{ key: 'target_temp_c', address: 20, data_type: 'int16', scale: 10 }, { key: 'min_ventilation_pct', address: 21, data_type: 'uint16' }],
    } });
    expect(adapter.status).toBe(201);
    const sp = await admin.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'room-w', target_temp_c: 23.5, min_ventilation_pct: 12 }, { 'x-request-id': `wiring-${dialect}` });
    expect(sp.status).toBe(201);
    expect(sp.body.item).toMatchObject({ state: 'published', adapter_dispatch: { status: 'verified', correlation_id: `wiring-${dialect}` } });
    expect(await peer.hr(20, 2)).toEqual([235, 12]);
    // The field service audits the written items whoever called it.
    const trail = (await master.get(`/api/v1/audit/list?correlation_id=wiring-${dialect}`)).body.items.map((a: { action: string; result: string }) => `${a.action}:${a.result}`);
    expect(trail).toContain('setpoint.dispatch:success');
    expect(trail.filter((a: string) => a.startsWith('field.write.')).length).toBeGreaterThan(0);
  });

  it('once ready, the core services and every running module\'s services are on the bag', () => {
    const s = server.services;
    for (const name of ['bus', 'audit', 'alarms', 'field', 'modules', 'status', 'mqtt', 'telemetry', 'industryAlarms', 'melioration'] as const) {
      expect(s[name], name).toBeTypeOf('object');
    }
    // The persistent registry replaced the pre-start static one.
    expect(s.modules.constructor.name).toBe('PersistentRegistry');
  });

  it('on close every runtime takes its listeners off the bus', async () => {
    const bus = server.services.bus;
    expect(bus.listenerCount('telemetry')).toBeGreaterThan(0);
    await server.close();
    for (const topic of ['status', 'alarm', 'telemetry'] as const) expect(bus.listenerCount(topic), topic).toBe(0);
  });
});
