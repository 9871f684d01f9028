// Sync benchmark: `npx tsx bench/sync.ts [events] [--day]`. Not a test: prints figures only.
// With CABINET_TEST_PG_URL the master runs on that PostgreSQL server (a fresh database), else on
// SQLite; the edge is always SQLite. Both are real servers in this process, talking HTTP.
//  1. Sync throughput: N events (a busy site's mix) are put in the edge outbox while the tenant's
//     sync is paused; then it is resumed and timed until the master has applied the last one.
//  2. Baseline, same run, same master database: the master's raw insert of the same rows into
//     its inbox (one multi-row INSERT per batch of sync_batch_max, one transaction each), without
//     HTTP, projections or the outbox.
//  3. --day: catch-up time for one day of a busy site's backlog (the mix of bench/lib/sync-mix.ts, 24 h of it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createTestEnv } from '../test/helpers/server.js';
import { rowsPerInsert, tableOf } from '../src/db/sql.js';
import { syncInbox } from '../src/modules/tenant-master-sync/schema.js';
import { DAY_MIX, dayTotal, mix } from './lib/sync-mix.js';

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 20_000);
const DAY = process.argv.includes('--day');
const BATCH = 500;

async function main(): Promise<void> {
  const dialect = process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite';
  const masterEnv = await createTestEnv(dialect);
  const edgeEnv = await createTestEnv('sqlite');
  const quiet = { log_level: 'warn', mqtt_broker: 'off' };
  try {
    const master = await masterEnv.start({ ...quiet, mode: 'cloud-multi' });
    const token = await masterEnv.token(master);
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${master.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return (await res.json()) as { item: Record<string, unknown> };
    };
    const reg = await call('/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
    writeFileSync(join(edgeEnv.dataDir, 'site-credential'), String(reg.item.credential), { mode: 0o600 });
    const edge = await edgeEnv.start({ ...quiet, sync_master_url: master.url, sync_interval_ms: '50', sync_heartbeat_ms: '3600000', sync_batch_max: String(BATCH) });
    const sync = edge.services.edgeSync!;
    const db = master.services.db;
    const applied = async () => Number((await db.rows<{ s: number }>(sql`select applied_seq as s from sync_sites where site_id = 'site-1'`))[0]?.s ?? 0);

    const run = async (n: number, label: string) => {
      await call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'paused' });
      await new Promise((r) => setTimeout(r, 200));
      const events = mix(n);
      let last = 0;
      for (let i = 0; i < events.length; i += 5000) last = (await sync.outbox.append(events.slice(i, i + 5000))).at(-1) ?? last;
      const t0 = performance.now();
      await call('/api/v1/tenant-master-sync/commands/set-mode', { tenant_id: 'farm-a', mode: 'auto' });
      while ((await applied()) < last) await new Promise((r) => setTimeout(r, 20));
      const ms = performance.now() - t0;
      console.log(`${label}: ${n} events in ${(ms / 1000).toFixed(2)} s = ${((n / ms) * 1000).toFixed(0)} events/s (edge outbox -> HTTP -> master inbox and projections, batches of ${BATCH})`);
      return { n, ms, events };
    };

    console.log(`master on ${db.engine}, edge on sqlite, node ${process.version}`);
    const first = await run(N, 'sync');
    // Baseline: the same rows straight into the master's inbox, same batch size, one transaction per batch.
    const t = tableOf(syncInbox, db);
    const rows = first.events.map((e, i) => ({ tenant_id: 'bench', site_id: 'raw', seq: i + 1, kind: e.kind, created_at: new Date().toISOString(), received_at: new Date().toISOString(), payload: e.payload }));
    const per = Math.min(BATCH, rowsPerInsert(7));
    const t0 = performance.now();
    for (let i = 0; i < rows.length; i += per) await db.transaction(async () => { await db.orm.insert(t).values(rows.slice(i, i + per) as never); });
    const rawMs = performance.now() - t0;
    console.log(`raw insert baseline: ${rows.length} rows in ${(rawMs / 1000).toFixed(2)} s = ${((rows.length / rawMs) * 1000).toFixed(0)} rows/s (same master database, batches of ${per})`);
    console.log(`sync / raw: ${((first.n / first.ms) / (rows.length / rawMs) * 100).toFixed(1)} % of the raw insert rate`);
    if (DAY) {
      const day = await run(dayTotal, 'one busy day');
      console.log(`catch-up of one busy site-day (${dayTotal} events: ${Object.entries(DAY_MIX).map(([k, v]) => `${v} ${k}`).join(', ')}): ${(day.ms / 1000).toFixed(1)} s`);
    } else {
      console.log(`one busy site-day is ${dayTotal} events; at this rate it catches up in about ${((dayTotal / first.n) * first.ms / 1000).toFixed(0)} s (run with --day to measure it)`);
    }
  } finally {
    await edgeEnv.cleanup();
    await masterEnv.cleanup();
  }
}

await main();
process.exit(0);
