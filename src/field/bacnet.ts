import Bacnet, { type BacnetValue, type CovNotification, type ReadPropertyResult, type ServiceContent } from 'node-bacnet';
import { BusQueue } from './queue.js';
import { FieldFailure, isRetryable, errorText } from './errors.js';
import { describeWrite, type BacnetPlan, type BacnetWrite } from './bacnet-plan.js';
import { BACNET_TAGS } from './request.js';
import type { FieldConfig } from './config.js';
import type { Logger } from './types.js';
import type { PollPoint } from './poll-types.js';
import { BacnetReader, type BacnetLink, type ReadOutcome } from './bacnet-read.js';
import { CovSubscriptions } from './bacnet-cov.js';

// BACnet/IP writes and reads through one node-bacnet client (one UDP socket), a queue per device
// address, device_instance -> address by configuration first, then a Who-Is/I-Am cache.
// Reading and COV are in bacnet-read.ts and bacnet-cov.ts (see the "BACnet reading" notes there).

const PROPERTY_PRIORITY_ARRAY = 87;

interface IAmEvent {
  header: { sender: { address: string } };
  payload: { deviceId: number };
}

export interface BacnetOutcome {
  address: string;
  attempts: number;
  verified: boolean;
}

export class BacnetGateway {
  private client: Bacnet | null = null;
  private readonly cache = new Map<number, { address: string; expires: number }>();
  private readonly lookups = new Map<number, Promise<string>>();
  private readonly waiters = new Map<number, Set<(address: string) => void>>();
  private readonly queues = new Map<string, BusQueue>();
  private closed = false;
  private readonly link: BacnetLink = {
    client: () => this.bacnet(),
    resolve: (d) => this.resolve(d),
    enqueue: (d, address, describe, transactions, run) => this.enqueue(d, address, describe, transactions, run),
    attempt: (where, what, op) => this.retry(where, what, op),
    log: (level, msg, data) => this.log(level, msg, data),
  };
  private readonly reader = new BacnetReader(this.link);
  private readonly cov = new CovSubscriptions(this.link);

  constructor(
    private readonly config: FieldConfig,
    private readonly log: Logger,
  ) {}

  /** Every point of a device in one ReadPropertyMultiple (or one ReadProperty each on devices that refuse RPM). */
  readPoints(deviceInstance: number, points: readonly PollPoint[]): Promise<ReadOutcome> {
    if (this.closed) return Promise.reject(new FieldFailure('queue_full', `Queue full device:${deviceInstance}`, 'service closing'));
    return this.reader.readPoints(deviceInstance, points);
  }

  /** SubscribeCOV on the point's object; resolves (after the device's ack) to the cancel function. */
  subscribeCov(deviceInstance: number, point: PollPoint, lifetimeS: number, onValue: (value: number, at: Date) => void): Promise<() => Promise<void>> {
    if (this.closed) return Promise.reject(new FieldFailure('queue_full', `Queue full device:${deviceInstance}`, 'service closing'));
    return this.cov.subscribe(deviceInstance, point, lifetimeS, onValue);
  }

  /** Bound on first use, so a Modbus-only site never opens UDP 47808. */
  private bacnet(): Bacnet {
    if (this.client) return this.client;
    const b = this.config.bacnet;
    const client = new Bacnet({
      port: b.port,
      interface: b.interface,
      broadcastAddress: b.broadcast_address,
      apduTimeout: this.config.request_timeout_ms,
    });
    client.on('error', (e: unknown) => this.log('warn', 'bacnet socket error', { error: errorText(e) }));
    client.on('iAm', (ev: IAmEvent) => this.learn(ev.payload.deviceId, ev.header.sender.address));
    client.on('covNotify', (c: ServiceContent<CovNotification>) => this.cov.notify(c, true));
    client.on('covNotifyUnconfirmed', (c: ServiceContent<CovNotification>) => this.cov.notify(c, false));
    this.client = client;
    return client;
  }

  private learn(deviceId: number, address: string): void {
    this.cache.set(deviceId, { address, expires: Date.now() + this.config.bacnet.cache_ttl_ms });
    const w = this.waiters.get(deviceId);
    if (w) for (const f of w) f(address);
  }

