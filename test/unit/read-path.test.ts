// Under tsx (development) the read worker requires better-sqlite3 from node_modules; the database
// says so (readPath) and counts the reads the worker answered, which the runtime snapshot shows.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';

let dir: string;
let db: Database;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cabinet-read-path-'));
  db = await openDatabase({ dataDir: dir });
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
});

it('long reads run in the worker thread and are counted there', async () => {
  expect(db.readPath?.()).toEqual({ mode: 'thread', workerReads: 0, checkpoints: 0 });
  await db.exec('create table t (n integer)');
  await db.run(sql`insert into t (n) values (1), (2), (3)`);
  expect(await db.read<{ s: number }>(sql`select sum(n) as s from t`)).toEqual([{ s: 6 }]);
  // A key lookup (rows) stays on the main thread's read connection: not counted.
  expect(await db.rows<{ n: number }>(sql`select n from t where n = 2`)).toEqual([{ n: 2 }]);
  expect(db.readPath?.()).toEqual({ mode: 'thread', workerReads: 1, checkpoints: 0 });
});
