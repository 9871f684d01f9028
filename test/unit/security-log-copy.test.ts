// The security log's entries from before migration auth/0002 (SQLite): the migration keeps the old
// table as it is (one INSERT ... SELECT of a box's 90 days took minutes, past the unit's start
// timeout) and the server copies them into the new table after the start, a chunk a transaction,
// deleting each chunk from the old table in the same transaction, then drops the old table
// (src/auth/security-log.ts). Every entry is there once, in the list's
// order; a copy stopped midway goes on at the next start without duplicating an entry.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate, moduleMigrations } from '../../src/db/migrate.js';
import { OLD_TABLE, SecurityLog } from '../../src/auth/security-log.js';
import { createLogger } from '../../src/kernel/logger.js';
import { timeId } from '../../src/kernel/ids.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true }); });

/** A database at auth/0001 holding `n` entries a second apart (some sharing a millisecond), then migrated to the latest. */
async function oldDatabase(n: number): Promise<{ db: Database; ids: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-seccopy-'));
  dirs.push(dir);
  const db = await openDatabase({ dataDir: dir });
  const all = moduleMigrations('sqlite', 'auth');
  await migrate(db, all.filter((m) => m.tag < '0002'));
  const ids: string[] = [];
  const start = Date.now() - n * 1000;
  await db.transaction(async () => {
    const insert = db.prepareSqlite!(`insert into auth_security_log (id, at, category, result, event, method, path, tenant_id, route_context) values (?, ?, 'access', 'allow', 'access', 'GET', '/api/v1/tables/list', 't1', '{}')`);
    for (let i = 0; i < n; i++) {
      const ms = start + Math.floor(i / 3) * 1000; // three entries a millisecond
      const id = timeId(ms);
      ids.push(id);
      insert.run(id, new Date(ms).toISOString());
    }
  });
  await migrate(db, all);
  return { db, ids };
}

const tableExists = async (db: Database, name: string) => (await db.rows<{ n: number }>(sql.raw(`select count(*) as n from sqlite_master where type = 'table' and name = '${name}'`)))[0]!.n > 0;

describe('security log: entries from before auth/0002', () => {
  it('are copied after the start, each once, and the old table is dropped', async () => {
    const { db, ids } = await oldDatabase(4_500); // more than two chunks
    try {
      expect(await tableExists(db, OLD_TABLE)).toBe(true);
      const log = new SecurityLog(db, createLogger('error'));
      log.record({ category: 'access', result: 'allow', event: 'access', method: 'GET', path: '/api/v1/x', tenant_id: 't1' });
      await log.copying;
      await log.flush();
      const rows = await log.rows.list({ where: {}, sort: { column: 'at', order: 'desc' }, limit: 5_000, offset: 0 });
      expect(rows.total).toBe(4_501);
      expect(rows.rows[0]!.path).toBe('/api/v1/x');
      expect(new Set(rows.rows.slice(1).map((r) => r.id))).toEqual(new Set(ids));
      expect(rows.rows.every((r) => r.count === 1 && r.last_at === null)).toBe(true); // the columns' defaults
      // Newest first, ties by id, as the list answers.
      const keys = rows.rows.map((r) => `${r.at} ${r.id}`);
      expect(keys).toEqual([...keys].sort().reverse());
      expect(await tableExists(db, OLD_TABLE)).toBe(false);
    } finally {
      await db.close();
    }
  });

  it('goes on where a stopped copy ended, without duplicates', async () => {
    const { db, ids } = await oldDatabase(3_000);
    try {
      // A move stopped after its first chunk: those entries are in the new table, gone from the old.
      // (The old table has no count or last_at: auth/0003 added them to the new one.)
      const cols = 'id, at, category, result, event, method, path, tenant_id, subject, role, client_address, reason, request_id, route_context';
      await db.exec(`insert into auth_security_log (${cols}) select ${cols} from ${OLD_TABLE} where rowid <= 1000`);
      await db.exec(`delete from ${OLD_TABLE} where rowid <= 1000`);
      // And one entry both (written there by hand): not copied twice.
      await db.exec(`insert into auth_security_log (${cols}) select ${cols} from ${OLD_TABLE} where rowid = 2000`);
      const log = new SecurityLog(db, createLogger('error'));
      await log.copying;
      const [counts] = await db.rows<{ n: number; ids: number }>(sql.raw('select count(*) as n, count(distinct id) as ids from auth_security_log'));
      expect(counts).toEqual({ n: ids.length, ids: ids.length });
      expect(await tableExists(db, OLD_TABLE)).toBe(false);
    } finally {
      await db.close();
    }
  });
});