  /** Configured address, else a fresh cache entry, else Who-Is for exactly that instance. */
  resolve(deviceInstance: number): Promise<string> {
    const configured = this.config.bacnet.devices[String(deviceInstance)];
    if (configured) return Promise.resolve(configured);
    const hit = this.cache.get(deviceInstance);
    if (hit && hit.expires > Date.now()) return Promise.resolve(hit.address);
    const pending = this.lookups.get(deviceInstance);
    if (pending) return pending;
    const lookup = new Promise<string>((resolve, reject) => {
      const client = this.bacnet();
      const set = this.waiters.get(deviceInstance) ?? new Set();
      this.waiters.set(deviceInstance, set);
      const done = (address: string): void => {
        clearTimeout(timer);
        set.delete(done);
        resolve(address);
      };
      const timer = setTimeout(() => {
        set.delete(done);
        reject(new FieldFailure('not_found', `Device not found device:${deviceInstance}`, 'no I-Am answer to Who-Is'));
      }, this.config.bacnet.who_is_timeout_ms);
      set.add(done);
      client.whoIs({ lowLimit: deviceInstance, highLimit: deviceInstance });
    }).finally(() => this.lookups.delete(deviceInstance));
    this.lookups.set(deviceInstance, lookup);
    return lookup;
  }

  async write(plan: BacnetPlan, describe: string): Promise<BacnetOutcome> {
    if (this.closed) throw new FieldFailure('queue_full', `Queue full ${describe}`, 'service closing');
    const address = await this.resolve(plan.deviceInstance);
    const transactions = 1 + (plan.verify ? plan.writes.length : 0);
    return this.enqueue(plan.deviceInstance, address, describe, transactions, () => this.run(plan, address));
  }

  /** One job on the device's queue, watchdog sized for `transactions` requests with their retries. */
  private async enqueue<T>(deviceInstance: number, address: string, describe: string, transactions: number, run: () => Promise<T>): Promise<T> {
    if (this.closed) throw new FieldFailure('queue_full', `Queue full ${describe}`, 'service closing');
    let queue = this.queues.get(address);
    if (!queue) {
      queue = new BusQueue(`bacnet ${address}`, this.config.queue_max_length);
      this.queues.set(address, queue);
    }
    const { request_timeout_ms: t, retries } = this.config;
    try {
      return await queue.push(
        {
          run,
          abandon: () => new FieldFailure('timeout', `Timeout ${describe}`, 'watchdog'),
          watchdogMs: (t + 500) * (retries + 1) * transactions + 2000,
        },
        () => new FieldFailure('queue_full', `Queue full ${describe}`),
      );
    } catch (err) {
      // The device may have moved (DHCP): look it up again next time.
      if (err instanceof FieldFailure && (err.kind === 'timeout' || err.kind === 'not_found')) this.cache.delete(deviceInstance);
      throw err;
    }
  }

  private async run(plan: BacnetPlan, address: string): Promise<BacnetOutcome> {
    const first = plan.writes[0] as BacnetWrite;
    let attempts = await this.retry(describeWrite(plan.deviceInstance, first), 'Error write property', () =>
      plan.multiple ? this.wpm(address, plan.writes) : this.wp(address, first),
    );
    if (!plan.verify) return { address, attempts, verified: false };
    for (const w of plan.writes) {
      const where = describeWrite(plan.deviceInstance, w);
      let got: ReadPropertyResult | undefined;
      attempts += await this.retry(where, 'Error read property', async () => {
        got = await this.readBack(address, w);
      });
      const mismatch = this.compare(w, got?.values ?? []);
      if (mismatch) throw new FieldFailure('verify', `Verify failed ${where} ${mismatch}`);
    }
    return { address, attempts, verified: true };
  }

