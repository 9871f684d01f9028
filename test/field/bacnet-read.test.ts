import Bacnet from 'node-bacnet';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { BacnetGateway } from '../../src/field/bacnet.js';
import { fieldConfig } from '../../src/field/config.js';
import { FieldFailure } from '../../src/field/errors.js';
import type { PollPoint } from '../../src/field/poll-types.js';
import { freeUdpPort, waitFor } from './helpers.js';
import { startBacnetDevice, type BacnetDevice } from './peers/bacnet-device.js';

// BACnet reading (ReadPropertyMultiple, ReadProperty fallback) and COV against node-bacnet devices
// on loopback UDP ports.

const DEVICE = 1234;
const OLD = 1235; // rejects ReadPropertyMultiple (Reject PDU)
const PLAIN = 1236; // answers ReadPropertyMultiple with Error services/reject-unrecognized-service
const AI = 0;
const AV = 2;
const BV = 5;
const TIMEOUT_MS = 300;
const RETRIES = 1;
const quiet = (): void => {};

let device: BacnetDevice;
let old: BacnetDevice;
let plain: BacnetDevice;
let gateway: BacnetGateway;
let whoIsGateway: BacnetGateway;

const point = (key: string, type: number, instance: number, extra: Partial<PollPoint> = {}): PollPoint => ({
  key,
  kind: 'reading',
  address: instance,
  bacnet_object_type: type,
  ...extra,
});

const objects: [number, number][] = [
  [AI, 1],
  [AI, 2],
  [AV, 3],
  [AV, 4],
  [BV, 1],
  [BV, 2],
];

const POINTS: PollPoint[] = [
  point('temp', AI, 1),
  point('humidity', AI, 2, { scale: 2 }),
  point('co2', AV, 3, { scale: 10 }),
  point('offset', AV, 4, { offset: 100 }),
  point('fan', BV, 1),
  point('heater', BV, 2),
  point('runtime', AI, 1, { property: 1000 }),
];

const EXPECTED = { temp: 21.5, humidity: 30.125, co2: 30, offset: 95, fan: 1, heater: 1, runtime: 7 };

function seed(d: BacnetDevice): void {
  d.setPresentValue(AI, 1, { type: 4, value: 21.5 }); // REAL
  d.setPresentValue(AI, 2, { type: 5, value: 60.25 }); // DOUBLE
  d.setPresentValue(AV, 3, { type: 2, value: 300 }); // UNSIGNED
  d.setPresentValue(AV, 4, { type: 3, value: -5 }); // SIGNED
  d.setPresentValue(BV, 1, { type: 9, value: 1 }); // ENUMERATED
  d.setPresentValue(BV, 2, { type: 1, value: true }); // BOOLEAN
  d.setProperty(AI, 1, 1000, { type: 2, value: 7 });
  d.setProperty(AI, 1, 77, { type: 7, value: 'abc' }); // CharacterString: not a number
}

beforeAll(async () => {
  device = await startBacnetDevice(DEVICE, await freeUdpPort(), objects);
  old = await startBacnetDevice(OLD, await freeUdpPort(), objects);
  plain = await startBacnetDevice(PLAIN, await freeUdpPort(), objects);
  old.refuseRpm = 'reject';
  plain.refuseRpm = 'error';
  for (const d of [device, old, plain]) seed(d);
  const base = { request_timeout_ms: TIMEOUT_MS, retries: RETRIES };
  gateway = new BacnetGateway(
    fieldConfig({
      ...base,
      bacnet: {
        port: await freeUdpPort(),
        interface: '127.0.0.1',
        broadcast_address: '127.0.0.1:9',
        devices: { [DEVICE]: `127.0.0.1:${device.port}`, [OLD]: `127.0.0.1:${old.port}`, [PLAIN]: `127.0.0.1:${plain.port}` },
      },
    }),
    quiet,
  );
  whoIsGateway = new BacnetGateway(
    fieldConfig({ ...base, bacnet: { port: await freeUdpPort(), interface: '127.0.0.1', broadcast_address: `127.0.0.1:${device.port}`, who_is_timeout_ms: 1500 } }),
    quiet,
  );
});
beforeEach(() => {
  device.mute = false;
  device.refuseRpm = false;
  device.unconfirmedOnly = false;
  for (const d of [device, old, plain]) d.requests = { rp: 0, rpm: 0, subscribe: 0, cancel: 0 };
});
afterAll(async () => {
  await gateway?.close();
  await whoIsGateway?.close();
  device?.close();
  old?.close();
  plain?.close();
});

