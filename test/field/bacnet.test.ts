import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createFieldService, type ExecuteResult, type FieldService } from '../../src/field/service.js';
import { fieldConfig } from '../../src/field/config.js';
import type { FieldWriteAudit } from '../../src/field/types.js';
import { freeUdpPort } from './helpers.js';
import { startBacnetDevice, type BacnetDevice } from './peers/bacnet-device.js';

// BACnet/IP writes to a node-bacnet device on a loopback UDP port.

const actor = { id: 'tester', role: 'operator' };
const DEVICE = 1234;
const AV = 2; // analog-value
const BV = 5; // binary-value
let device: BacnetDevice;
let service: FieldService;
let staticService: FieldService;
const audit: FieldWriteAudit[] = [];

const wp = (s: FieldService, item: object): Promise<ExecuteResult> => s.execute({ jsonrpc: '2.0', protocol: 'bacnet', params: [{ device_instance: DEVICE, ...item }] }, actor, 'bn');
const messages = (r: ExecuteResult) => (r.ok ? [] : r.messages);

beforeAll(async () => {
  const devicePort = await freeUdpPort();
  device = await startBacnetDevice(DEVICE, devicePort, [
    [AV, 1],
    [AV, 2],
    [BV, 1],
  ]);
  const base = { request_timeout_ms: 800, retries: 1 };
  service = createFieldService(
    fieldConfig({ ...base, bacnet: { port: await freeUdpPort(), interface: '127.0.0.1', broadcast_address: `127.0.0.1:${devicePort}`, who_is_timeout_ms: 1500 } }),
    { audit: (e) => void audit.push(e) },
  );
  // no Who-Is possible (broadcast goes nowhere): the address must come from configuration
  staticService = createFieldService(
    fieldConfig({ ...base, bacnet: { port: await freeUdpPort(), interface: '127.0.0.1', broadcast_address: '127.0.0.1:9', devices: { [DEVICE]: `127.0.0.1:${devicePort}` } } }),
    { audit: () => {} },
  );
});
beforeEach(() => {
  device.mute = false;
  device.writes.length = 0;
  device.raw.length = 0;
});
afterAll(async () => {
  await service?.close();
  await staticService?.close();
  device?.close();
});

