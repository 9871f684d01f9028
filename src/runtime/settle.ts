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

export function settleAfterStart(onDone: (s: Settled) => void, delayMs = 1000): void {
  setTimeout(() => {
    const heapBefore = process.memoryUsage().heapTotal;
    const t0 = performance.now();
    collector()({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const ms = performance.now() - t0;
    const after = process.memoryUsage();
    onDone({ ms, heapBefore, heapAfter: after.heapTotal, rss: after.rss });
  }, delayMs).unref();
}