  private async retry(where: string, what: string, op: () => Promise<void>): Promise<number> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.deadline(op(), where);
        return attempt;
      } catch (err) {
        const f = err instanceof FieldFailure ? err : this.classify(err, where, what);
        if (!isRetryable(f.kind) || attempt > this.config.retries) throw f;
        this.log('warn', 'bacnet attempt failed, retrying', { where, attempt, kind: f.kind });
      }
    }
  }

  /** node-bacnet has its own APDU timeout; this one also covers a callback that never comes. */
  private deadline(p: Promise<void>, where: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new FieldFailure('timeout', `Timeout ${where}`)), this.config.request_timeout_ms + 500);
      p.then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (e: unknown) => {
          clearTimeout(timer);
          reject(e);
        },
      );
    });
  }

  private classify(err: unknown, where: string, what: string): FieldFailure {
    const message = errorText(err);
    if (message === 'ERR_TIMEOUT') return new FieldFailure('timeout', `Timeout ${where}`, message);
    const e = err as { bacnetErrorClass?: unknown; bacnetAbortReason?: unknown };
    if (e && (e.bacnetErrorClass !== undefined || e.bacnetAbortReason !== undefined)) {
      return new FieldFailure('exception', `${what} ${where} ${message}`, message);
    }
    return new FieldFailure('link_lost', `${what} ${where} ${message}`, message);
  }

  private static value(w: BacnetWrite): BacnetValue {
    return { type: w.tag, value: w.value };
  }

  private wp(address: string, w: BacnetWrite): Promise<void> {
    return new Promise((resolve, reject) => {
      const options = { ...(w.index === undefined ? {} : { arrayIndex: w.index }), ...(w.priority === undefined ? {} : { priority: w.priority }) };
      this.bacnet().writeProperty(address, { type: w.objectType, instance: w.objectInstance }, w.property, [BacnetGateway.value(w)], options, (err) =>
        err ? reject(err) : resolve(),
      );
    });
  }

  private wpm(address: string, writes: BacnetWrite[]): Promise<void> {
    // One entry per object, properties grouped in request order.
    const objects: { objectId: { type: number; instance: number }; values: { property: { id: number; index: number }; value: BacnetValue[]; priority: number }[] }[] = [];
    for (const w of writes) {
      let o = objects.find((x) => x.objectId.type === w.objectType && x.objectId.instance === w.objectInstance);
      if (!o) {
        o = { objectId: { type: w.objectType, instance: w.objectInstance }, values: [] };
        objects.push(o);
      }
      o.values.push({ property: { id: w.property, index: w.index ?? 0xffffffff }, value: [BacnetGateway.value(w)], priority: w.priority ?? 0 });
    }
    return new Promise((resolve, reject) => {
      this.bacnet().writePropertyMultiple(address, objects, {}, (err) => (err ? reject(err) : resolve()));
    });
  }

  /** A relinquish is confirmed by reading its slot of the priority array, which must now be NULL. */
  private readBack(address: string, w: BacnetWrite): Promise<ReadPropertyResult> {
    const relinquish = w.tag === BACNET_TAGS.NULL;
    const property = relinquish ? PROPERTY_PRIORITY_ARRAY : w.property;
    const index = relinquish ? w.priority : w.index;
    return new Promise((resolve, reject) => {
      this.bacnet().readProperty(address, { type: w.objectType, instance: w.objectInstance }, property, index === undefined ? {} : { arrayIndex: index }, (err, value) =>
        err || !value ? reject(err ?? new Error('empty read')) : resolve(value),
      );
    });
  }

  /** undefined when the device holds what was written, else "wrote X read Y". */
  private compare(w: BacnetWrite, values: BacnetValue[]): string | undefined {
    const got = values[0];
    const show = (v: BacnetValue | undefined) => (v ? `${v.type}:${String(v.value)}` : 'nothing');
    if (w.tag === BACNET_TAGS.NULL) return got && got.type === BACNET_TAGS.NULL ? undefined : `wrote NULL read ${show(got)}`;
    const expected = w.tag === BACNET_TAGS.REAL && typeof w.value === 'number' ? Math.fround(w.value) : w.value;
    const actual = got?.value;
    const same =
      got !== undefined &&
      (w.tag === BACNET_TAGS.BOOLEAN ? Boolean(actual) === expected : typeof actual === 'number' && actual === expected);
    return same ? undefined : `wrote ${w.tag}:${String(expected)} read ${show(got)}`;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.cov.close();
    for (const q of this.queues.values()) q.close();
    const c = this.client;
    this.client = null;
    if (c) {
      try {
        c.close();
      } catch {
        /* already closed */
      }
    }
  }
}
