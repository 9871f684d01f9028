import Bacnet, {
  type BacnetValue,
  type BacnetObjectId,
  type ReadAccessResponse,
  type ReadAccessSpecification,
  type ServiceContent,
  type SubscribeCovRequest,
  type WpmObject,
} from 'node-bacnet';

// A BACnet/IP device on a loopback UDP port, built on node-bacnet's server side (its decoder,
// encoder and BVLC/NPDU/APDU handling). Commandable objects keep a 16-slot priority array; a
// present value set by the test (a measurement) stands in for it. It answers ReadProperty,
// ReadPropertyMultiple (or refuses it with a Reject, like an old device) and SubscribeCOV, with
// confirmed notifications on every change of a present value until the lifetime runs out.

const ERROR_CLASS_OBJECT = 1;
const ERROR_CODE_UNKNOWN_OBJECT = 31;
const REJECT_UNRECOGNIZED_SERVICE = 9;
const ERROR_CLASS_SERVICES = 5;
const ERROR_CODE_REJECT_UNRECOGNIZED_SERVICE = 67;
const NO_SEGMENTATION = 3;
const PRESENT_VALUE = 85;
const PRIORITY_ARRAY = 87;
const RELINQUISH_DEFAULT = 104;
const ALL = 0xffffffff;

interface DeviceObject {
  measured: BacnetValue | null;
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

export interface CovSubscription {
  subscriber: string;
  processId: number;
  objectId: BacnetObjectId;
  confirmed: boolean;
  lifetime: number;
  /** Date.now() when it lapses; Infinity for lifetime 0. */
  expiresAt: number;
}

export interface BacnetDevice {
  port: number;
  writes: RecordedWrite[];
  /** Every datagram received, as hex, for byte-level checks. */
  raw: string[];
  whoIsCount: number;
  /** Stop answering (a device that went away); requests are still recorded. */
  mute: boolean;
  /**
   * How ReadPropertyMultiple is refused: 'reject' (a Reject PDU, unrecognized service, like an old
   * device), 'error' (Error services/reject-unrecognized-service, what node-bacnet itself answers
   * without a handler), 'object-error' (one Error unknown-object for the whole request, as some
   * devices answer when one object is missing); false answers it.
   */
  refuseRpm: false | 'reject' | 'error' | 'object-error';
  /** Send unconfirmed notifications even to subscribers that asked for confirmed ones. */
  unconfirmedOnly: boolean;
  /** Requests received per service (cancellations counted apart from subscriptions). */
  requests: { rp: number; rpm: number; subscribe: number; cancel: number };
  /** COV notifications sent: subscriber process id, the present value, and (confirmed) whether acknowledged. */
  notifications: { processId: number; value: BacnetValue; acked: boolean }[];
  /** Subscriptions still within their lifetime. */
  subscriptions(): CovSubscription[];
  presentValue(type: number, instance: number): BacnetValue;
  /** A new measurement: the present value when nothing is commanded; notifies COV subscribers. */
  setPresentValue(type: number, instance: number, value: BacnetValue): void;
  /** A property other than the present value, for reads. */
  setProperty(type: number, instance: number, property: number, value: BacnetValue): void;
  slot(type: number, instance: number, priority: number): BacnetValue | null;
  close(): void;
}

export async function startBacnetDevice(deviceId: number, port: number, objects: [number, number][]): Promise<BacnetDevice> {
  const server = new Bacnet({ port, interface: '127.0.0.1', broadcastAddress: '127.0.0.1', apduTimeout: 2000 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const store = new Map<string, DeviceObject>();
  for (const [t, i] of objects) store.set(`${t}:${i}`, { measured: null, slots: Array(16).fill(null), relinquishDefault: { type: 4, value: 0 }, other: new Map() });

  const subs = new Map<string, CovSubscription>();
  const live = (): CovSubscription[] => {
    for (const [k, s] of subs) if (s.expiresAt <= Date.now()) subs.delete(k);
    return [...subs.values()];
  };
  const object = (type: number, instance: number): DeviceObject => {
    const o = store.get(`${type}:${instance}`);
    if (!o) throw new Error('no such object');
    return o;
  };
  const notify = (s: CovSubscription): void => {
    const value = device.presentValue(s.objectId.type, s.objectId.instance);
    const sent = { processId: s.processId, value, acked: false };
    device.notifications.push(sent);
    const remaining = Number.isFinite(s.expiresAt) ? Math.max(0, Math.round((s.expiresAt - Date.now()) / 1000)) : 0;
    const values = [{ property: { id: PRESENT_VALUE }, value: [value] }];
    if (s.confirmed && !device.unconfirmedOnly) server.confirmedCOVNotification(s.subscriber, s.objectId, s.processId, deviceId, remaining, values, {}, (err) => (sent.acked = !err));
    else server.unconfirmedCOVNotification(s.subscriber, s.processId, deviceId, s.objectId, remaining, values);
  };
  const changed = (type: number, instance: number, before: BacnetValue): void => {
    const now = device.presentValue(type, instance);
    if (now.type === before.type && now.value === before.value) return;
    if (device.mute) return;
    for (const s of live()) if (s.objectId.type === type && s.objectId.instance === instance) notify(s);
  };

  const device: BacnetDevice = {
    port,
    writes: [],
    raw: [],
    whoIsCount: 0,
    mute: false,
    refuseRpm: false,
    unconfirmedOnly: false,
    requests: { rp: 0, rpm: 0, subscribe: 0, cancel: 0 },
    notifications: [],
    subscriptions: live,
    presentValue(type, instance) {
      const o = object(type, instance);
      return o.slots.find((s) => s !== null) ?? o.measured ?? o.relinquishDefault;
    },
    setPresentValue(type, instance, value) {
      const before = device.presentValue(type, instance);
      object(type, instance).measured = value;
      changed(type, instance, before);
    },
    setProperty(type, instance, property, value) {
      object(type, instance).other.set(`${property}:${ALL}`, [value]);
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
    if (property === PRESENT_VALUE) {
      const before = device.presentValue(objectId.type, objectId.instance);
      o.slots[(priority || 16) - 1] = v.type === 0 ? null : v;
      changed(objectId.type, objectId.instance, before);
    } else o.other.set(`${property}:${index}`, value);
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

  /** The property's values, or undefined for an unknown object. */
  const read = (objectId: BacnetObjectId, property: { id: number; index: number }): BacnetValue[] | undefined => {
    const o = store.get(`${objectId.type}:${objectId.instance}`);
    if (!o) return undefined;
    if (property.id === PRESENT_VALUE) return [device.presentValue(objectId.type, objectId.instance)];
    if (property.id === PRIORITY_ARRAY && property.index !== ALL) return [o.slots[property.index - 1] ?? { type: 0, value: null }];
    if (property.id === RELINQUISH_DEFAULT) return [o.relinquishDefault];
    return o.other.get(`${property.id}:${property.index}`) ?? [{ type: 0, value: null }];
  };

  server.on('readProperty', (c: ServiceContent<{ objectId: BacnetObjectId; property: { id: number; index: number } }>) => {
    device.requests.rp++;
    if (device.mute) return;
    const { objectId, property } = c.payload;
    const values = read(objectId, property);
    if (!values) return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_OBJECT, ERROR_CODE_UNKNOWN_OBJECT);
    server.readPropertyResponse(c.header.sender, c.invokeId, objectId, property, values);
  });

  server.on('readPropertyMultiple', (c: ServiceContent<{ properties: ReadAccessSpecification[] }>) => {
    device.requests.rpm++;
    if (device.mute) return;
    if (device.refuseRpm === 'reject') return reject(c.header.sender.address, c.invokeId, REJECT_UNRECOGNIZED_SERVICE);
    if (device.refuseRpm === 'error') return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_SERVICES, ERROR_CODE_REJECT_UNRECOGNIZED_SERVICE);
    if (device.refuseRpm === 'object-error' && c.payload.properties.some((p) => !store.has(`${p.objectId.type}:${p.objectId.instance}`))) {
      return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_OBJECT, ERROR_CODE_UNKNOWN_OBJECT);
    }
    const unknown = { type: 0, value: { type: 'BacnetError', errorClass: ERROR_CLASS_OBJECT, errorCode: ERROR_CODE_UNKNOWN_OBJECT } };
    const answer: ReadAccessResponse[] = c.payload.properties.map(({ objectId, properties }) => ({
      objectId,
      values: properties.map((p) => {
        const property = { id: p.id, index: p.index ?? ALL };
        return { property, value: read(objectId, property) ?? [unknown] };
      }),
    }));
    server.readPropertyMultipleResponse(c.header.sender, c.invokeId, answer);
  });

  server.on('subscribeCov', (c: ServiceContent<SubscribeCovRequest>) => {
    const p = c.payload;
    if (p.cancellationRequest) device.requests.cancel++;
    else device.requests.subscribe++;
    if (device.mute) return;
    const { type, instance } = p.monitoredObjectId;
    if (!store.has(`${type}:${instance}`)) return server.errorResponse(c.header.sender, c.service, c.invokeId, ERROR_CLASS_OBJECT, ERROR_CODE_UNKNOWN_OBJECT);
    const key = `${c.header.sender.address}|${p.subscriberProcessId}|${type}:${instance}`;
    if (p.cancellationRequest) {
      subs.delete(key);
      return server.simpleAckResponse(c.header.sender, c.service, c.invokeId);
    }
    const lifetime = p.lifetime ?? 0;
    const s: CovSubscription = {
      subscriber: c.header.sender.address,
      processId: p.subscriberProcessId,
      objectId: { type, instance },
      confirmed: p.issueConfirmedNotifications ?? false,
      lifetime,
      expiresAt: lifetime === 0 ? Infinity : Date.now() + lifetime * 1000,
    };
    subs.set(key, s);
    server.simpleAckResponse(c.header.sender, c.service, c.invokeId);
    // The standard's initial notification: the subscriber learns the value without waiting for a change.
    notify(s);
  });

  // node-bacnet has no Reject encoder: BVLC unicast, NPDU without options, Reject PDU (0x60).
  const reject = (to: string, invokeId: number, reason: number): void => {
    const pdu = Buffer.from([0x81, 0x0a, 0x00, 0x09, 0x01, 0x00, 0x60, invokeId, reason]);
    (server as unknown as { _transport: { send(b: Buffer, length: number, to: string): void } })._transport.send(pdu, pdu.length, to);
  };

  return device;
}