describe('BACnet WriteProperty', () => {
  it('resolves the device by Who-Is/I-Am, writes REAL at priority 8, and caches the address', async () => {
    const r = await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 21.5, verify: true });
    expect(r).toMatchObject({ ok: true, results: [{ target: `device:${DEVICE}@127.0.0.1:${device.port}`, verified: true }] });
    expect(device.whoIsCount).toBe(1);
    expect(device.writes).toEqual([{ service: 'wp', objectId: { type: AV, instance: 1 }, property: 85, index: 0xffffffff, priority: 8, value: [{ type: 4, value: 21.5 }] }]);
    // on the wire: object 0x0c 00800001 (AV 1), property 0x19 55, value 3e 44 41ac0000 3f, priority 0x49 08
    expect(device.raw.some((h) => h.includes('0c008000011955' + '3e4441ac00003f' + '4908'))).toBe(true);
    expect(device.slot(AV, 1, 8)).toEqual({ type: 4, value: 21.5 });
    await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 22 });
    expect(device.whoIsCount).toBe(1);
  });

  it('honours the application tag: ENUMERATED, UNSIGNED, SIGNED, BOOLEAN, DOUBLE', async () => {
    expect(await wp(service, { object_type: BV, object_instance: 1, property: 85, priority: 5, tag: 9, value: 1 })).toMatchObject({ ok: true });
    expect(await wp(service, { object_type: AV, object_instance: 2, property: 1000, tag: 2, value: 300 })).toMatchObject({ ok: true });
    expect(await wp(service, { object_type: AV, object_instance: 2, property: 1001, tag: 3, value: -5 })).toMatchObject({ ok: true });
    expect(await wp(service, { object_type: AV, object_instance: 2, property: 1002, tag: 1, value: 1 })).toMatchObject({ ok: true });
    expect(await wp(service, { object_type: AV, object_instance: 2, property: 1003, tag: 5, value: 0.1 })).toMatchObject({ ok: true });
    expect(device.writes.map((w) => w.value[0])).toEqual([
      { type: 9, value: 1 },
      { type: 2, value: 300 },
      { type: 3, value: -5 },
      { type: 1, value: true },
      { type: 5, value: 0.1 },
    ]);
    const hex = device.raw.join(' ');
    expect(hex).toContain('3e9101' + '3f' + '4905'); // ENUMERATED 1, priority 5
    expect(hex).toContain('3e22012c3f'); // UNSIGNED 300
    expect(hex).toContain('3e31fb3f'); // SIGNED -5
    expect(hex).toContain('3e11' + '3f'); // BOOLEAN true
    expect(hex).toContain('3e5508' + '3fb999999999999a' + '3f'); // DOUBLE 0.1
  });

  it('a NULL tag relinquishes the priority slot; verify reads the priority array', async () => {
    await wp(service, { object_type: AV, object_instance: 2, property: 85, priority: 3, tag: 4, value: 50 });
    await wp(service, { object_type: AV, object_instance: 2, property: 85, priority: 9, tag: 4, value: 10 });
    expect(device.presentValue(AV, 2)).toEqual({ type: 4, value: 50 });
    const r = await wp(service, { object_type: AV, object_instance: 2, property: 85, priority: 3, tag: 0, value: null, verify: true });
    expect(r).toMatchObject({ ok: true, results: [{ verified: true }] });
    expect(device.slot(AV, 2, 3)).toBeNull();
    expect(device.presentValue(AV, 2)).toEqual({ type: 4, value: 10 });
    expect(device.raw.some((h) => h.includes('3e003f4903'))).toBe(true); // NULL at priority 3
  });

  it('verify fails when a higher priority holds another value', async () => {
    await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 1, tag: 4, value: 99 });
    const r = await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 10, tag: 4, value: 5, verify: true });
    expect(messages(r)).toEqual([`Verify failed device:${DEVICE} obj:${AV}:1 prop:85 wrote 4:5 read 4:99`]);
    await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 1, tag: 0 });
  });

  it('REAL is the nearest float32: the largest float32 as printed is sent 7f7fffff; beyond it is refused', async () => {
    const r = await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 3.4028235e38, verify: true });
    expect(r).toMatchObject({ ok: true });
    expect(device.raw.some((h) => h.includes('3e44' + '7f7fffff' + '3f'))).toBe(true);
    const r2 = await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 3.5e38 });
    expect(messages(r2)).toEqual([`Invalid value device:${DEVICE} obj:2:1 prop:85 tag 4 (REAL) takes a number within float32, got 3.5e+38`]);
    await wp(service, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 0 });
  });

  it('refuses NULL without priority, values that do not fit their tag, unknown tags', async () => {
    const r = await service.execute(
      {
        jsonrpc: '2.0',
        protocol: 'bacnet',
        params: [
          { device_instance: DEVICE, object_type: AV, object_instance: 1, property: 85, tag: 0, value: 0 },
          { device_instance: DEVICE, object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 2, value: -1 },
          { device_instance: DEVICE, object_type: AV, object_instance: 1, property: 85, priority: 17, tag: 4, value: 1 },
          { device_instance: DEVICE, object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 7, value: 1 },
        ],
      },
      actor,
      'x',
    );
    expect(r).toMatchObject({ ok: false, status: 400 });
    expect(messages(r)).toEqual([
      `Invalid value device:${DEVICE} obj:2:1 prop:85 tag 0 (NULL, relinquish) needs a priority 1..16`,
      `Invalid value device:${DEVICE} obj:2:1 prop:85 tag 2 takes an integer 0..4294967295, got -1`,
      expect.stringMatching(/^Invalid request: params\[2\]\.priority: /),
      expect.stringMatching(/^Invalid request: params\[3\]\.tag: /),
    ]);
    expect(device.writes).toEqual([]);
  });

  it('device error (unknown object) and unknown device give clear messages', async () => {
    const r = await wp(service, { object_type: AV, object_instance: 77, property: 85, priority: 8, tag: 4, value: 1 });
    expect(messages(r)).toEqual([`Error write property device:${DEVICE} obj:2:77 prop:85 BacnetError Class: OBJECT (1) Code: UNKNOWN_OBJECT (31)`]);
    const r2 = await service.execute({ jsonrpc: '2.0', protocol: 'bacnet', params: [{ device_instance: 999, object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 1 }] }, actor, 'x');
    expect(messages(r2)).toEqual(['Device not found device:999']);
  });

  it('device that stops answering: Timeout after the retry; the next write succeeds when it is back', async () => {
    device.mute = true;
    const r = await wp(staticService, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 1 });
    expect(messages(r)).toEqual([`Timeout device:${DEVICE} obj:2:1 prop:85`]);
    expect(device.writes).toHaveLength(2);
    device.mute = false;
    expect(await wp(staticService, { object_type: AV, object_instance: 1, property: 85, priority: 8, tag: 4, value: 2 })).toMatchObject({ ok: true });
  });
});

