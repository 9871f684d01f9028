// Benchmark (not a test) for the SQLite read routing rule (src/db/store.ts SMALL_TABLE_ROWS): what
// one list page of 50 and its total cost on the main thread's read connection (time the event loop
// is held) against the same list in the read worker (the round trip a request waits), at table
// sizes around the threshold, for three shapes: the default page (newest first, on an index), a
// `q` search (LIKE over three columns: every row read) and a sort on a column without an index.
// The audit table is the subject; its rows are written in bulk with raw SQL.
// Usage: npx tsx bench/list-route.ts [rounds=200] [sizes=1000,2000,8000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { openDatabase } from '../src/db/client.js';
import { Store, type ListOptions } from '../src/db/store.js';
import { migrateAll } from '../src/modules/migrate-all.js';
import { auditRecords, type AuditRow } from '../src/modules/audit/schema.js';

const rounds = Number(process.argv[2] ?? 200);
const sizes = (process.argv[3] ?? '1000,2000,8000').split(',').map(Number);
const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-route-'));

/** A store whose routing is forced, to time both sides on the same table. */
class Forced extends Store<AuditRow> {
  inWorker = false;
  override readsInWorker(): boolean {
    return this.inWorker;
  }
}

const db = await openDatabase({ dataDir: dir });
await migrateAll(db);
const store = new Forced(db, auditRecords);
const base: ListOptions = { where: {}, sort: { column: 'created_at', order: 'desc' }, limit: 50, offset: 0 };
const shapes: [string, ListOptions][] = [
  ['newest first', base],
  ['q search', { ...base, q: { columns: ['actor', 'action', 'resource'], term: 'nothing-matches' } }],
  ['sort on result', { ...base, sort: { column: 'result', order: 'asc' } }],
];
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

let stored = 0;
console.log(`list page of 50 + total, ${rounds} rounds each; ms p50 / p99`);
console.log('rows    shape            main thread (loop held)   worker (round trip)');
for (const size of sizes) {
  const add = size - stored;
  await db.run(sql`insert into audit_records (id, tenant_id, actor, action, resource, result, correlation_id, details, recorded_by, created_at)
    with recursive k(i) as (select ${stored} union all select i + 1 from k where i < ${size - 1})
    select 'a-' || i, 't1', 'actor ' || (i % 37), 'act.' || (i % 11), 'res', 'success', 'c-' || i, null, 'bench', strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch') from k`);
  stored += add;
  for (const [name, opts] of shapes) {
    const times = { main: [] as number[], worker: [] as number[] };
    for (const side of ['main', 'worker'] as const) {
      store.inWorker = side === 'worker';
      await store.list(opts); // prepares the statements on that side
      for (let i = 0; i < rounds; i++) {
        const t0 = performance.now();
        await store.list(opts);
        times[side].push(performance.now() - t0);
      }
    }
    const cell = (xs: number[]) => `${pct(xs, 0.5).toFixed(3)} / ${pct(xs, 0.99).toFixed(3)}`.padEnd(26);
    console.log(`${String(size).padEnd(8)}${name.padEnd(17)}${cell(times.main)}${cell(times.worker)}`);
  }
}
console.log(`load average ${(await import('node:os')).loadavg().map((x) => x.toFixed(1)).join(' ')}`);
await db.close();
rmSync(dir, { recursive: true, force: true });
