// Weather stations and soil probes the box reads itself, on both engines, with Debian's pymodbus
// as the devices: their melioration-adapters profiles (readings only) are polled by the live
// poller and their readings enter the melioration pipeline with reading_source `device`: a station
// frame of the site (judged for health), probe readings of the field at their depths (depletion
// computed); a device that stops answering is one comm_loss alarm on its field. Bad profiles are
// 400, operators may not create them, other tenants see nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { Contract } from '../helpers/contract.js';
import { startModbusPeer, type ModbusPeer } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const soil = { crop: 'maize', field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.6, depletion_fraction: 0.5, kc: 1 };
let contract: Contract | undefined;

describe.each(DIALECTS)('melioration stations and probes read by the box (%s)', (dialect) => {
  let peer: ModbusPeer;
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let op: Client;
  let other: Client;
  const link = (port: number) => ({ transport: 'modbus-tcp', host: '127.0.0.1', port, modbus_unit_id: 1, poll_period_s: 1 });
  const station = (port: number) => ({ item: {
    unit_id: 'f1', controller_id: 'ws-1', ...link(port),
    readings: [
      { key: 'air_temp_c', address: 0, data_type: 'int16', scale: 10 },
      { key: 'rh_pct', address: 1, data_type: 'uint16', scale: 10 },
      { key: 'wind_ms', address: 2, data_type: 'uint16', scale: 10 },
      { key: 'solar_w_m2', address: 3, data_type: 'uint16' },
    ],
  } });
  const probe = (port: number) => ({ item: {
    unit_id: 'f1', controller_id: 'probe-n1', ...link(port),
    readings: [{ key: 'vwc_pct_30', address: 10, data_type: 'uint16', scale: 10 }, { key: 'vwc_pct_60', address: 11, data_type: 'uint16', scale: 10 }],
  } });

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    // 21.5 °C, 65.4 %RH, 3.2 m/s, 450 W/m2; 24.5 and 28.1 % water at 30 and 60 cm.
    await peer.set('ir', 0, [215, 654, 32, 450]);
    await peer.set('ir', 10, [245, 281]);
    env = await createTestEnv(dialect);
    server = await env.start({ industry: 'melioration', mqtt_broker: 'off', rpc_port: 'off', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) });
    const master = await clientAs(env, server, {}, contract);
    contract = master.contract;
    admin = await clientAs(env, server, { subject: 'field-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tM', site_id: 's1' }, contract);
    op = await clientAs(env, server, { subject: 'field-op', role: 'operator', scope_type: 'tenant', tenant_id: 'tM', site_id: 's1' }, contract);
    other = await clientAs(env, server, { subject: 'other-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tO' }, contract);
    expect((await admin.post('/api/v1/melioration-field', { item: { id: 'f1', name: 'North', site_id: 's1', area_ha: 10, ...soil } })).status).toBe(201);
  });
  afterAll(async () => {
    await env.cleanup();
    await peer.stop();
  });

  it('reads a station or probe reading now, by its own keys, before a profile is saved; a setpoint is no part of it', async () => {
    const readNow = (body: Record<string, unknown>) => admin.post('/api/v1/melioration-adapters/commands/read-now', { ...link(peer.port), poll_period_s: undefined, ...body });
    const air = await readNow({ reading: { key: 'air_temp_c', object_type: 'input register', address: 0, data_type: 'int16', scale: 10 } });
    expect(air.status, JSON.stringify(air.body)).toBe(200);
    expect(air.body.item).toMatchObject({ key: 'air_temp_c', kind: 'reading', value: 21.5 });
    const vwc = await readNow({ reading: { key: 'vwc_pct_60', object_type: 'input register', address: 11, data_type: 'uint16', scale: 10 } });
    expect(vwc.body.item).toMatchObject({ key: 'vwc_pct_60', value: 28.1 });
    // a poultry key, a setpoint point, or nothing to read: 400, and the document says so
    for (const body of [{ reading: { key: 'temp', address: 0 } }, { point: { key: 'target_temp_c', address: 0 } }, {}]) {
      const res = await readNow(body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await admin.get('/api/v1/melioration-adapters/list')).body.total).toBe(0);
  });

  it('refuses profiles that are not a station or a probe, and operators; changes nothing', async () => {
    const bad = [
      { ...station(peer.port).item, readings: [{ key: 'temp', address: 0 }] },
      { ...station(peer.port).item, readings: [{ key: 'vwc_pct_deep', address: 0 }] },
      { ...station(peer.port).item, readings: [] },
      { ...station(peer.port).item, points: [{ key: 'target_temp_c', address: 0 }] },
      { ...station(peer.port).item, host: undefined },
    ];
    for (const item of bad) {
      const res = await admin.post('/api/v1/melioration-adapters', { item });
      expect(res.status, JSON.stringify(item)).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
    }
    expect((await op.post('/api/v1/melioration-adapters', station(peer.port))).body.error.code).toBe('rbac_forbidden');
    expect((await admin.get('/api/v1/melioration-adapters/list')).body.total).toBe(0);
  });

  it('polls a station and a probe: their readings enter the melioration pipeline with source device', async () => {
    const s = await admin.post('/api/v1/melioration-adapters', station(peer.port));
    expect(s.status, JSON.stringify(s.body)).toBe(201);
    expect(s.body.item).toMatchObject({ unit_id: 'f1', controller_id: 'ws-1', site_id: 's1', points: [] });
    expect((await admin.post('/api/v1/melioration-adapters', probe(peer.port))).status).toBe(201);
    expect((await op.get('/api/v1/melioration-adapters/list')).body.total).toBe(2);
    expect((await other.get('/api/v1/melioration-adapters/list')).body.total).toBe(0);

    const frame = await until('a polled station frame', async () => ((await admin.get('/api/v1/melioration-weather/list?limit=20')).body.items as Item[]).find((r) => r.station_id === 'ws-1'));
    expect(frame).toMatchObject({ kind: 'telemetry', source: 'station', site_id: 's1', reading_source: 'device', air_temp_c: 21.5, rh_pct: 65.4, wind_ms: 3.2, solar_w_m2: 450 });
    expect(typeof frame.healthy).toBe('boolean');

    const probes = await until('both depths of the probe', async () => {
      const items = ((await admin.get('/api/v1/melioration-soil-moisture/list?limit=50')).body.items as Item[]).filter((r) => r.probe_id === 'probe-n1');
      const depths = new Set(items.map((r) => r.depth_cm));
      return depths.has(30) && depths.has(60) ? items : undefined;
    });
    const at30 = probes.find((r) => r.depth_cm === 30)!;
    expect(at30).toMatchObject({ field_id: 'f1', site_id: 's1', reading_source: 'device', vwc_pct: 24.5 });
    // (30 - 24.5) % x 0.6 m = 33 mm below field capacity.
    expect(at30.depletion_mm).toBeCloseTo(33, 6);
    expect(probes.find((r) => r.depth_cm === 60)).toMatchObject({ vwc_pct: 28.1, reading_source: 'device' });
    expect((await other.get('/api/v1/melioration-soil-moisture/list')).body.total).toBe(0);

    // A reading sent over the API says so.
    const sent = await admin.post('/api/v1/melioration-soil-moisture/commands/ingest', { item: { field_id: 'f1', probe_id: 'hand-probe', depth_cm: 20, vwc_pct: 22, observed_at: new Date().toISOString() } });
    expect(sent.status).toBe(201);
    expect(sent.body.item.reading_source).toBe('api');
  });

  it('a station that stops answering is one comm_loss alarm on its field', async () => {
    await peer.stop();
    const raised = await until('comm_loss of the station', async () => {
      const open = ((await admin.get('/api/v1/industry-alarms/list?unit_id=f1&rule_id=comm_loss:ws-1')).body.items as Item[]).filter((a) => a.status === 'active');
      return open.length ? open : undefined;
    });
    expect(raised).toHaveLength(1);
    expect(raised[0]).toMatchObject({ industry_code: 'melioration', unit_id: 'f1', metric: 'comm_loss', title: 'Field f1 controller not answering' });
  });
});
