// Sync benchmark: `npx tsx bench/sync.ts [events] [--day]`. Not a test: prints figures only.
// With CABINET_TEST_PG_URL the master runs on that PostgreSQL server (a fresh database), else on
// SQLite; the edge is always SQLite. Both are real servers in this process, talking HTTP.
//  1. Sync throughput: N events (a busy site's mix) are put in the edge outbox while the tenant's
//     sync is paused; then it is resumed and timed until the master has applied the last one.
//  2. Baseline, same run, same master database: the master's raw insert of the same rows into
//     its inbox (one multi-row INSERT per batch of sync_batch_max, one transaction each), without
//     HTTP, projections or the outbox.
//  3. --day: catch-up time for one day of a busy site's backlog (the mix below, 24 h of it).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { createTestEnv } from '../test/helpers/server.js';
import { rowsPerInsert, tableOf } from '../src/db/sql.js';
import { syncInbox } from '../src/modules/tenant-master-sync/schema.js';
import type { EventKind } from '../src/modules/tenant-master-sync/engine/protocol.js';

const N = Number(process.argv.find((a) => /^\d+$/.test(a)) ?? 20_000);
const DAY = process.argv.includes('--day');
const BATCH = 500;

/**
 * A busy site's day: 200 devices reporting every 10 s (telemetry batches every 200 ms, each one
 * event of per-minute aggregates: 4 points -> about 4 aggregates), 300 alarms with their acks
 * and bridged status events, 5,000 audit records, a heartbeat a minute.
 */
const DAY_MIX: Record<EventKind, number> = { telemetry: 432_000, status: 2_000, alarm: 600, audit: 5_000, heartbeat: 1_440 };
const dayTotal = Object.values(DAY_MIX).reduce((a, b) => a + b, 0);

function eventOf(kind: EventKind, i: number): Record<string, unknown> {
  const at = new Date(Date.now() - (dayTotal - i) * 200).toISOString();
  switch (kind) {
    case 'telemetry':
      return { aggregates: Array.from({ length: 4 }, (_, d) => ({ device_id: `dev-${(i * 4 + d) % 200}`, metric: 'temp', site_id: 'site-1', bucket: `${at.slice(0, 16)}:00.000Z`, points: 1, sum: 21.5, min: 21.5, max: 21.5, last_status: 'online' })) };
    case 'alarm':
      return { kind: i % 2 ? 'acknowledged' : 'raised', alarm: { id: `A-${Math.floor(i / 2)}`, tenant_id: 'farm-a', site_id: 'site-1', severity: 'high', state: i % 2 ? 'acknowledged' : 'open', source: 'rules', title: 'House 3 temperature high', correlation_id: `c-${i}`, acknowledged_by: i % 2 ? 'op' : null, comment: null } };
    case 'status':
      return { id: i, tenant_id: 'farm-a', site_id: 'site-1', source: 'alarms:rules', event: 'alarm_raised', status: 'error', correlation_id: `c-${i}`, details: { alarm_id: `A-${i}` }, timestamp: at };
    case 'audit':
      return { actor: 'op', action: 'alarm.ack', resource: 'alarms', result: 'success', correlation_id: `c-${i}`, details: { id: `A-${i}` }, tenant_id: 'farm-a', at };
    case 'heartbeat':
      return { at, interval_ms: 60_000, rtt_ms: 12.5, uptime_s: i };
  }
}

/** n events in the day's proportions, interleaved as they would be queued. */
function mix(n: number): { kind: EventKind; payload: Record<string, unknown> }[] {
  const kinds = Object.entries(DAY_MIX) as [EventKind, number][];
  const out: { kind: EventKind; payload: Record<string, unknown> }[] = [];
  const acc = kinds.map(() => 0);
  for (let i = 0; i < n; i++) {
    // Pick the kind furthest behind its share: a deterministic, even interleaving.
    let best = 0;
    for (let k = 1; k < kinds.length; k++) if (acc[k]! / kinds[k]![1] < acc[best]! / kinds[best]![1]) best = k;
    acc[best]!++;
    out.push({ kind: kinds[best]![0], payload: eventOf(kinds[best]![0], i) });
  }
  return out;
}

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
