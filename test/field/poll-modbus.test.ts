import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventBus } from '../../src/realtime/bus.js';
import { createFieldService, type FieldService } from '../../src/field/service.js';
import { fieldConfig } from '../../src/field/config.js';
import { createPoller } from '../../src/field/poller.js';
import type { Poller, PollPoint } from '../../src/field/poll-types.js';
import { closedTcpPort, FaultProxy, startModbusPeer, stopAll, waitFor, type ModbusPeer } from './helpers.js';
import { device, expectedValues, hr, placeCases, record, spyField, type Recorded } from './poll-helpers.js';

// The poller against a real Modbus TCP slave (pymodbus): values of every type and layout, the
// request count, comm loss and return, writes before reads, and a dead device beside a live one.

const actor = { id: 'tester', role: 'operator' };
let peer: ModbusPeer;
let field: FieldService;
let bus: EventBus;
let poller: Poller | null = null;
let events: Recorded;

beforeAll(async () => {
  peer = await startModbusPeer('tcp', '0');
});
afterEach(async () => {
  await poller?.close();
  poller = null;
  await field?.close();
  await peer.reset();
});
afterAll(async () => {
  await stopAll();
});

function start(opts: { timeoutMs?: number; retries?: number } = {}) {
  field = createFieldService(fieldConfig({ request_timeout_ms: opts.timeoutMs ?? 250, retries: opts.retries ?? 0 }), { audit: () => {} });
  bus = new EventBus();
  events = record(bus);
  const spy = spyField(field);
  poller = createPoller({ field: spy.field, bus });
  return { poller, spy };
}

