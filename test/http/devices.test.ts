// Device telemetry: HTTP ingest, list filters, KPI from the last known state per device,
// batching (one transaction per batch), tenant isolation and retention.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('device telemetry (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let opA: Client;
  let opB: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: '20', telemetry_batch_max: '500' });
    master = await clientAs(env, server);
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const t = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

  it('ingests over HTTP (stored when answered) and lists with device, site, status, metric and q filters', async () => {
    const res = await opA.post('/api/v1/devices/telemetry/commands/ingest', {
      site_id: 'farm-1',
      points: [
        { device_id: 'th-1', metric: 'temperature', value: 21.5, unit: 'C', latency_ms: 10, ts: t(3) },
        { device_id: 'th-1', metric: 'temperature', value: 22.0, unit: 'C', latency_ms: 20, ts: t(1) },
        { device_id: 'th-2', metric: 'humidity', value: 61, status: 'warn', latency_ms: 40, ts: t(2) },
        { device_id: 'co2-1', metric: 'co2', value: 3100, status: 'error', site_id: 'farm-2', ts: t(1) },
      ],
    });
    expect(res.status).toBe(200);
    expect(res.body.item).toEqual({ accepted: 4 });
    const all = await opA.get('/api/v1/devices/telemetry/list');
    expect(all.body.total).toBe(4);
    expect(all.body.items[0].ts >= all.body.items[1].ts).toBe(true);
    expect((await opA.get('/api/v1/devices/telemetry/list?device_id=th-1')).body.total).toBe(2);
    expect((await opA.get('/api/v1/devices/telemetry/list?site_id=farm-2')).body.items[0].device_id).toBe('co2-1');
    expect((await opA.get('/api/v1/devices/telemetry/list?status=warn')).body.items[0].metric).toBe('humidity');
    expect((await opA.get('/api/v1/devices/telemetry/list?metric=temperature')).body.total).toBe(2);
    expect((await opA.get('/api/v1/devices/telemetry/list?q=CO2')).body.total).toBe(1);
    expect((await opB.get('/api/v1/devices/telemetry/list')).body.total).toBe(0);
    expect((await opA.get('/api/v1/devices/telemetry/list?status=offline')).status).toBe(400);
  });

  it('KPI counts devices by their last known status within the filters, with total points and average latency', async () => {
    // th-1's last point turns to error; its earlier points stay online.
    await opA.post('/api/v1/devices/telemetry/commands/ingest', { site_id: 'farm-1', points: [{ device_id: 'th-1', metric: 'temperature', value: 35, status: 'error', latency_ms: 30, ts: t(0) }] });
    const kpi = (await opA.get('/api/v1/devices/telemetry/kpi')).body.item;
    expect(kpi).toEqual({ devices: 3, online: 0, warn: 1, error: 2, total_points: 5, average_latency_ms: 35 });
    const site = (await opA.get('/api/v1/devices/telemetry/kpi?site_id=farm-1')).body.item;
    expect(site).toMatchObject({ devices: 2, warn: 1, error: 1, total_points: 4 });
    // Within status=online only th-1's online points count: its last online point is the latest of those.
    const online = (await opA.get('/api/v1/devices/telemetry/kpi?status=online')).body.item;
    expect(online).toEqual({ devices: 1, online: 1, warn: 0, error: 0, total_points: 2, average_latency_ms: 20 });
    expect((await opA.get('/api/v1/devices/telemetry/kpi?q=th-')).body.item.devices).toBe(2);
    expect((await opB.get('/api/v1/devices/telemetry/kpi')).body.item).toEqual({ devices: 0, online: 0, warn: 0, error: 0, total_points: 0, average_latency_ms: null });
    expect((await master.get('/api/v1/devices/telemetry/kpi?tenant_id=tA')).body.item.devices).toBe(3);
  });

  it('refuses bad points and a master without tenant, storing nothing', async () => {
    const before = (await master.get('/api/v1/devices/telemetry/list?limit=1')).body.total;
    expect((await opA.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: 'x', metric: 'm', value: 'hot' }] })).status).toBe(400);
    expect((await opA.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ metric: 'm', value: 1 }] })).body.error.details).toContainEqual({ field: 'points.0.device_id', reason: 'required' });
    expect((await opA.post('/api/v1/devices/telemetry/commands/ingest', { points: [] })).status).toBe(400);
    expect((await master.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: 'x', metric: 'm', value: 1 }] })).body.error.details).toContainEqual({ field: 'tenant_id', reason: 'required' });
    expect((await opA.post('/api/v1/devices/telemetry/commands/ingest', { tenant_id: 'tB', points: [{ device_id: 'x', metric: 'm', value: 1 }] })).status).toBe(403);
    expect((await master.get('/api/v1/devices/telemetry/list?limit=1')).body.total).toBe(before);
  });

  it('writes a burst of points in few batches (one transaction per batch), not one per point', async () => {
    const telemetry = server.services.telemetry!;
    const batchesBefore = telemetry.writer.stats.batches;
    const requests = Array.from({ length: 10 }, (_, r) => opA.post('/api/v1/devices/telemetry/commands/ingest', {
      points: Array.from({ length: 200 }, (_, i) => ({ device_id: `burst-${i % 20}`, metric: 'pressure', value: r * 1000 + i })),
    }));
    expect((await Promise.all(requests)).every((r) => r.status === 200)).toBe(true);
    const batches = telemetry.writer.stats.batches - batchesBefore;
    expect(batches).toBeGreaterThanOrEqual(1);
    expect(batches).toBeLessThanOrEqual(10);
    expect((await opA.get('/api/v1/devices/telemetry/list?metric=pressure&limit=1')).body.total).toBe(2000);
    expect((await opA.get('/api/v1/devices/telemetry/kpi?metric=pressure')).body.item).toMatchObject({ devices: 20, online: 20, total_points: 2000 });
  });

  it('purges points older than the retention', async () => {
    const old = new Date(Date.now() - 40 * 24 * 3600_000).toISOString();
    await opA.post('/api/v1/devices/telemetry/commands/ingest', { points: [{ device_id: 'old-1', metric: 'm', value: 1, ts: old }] });
    expect((await opA.get('/api/v1/devices/telemetry/list?device_id=old-1')).body.total).toBe(1);
    await server.services.telemetry!.purge(new Date(Date.now() - server.services.config.telemetry_retention_days * 24 * 3600_000));
    expect((await opA.get('/api/v1/devices/telemetry/list?device_id=old-1')).body.total).toBe(0);
    expect((await opA.get('/api/v1/devices/telemetry/list?device_id=th-1')).body.total).toBe(3);
  });
});

