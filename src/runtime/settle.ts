// Once start-up is done, one full collection in V8's memory-reducing mode ("last resort": it also
// shrinks the young generation and releases the emptied heap pages) gives back what start-up alone
// needed: module evaluation, migrations, building the route table. Without it the heap keeps
// those pages for as long as the box idles (measured: RSS unchanged from 5 s to 70 s after /ready;
// with it about 9 MB lower; README "The single executable"). It runs once, a second after ready,
// so neither spawn-to-/ready nor steady load pays for it; the one pause it costs was 82-106 ms on
// a loaded 2-core machine (load average 5).

type Gc = (opts: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

export interface Settled {
  ms: number;
  heapBefore: number;
  heapAfter: number;
  rss: number;
}

/** The collector, made reachable once: --expose-gc set at run time installs `gc` in new contexts.
 *  node:v8 and node:vm are loaded here, not at start, so that spawn-to-/ready does not pay for them. */
function collector(): Gc {
  process.getBuiltinModule('node:v8').setFlagsFromString('--expose-gc');
  return process.getBuiltinModule('node:vm').runInNewContext('gc') as Gc;
}

/**
 * V8 options the single executable switches on once started, not in its SEA options: with
 * --optimize-for-size V8 grows the heap by smaller steps (and inlines less): under 50 API
 * clients the peak was lower in every paired run, by 8-30 MiB on a loaded machine and 1-6 MiB on
 * a quieter one, with no throughput cost visible there; as a start option it cost the restart
 * about 30 % more CPU (docs/figures.md, "The application in a trailer").
 * V8 reads it at each collection's sizing, so setting it after the start takes effect then.
 */
export const STEADY_V8_FLAGS = ['--optimize-for-size'];

export function settleAfterStart(onDone: (s: Settled) => void, delayMs = 1000): void {
  setTimeout(() => {
    const heapBefore = process.memoryUsage().heapTotal;
    const t0 = performance.now();
    // The executable only: development and test runs keep V8's defaults, as they keep its start options.
    if (process.getBuiltinModule('node:sea').isSea()) {
      for (const flag of STEADY_V8_FLAGS) process.getBuiltinModule('node:v8').setFlagsFromString(flag);
    }
    collector()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const ms = performance.now() - t0;
    const after = process.memoryUsage();
    onDone({ ms, heapBefore, heapAfter: after.heapTotal, rss: after.rss });
  }, delayMs).unref();
}
