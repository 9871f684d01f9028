import Bacnet, { type BacnetValue, type BacnetObjectId, type ServiceContent, type WpmObject } from 'node-bacnet';

// A BACnet/IP device on a loopback UDP port, built on node-bacnet's server side (its decoder,
// encoder and BVLC/NPDU/APDU handling). Commandable objects keep a 16-slot priority array.

const ERROR_CLASS_OBJECT = 1;
const ERROR_CODE_UNKNOWN_OBJECT = 31;
const NO_SEGMENTATION = 3;
const PRESENT_VALUE = 85;
const PRIORITY_ARRAY = 87;
const RELINQUISH_DEFAULT = 104;
const ALL = 0xffffffff;

interface DeviceObject {
  slots: (BacnetValue | null)[];
  relinquishDefault: BacnetValue;
  other: Map<string, BacnetValue[]>;
}

export interface RecordedWrite {
  service: 'wp' | 'wpm';
  objectId: BacnetObjectId;
  property: number;
  index: number;
  priority: number;
  value: BacnetValue[];
}

export interface BacnetDevice {
  port: number;
  writes: RecordedWrite[];
  /** Every datagram received, as hex, for byte-level checks. */
  raw: string[];
  whoIsCount: number;
  /** Stop answering (a device that went away); requests are still recorded. */
  mute: boolean;
  presentValue(type: number, instance: number): BacnetValue;
  slot(type: number, instance: number, priority: number): BacnetValue | null;
  close(): void;
}

export async function startBacnetDevice(deviceId: number, port: number, objects: [number, number][]): Promise<BacnetDevice> {
  const server = new Bacnet({ port, interface: '127.0.0.1', broadcastAddress: '127.0.0.1', apduTimeout: 2000 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const store = new Map<string, DeviceObject>();
  for (const [t, i] of objects) store.set(`${t}:${i}`, { slots: Array(16).fill(null), relinquishDefault: { type: 4, value: 0 }, other: new Map() });

  const device: BacnetDevice = {
    port,
    writes: [],
    raw: [],
    whoIsCount: 0,
    mute: false,
    presentValue(type, instance) {
      const o = store.get(`${type}:${instance}`);
      if (!o) throw new Error('no such object');
      return o.slots.find((s) => s !== null) ?? o.relinquishDefault;
    },
    slot(type, instance, priority) {
      return store.get(`${type}:${instance}`)?.slots[priority - 1] ?? null;
    },
    close: () => server.close(),
  };
  // Test-only tap on node-bacnet's private transport to see the bytes on the wire.
  (server as unknown as { _transport: { on(e: 'message', f: (m: Buffer) => void): void } })._transport.on('message', (m) => device.raw.push(m.toString('hex')));

  const apply = (objectId: BacnetObjectId, property: number, index: number, priority: number, value: BacnetValue[]): boolean => {
    const o = store.get(`${objectId.type}:${objectId.instance}`);
    if (!o) return false;
    const v = value[0] ?? { type: 0, value: null };
    if (property === PRESENT_VALUE) o.slots[(priority || 16) - 1] = v.type === 0 ? null : v;
    else o.other.set(`${property}:${index}`, value);
    return true;
  };

  server.on('whoIs', (c: ServiceContent<{ lowLimit?: number; highLimit?: number }>) => {
    device.whoIsCount++;
    const { lowLimit, highLimit } = c.payload ?? {};
    if (device.mute) return;
    if (lowLimit !== undefined && highLimit !== undefined && (deviceId < lowLimit || deviceId > highLimit)) return;
    server.iAmResponse(c.header.sender, deviceId, NO_SEGMENTATION, 0);
  });

  server.on('writeProperty', (c: ServiceContent<{ objectId: BacnetObjectId; value: { property: { id: number; index: number }; value: BacnetValue[]; priority: number } }>) => {
    const { objectId, value } = c.payload;
    device.writes.push({ service: 'wp', objectId, property: value.property.id, index: value.property.index, priority: value.priority, value: value.value });
    if (device.mute) return;
    if (!apply(objectId, value.property.id, value.property.index, value.priority, value.value)) {
      return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_OBJECT, ERROR_CODE_UNKNOWN_OBJECT);
    }
    server.simpleAckResponse(c.header.sender, c.service, c.invokeId);
  });

  server.on('writePropertyMultiple', (c: ServiceContent<WpmObject>) => {
    const { objectId, values } = c.payload;
    for (const v of values) device.writes.push({ service: 'wpm', objectId, property: v.property.id, index: v.property.index, priority: v.priority, value: v.value });
    if (device.mute) return;
    for (const v of values) {
      if (!apply(objectId, v.property.id, v.property.index, v.priority, v.value)) {
        return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_OBJECT, ERROR_CODE_UNKNOWN_OBJECT);
      }
    }
    server.simpleAckResponse(c.header.sender, c.service, c.invokeId);
  });

  server.on('readProperty', (c: ServiceContent<{ objectId: BacnetObjectId; property: { id: number; index: number } }>) => {
    if (device.mute) return;
    const { objectId, property } = c.payload;
    const o = store.get(`${objectId.type}:${objectId.instance}`);
    if (!o) return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_OBJECT, ERROR_CODE_UNKNOWN_OBJECT);
    let values: BacnetValue[];
    if (property.id === PRESENT_VALUE) values = [device.presentValue(objectId.type, objectId.instance)];
    else if (property.id === PRIORITY_ARRAY && property.index !== ALL) values = [o.slots[property.index - 1] ?? { type: 0, value: null }];
    else if (property.id === RELINQUISH_DEFAULT) values = [o.relinquishDefault];
    else values = o.other.get(`${property.id}:${property.index}`) ?? [{ type: 0, value: null }];
    server.readPropertyResponse(c.header.sender, c.invokeId, objectId, property, values);
  });

  return device;
}
