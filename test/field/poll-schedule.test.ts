import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { EventBus } from '../../src/realtime/bus.js';
import type { Clock } from '../../src/kernel/clock.js';
import { createPoller, type PollerField, type BacnetReader } from '../../src/field/poller.js';
import { fieldConfig } from '../../src/field/config.js';
import { FieldFailure } from '../../src/field/errors.js';
import type { ModbusRead, ModbusReadOutcome } from '../../src/field/modbus-bus.js';
import type { Poller, PollPoint } from '../../src/field/poll-types.js';
import { device, hr, record } from './poll-helpers.js';

// The poller's clock and state on a simulated field (vitest's fake timers): no drift, overruns
// skip instants, set() keeps state, per-point periods, and the BACnet branch on a stand-in gateway.
// What goes on a real wire is in poll-modbus.test.ts and poll-rtu.test.ts.

const clock: Clock = { now: () => Date.now(), setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms), clearTimeout: (h: unknown) => clearTimeout(h as ReturnType<typeof setTimeout>) };
let t0 = 0;
let poller: Poller | null = null;

beforeEach(() => {
  vi.useFakeTimers();
  t0 = Date.now();
});
afterEach(async () => {
  await poller?.close();
  poller = null;
  vi.useRealTimers();
});

/** A field whose reads take `latency(n)` ms (n = 0, 1, ...) and then answer, or fail when `fail(n)`. */
function simulated(latency: (n: number) => number, fail: (n: number) => FieldFailure | null = () => null, gateway: object = {}) {
  const starts: { at: number; read: ModbusRead }[] = [];
  const field: PollerField = {
    config: fieldConfig({}),
    bacnet: async () => gateway,
    modbusBus: () => ({
      read: (read: ModbusRead) => {
        const n = starts.length;
        starts.push({ at: Date.now() - t0, read });
        return new Promise<ModbusReadOutcome>((resolve, reject) =>
          setTimeout(() => {
            const f = fail(n);
            if (f) reject(f);
            else resolve({ data: Array.from({ length: read.count }, (_, i) => read.address + i), attempts: 1 });
          }, latency(n)),
        );
      },
    }),
  };
  return { field, starts };
}

describe('poller clock', () => {
  it('polls at the planned instants, not at "end of last poll + period"', async () => {
    const sim = simulated(() => 300);
    poller = createPoller({ field: sim.field, bus: new EventBus(), clock });
    poller.set([device('d', { period_ms: 1000, points: [hr('t', 0)] })]);
    await vi.advanceTimersByTimeAsync(4500);
    expect(sim.starts.map((s) => s.at)).toEqual([0, 1000, 2000, 3000, 4000]);
  });

  it('a poll that overruns skips the instants it missed instead of bursting', async () => {
    const sim = simulated((n) => (n === 0 ? 2500 : 100));
    const bus = new EventBus();
    const events = record(bus);
    poller = createPoller({ field: sim.field, bus, clock });
    poller.set([device('d', { period_ms: 1000, points: [hr('t', 0)] })]);
    await vi.advanceTimersByTimeAsync(5500);
    expect(sim.starts.map((s) => s.at)).toEqual([0, 3000, 4000, 5000]);
    expect(events.readings).toHaveLength(4);
  });

  it('a point with a longer period is read only when due', async () => {
    const sim = simulated(() => 10);
    poller = createPoller({ field: sim.field, bus: new EventBus(), clock });
    poller.set([device('d', { period_ms: 1000, points: [hr('fast', 0), hr('slow', 40, { period_ms: 3000 })] })]);
    await vi.advanceTimersByTimeAsync(6500);
    const slowReads = sim.starts.filter((s) => s.read.address === 40).map((s) => s.at);
    // its own request (too far from 'fast' to bridge), right after the first one's 10 ms
    expect(slowReads).toEqual([10, 3010, 6010]);
    expect(sim.starts.filter((s) => s.read.address === 0)).toHaveLength(7);
  });
});

