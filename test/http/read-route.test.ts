// The SQLite read routing rule (src/db/store.ts, docs/storage-and-reads.md "Where a read runs"):
// a list of a table of at most SMALL_TABLE_ROWS rows runs on the main thread's read connection,
// a list of a larger table (and so its total, a roll-up range of a chart) and the KPI run in the
// read worker; a table that grows past the threshold moves to the worker within SIZE_CHECK_MS.
// Either way a list never returns the rows of another caller's open transaction, which then rolls
// back. On PostgreSQL the same lists answer the same (the pool runs every read).
import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { SIZE_CHECK_MS, SMALL_TABLE_ROWS } from '../../src/db/store.js';

describe.each(DIALECTS)('read routing (%s)', (dialect) => {
  // The read worker exists on SQLite only (PostgreSQL reads go to the server's own processes).
  const onSqlite = (name: string, fn: () => Promise<void>) => {
    if (dialect === 'sqlite') it(name, fn);
  };
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  const db = () => server.services.db;
  /** Statements the read worker answered so far (SQLite), or undefined (PostgreSQL: no worker). */
  const workerReads = () => db().readPath?.().workerReads;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    admin = await clientAs(env, server);
  });
  afterAll(async () => env.cleanup());

  /** `n` audit records of action `action`, written in one statement. */
  async function audit(action: string, n: number, from = 0): Promise<void> {
    await db().run(sql`insert into audit_records (id, tenant_id, actor, action, resource, result, correlation_id, details, recorded_by, created_at)
      with recursive k(i) as (select ${sql.raw(String(from))} union all select i + 1 from k where i < ${sql.raw(String(from + n - 1))})
      select ${action} || '-' || i, 't1', 'actor', ${action}, 'route', 'success', 'c-' || i, null, 'test', '2026-01-01T00:00:00.000Z' from k`);
  }

  /** The change in worker reads while fn runs (undefined on PostgreSQL). */
  async function counted(fn: () => Promise<void>): Promise<number | undefined> {
    const before = workerReads();
    await fn();
    const after = workerReads();
    return before === undefined || after === undefined ? undefined : after - before;
  }

  it('a small table\'s list runs on the main thread, a large one\'s in the worker, and both answer alike', async () => {
    for (let i = 0; i < 3; i++) expect((await admin.post('/api/v1/tables', { item: { id: `route-${i}`, name: `row ${i}` } })).status).toBe(201);
    const small = await counted(async () => {
      const r = await admin.get('/api/v1/tables/list?limit=2');
      expect(r.body).toMatchObject({ total: 3, has_more: true });
      expect(r.body.items).toHaveLength(2);
    });
    // The audit table grows past the threshold: its list, its total and its search go to the worker.
    await audit('route.big', SMALL_TABLE_ROWS + 50);
    await sleep(SIZE_CHECK_MS + 50);
    const large = await counted(async () => {
      const r = await admin.get('/api/v1/audit/list?action=route.big&limit=5');
      expect(r.body.total).toBe(SMALL_TABLE_ROWS + 50);
      expect(r.body.items).toHaveLength(5);
      const q = await admin.get('/api/v1/audit/list?q=nothing-matches-this');
      expect(q.body).toMatchObject({ items: [], total: 0 });
    });
    if (dialect === 'sqlite') {
      expect(small).toBe(0);
      expect(large).toBe(4); // two lists, each a page and its total
    } else {
      expect([small, large]).toEqual([undefined, undefined]);
    }
  });

  onSqlite('a table that grows past the threshold moves to the worker within SIZE_CHECK_MS', async () => {
    await db().run(sql`insert into telemetry_series (tenant_id, site_id, device_id, metric, unit) values ('t1', 's1', 'route-dev', 'temperature', 'C')`);
    const [row] = await db().rows<{ id: number | string }>(sql`select id from telemetry_series where device_id = 'route-dev'`);
    const list = () => admin.get('/api/v1/devices/telemetry/list?device_id=route-dev&limit=10');
    expect(await counted(async () => { expect((await list()).body.total).toBe(0); })).toBe(0);
    const id = sql.raw(String(Number(row!.id)));
    await db().run(sql`insert into telemetry_points (series_id, ts, value, status, latency_ms, received_at)
      with recursive k(i) as (select 0 union all select i + 1 from k where i < ${sql.raw(String(SMALL_TABLE_ROWS))})
      select ${id}, 1767225600000 + i * 1000, 20.5, 0, 5, 1767225600000 + i * 1000 from k`);
    await sleep(SIZE_CHECK_MS + 50);
    expect(await counted(async () => { expect((await list()).body.total).toBe(SMALL_TABLE_ROWS + 1); })).toBe(2);
  });

  onSqlite('the KPI always runs in the worker, even on an empty table', async () => {
    const n = await counted(async () => {
      const r = await admin.get('/api/v1/devices/telemetry/kpi?device_id=nobody');
      expect(r.body.item).toMatchObject({ devices: 0, total_points: 0 });
    });
    expect(n).toBe(1);
  });

  it('a list during another caller\'s open transaction never returns its rows, on either side of the threshold', async () => {
    let inserted = false;
    const tx = db().transaction(async () => {
      await db().run(sql`insert into tables_items (id, tenant_id, data, created_at, updated_at) values ('ghost-row', null, '{"name":"ghost"}', '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`);
      await audit('route.ghost', 3, 1_000_000);
      inserted = true;
      await sleep(400); // I/O inside the transaction: other requests run meanwhile
      throw new Error('rolled back');
    });
    while (!inserted) await sleep(5);
    const smallDuring = await admin.get('/api/v1/tables/list?limit=200');
    const largeDuring = await admin.get('/api/v1/audit/list?action=route.ghost');
    await expect(tx).rejects.toThrow('rolled back');
    expect((smallDuring.body.items as { id: string }[]).map((i) => i.id)).not.toContain('ghost-row');
    expect(smallDuring.body.total).toBe(3);
    expect(largeDuring.body).toMatchObject({ items: [], total: 0 });
    expect((await admin.get('/api/v1/tables/list')).body.total).toBe(3);
  });
});