describe('poller on Modbus TCP', () => {
  it('every data type and order arrives with its value, scale and offset applied; holding, input, coil and discrete input', async () => {
    const hrPoints = await placeCases(peer, 'hr');
    const irPoints = (await placeCases(peer, 'ir')).map((p) => ({ ...p, key: `ir.${p.key}`, kind: 'setpoint' as const }));
    await peer.set('co', 3, [1, 0, 1]);
    await peer.set('di', 7, [0, 1]);
    const bits: PollPoint[] = [
      { key: 'fan', kind: 'reading', object_type: 'coil', address: 3 },
      { key: 'heater', kind: 'reading', object_type: 'coil', address: 4 },
      { key: 'alarm_in', kind: 'reading', object_type: 'discrete input', address: 8 },
    ];
    const base = await peer.requests();
    const { poller } = start();
    poller.set([device('d1', { port: peer.port, points: [...hrPoints, ...irPoints, ...bits] })]);
    await waitFor(() => events.readings.length > 0, 5000, 'readings');
    await poller.close();
    const r = events.readings[0]!;
    expect(r).toMatchObject({ device_id: 'd1', industry: 'poultry', tenant_id: 'tenant-1', site_id: 'site-1', unit_id: 'house-1', controller_id: 'ctl-d1', source: 'device' });
    expect(r.values).toEqual({ ...expectedValues(), fan: 1, heater: 0, alarm_in: 1 });
    expect(r.setpoints).toEqual(Object.fromEntries(Object.entries(expectedValues()).map(([k, v]) => [`ir.${k}`, v])));
    expect(events.links.map((l) => l.state)).toEqual(['ok']);
    // one request per table and poll (gaps of 3 registers bridged): FC03, FC04, FC01, FC02
    const after = await peer.requests();
    const polls = events.readings.length;
    for (const fc of ['1', '2', '3', '4']) expect((after[fc] ?? 0) - (base[fc] ?? 0), `FC${fc}`).toBe(polls);
  });

  it('50 contiguous holding registers are read in one request per poll', async () => {
    await peer.set('hr', 100, Array.from({ length: 50 }, (_, i) => i * 3));
    const base = (await peer.requests())['3'] ?? 0;
    const { poller, spy } = start();
    poller.set([device('d50', { port: peer.port, period_ms: 200, points: Array.from({ length: 50 }, (_, i) => hr(`r${i}`, 100 + i)) })]);
    await waitFor(() => events.readings.length >= 3, 5000, '3 polls');
    await poller.close();
    const polls = events.readings.length;
    expect(events.readings[2]!.values).toEqual(Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`r${i}`, i * 3])));
    expect(spy.reads.map((r) => [r.address, r.count])).toEqual(Array.from({ length: polls }, () => [100, 50]));
    expect(((await peer.requests())['3'] ?? 0) - base).toBe(polls);
  });

  it('a peer that stops answering: device_link lost after exactly loss_after_misses missed polls, ok at its return', async () => {
    const proxy = new FaultProxy(peer.port);
    await proxy.listen();
    await peer.set('hr', 0, [215]);
    const { poller, spy } = start({ timeoutMs: 200 });
    poller.set([device('d', { port: proxy.port, period_ms: 300, loss_after_misses: 3, points: [hr('temp', 0, { scale: 10 })] })]);
    await waitFor(() => events.readings.length >= 2, 5000, 'readings');
    proxy.mode = 'mute';
    proxy.dropAll();
    await waitFor(() => events.links.some((l) => l.state === 'lost'), 5000, 'lost');
    const lost = events.links.find((l) => l.state === 'lost')!;
    const failedBefore = spy.reads.filter((r) => !r.ok && r.end <= lost.t);
    expect(failedBefore).toHaveLength(3);
    expect(failedBefore.every((r) => r.kind === 'timeout')).toBe(true);
    expect(lost).toMatchObject({ device_id: 'd', misses: 3, bus: `tcp:127.0.0.1:${proxy.port}`, message: `Timeout 127.0.0.1:${proxy.port} addr:0` });
    expect(poller.snapshot()).toEqual([expect.objectContaining({ device_id: 'd', state: 'lost', misses: 3 })]);
    // more misses: still one lost event
    await waitFor(() => spy.reads.filter((r) => !r.ok).length >= 5, 5000, 'more misses');
    expect(events.links.filter((l) => l.state === 'lost')).toHaveLength(1);
    const n = events.readings.length;
    proxy.mode = 'forward';
    await waitFor(() => events.links.at(-1)?.state === 'ok' && events.readings.length > n, 5000, 'back');
    expect(events.links.map((l) => l.state)).toEqual(['ok', 'lost', 'ok']);
    expect(events.readings.at(-1)!.values).toEqual({ temp: 21.5 });
    expect(poller.snapshot()[0]).toMatchObject({ state: 'ok', misses: 0, last_message: null });
    await proxy.close();
  });

  it('a write pushed during a poll cycle goes on the wire before the queued reads', async () => {
    const proxy = new FaultProxy(peer.port);
    proxy.delayMs = 60; // every answer takes 60 ms: reads pile up behind the one on the wire
    await proxy.listen();
    const { poller, spy } = start({ timeoutMs: 1000 });
    // five controllers behind one gateway (one TCP endpoint, one queue), polled together
    poller.set(Array.from({ length: 5 }, (_, i) => device(`g${i}`, { port: proxy.port, modbus_unit_id: i + 1, period_ms: 2000, points: [hr('t', i)] })));
    const queue = field.modbusBus({ kind: 'tcp', host: '127.0.0.1', port: proxy.port });
    await waitFor(() => queue.queueLength >= 4, 5000, 'reads queued');
    const pushedAt = Date.now();
    const waiting = spy.reads.filter((r) => r.end === 0);
    const result = await field.execute({ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', device_port: proxy.port, object_type: 'holding register', object_address: 150, data_type: 'uint16', value: 77 }] }, actor, 'w');
    const writeDone = Date.now();
    expect(result).toMatchObject({ ok: true });
    expect(waiting.length).toBeGreaterThanOrEqual(3);
    // at most the read that was on the wire finished before the write; every other one after it
    await waitFor(() => waiting.every((r) => r.end > 0), 5000, 'reads done');
    expect(waiting.filter((r) => r.end <= writeDone).length).toBeLessThanOrEqual(1);
    expect(writeDone - pushedAt).toBeLessThan(60 * 2 + 250);
    expect(await peer.hr(150, 1)).toEqual([77]);
    await proxy.close();
  });

  it('a dead device costs its own timeout and nothing to a device on another bus or behind it on the same one', async () => {
    const dead = await closedTcpPort();
    const mute = new FaultProxy(peer.port);
    mute.mode = 'mute';
    await mute.listen();
    // The dead devices' timeout (500 ms) is twice the jitter allowed (250 ms): were the live device
    // made to wait for one of them, a gap would miss its period by at least the timeout.
    const { poller } = start({ timeoutMs: 500 });
    const period = 400;
    poller.set([
      device('alive', { port: peer.port, period_ms: period, points: [hr('t', 0)] }),
      device('refused', { port: dead, period_ms: period, points: [hr('t', 0)] }),
      device('silent', { port: mute.port, period_ms: period, points: [hr('t', 0)] }),
    ]);
    await new Promise((r) => setTimeout(r, 3000));
    const alive = events.readings.filter((r) => r.device_id === 'alive').map((r) => r.t);
    expect(alive.length).toBeGreaterThanOrEqual(7);
    const gaps = alive.slice(1).map((t, i) => t - alive[i]!);
    for (const g of gaps) expect(Math.abs(g - period)).toBeLessThan(250);
    expect(events.links.filter((l) => l.state === 'lost').map((l) => l.device_id).sort()).toEqual(['refused', 'silent']);
    const lostRefused = events.links.find((l) => l.device_id === 'refused' && l.state === 'lost')!;
    expect(lostRefused.message).toBe(`Connection refused 127.0.0.1:${dead} addr:0`);
    expect(events.buses).toEqual([]);
    await mute.close();
  });
});
