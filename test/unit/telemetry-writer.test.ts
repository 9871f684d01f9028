// When the telemetry batch writer writes (src/modules/devices/writer.ts): a trickle waits for
// telemetry_flush_ms; a batch someone waits on (an HTTP push, `now`) or a burst does not, also
// when it arrives while another batch is being written. The storage is replaced by one whose
// write takes 50 ms, so the test is about the schedule, not SQL.
import { describe, expect, it } from 'vitest';
import { TelemetryWriter } from '../../src/modules/devices/writer.js';
import type { Services } from '../../src/kernel/context.js';
import type { TelemetryPoint } from '../../src/realtime/bus.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const FLUSH_MS = 2000;

function writer(): { w: TelemetryWriter; writes: number[] } {
  const writes: number[] = [];
  const services = {
    db: { transaction: <T>(fn: () => Promise<T>) => fn() },
    bus: { stage: async () => undefined, emit: () => undefined },
    log: { error: () => undefined },
  } as unknown as Services;
  const w = new TelemetryWriter(services, { flushMs: FLUSH_MS, batchMax: 800 });
  // The batch's storage: 50 ms a write, its size recorded.
  (w as unknown as { storage: { write(points: TelemetryPoint[]): Promise<{ commit(): void }> } }).storage = {
    write: async (points) => {
      await sleep(50);
      writes.push(points.length);
      return { commit: () => undefined };
    },
  };
  return { w, writes };
}

const points = (n: number): TelemetryPoint[] => Array.from({ length: n }, (_, i) => ({
  tenant_id: 't', site_id: 's', device_id: `d-${i % 10}`, metric: 'temperature', value: 20, unit: null,
  status: 'online', latency_ms: null, ts: new Date().toISOString(), received_at: new Date().toISOString(),
}));

describe('telemetry writer schedule', () => {
  it('a trickle waits for the flush timer', async () => {
    const { w, writes } = writer();
    const t0 = performance.now();
    await w.enqueue(points(3));
    expect(performance.now() - t0).toBeGreaterThanOrEqual(FLUSH_MS - 50);
    expect(writes).toEqual([3]);
  });

  it('a push someone waits on, arriving while another batch is written, is written right after it, not after the timer', async () => {
    const { w, writes } = writer();
    const first = w.enqueue(points(3), { now: true });
    await sleep(10); // the first batch is being written now
    const t0 = performance.now();
    await w.enqueue(points(2), { now: true });
    await first;
    expect(performance.now() - t0).toBeLessThan(FLUSH_MS / 4);
    expect(writes).toEqual([3, 2]);
  });

  it('a burst arriving while another batch is written does not wait for the timer either', async () => {
    const { w, writes } = writer();
    const first = w.enqueue(points(3), { now: true });
    await sleep(10);
    const t0 = performance.now();
    await w.enqueue(points(150)); // past an eighth of batchMax
    await first;
    expect(performance.now() - t0).toBeLessThan(FLUSH_MS / 4);
    expect(writes).toEqual([3, 150]);
  });
});