describe('BACnet readPoints', () => {
  it('reads every supported tag in one ReadPropertyMultiple, raw / scale + offset', async () => {
    const r = await gateway.readPoints(DEVICE, POINTS);
    expect(Object.fromEntries(r.values)).toEqual(EXPECTED);
    expect(r.failures.size).toBe(0);
    expect(device.requests).toMatchObject({ rpm: 1, rp: 0 });
  });

  it('puts an unknown object or a non-numeric value in failures, the other points still read', async () => {
    const r = await gateway.readPoints(DEVICE, [point('temp', AI, 1), point('ghost', AI, 99), point('name', AI, 1, { property: 77 })]);
    expect(Object.fromEntries(r.values)).toEqual({ temp: 21.5 });
    expect(Object.fromEntries(r.failures)).toEqual({
      ghost: `Error read property device:${DEVICE} obj:0:99 prop:85 BacnetError Class: OBJECT (1) Code: UNKNOWN_OBJECT (31)`,
      name: `Error read property device:${DEVICE} obj:0:1 prop:77 tag 7 is not a number`,
    });
    expect(device.requests).toMatchObject({ rpm: 1, rp: 0 });
  });

  it('falls back to one ReadProperty per point on a device that rejects RPM, and remembers it', async () => {
    const first = await gateway.readPoints(OLD, POINTS);
    expect(Object.fromEntries(first.values)).toEqual(EXPECTED);
    expect(old.requests).toMatchObject({ rpm: 1, rp: POINTS.length });
    const second = await gateway.readPoints(OLD, [...POINTS, point('ghost', AI, 99)]);
    expect(Object.fromEntries(second.values)).toEqual(EXPECTED);
    expect(Object.fromEntries(second.failures)).toEqual({
      ghost: `Error read property device:${OLD} obj:0:99 prop:85 BacnetError Class: OBJECT (1) Code: UNKNOWN_OBJECT (31)`,
    });
    expect(old.requests).toMatchObject({ rpm: 1, rp: 2 * POINTS.length + 1 });
    // the memory is per device: the other one still gets RPM
    await gateway.readPoints(DEVICE, POINTS);
    expect(device.requests).toMatchObject({ rpm: 1, rp: 0 });
  });

  it('falls back the same way on an Error of class services (a node-bacnet device without an RPM handler)', async () => {
    for (let i = 0; i < 2; i++) expect(Object.fromEntries((await gateway.readPoints(PLAIN, POINTS)).values)).toEqual(EXPECTED);
    expect(plain.requests).toMatchObject({ rpm: 1, rp: 2 * POINTS.length });
  });

  it('reads point by point for one cycle only when RPM answers one object error for the whole request', async () => {
    device.refuseRpm = 'object-error';
    const ghost = point('ghost', AI, 99);
    const r = await gateway.readPoints(DEVICE, [...POINTS, ghost]);
    expect(Object.fromEntries(r.values)).toEqual(EXPECTED);
    expect([...r.failures.keys()]).toEqual(['ghost']);
    expect(device.requests).toMatchObject({ rpm: 1, rp: POINTS.length + 1 });
    await gateway.readPoints(DEVICE, POINTS);
    expect(device.requests).toMatchObject({ rpm: 2, rp: POINTS.length + 1 });
  });

  it('rejects with a timeout after the configured retries when the device is muted', async () => {
    device.mute = true;
    const started = Date.now();
    const err: unknown = await gateway.readPoints(DEVICE, POINTS).catch((e: unknown) => e);
    const took = Date.now() - started;
    expect(err).toBeInstanceOf(FieldFailure);
    expect(err).toMatchObject({ kind: 'timeout', message: `Timeout device:${DEVICE} obj:0:1 prop:85` });
    expect(device.requests.rpm).toBe(RETRIES + 1);
    expect(took).toBeGreaterThanOrEqual(TIMEOUT_MS * (RETRIES + 1) - 50);
    expect(took).toBeLessThan((TIMEOUT_MS + 500) * (RETRIES + 1));
    device.mute = false;
    expect(Object.fromEntries((await gateway.readPoints(DEVICE, POINTS)).values)).toEqual(EXPECTED);
  });

  it('finds an unconfigured device by Who-Is, as writes do', async () => {
    const before = device.whoIsCount;
    const r = await whoIsGateway.readPoints(DEVICE, POINTS);
    expect(Object.fromEntries(r.values)).toEqual(EXPECTED);
    expect(device.whoIsCount).toBe(before + 1);
  });
});