describe('BACnet WritePropertyMultiple', () => {
  const wpm = (array: object[], verify = false) =>
    staticService.execute({ jsonrpc: '2.0', protocol: 'bacnet_m', params: [{ device_instance: DEVICE, verify, array }] }, actor, 'wpm');

  it('writes several properties of an object, with index (-1 = none) and priority, in one request', async () => {
    const r = await wpm(
      [
        { object_type: AV, object_instance: 1, property: 85, priority: 8, index: -1, tag: 4, value: 18.25 },
        { object_type: AV, object_instance: 1, property: 1010, index: 3, tag: 2, value: 7, priority: 16 },
      ],
      true,
    );
    expect(r).toMatchObject({ ok: true, results: [{ verified: true }] });
    expect(device.writes).toEqual([
      { service: 'wpm', objectId: { type: AV, instance: 1 }, property: 85, index: 0xffffffff, priority: 8, value: [{ type: 4, value: 18.25 }] },
      { service: 'wpm', objectId: { type: AV, instance: 1 }, property: 1010, index: 3, priority: 16, value: [{ type: 2, value: 7 }] },
    ]);
    expect(device.presentValue(AV, 1)).toEqual({ type: 4, value: 18.25 });
  });

  it('several objects go in one request, encoded as the standard lists them (checked byte by byte)', async () => {
    // node-bacnet's device-side decoder only understands one object per request, so the device is
    // muted and the bytes it received are compared with a hand-written encoding.
    device.mute = true;
    const r = await wpm([
      { object_type: AV, object_instance: 1, property: 85, priority: 12, index: -1, tag: 4, value: 18.25 },
      { object_type: AV, object_instance: 2, property: 85, priority: 12, index: -1, tag: 4, value: -3 },
      { object_type: AV, object_instance: 2, property: 1010, index: 3, tag: 2, value: 7 },
    ]);
    expect(messages(r)).toEqual([`Timeout device:${DEVICE} obj:2:1 prop:85`]);
    const apdu =
      '0c00800001' + '1e' + '0955' + '2e4441920000' + '2f' + '390c' + '1f' + // AV1: PV = REAL 18.25 @12
      '0c00800002' + '1e' + '0955' + '2e44c0400000' + '2f' + '390c' + // AV2: PV = REAL -3 @12
      '0a03f2' + '1903' + '2e2107' + '2f' + '1f'; // AV2: 1010[3] = UNSIGNED 7, no priority
    expect(device.raw[0]).toMatch(new RegExp(`^810a00..0104......10${apdu}$`));
  });
});

describe('audit', () => {
  it('records every BACnet write with actor, target, values, outcome and correlation id', () => {
    const ok = audit.find((a) => a.outcome === 'ok' && a.protocol === 'bacnet');
    expect(ok).toMatchObject({ actor, correlation_id: 'bn', target: expect.stringMatching(/^device:1234@127\.0\.0\.1:\d+$/), values: expect.objectContaining({ device_instance: DEVICE }) });
    expect(audit.some((a) => a.outcome === 'failed' && a.failure_kind === 'not_found')).toBe(true);
  });
});
