// Transactions on a PostgreSQL server whose connections are ended under them (a restart, a
// failover, pg_terminate_backend). Each one must give its connection back to the pool whatever
// step failed: a connection kept by a failed BEGIN shrank the pool for good, and the process
// then hung at its stop, waiting for it (pool.end() waits for every checked-out connection).
import pg from 'pg';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openDatabase } from '../../src/db/client.js';

const PG_URL = process.env.CABINET_TEST_PG_URL && process.env.CABINET_TEST_PG_URL !== 'pglite' ? process.env.CABINET_TEST_PG_URL : undefined;

async function admin(text: string, params: unknown[] = []): Promise<void> {
  const client = new pg.Client({ connectionString: PG_URL });
  await client.connect();
  try {
    await client.query(text, params);
  } finally {
    await client.end();
  }
}

const within = <T>(p: Promise<T>, ms: number, what: string) =>
  Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer in ${ms} ms`)), ms).unref())]);

describe('PostgreSQL transactions when the server ends their connections', () => {
  it.runIf(Boolean(PG_URL))('give every connection back, so the pool keeps serving and closes', async () => {
    const name = `cabinet_tx_${randomBytes(6).toString('hex')}`;
    await admin(`create database ${name}`);
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-pgtx-'));
    const u = new URL(PG_URL!);
    u.pathname = `/${name}`;
    const db = await openDatabase({ databaseUrl: u.toString(), dataDir: dir });
    try {
      await db.exec('create table t (v int)');
      let failed = 0;
      // More rounds than the pool has connections (10): each leaked one would be gone for good.
      for (let round = 0; round < 15; round++) {
        // Fill the pool with idle connections, then end them all while transactions run: half of
        // them are inside (their next statement fails, always, whatever the machine's load), half
        // start as the ends land, before the pool has seen them (some BEGINs then fail).
        await Promise.all(Array.from({ length: 10 }, () => db.transaction(() => db.run(sql`insert into t values (1)`))));
        let ended!: () => void;
        const ends = new Promise<void>((r) => { ended = r; });
        const inside = Array.from({ length: 5 }, () =>
          db.transaction(async () => {
            await db.run(sql`insert into t values (2)`);
            await ends;
            await db.run(sql`insert into t values (3)`);
          }).catch(() => { failed++; }));
        const ending = admin('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [name]).finally(() => ended());
        const starting = Array.from({ length: 5 }, () =>
          ending.catch(() => undefined).then(() => db.transaction(async () => {
            await db.run(sql`insert into t values (2)`);
            await db.run(sql`insert into t values (3)`);
          })).catch(() => { failed++; }));
        await ending;
        await Promise.all([...inside, ...starting]);
        await new Promise((r) => setTimeout(r, 20));
      }
      // The pool still serves ten transactions at once: no connection was kept by a failed one.
      await within(Promise.all(Array.from({ length: 10 }, () => db.transaction(async () => {
        await db.run(sql`insert into t values (4)`);
        await new Promise((r) => setTimeout(r, 50));
      }))), 10_000, 'ten transactions after the connection losses');
      expect(failed).toBeGreaterThan(0);
      const rows = await db.rows<{ n: string }>(sql`select count(*) as n from t where v = 4`);
      expect(Number(rows[0]!.n)).toBe(10);
    } finally {
      await within(db.close(), 10_000, 'closing the pool');
      await admin(`drop database if exists ${name} with (force)`);
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
