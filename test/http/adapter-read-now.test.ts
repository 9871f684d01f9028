// "Read now" while commissioning an adapter profile (poultry-adapters/commands/read-now): one
// unsaved reading or setpoint point read from a real Modbus TCP peer (the house simulator) through
// the poller's codec, in engineering units; a controller that does not answer is the contract's
// error envelope (502 device_read_failed); a BACnet point from a BACnet/IP test device; only who
// may save a profile may try one; nothing is saved. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { closedTcpPort, freeUdpPort } from '../field/helpers.js';
import { startBacnetDevice, type BacnetDevice } from '../field/peers/bacnet-device.js';

const READ_NOW = '/api/v1/poultry-adapters/commands/read-now';
const INSTANCE = 4321;
const AI = 0;

describe.each(DIALECTS)('adapter read-now (%s)', (dialect) => {
  // The simulated house's own clock: moved six hours on before the feed scale is read, so its
  // counter is well past its first 0.1 kg (a counter read at once after the start is 0 raw, the
  // same in every word order).
  let simOffsetMs = 0;
  const sim = new Simulation({ houses: 1, age_days: 12, birds: 20_000, speed: 1, seed: 7, noise: 0, clock: () => Date.now() + simOffsetMs });
  let simServer: SimServer;
  let link: { transport: 'modbus-tcp'; host: string; port: number; modbus_unit_id: number };
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let operator: Client;
  let device: BacnetDevice;

  beforeAll(async () => {
    simServer = await startTcpServer(sim, '127.0.0.1', 0);
    device = await startBacnetDevice(INSTANCE, await freeUdpPort(), [[AI, 1]]);
    device.setPresentValue(AI, 1, { type: 4, value: 48.5 });
    link = { transport: 'modbus-tcp', host: '127.0.0.1', port: simServer.where as number, modbus_unit_id: 1 };
    env = await createTestEnv(dialect);
    const bacnet = { port: await freeUdpPort(), interface: '127.0.0.1', broadcast_address: '127.0.0.1:9', devices: { [INSTANCE]: `127.0.0.1:${device.port}` } };
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 300, retries: 0, bacnet }) });
    const master = await clientAs(env, server);
    admin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
    operator = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1' }, master.contract);
  });
  afterAll(async () => {
    await env?.cleanup();
    await simServer?.close().catch(() => {});
    device?.close();
  });

  it('reads a reading in engineering units through the codec (scale, word order), and saves nothing', async () => {
    const r = await admin.post(READ_NOW, { ...link, reading: { key: 'temp', object_type: 'input register', address: 0, data_type: 'int16', scale: 10 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item).toMatchObject({ key: 'temp', kind: 'reading' });
    expect(Math.abs(r.body.item.value - sim.readings(1)!.temp)).toBeLessThan(0.2);
    // the feed scale: uint32, registers least significant first (CDAB), scale 10
    simOffsetMs = 6 * 3_600_000;
    const feed = await admin.post(READ_NOW, { ...link, reading: { key: 'feed_kg', object_type: 'input register', address: 9, data_type: 'uint32', order: 'CDAB', scale: 10 } });
    expect(feed.status, JSON.stringify(feed.body)).toBe(200);
    const held = sim.readings(1)!.feed_kg;
    expect(Math.abs(feed.body.item.value - held)).toBeLessThanOrEqual(Math.max(1, held * 0.01));
    // the same registers in the wrong word order read as another number: the order is honoured
    const wrong = await admin.post(READ_NOW, { ...link, reading: { key: 'feed_kg', object_type: 'input register', address: 9, data_type: 'uint32', order: 'LE', scale: 10 } });
    expect(wrong.status).toBe(200);
    expect(Math.abs(wrong.body.item.value - held)).toBeGreaterThan(held);
    expect((await admin.get('/api/v1/poultry-adapters/list')).body.total).toBe(0);
  });

  it('reads a setpoint point as the poller reads it back', async () => {
    sim.setSetpoint(1, 'target_temp_c', 27.5);
    const r = await admin.post(READ_NOW, { ...link, point: { key: 'target_temp_c', address: 0, data_type: 'int16', scale: 10 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item).toMatchObject({ key: 'target_temp_c', kind: 'setpoint', value: 27.5 });
  });

  it('reads a BACnet point (object type, instance, scale) from a BACnet/IP device', async () => {
    const r = await admin.post(READ_NOW, { transport: 'bacnet', device_instance: INSTANCE, reading: { key: 'humidity', bacnet_object_type: AI, address: 1, scale: 0.5 } });
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item).toMatchObject({ key: 'humidity', kind: 'reading', value: 97 });
    const missing = await admin.post(READ_NOW, { transport: 'bacnet', device_instance: INSTANCE, reading: { key: 'humidity', bacnet_object_type: AI, address: 9 } });
    expect(missing.status).toBe(502);
    expect(missing.body.error.code).toBe('device_read_failed');
  });

  it('a controller that does not answer is 502 device_read_failed with the field service\'s words', async () => {
    const port = await closedTcpPort();
    const r = await admin.post(READ_NOW, { ...link, port, reading: { key: 'temp', object_type: 'input register', address: 0, data_type: 'int16', scale: 10 } });
    expect(r.status).toBe(502);
    expect(r.body.error.code).toBe('device_read_failed');
    expect(r.body.error.message).toMatch(new RegExp(`^Connection refused 127\\.0\\.0\\.1:${port} addr:0`));
  });

  it('refuses a body that is not one point, and an operator', async () => {
    const both = await admin.post(READ_NOW, { ...link, reading: { key: 'temp', address: 0 }, point: { key: 'target_temp_c', address: 0 } });
    expect(both.status).toBe(400);
    expect(both.body.error.code).toBe('validation_error');
    const noHost = await admin.post(READ_NOW, { transport: 'modbus-tcp', reading: { key: 'temp', address: 0 } });
    expect(noHost.status).toBe(400);
    const bitAsWord = await admin.post(READ_NOW, { ...link, reading: { key: 'temp', object_type: 'coil', address: 0, data_type: 'int16' } });
    expect(bitAsWord.status).toBe(400);
    const op = await operator.post(READ_NOW, { ...link, reading: { key: 'temp', object_type: 'input register', address: 0, data_type: 'int16', scale: 10 } });
    expect(op.status).toBe(403);
    expect(op.body.error.code).toBe('rbac_forbidden');
  });
});
