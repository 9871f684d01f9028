// The master's growing sync tables on PostgreSQL: partitioned by month of their time column, made
// ahead by the maintenance job, retention by DETACH + DROP of whole months, and a migration that
// converts tables already holding rows. SQLite keeps plain tables, and the same job deletes by
// the time index there.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'drizzle-orm';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { openDatabase, type Database } from '../../src/db/client.js';
import { bundledMigrations, migrate } from '../../src/db/migrate.js';
import { MODULES } from '../../src/modules/index.js';
import { maintain, partitionsOf, PARTITIONED } from '../../src/modules/tenant-master-sync/engine/partitions.js';

const DAY = 86_400_000;
const NOW = Date.UTC(2026, 10, 15, 12); // 2026-11-15
const iso = (ms: number) => new Date(ms).toISOString();
const month = (ms: number) => iso(ms).slice(0, 7).replace('-', '');

async function beat(db: Database, seq: number, at: string): Promise<void> {
  await db.run(sql`insert into sync_heartbeats (tenant_id, site_id, seq, at, interval_ms, rtt_ms) values ('farm-a', 'site-1', ${seq}, ${at}, 60000, 1.5)`);
}
const count = async (db: Database, table: string) => Number((await db.read<{ n: unknown }>(sql`select count(*) as n from ${sql.identifier(table)}`))[0]!.n);
const where = async (db: Database, seq: number) =>
  (await db.read<{ part: string }>(sql`select tableoid::regclass::text as part from sync_heartbeats where seq = ${seq}`))[0]?.part;