describe('BACnet COV', () => {
  it('delivers the initial and each changed value of its own object, acknowledged, scaled', async () => {
    const temps: number[] = [];
    const co2s: number[] = [];
    const cancelTemp = await gateway.subscribeCov(DEVICE, point('temp', AI, 1, { scale: 2 }), 60, (v) => temps.push(v));
    const cancelCo2 = await gateway.subscribeCov(DEVICE, point('co2', AV, 3, { scale: 10 }), 60, (v) => co2s.push(v));
    await waitFor(() => temps.length === 1 && co2s.length === 1, 2000, 'initial notifications');
    expect(temps).toEqual([10.75]);
    expect(co2s).toEqual([30]);
    device.setPresentValue(AI, 1, { type: 4, value: 23 });
    await waitFor(() => temps.length === 2, 2000, 'changed value');
    expect(temps).toEqual([10.75, 11.5]);
    expect(co2s).toEqual([30]);
    expect(device.subscriptions()).toHaveLength(2);
    expect(device.subscriptions().every((s) => s.confirmed && s.lifetime === 60)).toBe(true);
    await waitFor(() => device.notifications.every((n) => n.acked), 2000, 'acks');
    await cancelTemp();
    await cancelCo2();
    device.setPresentValue(AI, 1, { type: 4, value: 21.5 });
  });

  it('renews the subscription before its lifetime ends, and cancel stops notifications and renewals', async () => {
    const seen: number[] = [];
    const started = Date.now();
    const cancel = await gateway.subscribeCov(DEVICE, point('temp', AI, 1), 2, (v) => seen.push(v));
    await waitFor(() => seen.length === 1, 2000, 'initial notification');
    // Past the first lifetime (2 s): the device still holds the subscription only if it was renewed.
    await waitFor(() => Date.now() - started > 2600, 3000, 'first lifetime');
    expect(device.requests.subscribe).toBeGreaterThanOrEqual(2);
    expect(device.subscriptions()).toHaveLength(1);
    device.setPresentValue(AI, 1, { type: 4, value: 24 });
    await waitFor(() => seen.includes(24), 2000, 'value after renewal');

    await cancel();
    expect(device.requests.cancel).toBe(1);
    expect(device.subscriptions()).toHaveLength(0);
    const subscribes = device.requests.subscribe;
    const sent = device.notifications.length;
    const got = seen.length;
    device.setPresentValue(AI, 1, { type: 4, value: 25 });
    await new Promise((r) => setTimeout(r, 2000)); // longer than a renewal period (1.6 s)
    expect(device.notifications.length).toBe(sent);
    expect(seen.length).toBe(got);
    expect(device.requests.subscribe).toBe(subscribes);
    device.setPresentValue(AI, 1, { type: 4, value: 21.5 });
  });

  it('accepts unconfirmed notifications too, and survives a consumer that throws', async () => {
    device.unconfirmedOnly = true;
    const seen: number[] = [];
    const cancel = await gateway.subscribeCov(DEVICE, point('offset', AV, 4, { offset: 100 }), 60, (v) => {
      seen.push(v);
      if (seen.length === 1) throw new Error('consumer bug');
    });
    await waitFor(() => seen.length === 1, 2000, 'initial notification');
    device.setPresentValue(AV, 4, { type: 3, value: -7 });
    await waitFor(() => seen.length === 2, 2000, 'changed value');
    expect(seen).toEqual([95, 93]);
    await cancel();
    device.setPresentValue(AV, 4, { type: 3, value: -5 });
  });

  it('rejects a subscription to an unknown object with the device error', async () => {
    const err: unknown = await gateway.subscribeCov(DEVICE, point('ghost', AI, 99), 60, quiet).catch((e: unknown) => e);
    expect(err).toMatchObject({
      kind: 'exception',
      message: `Error subscribe COV device:${DEVICE} obj:0:99 prop:85 BacnetError Class: OBJECT (1) Code: UNKNOWN_OBJECT (31)`,
    });
  });

  it('the test device drops a subscription nobody renews at the end of its lifetime', async () => {
    const port = await freeUdpPort();
    const raw = new Bacnet({ port, interface: '127.0.0.1', broadcastAddress: '127.0.0.1', apduTimeout: 1000 });
    try {
      await new Promise<void>((resolve, reject) =>
        raw.subscribeCov(`127.0.0.1:${device.port}`, { type: AV, instance: 4 }, 77, false, false, 1, {}, (e) => (e ? reject(e) : resolve())),
      );
      expect(device.subscriptions().map((s) => s.processId)).toEqual([77]);
      await new Promise((r) => setTimeout(r, 1200));
      const sent = device.notifications.length;
      device.setPresentValue(AV, 4, { type: 3, value: -6 });
      expect(device.notifications.length).toBe(sent);
      expect(device.subscriptions()).toHaveLength(0);
    } finally {
      raw.close();
      device.setPresentValue(AV, 4, { type: 3, value: -5 });
    }
  });
});
