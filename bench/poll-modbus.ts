// Poller benchmark: `npx tsx bench/poll-modbus.ts [cycles] [siteSeconds]`. Not a test: prints figures.
//  a. Modbus TCP: one poll cycle of 50 holding registers against a bare modbus-serial
//     readHoldingRegisters of the same registers, same pymodbus slave, alternated in the same run.
//     Target <= 1.2x. The cycle is the poller's own (createPoller on a clock this bench steps): from
//     the tick through the due points, the queued read, the decode of 50 points and the bookkeeping
//     to the device_readings event. Also printed: readModbus and the event alone (the cycle this
//     bench measured before 2026-11-27, without the poller's tick and bookkeeping).
//  b. Modbus RTU on a socat pty pair (no baud timing: a pty delivers at once): software time per
//     read of 20 registers (through the poller's read path minus the bare modbus-serial read) against
//     the wire time at 9600 baud 8N1; then bus utilisation and the shortest period for 10 such
//     controllers on one line, from the wire time. Target software <= 1% of wire.
//  c. A 10-device site: 10 controllers x 20 registers on one TCP slave, polled for `siteSeconds`
//     at a 1 s period (10x the site's 10 s), process CPU scaled to 10 s, as % of one core; beside
//     the same process idle for the same time. Target <= 5%.
import ModbusRTU from 'modbus-serial';
import { EventBus } from '../src/realtime/bus.js';
import { createFieldService } from '../src/field/service.js';
import { fieldConfig } from '../src/field/config.js';
import { createPoller } from '../src/field/poller.js';
import { readModbus } from '../src/field/poll-read.js';
import { planReads } from '../src/field/read-plan.js';
import type { PolledDevice, PollPoint } from '../src/field/poll-types.js';
import type { Clock } from '../src/kernel/clock.js';
import { startModbusPeer, startPtyPair, stopAll, removeDir } from '../test/field/helpers.js';

const CYCLES = Number(process.argv[2] ?? 2000);
const SITE_S = Number(process.argv[3] ?? 30);

const points = (n: number): PollPoint[] => Array.from({ length: n }, (_, i) => ({ key: `r${i}`, kind: 'reading', object_type: 'holding register', address: i, data_type: 'int16', scale: 10 }));
const dev = (id: string, over: Partial<PolledDevice>): PolledDevice => ({
  id, industry: 'poultry', tenant_id: 't', site_id: null, unit_id: 'h', controller_id: id, transport: 'modbus-tcp', host: '127.0.0.1', modbus_unit_id: 1, period_ms: 1000, loss_after_misses: 3, points: [], ...over,
});
const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
const mean = (xs: number[]): number => xs.reduce((a, b) => a + b, 0) / xs.length;
const ms = (x: number): string => `${x.toFixed(3)} ms`;

async function direct(client: ModbusRTU, count: number): Promise<number> {
  const t = performance.now();
  await client.readHoldingRegisters(0, count);
  return performance.now() - t;
}

const plans = new Map<PolledDevice, ReturnType<typeof planReads>>();

/** One poll cycle as the poller runs it: plan, queued read(s), decode, the event's records. */
async function cycle(field: ReturnType<typeof createFieldService>, d: PolledDevice, bus: EventBus): Promise<number> {
  const t = performance.now();
  // the poller plans a device once, at set(), and reuses the runs while every point is due
  const out = await readModbus(field, d, plans.get(d) ?? plans.set(d, planReads(d.points)).get(d)!);
  bus.emit('device_readings', { device_id: d.id, industry: d.industry, tenant_id: d.tenant_id, site_id: d.site_id, unit_id: d.unit_id, controller_id: d.controller_id, at: new Date().toISOString(), values: out.values, setpoints: out.setpoints, source: 'device' });
  return performance.now() - t;
}

async function benchTcp(): Promise<void> {
  const peer = await startModbusPeer('tcp', '0');
  await peer.set('hr', 0, Array.from({ length: 50 }, (_, i) => i * 7));
  const field = createFieldService(fieldConfig({ request_timeout_ms: 2000, retries: 0 }), { audit: () => {} });
  const bus = new EventBus();
  let seen = 0;
  let last: Record<string, number> = {};
  let delivered: (() => void) | null = null;
  bus.on('device_readings', (e) => {
    seen++;
    last = e.values;
    delivered?.();
  });
  // A clock this bench steps: the poller's next tick is captured, and called when the bench says.
  let virtual = Date.now();
  let pending: (() => void) | null = null;
  const clock: Clock = {
    now: () => virtual,
    setTimeout: (fn) => (pending = fn),
    clearTimeout: (h) => { if (pending === h) pending = null; },
  };
  const d = dev('tcp50', { port: peer.port, points: points(50) });
  const poller = createPoller({ field, bus, clock });
  poller.set([d]);
  const pollerCycle = async (): Promise<number> => {
    const tick = pending;
    if (!tick) throw new Error('the poller scheduled no tick');
    pending = null;
    const done = new Promise<void>((resolve) => (delivered = resolve));
    const t = performance.now();
    tick();
    await done;
    const took = performance.now() - t;
    virtual += d.period_ms;
    return took;
  };
  const client = new ModbusRTU();
  await client.connectTCP('127.0.0.1', { port: peer.port });
  client.setID(1);
  const warm = 200;
  for (let i = 0; i < warm; i++) {
    await direct(client, 50);
    await pollerCycle();
    await cycle(field, d, bus);
  }
  const a: number[] = [];
  const b: number[] = [];
  const c: number[] = [];
  for (let i = 0; i < CYCLES; i++) {
    a.push(await direct(client, 50));
    b.push(await pollerCycle());
    c.push(await cycle(field, d, bus));
  }
  client.close(() => {});
  await poller.close();
  await field.close();
  await peer.stop();
  if (seen !== 2 * (CYCLES + warm) || Object.keys(last).length !== 50 || last.r49 !== 34.3) throw new Error(`expected every cycle to deliver the 50 values (${seen} events)`);
  const us = (x: number): string => `${(x * 1000).toFixed(1)} us`;
  console.log(`(a) TCP, 50 holding registers, ${CYCLES} cycles each, alternated`);
  console.log(`    bare modbus-serial read   median ${ms(median(a))}  mean ${ms(mean(a))}`);
  console.log(`    poller cycle              median ${ms(median(b))}  mean ${ms(mean(b))}  (+${us(median(b) - median(a))} at the median)`);
  console.log(`    readModbus + event alone  median ${ms(median(c))}  mean ${ms(mean(c))}  (+${us(median(c) - median(a))})`);
  console.log(`    ratio                     median ${(median(b) / median(a)).toFixed(2)}x  mean ${(mean(b) / mean(a)).toFixed(2)}x  (target <= 1.2x)`);
}