describe('telemetry batches over HTTP: written at the end of the turn, whatever their size', () => {
  let env: TestEnv;
  let server: RunningServer;
  let op: Client;
  const FLUSH_MS = 2500;
  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    // batch_max 800: a burst is 100 points or more (an eighth).
    server = await env.start({ mqtt_broker: 'off', telemetry_flush_ms: String(FLUSH_MS), telemetry_batch_max: '800' });
    const master = await clientAs(env, server);
    op = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const ingest = async (n: number) => {
    const t0 = Date.now();
    const points = Array.from({ length: n }, (_, i) => ({ device_id: `b-${i % 10}`, metric: 'temperature', value: 20 + i / 100 }));
    const res = await op.post('/api/v1/devices/telemetry/commands/ingest', { site_id: 'farm-1', points });
    expect(res.status, JSON.stringify(res.body)).toBeLessThan(300);
    return Date.now() - t0;
  };

  it('150 points at once are stored and answered without waiting for the flush timer', async () => {
    expect(await ingest(150)).toBeLessThan(FLUSH_MS / 2);
  });

  it('3 points over HTTP do not wait for the timer either: the client waits for its answer (a trickle over MQTT does)', async () => {
    const batches = server.services.telemetry!.writer.stats.batches;
    expect(await ingest(3)).toBeLessThan(FLUSH_MS / 2);
    expect(server.services.telemetry!.writer.stats.batches).toBe(batches + 1);
  });
});
