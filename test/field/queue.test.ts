import { describe, expect, it } from 'vitest';
import { BusQueue } from '../../src/field/queue.js';
import { FieldFailure } from '../../src/field/errors.js';

describe('BusQueue', () => {
  const refusal = () => new FieldFailure('queue_full', 'Queue full x addr:1');

  it('runs one job at a time, in order', async () => {
    const q = new BusQueue('x', 10);
    let running = 0;
    let maxRunning = 0;
    const order: number[] = [];
    const job = (i: number) => ({
      run: async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await new Promise((r) => setTimeout(r, 5));
        order.push(i);
        running--;
        return i;
      },
      abandon: () => new FieldFailure('timeout', 't'),
      watchdogMs: 5000,
    });
    expect(await Promise.all([1, 2, 3, 4].map((i) => q.push(job(i), refusal)))).toEqual([1, 2, 3, 4]);
    expect(order).toEqual([1, 2, 3, 4]);
    expect(maxRunning).toBe(1);
  });

  it('a job that never settles is abandoned by the watchdog and the queue moves on', async () => {
    const q = new BusQueue('x', 10);
    let abandoned = 0;
    const stuck = q.push({ run: () => new Promise<never>(() => {}), abandon: () => (abandoned++, new FieldFailure('timeout', 'Timeout x addr:1')), watchdogMs: 100 }, refusal);
    const next = q.push({ run: async () => 'ok', abandon: () => new FieldFailure('timeout', 't'), watchdogMs: 1000 }, refusal);
    await expect(stuck).rejects.toMatchObject({ kind: 'timeout', message: 'Timeout x addr:1' });
    expect(await next).toBe('ok');
    expect(abandoned).toBe(1);
    expect(q.length).toBe(0);
  });

  it('a job that throws synchronously does not wedge the queue', async () => {
    const q = new BusQueue('x', 10);
    const bad = q.push({ run: () => { throw new Error('boom'); }, abandon: () => new FieldFailure('timeout', 't'), watchdogMs: 1000 }, refusal);
    await expect(bad).rejects.toThrow('boom');
    expect(await q.push({ run: async () => 1, abandon: () => new FieldFailure('timeout', 't'), watchdogMs: 1000 }, refusal)).toBe(1);
  });

  it('refuses beyond its length, counting only waiting jobs', async () => {
    const q = new BusQueue('x', 1);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const job = { run: () => gate, abandon: () => new FieldFailure('timeout', 't'), watchdogMs: 5000 };
    const a = q.push(job, refusal);
    const b = q.push(job, refusal);
    await expect(q.push(job, refusal)).rejects.toMatchObject({ kind: 'queue_full' });
    release();
    await Promise.all([a, b]);
  });
});
