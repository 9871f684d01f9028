// The industry side of the reading loop over HTTP, on both dialects, with the real server: the
// adapter profile's reading declaration (good body stored, each bad case a 400 with details),
// the profiles as the poller's devices (device-polling/list), the poller's bus events emitted on
// the server's own bus (device_readings stored as source 'device' and judged like any reading;
// device_link lost -> exactly one comm_loss alarm, ok clears; bus_link -> one alarm for the bus),
// age_s/stale on the readings of both industries, and MQTT silence raising and clearing; a
// controller behind an RS-485 adapter pulled out (a socat pty removed) is listed lost for its bus.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { removeDir, startModbusPeer, startPtyPair, stopAll, waitFor } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';
import type { DeviceLinkEvent, DeviceReadingEvent } from '../../src/field/poll-types.js';
import type { TelemetryPoint } from '../../src/realtime/bus.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();
const STALE_S = 3;

// A controller the poller (when it runs) reads once an hour and never calls lost in a test's time.
const profile = (extra: Item = {}): Item => ({
  unit_id: 'H1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: 1502, modbus_unit_id: 1,
  points: [{ key: 'target_temp_c', address: 100, scale: 10, offset: -40 }, { key: 'min_ventilation_pct', address: 101, read_back: false }],
  readings: [
    { key: 'temp', object_type: 'input register', address: 0, data_type: 'int16', scale: 10 },
    { key: 'humidity', address: 1, data_type: 'uint16' },
    { key: 'water_l', object_type: 'holding register', address: 10, data_type: 'uint32', order: 'CDAB' },
    { key: 'ventilation', object_type: 'discrete input', address: 3 },
  ],
  poll_period_s: 3600, loss_after_misses: 100, comm_loss_priority: 'P2',
  ...extra,
});