describe('poller state', () => {
  it('set() keeps the state of devices that stay, drops the ones that go', async () => {
    const sim = simulated(() => 50, () => new FieldFailure('timeout', 'Timeout 10.0.0.9:502 addr:0'));
    const bus = new EventBus();
    const events = record(bus);
    poller = createPoller({ field: sim.field, bus, clock });
    const d = device('d', { host: '10.0.0.9', period_ms: 1000, loss_after_misses: 3, points: [hr('t', 0)] });
    poller.set([d, device('other', { host: '10.0.0.8', period_ms: 1000, points: [hr('t', 0)] })]);
    await vi.advanceTimersByTimeAsync(2500);
    expect(events.links.filter((l) => l.device_id === 'd')).toEqual([expect.objectContaining({ state: 'lost', misses: 3, message: 'Timeout 10.0.0.9:502 addr:0' })]);
    // a changed point list for the same device: still lost, no second event
    poller.set([{ ...d, points: [hr('t', 0), hr('h', 1)] }]);
    expect(poller.snapshot()).toEqual([{ device_id: 'd', bus: 'tcp:10.0.0.9:502', state: 'lost', misses: 3, last_ok_at: null, last_message: 'Timeout 10.0.0.9:502 addr:0' }]);
    await vi.advanceTimersByTimeAsync(2000);
    expect(events.links.filter((l) => l.device_id === 'd')).toHaveLength(1);
    expect(poller.snapshot()[0]!.misses).toBeGreaterThan(3);
    poller.set([]);
    const reads = sim.starts.length;
    await vi.advanceTimersByTimeAsync(3000);
    expect(sim.starts).toHaveLength(reads);
    expect(poller.snapshot()).toEqual([]);
  });

  it('a device that cannot be polled as configured is reported, not polled', async () => {
    const sim = simulated(() => 10);
    poller = createPoller({ field: sim.field, bus: new EventBus(), clock });
    poller.set([device('bad', { points: [{ key: 'c', kind: 'reading', object_type: 'coil', address: 1, data_type: 'float32' }] }), device('nohost', { host: undefined, points: [hr('t', 0)] }), device('zero', { points: [hr('t', 0, { period_ms: 0 })] })]);
    await vi.advanceTimersByTimeAsync(1000);
    expect(sim.starts).toEqual([]);
    expect(poller.snapshot().map((s) => [s.device_id, s.state, s.last_message])).toEqual([
      ['bad', 'unknown', 'point c: a coil holds one bit, data_type must be bool, got float32'],
      ['nohost', 'unknown', 'a modbus-tcp device needs host'],
      ['zero', 'unknown', 'point t: period_ms must be positive, got 0'],
    ]);
  });
});

describe('poller BACnet branch (stand-in gateway)', () => {
  const bacnetDevice = (points: PollPoint[]) => device('b', { transport: 'bacnet', host: undefined, device_instance: 1234, period_ms: 1000, points });
  const av = (key: string, instance: number, extra: Partial<PollPoint> = {}): PollPoint => ({ key, kind: 'reading', address: instance, bacnet_object_type: 2, property: 85, ...extra });

  it('polls with readPoints, takes COV points from subscribeCov, reports a silent device lost', async () => {
    let answer = true;
    const polled: string[][] = [];
    let push: ((v: number, at: Date) => void) | null = null;
    let unsubscribed = 0;
    const gateway: BacnetReader = {
      readPoints: async (instance, points) => {
        expect(instance).toBe(1234);
        polled.push(points.map((p) => p.key));
        if (!answer) throw new FieldFailure('timeout', 'Timeout device:1234');
        return { values: new Map(points.map((p) => [p.key, p.address + 0.5])), failures: new Map() };
      },
      subscribeCov: async (_instance, point, lifetime, onValue) => {
        expect([point.key, lifetime]).toEqual(['co2', 300]);
        push = onValue;
        return async () => void unsubscribed++;
      },
    };
    const bus = new EventBus();
    const events = record(bus);
    poller = createPoller({ field: simulated(() => 0, () => null, gateway).field, bus, clock });
    poller.set([bacnetDevice([av('temp', 1), av('sp', 2, { kind: 'setpoint' }), av('co2', 3, { cov: true })])]);
    await vi.advanceTimersByTimeAsync(10);
    expect(polled[0]).toEqual(['temp', 'sp']);
    expect(events.readings[0]).toMatchObject({ values: { temp: 1.5 }, setpoints: { sp: 2.5 } });
    push!(812, new Date());
    expect(events.readings.at(-1)).toMatchObject({ values: { co2: 812 }, setpoints: {} });
    answer = false;
    await vi.advanceTimersByTimeAsync(3000);
    expect(events.links.map((l) => [l.state, l.bus])).toEqual([['ok', 'bacnet:device:1234'], ['lost', 'bacnet:device:1234']]);
    poller.set([]);
    await vi.advanceTimersByTimeAsync(10);
    expect(unsubscribed).toBe(1);
  });

  it('a gateway without the reading methods is a miss with a clear message', async () => {
    poller = createPoller({ field: simulated(() => 0).field, bus: new EventBus(), clock });
    poller.set([bacnetDevice([av('temp', 1)])]);
    await vi.advanceTimersByTimeAsync(10);
    expect(poller.snapshot()[0]).toMatchObject({ misses: 1, last_message: 'BACnet reads are not available in this build (BacnetGateway.readPoints)' });
  });
});
