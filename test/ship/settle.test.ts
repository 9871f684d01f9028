// The post-start collection gives heap pages back, and its timer never keeps a process alive.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { settleAfterStart, type Settled } from '../../src/runtime/settle.js';

describe('settle after start', () => {
  it('collects in memory-reducing mode: the heap shrinks after start-up garbage is dropped', async () => {
    // Start-up stand-in: about 40 MB of objects that are garbage once "start-up" is over.
    let garbage: unknown[] | undefined = Array.from({ length: 400_000 }, (_, i) => ({ i, s: `row ${i}`, a: [i, i + 1] }));
    expect(garbage.length).toBe(400_000);
    garbage = undefined;
    const settled = await new Promise<Settled>((resolve) => settleAfterStart(resolve, 0));
    expect(settled.heapAfter).toBeLessThan(settled.heapBefore - 10 * 1024 * 1024);
    expect(settled.rss).toBeGreaterThan(0);
    expect(settled.ms).toBeGreaterThanOrEqual(0);
  });

  it('does not keep the process alive (the service exits on SIGTERM without waiting for it)', () => {
    const script = "import('./src/runtime/settle.ts').then((m) => m.settleAfterStart(() => console.log('ran'), 60000))";
    const t0 = Date.now();
    const r = spawnSync(process.execPath, ['--import', 'tsx', '-e', script], { encoding: 'utf8', timeout: 30_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).not.toContain('ran');
    expect(Date.now() - t0).toBeLessThan(30_000);
  });
});