/** Bytes on the wire of an FC03 read of n registers: request 8; answer unit, fc, byte count, data, CRC. */
const wireMs = (n: number, baud: number): number => {
  const chars = 8 + 5 + 2 * n;
  const gaps = 2 * 3.5; // the silence that ends each frame
  return ((chars + gaps) * 10 * 1000) / baud;
};

async function benchRtu(): Promise<void> {
  const pty = await startPtyPair();
  const peer = await startModbusPeer('rtu', pty.b);
  await peer.set('hr', 0, Array.from({ length: 20 }, (_, i) => i));
  const field = createFieldService(fieldConfig({ request_timeout_ms: 2000, retries: 0, modbus: { serial: { baud_rate: 9600 } } }), { audit: () => {} });
  const bus = new EventBus();
  const d = dev('rtu20', { transport: 'modbus-rtu', serial_path: pty.a, host: undefined, points: points(20) });
  const n = Math.min(CYCLES, 500);
  const b: number[] = [];
  for (let i = 0; i < 50; i++) await cycle(field, d, bus);
  for (let i = 0; i < n; i++) b.push(await cycle(field, d, bus));
  await field.close();
  // the bare read after ours: the port is free again
  const client = new ModbusRTU();
  await client.connectRTUBuffered(pty.a, { baudRate: 9600 });
  client.setID(1);
  const a: number[] = [];
  for (let i = 0; i < 50; i++) await direct(client, 20);
  for (let i = 0; i < n; i++) a.push(await direct(client, 20));
  await new Promise<void>((r) => client.close(() => r()));
  await peer.stop();
  await pty.stop();
  removeDir(pty.dir);
  const wire = wireMs(20, 9600);
  const soft = median(b) - median(a);
  console.log(`(b) RTU over a pty, 20 holding registers, ${n} reads each`);
  console.log(`    pty round trip: bare modbus-serial median ${ms(median(a))}, poller cycle median ${ms(median(b))} (both include pymodbus and socat)`);
  console.log(`    poller software time per read ${ms(soft)} vs wire time at 9600 8N1 ${ms(wire)}: ${((soft / wire) * 100).toFixed(3)}% (target <= 1%)`);
  console.log(`    whole pty round trip through the poller vs wire: ${((median(b) / wire) * 100).toFixed(2)}%`);
  const round = 10 * wire;
  console.log(`    10 controllers x 20 registers: ${ms(round)} of wire per round -> shortest period ${(round / 1000).toFixed(3)} s (100% bus); every 10 s: ${((round / 10_000) * 100).toFixed(2)}% of the bus`);
}

async function benchSite(): Promise<void> {
  const peer = await startModbusPeer('tcp', '0');
  const field = createFieldService(fieldConfig({ request_timeout_ms: 2000, retries: 0 }), { audit: () => {} });
  const bus = new EventBus();
  let readings = 0;
  bus.on('device_readings', () => void readings++);
  const idle0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, SITE_S * 1000));
  const idle = process.cpuUsage(idle0);
  const poller = createPoller({ field, bus });
  poller.set(Array.from({ length: 10 }, (_, i) => dev(`c${i}`, { port: peer.port, modbus_unit_id: i + 1, period_ms: 1000, points: points(20) })));
  const busy0 = process.cpuUsage();
  await new Promise((r) => setTimeout(r, SITE_S * 1000));
  const busy = process.cpuUsage(busy0);
  await poller.close();
  await field.close();
  await peer.stop();
  const pct = (u: NodeJS.CpuUsage, scale: number): number => ((u.user + u.system) / 1000 / (SITE_S * 1000)) * 100 * scale;
  console.log(`(c) 10 controllers x 20 registers, polled every 1 s for ${SITE_S} s (${readings} polls)`);
  console.log(`    process CPU idle ${pct(idle, 1).toFixed(3)}% of a core; polling ${pct(busy, 1).toFixed(3)}% at 1 s`);
  console.log(`    at the site's 10 s period: ${((pct(busy, 1) - pct(idle, 1)) / 10 + pct(idle, 1)).toFixed(3)}% of a core (idle ${pct(idle, 1).toFixed(3)}% + polling/10; target <= 5%)`);
}

try {
  await benchTcp();
  await benchRtu();
  await benchSite();
} finally {
  await stopAll();
}
