// Transactional outbox benchmark: `npx tsx bench/outbox-stage.ts [n]`. Not a test: prints figures.
// A real box (edge-single, SQLite file) publishes n status events through the status service,
// three ways in the same run and the same database:
//  1. baseline: no sync configured (nothing listens to the bus's stage phase);
//  2. the old way: the outbox appended after the commit, from a live bus listener (one more
//     transaction per event, and lost if the process dies between the two);
//  3. the transactional outbox: the outbox row written in the event's own transaction (stage).
import { createTestEnv } from '../test/helpers/server.js';
import { need } from '../src/kernel/context.js';
import { Outbox } from '../src/modules/tenant-master-sync/engine/outbox.js';

const N = Number(process.argv[2] ?? 3000);

async function main(): Promise<void> {
  const env = await createTestEnv('sqlite');
  try {
    const box = await env.start({ log_level: 'warn', mqtt_broker: 'off' });
    const services = box.services;
    const status = need(services, 'status');
    const bus = need(services, 'bus');
    const outbox = new Outbox(services.db);
    await outbox.init();
    const run = async (label: string, settle: () => Promise<unknown> = async () => undefined) => {
      const t0 = performance.now();
      for (let i = 0; i < N; i++) await status.publish({ tenant_id: 'farm-a', source: 'bench', event: `e${i}`, status: 'ok' });
      await settle(); // until every outbox row is written
      const ms = performance.now() - t0;
      console.log(`${label.padEnd(44)} ${Math.round((N / ms) * 1000).toString().padStart(7)} events/s  (${(ms / N).toFixed(3)} ms each)`);
      return ms;
    };
    await run('warm-up');
    const base = await run('1. no sync (baseline)');
    let chain: Promise<unknown> = Promise.resolve();
    const off = bus.on('status', (e) => { chain = chain.then(() => outbox.append([{ kind: 'status', payload: { ...e } }])); });
    const after = await run('2. outbox after the commit (old)', () => chain);
    off();
    // The stage phase with nothing listening (a box without sync), beside awaiting a settled promise.
    const M = 1_000_000;
    const probe = { id: 0, tenant_id: null, site_id: null, source: 'bench', event: 'x', status: 'ok' as const, correlation_id: null, details: null, timestamp: '' };
    let t = performance.now();
    for (let i = 0; i < M; i++) await Promise.resolve();
    const bare = performance.now() - t;
    t = performance.now();
    for (let i = 0; i < M; i++) await bus.stage('status', probe);
    const idle = performance.now() - t;
    console.log(`stage() with no listener: ${((idle / M) * 1e6).toFixed(0)} ns per call (an empty await: ${((bare / M) * 1e6).toFixed(0)} ns)`);
    const unstage = bus.onStage('status', async (e) => { await outbox.append([{ kind: 'status', payload: { ...e } }]); });
    const staged = await run('3. outbox in the same transaction (stage)');
    unstage();
    console.log(`cost over the baseline: after-commit ${(((after - base) / base) * 100).toFixed(0)} %, transactional ${(((staged - base) / base) * 100).toFixed(0)} %; outbox rows: ${(await outbox.stats()).pending}`);
    await box.close();
  } finally {
    await env.cleanup();
  }
}

void main();
