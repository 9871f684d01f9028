// Group commit of readings (src/db/group-commit.ts) and queries built once (src/db/prepared.ts),
// on a real SQLite file: rows appended together share one commit, a caller's promise settles only
// once its row is committed (visible to another connection), one bad row fails alone, a caller
// inside a transaction appends in it; a prepared query runs on the writer inside a transaction
// (it sees the transaction's rows) and binds booleans as SQLite stores them.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { col, defineTable } from '../../src/db/table.js';
import { Store } from '../../src/db/store.js';
import { appendGrouped, flushGrouped, groupCommits } from '../../src/db/group-commit.js';
import { preparedQuery } from '../../src/db/prepared.js';
import { colOf, tableOf } from '../../src/db/sql.js';

const readings = defineTable('gc_readings', { id: col.id(), unit: col.text({ notNull: true }), value: col.real(), ok: col.boolean({ notNull: true }) });
type Row = { id: string; unit: string; value: number | null; ok: boolean };

const dir = mkdtempSync(join(tmpdir(), 'cabinet-gc-'));
let db: Database;
let store: Store<Row>;
/** Another connection to the file: it sees committed rows only. */
let other: BetterSqlite3.Database;
const committed = () => (other.prepare('select id from gc_readings order by id').all() as { id: string }[]).map((r) => r.id);

beforeAll(async () => {
  db = await openDatabase({ dataDir: dir });
  await db.exec('create table gc_readings (id text primary key not null, unit text not null, value real, ok integer not null)');
  store = new Store<Row>(db, readings);
  other = new BetterSqlite3(join(dir, 'cabinet.sqlite'), { readonly: true });
});
beforeEach(async () => { await db.exec('delete from gc_readings'); });
afterAll(async () => {
  other.close();
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

const row = (id: string, over: Partial<Row> = {}): Row => ({ id, unit: 'H1', value: 20, ok: true, ...over });

describe('group commit', () => {
  it('stores readings appended together in one commit, and answers each only once it is committed', async () => {
    const before = groupCommits(db);
    const seen: string[][] = [];
    const all = ['a', 'b', 'c', 'd', 'e'].map((id) => appendGrouped(db, store, row(id)).then(() => seen.push(committed())));
    // Nothing is stored before the group's turn, nothing is answered before its commit.
    expect(committed()).toEqual([]);
    await Promise.all(all);
    expect(groupCommits(db) - before).toBe(1);
    for (const s of seen) expect(s).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('fails only the bad row of a group; the others are stored', async () => {
    await appendGrouped(db, store, row('taken'));
    const results = await Promise.allSettled([appendGrouped(db, store, row('x1')), appendGrouped(db, store, row('taken')), appendGrouped(db, store, row('x2'))]);
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect(committed()).toEqual(['taken', 'x1', 'x2']);
  });

  it('appends inside a caller\'s transaction, and rolls back with it', async () => {
    await expect(db.transaction(async () => {
      await appendGrouped(db, store, row('in-tx'));
      throw new Error('caller fails');
    })).rejects.toThrow('caller fails');
    expect(committed()).toEqual([]);
    await db.transaction(async () => { await appendGrouped(db, store, row('kept')); });
    expect(committed()).toEqual(['kept']);
  });

  it('takes what arrives while a group waits for the writer into the next group', async () => {
    const before = groupCommits(db);
    // Another writer holds the one SQLite writer for a while.
    const held = db.transaction(async () => { await new Promise((r) => setTimeout(r, 60)); });
    const first = appendGrouped(db, store, row('p1'));
    await new Promise((r) => setTimeout(r, 15)); // the group of p1 is running, waiting for the writer
    const later = [appendGrouped(db, store, row('p2')), appendGrouped(db, store, row('p3'))];
    await Promise.all([held, first, ...later]);
    expect(committed()).toEqual(['p1', 'p2', 'p3']);
    expect(groupCommits(db) - before).toBe(2);
  });
});

describe('group commit with a gather window (rows nobody waits on: fewer commits, less flash wear)', () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

  it('rows appended over several turns within the window share one commit', async () => {
    const before = groupCommits(db);
    const all = ['g1', 'g2', 'g3'].map(async (id, i) => {
      await sleep(i * 40);
      await appendGrouped(db, store, row(id), { gatherMs: 300 });
    });
    await sleep(200);
    expect(committed()).toEqual([]);
    await Promise.all(all);
    expect(committed()).toEqual(['g1', 'g2', 'g3']);
    expect(groupCommits(db) - before).toBe(1);
  });

  it('a row whose sender waits takes the gathered ones along at the end of its turn', async () => {
    const before = groupCommits(db);
    const gathered = appendGrouped(db, store, row('w1'), { gatherMs: 5000 });
    await sleep(20);
    const t0 = performance.now();
    await appendGrouped(db, store, row('w2'));
    await gathered;
    expect(performance.now() - t0).toBeLessThan(1000);
    expect(committed()).toEqual(['w1', 'w2']);
    expect(groupCommits(db) - before).toBe(1);
  });

  it('flushGrouped commits what is gathered at once (the server calls it before the database closes)', async () => {
    const gathered = appendGrouped(db, store, row('f1'), { gatherMs: 60_000 });
    await flushGrouped(db);
    await gathered;
    expect(committed()).toEqual(['f1']);
  });
});

describe('preparedQuery', () => {
  const byUnit = preparedQuery<{ unit: string; ok: boolean }, Row[]>((d, orm, p) => orm.select().from(tableOf(readings, d))
    .where(and(eq(colOf(readings, d, 'unit'), p('unit')), eq(colOf(readings, d, 'ok'), p('ok')))));

  it('sees a transaction\'s own rows inside it and decodes booleans; built once, run with new values', async () => {
    await store.append(row('r1', { unit: 'H2', ok: false }));
    await db.transaction(async () => {
      await store.append(row('r2', { unit: 'H2', ok: false }));
      expect((await byUnit(db, { unit: 'H2', ok: false })).map((r) => r.id).sort()).toEqual(['r1', 'r2']);
    });
    expect(await byUnit(db, { unit: 'H2', ok: true })).toEqual([]);
    expect(await byUnit(db, { unit: 'H2', ok: false })).toEqual([row('r1', { unit: 'H2', ok: false }), row('r2', { unit: 'H2', ok: false })]);
  });
});
