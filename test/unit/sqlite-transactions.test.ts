// On SQLite every writer shares one connection, so a transaction is owned by the async context
// that opened it; reads outside an open transaction run on read connections (their own WAL snapshot), or on the writer while it holds none: only code nested in it runs inside it; another request (or work a transaction
// left running after it committed) waits for the writer lock, and is never rolled back with
// somebody else's transaction.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import BetterSqlite3 from 'better-sqlite3';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';

const dir = mkdtempSync(join(tmpdir(), 'cabinet-tx-'));
let db: Database;
const insert = (x: string) => db.run(sql`insert into t (x) values (${x})`);
const rows = async () => (await db.rows<{ x: string }>(sql`select x from t order by x`)).map((r) => r.x);

beforeAll(async () => {
  db = await openDatabase({ dataDir: dir });
  await db.exec('create table t (x text not null)');
});
beforeEach(async () => { await db.exec('delete from t'); });
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('SQLite transactions on one shared connection', () => {
  it('another request\'s transaction waits for an open one and is not rolled back with it', async () => {
    const a = db.transaction(async () => {
      await insert('a');
      await sleep(60); // real I/O in a transaction: other requests run meanwhile
      throw new Error('a fails');
    });
    await sleep(10);
    const b = db.transaction(async () => { await insert('b'); });
    await expect(a).rejects.toThrow('a fails');
    await b;
    expect(await rows()).toEqual(['b']);
  });

  it('a transaction nested in the same context runs inside the outer one (and rolls back with it)', async () => {
    await expect(db.transaction(async () => {
      await insert('outer');
      await db.transaction(async () => { await insert('inner'); });
      expect(db.inTransaction()).toBe(true);
      throw new Error('undo');
    })).rejects.toThrow('undo');
    expect(db.inTransaction()).toBe(false);
    expect(await rows()).toEqual([]);
  });

  it('work a transaction started and left running takes the lock once that transaction has committed', async () => {
    let late: Promise<void> | undefined;
    await db.transaction(async () => {
      await insert('first');
      late = sleep(30).then(() => db.transaction(async () => { await insert('late'); }));
    });
    const c = db.transaction(async () => {
      await insert('c');
      await sleep(80);
      throw new Error('c fails');
    });
    await expect(c).rejects.toThrow('c fails');
    await late;
    expect(await rows()).toEqual(['first', 'late']);
  });

  it('outside any transaction the connection reports whether a writer holds it', async () => {
    expect(db.writerIdle?.()).toBe(true);
    const a = db.transaction(async () => { await sleep(30); });
    await sleep(10);
    const seen = db.writerIdle?.();
    await a;
    expect(seen).toBe(false);
    expect(db.writerIdle?.()).toBe(true);
  });
});

describe('SQLite reads outside a transaction', () => {
  it('never see the rows of another caller\'s open transaction, which rolls back', async () => {
    const seen: string[][] = [];
    const a = db.transaction(async () => {
      await insert('uncommitted');
      // Inside the transaction its own rows are visible (the read runs on the writer).
      seen.push(await rows());
      await sleep(60);
      throw new Error('a fails');
    });
    await sleep(10);
    // Another request meanwhile: a plain read, a read meant for the worker and a prepared statement.
    seen.push(await rows());
    seen.push((await db.read<{ x: string }>(sql`select x from t order by x`)).map((r) => r.x));
    seen.push((db.prepareSqlite!('select x from t order by x').all() as { x: string }[]).map((r) => r.x));
    await expect(a).rejects.toThrow('a fails');
    expect(seen).toEqual([['uncommitted'], [], [], []]);
    expect(await rows()).toEqual([]);
  });

  it('see what a transaction committed as soon as it has', async () => {
    const stmt = db.prepareSqlite!('select x from t order by x');
    expect(stmt.all()).toEqual([]);
    await db.transaction(async () => { await insert('done'); });
    expect(stmt.all()).toEqual([{ x: 'done' }]);
    expect(await db.read(sql`select x from t`)).toEqual([{ x: 'done' }]);
  });

  it('see what another process committed, whether or not a transaction of this one is open', async () => {
    // While no transaction is open reads run on the writer connection (its page cache stays warm);
    // it must still see other connections' commits (the CLI, a second process on the file).
    const stmt = db.prepareSqlite!('select x from t order by x');
    const other = new BetterSqlite3(db.location!);
    try {
      expect(stmt.all()).toEqual([]);
      other.prepare('insert into t (x) values (?)').run('elsewhere');
      expect(db.writerIdle?.()).toBe(true);
      expect(stmt.all()).toEqual([{ x: 'elsewhere' }]);
      other.prepare('insert into t (x) values (?)').run('again');
      const a = db.transaction(async () => { await insert('mine'); await sleep(40); });
      await sleep(10);
      // Now on the read connection: the other process's rows, not the open transaction's.
      expect(stmt.all()).toEqual([{ x: 'again' }, { x: 'elsewhere' }]);
      await a;
      expect(stmt.all()).toEqual([{ x: 'again' }, { x: 'elsewhere' }, { x: 'mine' }]);
    } finally {
      other.close();
    }
  });

  it('a write outside a transaction (autocommit) goes to the writer', async () => {
    const stmt = db.prepareSqlite!('insert into t (x) values (?)');
    stmt.run('solo');
    await db.run(sql`insert into t (x) values (${'solo2'})`);
    expect(await rows()).toEqual(['solo', 'solo2']);
  });
});
