// The master's maintenance of what grows with the fleet. On PostgreSQL the inbox, heartbeats and
// telemetry aggregates are partitioned by month of their time column (migration
// 0003_partition_by_time): this job makes the partitions of the current month and the next two
// ahead of the rows (cabinet_month_partition, from that migration), and applies
// sync_retention_days by detaching and dropping the partitions whose whole month is older, never
// by DELETE. SQLite (a master in a test or a small fleet) keeps plain tables and deletes by the
// time index instead. On both engines it drops the minute and hour roll-ups no window reads any
// more (an index range of the roll-ups). Several master processes may run it at once: a
// transaction-scoped advisory lock lets one at a time do the work.
import { sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.js';
import { DAY_MS } from '../../../kernel/retention.js';
import { ROLLUP_KEEP_MS } from './rollup.js';

/** The partitioned tables and their partition key (the time column). */
export const PARTITIONED: Record<string, string> = { sync_inbox: 'received_at', sync_heartbeats: 'at', sync_telemetry: 'bucket' };
/** Months made ahead of the current one. */
export const MONTHS_AHEAD = 2;
const LOCK_KEY = 727_001;

const monthStart = (ms: number, add = 0) => {
  const d = new Date(ms);
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + add, 1));
};
const day = (d: Date) => d.toISOString().slice(0, 10);

export interface MaintenanceReport {
  created: string[];
  dropped: string[];
  deleted_rows: number;
  rollups_pruned: number;
}

/** Deletes the rows `from` names (a table and a condition on an index) and answers how many there were. */
async function deleteBefore(db: Database, from: ReturnType<typeof sql>): Promise<number> {
  const [row] = await db.read<{ n: unknown }>(sql`select count(*) as n from ${from}`);
  const n = Number(row?.n ?? 0);
  if (n) await db.run(sql`delete from ${from}`);
  return n;
}

/** The monthly partitions of a table, with the first day of their month. */
export async function partitionsOf(db: Database, parent: string): Promise<{ name: string; month: Date | null }[]> {
  const rows = await db.read<{ name: string }>(sql`select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid where i.inhparent = to_regclass(${parent}) order by 1`);
  return rows.map(({ name }) => {
    const m = /_p(\d{4})(\d{2})$/.exec(name);
    return { name, month: m ? new Date(Date.UTC(Number(m[1]), Number(m[2]) - 1, 1)) : null };
  });
}

/**
 * One run at `now`: partitions ahead, retention, roll-up pruning. `retentionDays` 0 keeps every
 * row. A partition is dropped once its month ended `retentionDays` before now, so a table holds
 * between `retentionDays` and a month more.
 */
export async function maintain(db: Database, now: number, retentionDays: number): Promise<MaintenanceReport> {
  const report: MaintenanceReport = { created: [], dropped: [], deleted_rows: 0, rollups_pruned: 0 };
  const cutoff = now - retentionDays * DAY_MS;
  if (db.dialect === 'postgres') {
    await db.transaction(async () => {
      const [got] = await db.read<{ ok: boolean }>(sql`select pg_try_advisory_xact_lock(${LOCK_KEY}) as ok`);
      if (!got?.ok) return;
      for (const [parent, key] of Object.entries(PARTITIONED)) {
        for (let add = 0; add <= MONTHS_AHEAD; add++) {
          const month = monthStart(now, add);
          const [made] = await db.read<{ made: boolean }>(sql`select cabinet_month_partition(${parent}, ${key}, ${day(month)}::date) as made`);
          if (made?.made) report.created.push(`${parent}_p${day(month).slice(0, 7).replace('-', '')}`);
        }
        if (retentionDays <= 0) continue;
        for (const p of await partitionsOf(db, parent)) {
          if (!p.month || monthStart(p.month.getTime(), 1).getTime() > cutoff) continue;
          await db.run(sql`alter table ${sql.identifier(parent)} detach partition ${sql.identifier(p.name)}`);
          await db.run(sql`drop table ${sql.identifier(p.name)}`);
          report.dropped.push(p.name);
        }
      }
    });
  } else if (retentionDays > 0) {
    const before = new Date(cutoff).toISOString();
    for (const [table, key] of Object.entries(PARTITIONED)) report.deleted_rows += await deleteBefore(db, sql`${sql.identifier(table)} where ${sql.identifier(key)} < ${before}`);
  }
  for (const [grain, keep] of Object.entries(ROLLUP_KEEP_MS)) {
    if (keep !== null) report.rollups_pruned += await deleteBefore(db, sql`sync_rollups where grain = ${grain} and bucket < ${new Date(now - keep).toISOString()}`);
  }
  return report;
}
