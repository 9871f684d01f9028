import { existsSync } from 'node:fs';
import type { EventBus } from '../realtime/bus.js';
import { systemClock, type Clock } from '../kernel/clock.js';
import { FieldFailure, errorText } from './errors.js';
import type { Logger } from './types.js';
import type { DeviceState, Poller, PolledDevice, PollPoint } from './poll-types.js';
import { DEFAULT_MAX_GAP, planReads, ReadPlanError, type ReadRun } from './read-plan.js';
import { bacnetReader, deviceBus, put, readBacnet, readModbus, type PollerField, type PollOutcome } from './poll-read.js';

// The reading loop: every device on its own clock, on the field service's buses (poll-read.ts),
// turned into device_readings / device_link / bus_link events. See "Reading" in README.md.

export type { PollerField, BacnetReader } from './poll-read.js';

export interface PollerDeps {
  field: PollerField;
  bus: EventBus;
  log?: Logger;
  /** The box's clock: each device's schedule and the time its readings carry (tests step it). */
  clock?: Clock;
  /** Largest gap bridged inside one read request (registers); 0 never reads unasked addresses. */
  maxGap?: number;
  /** Lifetime asked for BACnet COV subscriptions; the gateway renews them. */
  covLifetimeS?: number;
}

interface Entry {
  device: PolledDevice;
  signature: string;
  bus: string;
  /** Why the device cannot be polled as configured (no address, a point that cannot be planned). */
  problem: string | null;
  /** The read plan of all the device's points (Modbus), the usual poll. */
  runs: ReadRun[];
  /** The timer period: the shortest of the device's and its points' periods. */
  tick: number;
  nextAt: number;
  timer: unknown;
  running: Promise<void> | null;
  removed: boolean;
  misses: number;
  state: DeviceState['state'];
  lastOkAt: string | null;
  lastMessage: string | null;
  /** Point key -> when it was last read; a point with a longer period than the tick waits its turn. */
  lastRead: Map<string, number>;
  /**
   * Every point is read at the tick (no point has a period of its own): all are due together, so
   * one time stands for the map's 50 (no per-point lookups and writes in each cycle).
   */
  uniform: boolean;
  /** When the points of a uniform device were last read. */
  lastPolled: number | undefined;
  /** Points delivered by COV subscriptions (not polled). */
  covKeys: Set<string>;
  unsubscribe: (() => Promise<void>)[];
}

const portExists = (path: string | undefined): boolean => path !== undefined && existsSync(path);

