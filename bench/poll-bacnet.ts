// BACnet reading benchmark: `npx tsx bench/poll-bacnet.ts [cycles] [points]`. Not a test: prints figures only.
// One poll cycle = readPoints of every point of a device (loopback test devices, same process):
//  - gateway, ReadPropertyMultiple (a device that answers RPM)
//  - gateway, one ReadProperty per point (a device that rejects RPM): the baseline RPM replaces
//  - bare node-bacnet readPropertyMultiple on its own socket, no queue: the floor
// and the COV latency from a changed present value at the device to onValue at the gateway.
import Bacnet from 'node-bacnet';
import { loadavg } from 'node:os';
import { BacnetGateway } from '../src/field/bacnet.js';
import { fieldConfig } from '../src/field/config.js';
import type { PollPoint } from '../src/field/poll-types.js';
import { freeUdpPort } from '../test/field/helpers.js';
import { startBacnetDevice } from '../test/field/peers/bacnet-device.js';

const CYCLES = Number(process.argv[2] ?? 300);
const POINTS = Number(process.argv[3] ?? 20);
const AI = 0;

function quantiles(lat: number[]): string {
  const s = [...lat].sort((a, b) => a - b);
  const q = (p: number) => (s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN).toFixed(3);
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  return `p50 ${q(0.5)} ms   p99 ${q(0.99)} ms   mean ${mean.toFixed(3)} ms`;
}

async function timed(n: number, op: () => Promise<void>): Promise<number[]> {
  const lat: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await op();
    lat.push(performance.now() - t);
  }
  return lat;
}

async function main(): Promise<void> {
  const objects = Array.from({ length: POINTS }, (_, i): [number, number] => [AI, i + 1]);
  const rpmDevice = await startBacnetDevice(1, await freeUdpPort(), objects);
  const oldDevice = await startBacnetDevice(2, await freeUdpPort(), objects);
  oldDevice.refuseRpm = 'reject';
  for (const d of [rpmDevice, oldDevice]) for (const [t, i] of objects) d.setPresentValue(t, i, { type: 4, value: i * 1.5 });
  const points: PollPoint[] = objects.map(([t, i]) => ({ key: `p${i}`, kind: 'reading', address: i, bacnet_object_type: t, scale: 2 }));
  const gateway = new BacnetGateway(
    fieldConfig({
      request_timeout_ms: 2000,
      bacnet: { port: await freeUdpPort(), interface: '127.0.0.1', broadcast_address: '127.0.0.1:9', devices: { 1: `127.0.0.1:${rpmDevice.port}`, 2: `127.0.0.1:${oldDevice.port}` } },
    }),
    () => {},
  );
  const raw = new Bacnet({ port: await freeUdpPort(), interface: '127.0.0.1', broadcastAddress: '127.0.0.1', apduTimeout: 2000 });
  try {
    const check = await gateway.readPoints(1, points);
    if (check.values.size !== POINTS) throw new Error(`expected ${POINTS} values, got ${check.values.size}`);
    await gateway.readPoints(2, points); // learns that device 2 rejects RPM
    const spec = objects.map(([type, instance]) => ({ objectId: { type, instance }, properties: [{ id: 85 }] }));
    for (let i = 0; i < 20; i++) await gateway.readPoints(1, points); // warm-up

    console.log(`BACnet poll cycle, ${POINTS} points, ${CYCLES} cycles, loadavg ${loadavg()[0]?.toFixed(2)} on 2 cores shared`);
    const rpm = await timed(CYCLES, async () => void (await gateway.readPoints(1, points)));
    const rp = await timed(CYCLES, async () => void (await gateway.readPoints(2, points)));
    const bare = await timed(CYCLES, () => new Promise<void>((resolve, reject) => raw.readPropertyMultiple(`127.0.0.1:${rpmDevice.port}`, spec, {}, (e) => (e ? reject(e) : resolve()))));
    console.log(`  gateway RPM            ${quantiles(rpm)}`);
    console.log(`  gateway RP per point   ${quantiles(rp)}   (baseline)`);
    console.log(`  bare node-bacnet RPM   ${quantiles(bare)}   (floor)`);

    let changedAt = 0;
    const cov: number[] = [];
    let resolveNext: (() => void) | null = null;
    const cancel = await gateway.subscribeCov(1, points[0] as PollPoint, 300, () => {
      if (changedAt) cov.push(performance.now() - changedAt);
      resolveNext?.();
    });
    await new Promise((r) => setTimeout(r, 100));
    for (let i = 0; i < CYCLES; i++) {
      const next = new Promise<void>((r) => (resolveNext = r));
      changedAt = performance.now();
      rpmDevice.setPresentValue(AI, 1, { type: 4, value: 100 + i });
      await next;
    }
    await cancel();
    console.log(`  COV change -> onValue  ${quantiles(cov)}`);
  } finally {
    raw.close();
    await gateway.close();
    rpmDevice.close();
    oldDevice.close();
  }
}

main().catch((e: unknown) => {
  console.error(e);
  process.exitCode = 1;
});
