// The poller on the real BACnet gateway of the field service, against the BACnet test device on a
// loopback UDP port: polled points arrive as device_readings (ReadPropertyMultiple, raw / scale +
// offset), a COV point arrives when the device's value changes, a device that stops answering is
// one device_link lost after loss_after_misses polls, and its return is device_link ok.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFieldService, type FieldService } from '../../src/field/service.js';
import { fieldConfig } from '../../src/field/config.js';
import { createPoller } from '../../src/field/poller.js';
import type { DeviceLinkEvent, DeviceReadingEvent, Poller, PolledDevice } from '../../src/field/poll-types.js';
import { EventBus } from '../../src/realtime/bus.js';
import { freeUdpPort, waitFor } from './helpers.js';
import { startBacnetDevice, type BacnetDevice } from './peers/bacnet-device.js';

const INSTANCE = 4321;
const AI = 0;
const AV = 2;

describe('the poller on BACnet', () => {
  let device: BacnetDevice;
  let field: FieldService;
  let poller: Poller;
  const bus = new EventBus();
  const readings: DeviceReadingEvent[] = [];
  const links: DeviceLinkEvent[] = [];
  bus.on('device_readings', (e) => readings.push(e));
  bus.on('device_link', (e) => links.push(e));

  const polled: PolledDevice = {
    id: 'poultry:bacnet-1', industry: 'poultry', tenant_id: 't1', site_id: 's1', unit_id: 'house-7', controller_id: 'house-7-ahu',
    transport: 'bacnet', device_instance: INSTANCE, period_ms: 300, loss_after_misses: 2,
    points: [
      { key: 'temp', kind: 'reading', address: 1, bacnet_object_type: AI },
      { key: 'humidity', kind: 'reading', address: 2, bacnet_object_type: AI, scale: 2 },
      { key: 'target_temp_c', kind: 'setpoint', address: 3, bacnet_object_type: AV, offset: -0.5 },
      { key: 'co2', kind: 'reading', address: 4, bacnet_object_type: AV, cov: true },
    ],
  };

  beforeAll(async () => {
    device = await startBacnetDevice(INSTANCE, await freeUdpPort(), [[AI, 1], [AI, 2], [AV, 3], [AV, 4]]);
    device.setPresentValue(AI, 1, { type: 4, value: 24.5 });
    device.setPresentValue(AI, 2, { type: 4, value: 130 });
    device.setPresentValue(AV, 3, { type: 4, value: 26 });
    device.setPresentValue(AV, 4, { type: 2, value: 900 });
    field = createFieldService(fieldConfig({
      request_timeout_ms: 250, retries: 0,
      bacnet: { port: await freeUdpPort(), interface: '127.0.0.1', broadcast_address: '127.0.0.1:9', devices: { [INSTANCE]: `127.0.0.1:${device.port}` } },
    }), { audit: () => {} });
    poller = createPoller({ field, bus, covLifetimeS: 60 });
    poller.set([polled]);
  });
  afterAll(async () => {
    await poller?.close();
    await field?.close();
    device?.close();
  });

  it('reads the points in one ReadPropertyMultiple a poll, with scale and offset, readings and setpoints apart', async () => {
    await waitFor(() => readings.some((r) => r.values.temp !== undefined), 10_000, 'a BACnet poll');
    const first = readings.find((r) => r.values.temp !== undefined)!;
    expect(first).toMatchObject({ device_id: 'poultry:bacnet-1', unit_id: 'house-7', source: 'device' });
    expect(first.values).toMatchObject({ temp: 24.5, humidity: 65 });
    expect(first.setpoints).toEqual({ target_temp_c: 25.5 });
    expect(device.requests.rpm).toBeGreaterThan(0);
    expect(device.requests.rp).toBe(0);
    expect(links.at(-1)).toMatchObject({ state: 'ok' });
  });

  it('subscribes to the COV point and delivers its changes', async () => {
    await waitFor(() => device.requests.subscribe > 0, 10_000, 'SubscribeCOV');
    device.setPresentValue(AV, 4, { type: 2, value: 1250 });
    await waitFor(() => readings.some((r) => r.values.co2 === 1250), 10_000, 'the changed CO2 through COV');
  });

  it('a device that stops answering is one device_link lost after two missed polls; its return is ok', async () => {
    const before = links.length;
    device.mute = true;
    await waitFor(() => links.slice(before).some((l) => l.state === 'lost'), 10_000, 'device_link lost');
    const lost = links.slice(before).filter((l) => l.state === 'lost');
    expect(lost).toHaveLength(1);
    expect(lost[0]).toMatchObject({ device_id: 'poultry:bacnet-1', misses: 2 });
    expect(lost[0]!.message).toMatch(/Timeout device:4321/);
    expect(poller.snapshot().find((d) => d.device_id === 'poultry:bacnet-1')).toMatchObject({ state: 'lost' });
    await new Promise((r) => setTimeout(r, 800));
    expect(links.slice(before).filter((l) => l.state === 'lost')).toHaveLength(1);
    device.mute = false;
    await waitFor(() => links.at(-1)?.state === 'ok', 10_000, 'device_link ok');
    expect(poller.snapshot().find((d) => d.device_id === 'poultry:bacnet-1')).toMatchObject({ state: 'ok', misses: 0 });
  });
});