describe.each(DIALECTS)('polled readings (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let master: Client;
  let admin: Client;
  let other: Client;
  let adapterId = '';

  const emitReading = (e: Partial<DeviceReadingEvent>) => server.services.bus!.emit('device_readings', {
    device_id: `poultry:${adapterId}`, industry: 'poultry', tenant_id: 'tA', site_id: 's1', unit_id: 'H1', controller_id: 'house-1-climate',
    at: new Date().toISOString(), values: {}, setpoints: {}, source: 'device', ...e,
  });
  const link = (e: Partial<DeviceLinkEvent>) => server.services.bus!.emit('device_link', {
    device_id: `poultry:${adapterId}`, industry: 'poultry', tenant_id: 'tA', site_id: 's1', unit_id: 'H1', controller_id: 'house-1-climate',
    state: 'lost', misses: 3, message: 'Timeout 127.0.0.1:1502 addr:0', bus: 'tcp:127.0.0.1:1502', at: new Date().toISOString(), ...e,
  });
  const alarms = async (house: string) => (await admin.get(`/api/v1/poultry-alarms/list?house_id=${house}&limit=100`)).body.items as Item[];
  const commLoss = async (house: string, rule: string) => (await alarms(house)).filter((a) => a.rule_id === rule);
  const readings = async (house: string) => (await admin.get(`/api/v1/poultry-climate-readings/list?house_id=${house}`)).body.items as Item[];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000', stale_after_s: String(STALE_S) });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 's1' }, master.contract);
    other = await clientAs(env, server, { subject: 'admin-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    for (const house of ['H1', 'H2', 'H3']) {
      const r = await admin.post('/api/v1/poultry-flock/commands/place', { house_id: house, batch_id: `B-${house}`, subtype: 'broiler', start_date: daysAgo(10), birds_placed: 20_000 });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
  }, 120_000);
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
  });

  it('stores a profile with readings and polling settings, and lists it as a polled device', async () => {
    const res = await admin.post('/api/v1/poultry-adapters', { item: profile() });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    adapterId = res.body.item.id;
    expect(res.body.item).toMatchObject({ poll_period_s: 3600, loss_after_misses: 100, comm_loss_priority: 'P2' });
    expect(res.body.item.readings.map((r: Item) => r.key)).toEqual(['temp', 'humidity', 'water_l', 'ventilation']);
    const plain = await admin.post('/api/v1/poultry-adapters', { item: { unit_id: 'H9', controller_id: 'h9', transport: 'modbus-tcp', host: '127.0.0.1', points: [{ key: 'target_temp_c', address: 1, read_back: false }] } });
    expect(plain.body.item).toMatchObject({ readings: [], poll_period_s: 10, loss_after_misses: 3, comm_loss_priority: 'P1' });

    const list = await admin.get('/api/v1/device-polling/list');
    expect(list.status).toBe(200);
    // The profile with nothing to read (no readings, no read-back) is not polled.
    expect(list.body.items.map((d: Item) => d.device_id)).toEqual([`poultry:${adapterId}`]);
    expect(list.body.items[0]).toMatchObject({ industry: 'poultry', tenant_id: 'tA', unit_id: 'H1', controller_id: 'house-1-climate', transport: 'modbus-tcp', period_ms: 3_600_000 });
    expect((await other.get('/api/v1/device-polling/list')).body.items).toEqual([]);
  });

  it.each([
    ['a coil reading with float32', { readings: [{ key: 'temp', object_type: 'coil', address: 1, data_type: 'float32' }] }, 'bool'],
    ['a duplicate reading key', { readings: [{ key: 'temp', address: 1 }, { key: 'temp', address: 2 }] }, 'each reading key once'],
    ['a BACnet reading without bacnet_object_type', { transport: 'bacnet', host: undefined, device_instance: 7, points: [{ key: 'target_temp_c', address: 1, bacnet_object_type: 2 }], readings: [{ key: 'temp', address: 0 }] }, 'bacnet_object_type on every reading'],
    ['an unknown reading key', { readings: [{ key: 'tempp', address: 1 }] }, 'item.readings.0.key'],
    ['a Modbus reading beyond 65535', { readings: [{ key: 'temp', address: 70_000 }] }, '0..65535'],
    ['a poll period of 0', { poll_period_s: 0 }, ''],
    ['a priority P3', { comm_loss_priority: 'P3' }, ''],
    ['a scale of 0 on a reading', { readings: [{ key: 'temp', address: 1, scale: 0 }] }, 'scale must not be 0'],
  ])('refuses %s with 400 and details', async (_what, change, words) => {
    const before = (await admin.get('/api/v1/poultry-adapters/list')).body.total;
    const res = await admin.post('/api/v1/poultry-adapters', { item: profile({ controller_id: 'bad', ...change }) });
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('validation_error');
    expect(res.body.error.details.length).toBeGreaterThan(0);
    if (words) expect(JSON.stringify(res.body.error), JSON.stringify(res.body.error)).toContain(words);
    expect((await admin.get('/api/v1/poultry-adapters/list')).body.total).toBe(before);
  });

  it('stores a device reading with source device, judged like any other; other keys become device telemetry', async () => {
    // Day 10: phase d08-14, 28 °C ± 1.5: 35 °C is out of norm.
    emitReading({ values: { temp: 35, humidity: 60, water_l: 1234 }, setpoints: { target_temp_c: 28 } });
    await waitFor(async () => (await readings('H1')).length === 1, 10_000, 'the device reading');
    const [r] = await readings('H1');
    expect(r).toMatchObject({ house_id: 'H1', batch_id: 'B-H1', temp: 35, humidity: 60, source: 'device', status: 'alarm', age_phase_id: 'd08-14', stale: false });
    expect(r!.out_of_norm_flags).toContain('temp_high');
    await waitFor(async () => (await admin.get('/api/v1/devices/telemetry/list?device_id=house-1-climate')).body.total === 1, 10_000, 'the water counter');
    expect((await admin.get('/api/v1/devices/telemetry/list?device_id=house-1-climate')).body.items[0]).toMatchObject({ metric: 'water_l', value: 1234, unit: 'L' });
    // Out of range for the industry: logged, never stored, never thrown onto the bus.
    emitReading({ values: { temp: 500 } });
    emitReading({ unit_id: 'no-flock-house', values: { temp: 20 } });
    emitReading({ values: { temp: 28, humidity: 60 } });
    await waitFor(async () => (await readings('H1')).length === 2, 10_000, 'the next good reading');
    expect((await readings('H1'))[0]).toMatchObject({ temp: 28, status: 'ok', source: 'device' });
  });

  it('raises exactly one comm_loss alarm when a controller is lost (twice), and clears it when it answers', async () => {
    link({});
    link({ misses: 4 });
    await waitFor(async () => (await commLoss('H1', 'comm_loss:house-1-climate')).length === 1, 10_000, 'the comm_loss alarm');
    await new Promise((r) => setTimeout(r, 300));
    const open = await commLoss('H1', 'comm_loss:house-1-climate');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ status: 'active', metric: 'comm_loss', priority: 'P2', source: 'device', title: 'House H1 controller not answering', unit_id: 'H1' });
    link({ state: 'ok', misses: 0, message: null });
    await waitFor(async () => (await commLoss('H1', 'comm_loss:house-1-climate'))[0]?.status === 'cleared', 10_000, 'the clear');
    expect(await commLoss('H1', 'comm_loss:house-1-climate')).toHaveLength(1);
  });

  it('raises one alarm for a lost bus, not one per device, and clears it', async () => {
    const second = await admin.post('/api/v1/poultry-adapters', { item: profile({ unit_id: 'H2', controller_id: 'house-2-climate', transport: 'modbus-rtu', host: undefined, serial_path: '/dev/ttyUSB7' }) });
    expect(second.status).toBe(201);
    const third = await admin.post('/api/v1/poultry-adapters', { item: profile({ unit_id: 'H3', controller_id: 'house-3-climate', transport: 'modbus-rtu', host: undefined, serial_path: '/dev/ttyUSB7', modbus_unit_id: 2 }) });
    await waitFor(async () => (await admin.get('/api/v1/device-polling/list')).body.total === 3, 10_000, 'the poller set');
    const ids = [`poultry:${second.body.item.id}`, `poultry:${third.body.item.id}`];
    // The bus as the events name it; a different name from the profiles' port, so a real poller's
    // own events about /dev/ttyUSB7 (it does not exist here) are other alarms than the test's.
    const bus = (state: 'lost' | 'ok') => server.services.bus!.emit('bus_link', { bus: 'rtu:/dev/serial/by-id/usb-test-bus', state, message: state === 'lost' ? 'No such file or directory' : null, device_ids: ids, at: new Date().toISOString() });
    bus('lost');
    bus('lost');
    const busAlarms = async () => ((await admin.get('/api/v1/poultry-alarms/list?limit=100')).body.items as Item[]).filter((a) => a.rule_id === 'comm_loss:bus:rtu:/dev/serial/by-id/usb-test-bus');
    await waitFor(async () => (await busAlarms()).length === 1, 10_000, 'the bus alarm');
    await new Promise((r) => setTimeout(r, 300));
    const [a] = await busAlarms();
    expect(await busAlarms()).toHaveLength(1);
    expect(a).toMatchObject({ status: 'active', unit_id: null, metric: 'comm_loss', title: 'RS-485 bus /dev/serial/by-id/usb-test-bus lost: House H2, House H3 not answering' });
    bus('ok');
    await waitFor(async () => (await busAlarms())[0]?.status === 'cleared', 10_000, 'the bus clear');
    // Deleting a profile takes its device off the poller's list at once, and its open loss with it
    // (nothing could clear it any more).
    server.services.bus!.emit('device_link', { device_id: ids[1]!, industry: 'poultry', tenant_id: 'tA', site_id: 's1', unit_id: 'H3', controller_id: 'house-3-climate', state: 'lost', misses: 3, message: 'Timeout', bus: 'rtu:/dev/ttyUSB7', at: new Date().toISOString() });
    await waitFor(async () => (await commLoss('H3', 'comm_loss:house-3-climate'))[0]?.status === 'active', 10_000, 'the loss of house 3');
    expect((await admin.delete(`/api/v1/poultry-adapters/${third.body.item.id}`)).status).toBe(200);
    expect((await admin.get('/api/v1/device-polling/list')).body.total).toBe(2);
    expect((await commLoss('H3', 'comm_loss:house-3-climate')).map((x) => x.status)).toEqual(['cleared']);
  });

  it('lists a controller behind an unplugged RS-485 adapter as lost, with the bus as the reason, until the adapter is back', async () => {
    let pty = await startPtyPair();
    let peer = await startModbusPeer('rtu', pty.b);
    const made = await admin.post('/api/v1/poultry-adapters', { item: {
      unit_id: 'H4', controller_id: 'house-4-climate', transport: 'modbus-rtu', serial_path: pty.a, modbus_unit_id: 1, poll_period_s: 1, loss_after_misses: 3,
      points: [{ key: 'target_temp_c', address: 100, scale: 10, offset: -40 }],
    } });
    expect(made.status, JSON.stringify(made.body)).toBe(201);
    const id = `poultry:${made.body.item.id}`;
    const entry = async () => ((await admin.get('/api/v1/device-polling/list?unit_id=H4')).body.items as Item[]).find((d) => d.device_id === id);
    const busAlarm = async () => ((await admin.get('/api/v1/poultry-alarms/list?limit=100')).body.items as Item[]).filter((a) => a.rule_id === `comm_loss:bus:rtu:${pty.a}`);
    try {
      await waitFor(async () => (await entry())?.state === 'ok', 15_000, 'the controller read');
      expect(await entry()).toMatchObject({ bus: `rtu:${pty.a}`, reason: null, misses: 0 });

      // Pulled out: the adapter goes, then the line behind it.
      await pty.stop();
      await peer.stop();
      await waitFor(async () => (await busAlarm())[0]?.status === 'active', 15_000, 'the bus alarm');
      const lost = await entry();
      expect(lost).toMatchObject({ state: 'lost', reason: 'bus_lost', bus: `rtu:${pty.a}` });
      expect(lost!.last_message).toMatch(new RegExp(`^RS-485 bus ${pty.a} lost: `));
      expect(((await admin.get('/api/v1/device-polling/list?state=lost')).body.items as Item[]).map((d) => d.device_id)).toContain(id);
      expect(((await admin.get('/api/v1/device-polling/list?state=ok')).body.items as Item[]).map((d) => d.device_id)).not.toContain(id);
      // Polls go on failing while it is out: still lost for the bus, not ok with a count of misses.
      await new Promise((r) => setTimeout(r, 2500));
      expect(await entry()).toMatchObject({ state: 'lost', reason: 'bus_lost' });
      expect(await commLoss('H4', 'comm_loss:house-4-climate')).toEqual([]);

      pty = await startPtyPair(pty.dir);
      peer = await startModbusPeer('rtu', pty.b);
      await waitFor(async () => (await entry())?.state === 'ok', 15_000, 'the controller read again');
      expect(await entry()).toMatchObject({ reason: null, last_message: null, misses: 0 });
      await waitFor(async () => (await busAlarm())[0]?.status === 'cleared', 10_000, 'the bus alarm cleared');
    } finally {
      await admin.delete(`/api/v1/poultry-adapters/${made.body.item.id}`);
      await peer.stop();
      await pty.stop();
      removeDir(pty.dir);
    }
  }, 60_000);

  it('says how old each reading is and marks the old ones stale (poultry and swine)', async () => {
    const old = await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H3', ts: ago(600_000), temp: 28 });
    expect(old.status, JSON.stringify(old.body)).toBe(200);
    await admin.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'H3', temp: 28.5 });
    const [fresh, stale] = await readings('H3');
    expect(fresh).toMatchObject({ stale: false, temp: 28.5 });
    expect(fresh!.age_s).toBeLessThanOrEqual(STALE_S);
    expect(stale).toMatchObject({ stale: true, temp: 28 });
    expect(stale!.age_s).toBeGreaterThanOrEqual(600);
    expect((await admin.get(`/api/v1/poultry-climate-readings/${stale!.id}`)).body.item).toMatchObject({ stale: true });

    const swine = (ts: string) => admin.post('/api/v1/swine-climate/commands/telemetry', { room_id: 'R1', phase_id: 'finisher', ts, temp_c: 20 });
    const s1 = await swine(ago(600_000));
    expect(s1.status, JSON.stringify(s1.body)).toBe(201);
    await swine(new Date().toISOString());
    const items = (await admin.get('/api/v1/swine-climate/list?room_id=R1')).body.items as Item[];
    expect(items.map((i) => i.stale)).toEqual([false, true]);
    expect(items[1]!.age_s).toBeGreaterThanOrEqual(600);
  });

  it('stores a swine room controller\'s reading with source device, judged by the room\'s phase', async () => {
    const swineReadings = async () => (await admin.get('/api/v1/swine-climate/list?room_id=R1&source=device')).body.items as Item[];
    // The room's last judged reading (the test before) named phase finisher: 26 °C is out of its band, 18 °C is in.
    server.services.bus!.emit('device_readings', {
      device_id: 'swine:room-1', industry: 'swine', tenant_id: 'tA', site_id: 's1', unit_id: 'R1', controller_id: 'room-1-climate',
      at: new Date().toISOString(), values: { temp: 26, humidity: 65, nh3: 5 }, setpoints: {}, source: 'device',
    });
    await waitFor(async () => (await swineReadings()).length === 1, 10_000, 'the swine device reading');
    const [r] = await swineReadings();
    expect(r).toMatchObject({ room_id: 'R1', phase_id: 'finisher', temp_c: 26, humidity_pct: 65, nh3_ppm: 5, source: 'device', stale: false });
    expect(r!.status).not.toBe('ok');
    expect(r!.out_of_norm_flags.length).toBeGreaterThan(0);
    // A room with no judged reading has no phase to judge by: logged, not stored.
    server.services.bus!.emit('device_readings', {
      device_id: 'swine:room-9', industry: 'swine', tenant_id: 'tA', site_id: 's1', unit_id: 'R9', controller_id: 'room-9-climate',
      at: new Date().toISOString(), values: { temp: 20 }, setpoints: {}, source: 'device',
    });
    await waitFor(() => env.logs.some((l) => l.msg === 'device reading refused: the room has no judged reading to take its phase from' && l.room_id === 'R9'), 10_000, 'the refusal log');
    expect((await admin.get('/api/v1/swine-climate/list?room_id=R9')).body.total).toBe(0);
  });

  it('a house fed over MQTT that falls silent gets one comm_loss alarm, cleared by its next reading', async () => {
    const send = () => {
      const now = new Date().toISOString();
      const point: TelemetryPoint = { tenant_id: 'tA', site_id: 's1', device_id: 'H2', metric: 'temp', value: 28, unit: '°C', status: 'online', latency_ms: null, ts: now, received_at: now };
      server.services.bus!.emit('telemetry', [point]);
    };
    send();
    await waitFor(async () => (await readings('H2')).some((r) => r.source === 'mqtt'), 10_000, 'the MQTT reading');
    expect(await commLoss('H2', 'comm_loss:mqtt')).toEqual([]);
    await waitFor(async () => (await commLoss('H2', 'comm_loss:mqtt')).length === 1, 15_000, 'the silence alarm');
    expect((await commLoss('H2', 'comm_loss:mqtt'))[0]).toMatchObject({ status: 'active', source: 'mqtt', title: 'House H2 controller not answering', priority: 'P1' });
    send();
    await waitFor(async () => (await commLoss('H2', 'comm_loss:mqtt'))[0]?.status === 'cleared', 10_000, 'the clear by the next reading');
    expect(await commLoss('H2', 'comm_loss:mqtt')).toHaveLength(1);
  }, 30_000);

  it('writes a setpoint through its offset and scale, as the poller reads it back', async () => {
    const peer = await startModbusPeer('tcp', '0');
    const a = await admin.post('/api/v1/swine-adapters', { item: {
      unit_id: 'R2', controller_id: 'room-2-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, modbus_unit_id: 1, loss_after_misses: 100, poll_period_s: 3600,
      points: [{ key: 'target_temp_c', address: 20, data_type: 'int16', scale: 10, offset: -40 }],
    } });
    expect(a.status, JSON.stringify(a.body)).toBe(201);
    const sp = await admin.post('/api/v1/swine-climate/commands/setpoint', { room_id: 'R2', target_temp_c: 26.5 });
    expect(sp.body.item.adapter_dispatch).toMatchObject({ status: 'verified' });
    // raw = (26.5 - (-40)) * 10; read back: 665 / 10 + (-40) = 26.5.
    expect(await peer.hr(20, 1)).toEqual([665]);
    const device = ((await admin.get('/api/v1/device-polling/list?industry=swine')).body.items as Item[]).find((d) => d.controller_id === 'room-2-climate');
    expect(device).toMatchObject({ unit_id: 'R2', transport: 'modbus-tcp' });
  });

  it('finds its open alarms again after a restart and rebuilds the MQTT last-seen from the stored readings', async () => {
    link({});
    await waitFor(async () => (await commLoss('H1', 'comm_loss:house-1-climate')).some((a) => a.status === 'active'), 10_000, 'the second loss');
    await server.close();
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000', stale_after_s: String(STALE_S) });
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 's1' }, master.contract);
    link({ misses: 7 });
    link({ misses: 8 });
    await new Promise((r) => setTimeout(r, 500));
    expect((await commLoss('H1', 'comm_loss:house-1-climate')).filter((a) => a.status === 'active')).toHaveLength(1);
    link({ state: 'ok', misses: 0, message: null });
    await waitFor(async () => (await commLoss('H1', 'comm_loss:house-1-climate')).every((a) => a.status === 'cleared'), 10_000, 'the clear after restart');
    // H2's last MQTT reading is in the table and older than stale_after_s: silent again, without a new event.
    await waitFor(async () => (await commLoss('H2', 'comm_loss:mqtt')).some((a) => a.status === 'active'), 15_000, 'the silence after restart');
    expect(await commLoss('H2', 'comm_loss:mqtt')).toHaveLength(2);
  }, 40_000);
});
