import type { CovNotification, ServiceContent } from 'node-bacnet';
import type { PollPoint } from './poll-types.js';
import { FieldFailure, errorText } from './errors.js';
import { PRESENT_VALUE, describePoint, engineering, type BacnetLink } from './bacnet-read.js';

// SubscribeCOV on a point's object (present value only, which is what SubscribeCOV reports).
// Confirmed notifications: the device learns whether we got them (and retries or drops the
// subscription), where unconfirmed ones would be lost silently on a busy UDP network. Every
// notification is acknowledged, even one we no longer route (a cancelled or pre-restart
// subscription), so the device does not retry it. Routing is by subscriber process id, checked
// against the object and device it was issued for.
// The subscription is renewed at 80 % of its lifetime; a failed renewal is tried again at every
// further 10 % (the device may still hold it until the lifetime ends). The cancel function sends
// SubscribeCOV with cancellation and never rejects: a device that does not answer lets the
// subscription lapse at its lifetime. Gateway close stops renewals without cancelling.

interface Subscription {
  id: number;
  deviceInstance: number;
  type: number;
  instance: number;
  point: PollPoint;
  lifetimeS: number;
  onValue: (value: number, at: Date) => void;
  timer: NodeJS.Timeout | null;
  cancelled: boolean;
}

const MAX_PROCESS_ID = 0xffffffff;

export class CovSubscriptions {
  private nextId = 1;
  private readonly subs = new Map<number, Subscription>();

  constructor(private readonly link: BacnetLink) {}

  async subscribe(deviceInstance: number, point: PollPoint, lifetimeS: number, onValue: (value: number, at: Date) => void): Promise<() => Promise<void>> {
    const property = point.property ?? PRESENT_VALUE;
    const type = point.bacnet_object_type;
    const where = `device:${deviceInstance} obj:${String(type)}:${point.address} prop:${property}`;
    if (type === undefined) throw new FieldFailure('invalid', `Invalid point ${where} no bacnet_object_type`);
    if (property !== PRESENT_VALUE) throw new FieldFailure('invalid', `Invalid point ${where} COV reports the present value (85) only`);
    if (!Number.isFinite(lifetimeS) || lifetimeS < 0) throw new FieldFailure('invalid', `Invalid point ${where} lifetime ${lifetimeS} s`);
    // The lifetime travels as an Unsigned number of seconds.
    const lifetime = Math.ceil(lifetimeS);
    const sub: Subscription = { id: this.allocate(), deviceInstance, type, instance: point.address, point, lifetimeS: lifetime, onValue, timer: null, cancelled: false };
    // Routable before the request goes out: the device sends its first notification right after its ack.
    this.subs.set(sub.id, sub);
    try {
      await this.send(sub, false);
    } catch (err) {
      this.subs.delete(sub.id);
      throw err;
    }
    this.schedule(sub, 0.8);
    return () => this.cancel(sub);
  }

  /** A notification from the gateway's socket. */
  notify(c: ServiceContent<CovNotification>, confirmed: boolean): void {
    if (confirmed) this.link.client().simpleAckResponse(c.header.sender, c.service, c.invokeId);
    const n = c.payload;
    const sub = this.subs.get(n.subscriberProcessId);
    if (!sub || sub.type !== n.monitoredObjectId.type || sub.instance !== n.monitoredObjectId.instance || sub.deviceInstance !== n.initiatingDeviceId.instance) return;
    const pv = n.values.find((v) => v.property.id === PRESENT_VALUE);
    if (!pv) return;
    const x = engineering(pv.value[0], sub.point);
    if (typeof x !== 'number') {
      this.link.log('warn', 'bacnet COV notification without a number', { where: describePoint(sub.deviceInstance, { ...sub, property: PRESENT_VALUE }), why: x });
      return;
    }
    // A throwing consumer must not take the socket's message handler down with it.
    try {
      sub.onValue(x, new Date());
    } catch (err) {
      this.link.log('error', 'bacnet COV consumer failed', { subscription: sub.id, error: errorText(err) });
    }
  }

  close(): void {
    for (const sub of this.subs.values()) {
      sub.cancelled = true;
      if (sub.timer) clearTimeout(sub.timer);
    }
    this.subs.clear();
  }

  private allocate(): number {
    const id = this.nextId;
    this.nextId = id >= MAX_PROCESS_ID ? 1 : id + 1;
    return this.subs.has(id) ? this.allocate() : id;
  }

  private async send(sub: Subscription, cancel: boolean): Promise<void> {
    const where = describePoint(sub.deviceInstance, { type: sub.type, instance: sub.instance, property: PRESENT_VALUE });
    const address = await this.link.resolve(sub.deviceInstance);
    await this.link.enqueue(sub.deviceInstance, address, where, 1, () =>
      this.link.attempt(where, cancel ? 'Error cancel COV' : 'Error subscribe COV', () => this.request(address, sub, cancel)),
    );
  }

  private request(address: string, sub: Subscription, cancel: boolean): Promise<void> {
    return new Promise((resolve, reject) => {
      this.link.client().subscribeCov(address, { type: sub.type, instance: sub.instance }, sub.id, cancel, true, sub.lifetimeS, {}, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** Renewal at `fraction` of the lifetime from now; lifetime 0 is indefinite and never renewed. */
  private schedule(sub: Subscription, fraction: number): void {
    if (sub.cancelled || sub.lifetimeS === 0) return;
    sub.timer = setTimeout(() => void this.renew(sub), sub.lifetimeS * 1000 * fraction);
    // A forgotten subscription must not keep the process alive.
    sub.timer.unref();
  }

  private async renew(sub: Subscription): Promise<void> {
    sub.timer = null;
    if (sub.cancelled) return;
    try {
      await this.send(sub, false);
      // Cancelled while the renewal waited for the queue: the renewal re-subscribed, undo it.
      if (sub.cancelled) await this.send(sub, true);
      else this.schedule(sub, 0.8);
    } catch (err) {
      this.link.log('warn', 'bacnet COV renewal failed', { subscription: sub.id, device: sub.deviceInstance, error: errorText(err) });
      this.schedule(sub, 0.1);
    }
  }

  private async cancel(sub: Subscription): Promise<void> {
    if (sub.cancelled) return;
    sub.cancelled = true;
    if (sub.timer) clearTimeout(sub.timer);
    this.subs.delete(sub.id);
    try {
      await this.send(sub, true);
    } catch (err) {
      this.link.log('warn', 'bacnet COV cancellation failed, the subscription lapses at its lifetime', { subscription: sub.id, device: sub.deviceInstance, error: errorText(err) });
    }
  }
}