export function createPoller(deps: PollerDeps): Poller {
  const { field, bus } = deps;
  const log: Logger = deps.log ?? (() => {});
  const timers = deps.clock ?? systemClock;
  const now = () => timers.now();
  const maxGap = deps.maxGap ?? DEFAULT_MAX_GAP;
  const entries = new Map<string, Entry>();
  /** Serial buses whose port cannot be opened: path -> the failure. */
  const lostBuses = new Map<string, string>();
  let closed = false;

  const iso = (): string => new Date(now()).toISOString();
  const base = (d: PolledDevice) => ({ device_id: d.id, industry: d.industry, tenant_id: d.tenant_id, site_id: d.site_id, unit_id: d.unit_id, controller_id: d.controller_id });

  function check(d: PolledDevice): { problem: string | null; runs: ReadRun[] } {
    const problem = (p: string) => ({ problem: p, runs: [] });
    if (!(d.period_ms > 0)) return problem(`period_ms must be positive, got ${d.period_ms}`);
    const badPeriod = d.points.find((p) => p.period_ms !== undefined && !(p.period_ms > 0));
    if (badPeriod) return problem(`point ${badPeriod.key}: period_ms must be positive, got ${badPeriod.period_ms}`);
    if (d.transport === 'modbus-tcp' && !d.host) return problem('a modbus-tcp device needs host');
    if (d.transport === 'modbus-rtu' && !d.serial_path) return problem('a modbus-rtu device needs serial_path');
    if (d.transport === 'bacnet' && d.device_instance === undefined) return problem('a bacnet device needs device_instance');
    if (d.transport === 'bacnet') return { problem: null, runs: [] };
    try {
      return { problem: null, runs: planReads(d.points, maxGap) };
    } catch (err) {
      if (err instanceof ReadPlanError) return problem(err.message);
      throw err;
    }
  }

  function add(d: PolledDevice, kept?: Entry): Entry {
    const { problem, runs } = check(d);
    const tick = Math.min(d.period_ms, ...d.points.map((p) => p.period_ms ?? d.period_ms));
    const e: Entry = {
      device: d, signature: JSON.stringify(d), bus: deviceBus(d), problem, runs, tick, nextAt: now(), timer: null, running: null, removed: false,
      misses: kept?.misses ?? 0, state: kept?.state ?? 'unknown', lastOkAt: kept?.lastOkAt ?? null, lastMessage: problem ?? kept?.lastMessage ?? null,
      lastRead: new Map(), covKeys: new Set(), unsubscribe: [],
      uniform: d.points.every((p) => (p.period_ms ?? d.period_ms) === tick), lastPolled: undefined,
    };
    entries.set(d.id, e);
    if (problem) {
      log('error', 'polled device not polled: invalid configuration', { device: d.id, problem });
      return e;
    }
    if (d.transport === 'bacnet') void subscribeCovs(e);
    schedule(e);
    return e;
  }

  function stop(e: Entry): void {
    e.removed = true;
    if (e.timer !== null) timers.clearTimeout(e.timer);
    e.timer = null;
    for (const u of e.unsubscribe.splice(0)) u().catch((err: unknown) => log('warn', 'COV unsubscribe failed', { device: e.device.id, error: errorText(err) }));
  }

  function schedule(e: Entry): void {
    if (closed || e.removed) return;
    e.timer = timers.setTimeout(() => tick(e), Math.max(0, e.nextAt - now()));
  }

  /** Runs at each planned instant; the next one is planned from this one, not from when the poll ends. */
  function tick(e: Entry): void {
    e.timer = null;
    if (closed || e.removed) return;
    if (!e.running) {
      e.running = poll(e)
        .catch((err: unknown) => log('error', 'poll failed unexpectedly', { device: e.device.id, error: errorText(err) }))
        .finally(() => {
          e.running = null;
        });
    }
    // An overrun (or a stalled loop) skips the instants it missed instead of polling in a burst.
    const t = now();
    e.nextAt += e.tick;
    if (e.nextAt <= t) e.nextAt += Math.ceil((t - e.nextAt + 1) / e.tick) * e.tick;
    schedule(e);
  }

  function duePoints(e: Entry, t: number): PollPoint[] {
    // The same test as below, once for all the points (a COV subscription makes the set uneven).
    if (e.uniform && e.covKeys.size === 0) return e.lastPolled === undefined || t - e.lastPolled >= e.tick - e.tick / 2 ? e.device.points : [];
    return e.device.points.filter((p) => {
      if (e.covKeys.has(p.key)) return false;
      const last = e.lastRead.get(p.key) ?? e.lastPolled;
      return last === undefined || t - last >= (p.period_ms ?? e.device.period_ms) - e.tick / 2;
    });
  }

  async function poll(e: Entry): Promise<void> {
    const d = e.device;
    const t = now();
    const points = duePoints(e, t);
    if (!points.length) return;
    let out: PollOutcome;
    try {
      if (d.transport === 'bacnet') out = await readBacnet(field, d, points);
      else out = await readModbus(field, d, points.length === d.points.length ? e.runs : planReads(points, maxGap));
    } catch (err) {
      if (!e.removed && !closed) missed(e, err instanceof FieldFailure ? err : new FieldFailure('link_lost', `Error ${e.bus} ${errorText(err)}`));
      return;
    }
    if (e.removed || closed) return;
    if (points === e.device.points && e.uniform && e.covKeys.size === 0) e.lastPolled = t;
    else for (const p of points) e.lastRead.set(p.key, t);
    if (out.failures.length) log('warn', 'polled device answered with errors', { device: d.id, failures: out.failures });
    answered(e, out);
  }

  function answered(e: Entry, out: PollOutcome): void {
    const at = iso();
    if (e.device.transport === 'modbus-rtu') busBack(e.bus, at);
    e.misses = 0;
    e.lastOkAt = at;
    e.lastMessage = null;
    if (e.state !== 'ok') {
      e.state = 'ok';
      bus.emit('device_link', { ...base(e.device), state: 'ok', misses: 0, message: null, bus: e.bus, at });
    }
    // Spelled out rather than spread from base(): one object of one shape, built on every cycle.
    const d = e.device;
    if (out.count) {
      bus.emit('device_readings', {
        device_id: d.id, industry: d.industry, tenant_id: d.tenant_id, site_id: d.site_id, unit_id: d.unit_id, controller_id: d.controller_id,
        at, values: out.values, setpoints: out.setpoints, source: 'device',
      });
    }
  }

  function missed(e: Entry, f: FieldFailure): void {
    const at = iso();
    e.misses++;
    e.lastMessage = f.message;
    if (e.device.transport === 'modbus-rtu') {
      // 'refused' on a serial bus is the port itself (adapter unplugged): one event for the bus.
      // So is any failure once the port's path has gone: a link lost under a request, or a
      // timeout on a line whose adapter vanished before the port noticed (no retry left to find
      // the port missing).
      if (f.kind === 'refused') return busLost(e.bus, f.message, at);
      if (!portExists(e.device.serial_path)) return busLost(e.bus, `Port unavailable ${e.device.serial_path ?? ''} (${f.message})`, at);
      busBack(e.bus, at);
    }
    if (e.misses >= e.device.loss_after_misses && e.state !== 'lost') {
      e.state = 'lost';
      log('warn', 'polled device lost', { device: e.device.id, misses: e.misses, message: f.message });
      bus.emit('device_link', { ...base(e.device), state: 'lost', misses: e.misses, message: f.message, bus: e.bus, at });
    }
  }

  const devicesOn = (key: string): Entry[] => [...entries.values()].filter((e) => e.bus === key && !e.removed);

  function busLost(key: string, message: string, at: string): void {
    if (lostBuses.has(key)) return;
    lostBuses.set(key, message);
    log('warn', 'serial bus lost', { bus: key, message });
    bus.emit('bus_link', { bus: key, state: 'lost', message, device_ids: devicesOn(key).map((e) => e.device.id), at });
  }

  function busBack(key: string, at: string): void {
    if (!lostBuses.delete(key)) return;
    // Misses counted while the port was gone say nothing about the devices.
    for (const e of devicesOn(key)) e.misses = 0;
    log('info', 'serial bus back', { bus: key });
    bus.emit('bus_link', { bus: key, state: 'ok', message: null, device_ids: devicesOn(key).map((e) => e.device.id), at });
  }

  /** COV points are pushed by the device; a subscription that fails falls back to polling the point. */
  async function subscribeCovs(e: Entry): Promise<void> {
    const d = e.device;
    const covPoints = d.points.filter((p) => p.cov);
    if (!covPoints.length) return;
    try {
      const g = await bacnetReader(field);
      for (const p of covPoints) {
        if (e.removed || closed) return;
        const unsubscribe = await g.subscribeCov(d.device_instance ?? 0, p, deps.covLifetimeS ?? 300, (value) => {
          if (e.removed || closed || !Number.isFinite(value)) return;
          const out: PollOutcome = { values: {}, setpoints: {}, count: 0, failures: [] };
          put(out, p, value);
          answered(e, out);
        });
        if (e.removed || closed) await unsubscribe();
        else {
          e.unsubscribe.push(unsubscribe);
          e.covKeys.add(p.key);
        }
      }
    } catch (err) {
      log('warn', 'COV subscription failed; the point is polled instead', { device: d.id, error: errorText(err) });
    }
  }

  return {
    set(devices) {
      if (closed) return;
      const next = new Map(devices.map((d) => [d.id, d]));
      for (const [id, e] of entries) {
        if (next.has(id)) continue;
        stop(e);
        entries.delete(id);
      }
      for (const d of devices) {
        const e = entries.get(d.id);
        if (e && e.signature === JSON.stringify(d)) continue;
        if (e) stop(e);
        add(d, e);
      }
    },
    snapshot() {
      return [...entries.values()].map((e) => ({ device_id: e.device.id, bus: e.bus, state: e.state, misses: e.misses, last_ok_at: e.lastOkAt, last_message: e.lastMessage }));
    },
    async idle() {
      await Promise.allSettled([...entries.values()].flatMap((e) => (e.running ? [e.running] : [])));
    },
    async close() {
      closed = true;
      const running = [...entries.values()].flatMap((e) => (e.running ? [e.running] : []));
      for (const e of entries.values()) stop(e);
      await Promise.allSettled(running);
    },
  };
}
