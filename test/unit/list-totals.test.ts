// A list's total kept between pages (src/db/store.ts, Database.changeMark), on a real SQLite file
// whose table is large enough for its lists to run in the read worker (where totals are kept):
// every way the rows can change is seen by the next page's total: a Store write, a prepared
// statement, exec, another connection's commit, a transaction's commit (a page read while it was
// open counts the committed rows only), a rollback; and totals of other filters are their own.
// A small table's total (counted on the main thread, never kept) is checked the same way.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { col, defineTable } from '../../src/db/table.js';
import { SMALL_TABLE_ROWS, Store, type ListOptions } from '../../src/db/store.js';

const things = defineTable('lt_things', { id: col.id(), tenant_id: col.text({ notNull: true }), name: col.text({ notNull: true }) });
type Row = { id: string; tenant_id: string; name: string };

const dir = mkdtempSync(join(tmpdir(), 'cabinet-totals-'));
let db: Database;
let store: Store<Row>;
let other: BetterSqlite3.Database;

/** Rows of another tenant that make the table large (lists in the read worker). */
const FILLER = SMALL_TABLE_ROWS + 200;
const page = (where: Record<string, string> = {}, q?: string): ListOptions => ({ where, sort: { column: 'id', order: 'asc' }, limit: 2, offset: 0, ...(q ? { q: { columns: ['name'], term: q } } : {}) });
/** The total of tenant A's rows (the filler's are counted away in the unfiltered case). */
const total = async (where: Record<string, string> = {}, q?: string) => {
  const n = (await store.list(page(where, q))).total;
  return Object.keys(where).length || q ? n : n - filler;
};
let filler = FILLER;

beforeAll(async () => {
  db = await openDatabase({ dataDir: dir });
  await db.exec('create table lt_things (id text primary key not null, tenant_id text not null, name text not null)');
  store = new Store<Row>(db, things);
  other = new BetterSqlite3(join(dir, 'cabinet.sqlite'));
  other.pragma('busy_timeout = 5000');
});
beforeEach(async () => {
  await db.exec('delete from lt_things');
  if (filler) {
    const add = other.prepare("insert into lt_things (id, tenant_id, name) values (?, 'F', 'filler')");
    other.transaction(() => { for (let i = 0; i < filler; i++) add.run(`f${i}`); })();
  }
  for (const id of ['a', 'b', 'c']) await store.insert({ id, tenant_id: 'A', name: `thing ${id}` });
});
afterAll(async () => {
  other.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe.each([['a large table (lists in the read worker, totals kept)', FILLER], ['a small table (counted on the main thread)', 0]])('list totals: %s', (_name, rows) => {
  beforeAll(() => {
    filler = rows;
    store = new Store<Row>(db, things); // its size class is measured afresh
  });
  it('a page read again with nothing changed has the same total; each kind of write changes it', async () => {
    expect(store.readsInWorker()).toBe(filler > 0);
    expect(await total()).toBe(3);
    expect(await total()).toBe(3);
    await store.insert({ id: 'd', tenant_id: 'A', name: 'thing d' });
    expect(await total()).toBe(4);
    db.prepareSqlite!('insert into lt_things (id, tenant_id, name) values (?, ?, ?)').run('e', 'B', 'thing e');
    expect(await total()).toBe(5);
    await store.delete({ id: 'e' });
    expect(await total()).toBe(4);
    other.prepare("insert into lt_things (id, tenant_id, name) values ('f', 'A', 'thing f')").run();
    expect(await total()).toBe(5);
    await db.exec("delete from lt_things where id = 'f'");
    expect(await total()).toBe(4);
    await store.update({ id: 'd' }, { tenant_id: 'B' });
    expect(await total({ tenant_id: 'A' })).toBe(3);
  });

  it('a page read while a transaction is open counts the committed rows; its commit or rollback is seen next', async () => {
    expect(await total()).toBe(3);
    let release!: () => void;
    const held = new Promise<void>((r) => { release = r; });
    let inserted!: () => void;
    const wrote = new Promise<void>((r) => { inserted = r; });
    const tx = db.transaction(async () => {
      db.prepareSqlite!('insert into lt_things (id, tenant_id, name) values (?, ?, ?)').run('t1', 'A', 'thing t1');
      inserted();
      await held;
    });
    await wrote;
    expect(await total()).toBe(3); // the uncommitted row is not counted
    release();
    await tx;
    expect(await total()).toBe(4);

    // A rollback: the row counted by nobody, before or after.
    let fail!: () => void;
    const failNow = new Promise<void>((r) => { fail = r; });
    let inserted2!: () => void;
    const wrote2 = new Promise<void>((r) => { inserted2 = r; });
    const failing = db.transaction(async () => {
      db.prepareSqlite!('insert into lt_things (id, tenant_id, name) values (?, ?, ?)').run('t2', 'A', 'thing t2');
      inserted2();
      await failNow;
      throw new Error('rolled back');
    }).catch((err: Error) => err.message);
    await wrote2;
    expect(await total()).toBe(4);
    fail();
    expect(await failing).toBe('rolled back');
    expect(await total()).toBe(4);
    expect((await store.list(page())).rows.map((r) => r.id)).toEqual(['a', 'b']);
  });

  it('keeps totals by filter and search', async () => {
    await store.insert({ id: 'x', tenant_id: 'B', name: 'other' });
    expect(await total({ tenant_id: 'A' })).toBe(3);
    expect(await total({ tenant_id: 'B' })).toBe(1);
    expect(await total({}, 'thing')).toBe(3);
    expect(await total({}, 'other')).toBe(1);
    expect(await total({}, 'filler')).toBe(filler);
    expect(await total({ tenant_id: 'A' })).toBe(3);
    expect(await total()).toBe(4);
  });
});