describe('sync storage partitioned by month (PostgreSQL)', () => {
  let env: TestEnv;
  let db: Database;

  beforeAll(async () => {
    env = await createTestEnv('postgres');
    db = await openDatabase({ databaseUrl: env.databaseUrl, dataDir: env.dataDir });
    await migrate(db, bundledMigrations(db.dialect, MODULES.map((m) => m.id)));
  }, 30_000);
  afterAll(async () => {
    await db?.close();
    await env.cleanup();
  });

  it('each growing table is partitioned by its time column, with a default partition', async () => {
    for (const [table, key] of Object.entries(PARTITIONED)) {
      const [p] = await db.read<{ strategy: string; key: string }>(sql`select partstrat as strategy, pg_get_partkeydef(partrelid) as key from pg_partitioned_table where partrelid = to_regclass(${table})`);
      expect(p).toEqual({ strategy: 'r', key: `RANGE (${key})` });
      expect((await partitionsOf(db, table)).map((x) => x.name)).toContain(`${table}_default`);
    }
  });

  it('makes the month partitions ahead, routes rows into them, moves early rows out of the default partition', async () => {
    await maintain(db, NOW, 0);
    const names = (await partitionsOf(db, 'sync_heartbeats')).map((p) => p.name);
    expect(names).toEqual(expect.arrayContaining(['sync_heartbeats_p202611', 'sync_heartbeats_p202612', 'sync_heartbeats_p202701']));
    await beat(db, 1, iso(NOW));
    await beat(db, 2, '2027-03-02T00:00:00.000Z'); // a box clock ahead: no partition yet
    await beat(db, 3, '1970-01-01T00:00:05.000Z'); // a box that booted without its clock
    expect([await where(db, 1), await where(db, 2), await where(db, 3)]).toEqual(['sync_heartbeats_p202611', 'sync_heartbeats_default', 'sync_heartbeats_default']);
    // The key still refuses a duplicate (it holds the partition key).
    await expect(beat(db, 1, iso(NOW))).rejects.toThrow();
    const report = await maintain(db, Date.UTC(2027, 0, 10), 0);
    expect(report.created).toContain('sync_heartbeats_p202703');
    expect(await where(db, 2)).toBe('sync_heartbeats_p202703');
    expect(await count(db, 'sync_heartbeats')).toBe(3);
  });

  it('an upsert of telemetry minutes merges within a partition', async () => {
    for (let i = 0; i < 2; i++) {
      await db.run(sql`insert into sync_telemetry values ('farm-a', 'site-1', 'fan', 'temp', ${iso(NOW)}, 3, 60, 10, 30, 'online')
        on conflict (tenant_id, site_id, device_id, metric, bucket) do update set points = sync_telemetry.points + excluded.points`);
    }
    const [row] = await db.read<{ points: unknown; part: string }>(sql`select points, tableoid::regclass::text as part from sync_telemetry`);
    expect([Number(row!.points), row!.part]).toEqual([6, 'sync_telemetry_p202611']);
  });

  it('retention detaches and drops whole months, and keeps the month that is not over', async () => {
    await beat(db, 10, '2026-08-20T00:00:00.000Z'); // goes to the default partition: no August partition
    await maintain(db, Date.UTC(2026, 7, 1), 0); // a run in August made its partitions
    await beat(db, 11, '2026-08-21T00:00:00.000Z');
    expect(await where(db, 11)).toBe('sync_heartbeats_p202608');
    expect(await where(db, 10)).toBe('sync_heartbeats_p202608');
    // 30 days after 2026-10-05 is 2026-09-05: August ended before, September did not.
    const report = await maintain(db, Date.UTC(2026, 9, 5), 30);
    expect(report.dropped).toContain('sync_heartbeats_p202608');
    expect(report.dropped).not.toContain('sync_heartbeats_p202609');
    const left = (await partitionsOf(db, 'sync_heartbeats')).map((p) => p.name);
    expect(left).not.toContain('sync_heartbeats_p202608');
    expect(left).toContain('sync_heartbeats_p202609');
    expect(await where(db, 10)).toBeUndefined();
    expect(await where(db, 1)).toBe('sync_heartbeats_p202611');
    const [t] = await db.read<{ t: string | null }>(sql`select to_regclass('sync_heartbeats_p202608')::text as t`);
    expect(t!.t).toBeNull();
  });

  it.runIf(Boolean(process.env.CABINET_TEST_PG_URL))('the migration converts tables that already hold rows, copying every row into the partitioned table', async () => {
    const fresh = await createTestEnv('postgres', { empty: true });
    const old = await openDatabase({ databaseUrl: fresh.databaseUrl, dataDir: fresh.dataDir });
    try {
      const all = bundledMigrations(old.dialect, MODULES.map((m) => m.id));
      await migrate(old, all.filter((m) => !(m.module === 'tenant-master-sync' && m.tag === '0003_partition_by_time')));
      const now = Date.now();
      await old.run(sql`insert into sync_heartbeats select 'farm-a', 'site-' || (s % 5), s, to_char(to_timestamp(${Math.floor(now / 1000)}::bigint - s * 3600) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 60000, s % 7 from generate_series(1, 5000) s`);
      await old.run(sql`insert into sync_heartbeats values ('farm-a', 'site-x', 1, 'not a time', 60000, null)`);
      await old.run(sql`insert into sync_inbox select 'farm-a', 'site-1', s, 'heartbeat', ${iso(now)}, to_char(to_timestamp(${Math.floor(now / 1000)}::bigint - s * 7200) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), '{}'::jsonb from generate_series(1, 3000) s`);
      await old.run(sql`insert into sync_telemetry select 'farm-a', 'site-1', 'fan', 'temp', to_char(to_timestamp(${Math.floor(now / 1000)}::bigint - s * 60 * 60 * 24) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'), 5, 50, 1, 9, 'online' from generate_series(1, 400) s`);
      const sums = async () => (await old.read<Record<string, unknown>>(sql`select (select sum(seq) from sync_heartbeats) as hb, (select sum(seq) from sync_inbox) as inbox, (select sum(points) from sync_telemetry) as tele`))[0];
      const before = await sums();
      const applied = await migrate(old, all);
      expect(applied).toEqual(['tenant-master-sync/0003_partition_by_time']);
      expect(await sums()).toEqual(before);
      expect(await count(old, 'sync_heartbeats')).toBe(5001);
      const parts = (await partitionsOf(old, 'sync_heartbeats')).map((p) => p.name);
      // 5000 hours back is about 7 months: a partition for each month spanned, and the next two.
      expect(parts.length).toBeGreaterThanOrEqual(9);
      expect(parts).toContain(`sync_heartbeats_p${month(now - 5000 * 3_600_000)}`);
      expect(parts).toContain(`sync_heartbeats_p${month(Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth() + 2, 1))}`);
      const [junk] = await old.read<{ part: string }>(sql`select tableoid::regclass::text as part from sync_heartbeats where at = 'not a time'`);
      expect(junk!.part).toBe('sync_heartbeats_default');
      const [stray] = await old.read<{ n: unknown }>(sql`select count(*) as n from sync_telemetry_default`);
      expect(Number(stray!.n)).toBe(0);
      expect((await old.read(sql`select 1 from pg_class where relname like '%_unpartitioned'`)).length).toBe(0);
    } finally {
      await old.close();
      await fresh.cleanup();
    }
  }, 60_000);
});

describe('sync storage on SQLite: plain tables, retention by the time index', () => {
  it('deletes what is older than the retention and prunes the roll-ups no window reads', async () => {
    const env = await createTestEnv('sqlite');
    const db = await openDatabase({ dataDir: env.dataDir });
    try {
      await migrate(db, bundledMigrations(db.dialect, MODULES.map((m) => m.id)));
      await beat(db, 1, iso(NOW - 40 * DAY));
      await beat(db, 2, iso(NOW - 10 * DAY));
      for (const [grain, at] of [['minute', NOW - 9 * DAY], ['minute', NOW - DAY], ['hour', NOW - 9 * DAY], ['day', NOW - 300 * DAY]] as const) {
        await db.run(sql`insert into sync_rollups values ('farm-a', 'site-1', ${grain}, ${iso(at)}, 1, 60000, 0, 0, null, 0, 0)`);
      }
      const report = await maintain(db, NOW, 30);
      expect(report).toMatchObject({ created: [], dropped: [], deleted_rows: 1, rollups_pruned: 2 });
      expect((await db.read<{ seq: number }>(sql`select seq from sync_heartbeats`)).map((r) => Number(r.seq))).toEqual([2]);
      expect((await db.read<{ grain: string }>(sql`select grain from sync_rollups order by grain`)).map((r) => r.grain)).toEqual(['day', 'minute']);
    } finally {
      await db.close();
      await env.cleanup();
    }
  });
});
