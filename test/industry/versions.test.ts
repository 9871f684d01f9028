// The shared versioning mechanism on a real SQLite file and on PostgreSQL (the server named by
// CABINET_TEST_PG_URL, else PGlite in-process).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/client.js';
import { defineRecord } from '../../src/kernel/record.js';
import { versionFields, versioned, type VersionColumns } from '../../src/industry/versions.js';
import { ApiError } from '../../src/kernel/errors.js';

const rec = defineRecord('test_versions', {
  id: { type: 'string', label: 'ID' },
  tenant_id: { type: 'string', label: 'Tenant' },
  house_id: { type: 'string', label: 'House' },
  target_c: { type: 'number', label: 'Target' },
  ...versionFields,
});
type Row = typeof rec.row & VersionColumns;
const versions = versioned<Row>(rec.table, ['tenant_id', 'house_id']);

const DDL = `create table test_versions (id text primary key, tenant_id text not null, house_id text not null, target_c double precision not null,
  version_id integer not null, state text not null, change_note text, rollback_of integer, created_by text not null, created_at text not null, published_at text)`;

for (const dialect of ['sqlite', 'postgres'] as const) {
  describe(`versioned records (${dialect})`, () => {
    let db: Database;
    let dir: string;
    let dropDb: string | undefined;
    let n = 0;
    const id = () => `v${++n}`;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'cabinet-versions-'));
      let url = '';
      if (dialect === 'postgres') {
        const base = process.env.CABINET_TEST_PG_URL;
        if (base) {
          dropDb = `cabinet_t_${randomBytes(6).toString('hex')}`;
          const c = new pg.Client({ connectionString: base });
          await c.connect(); await c.query(`create database ${dropDb}`); await c.end();
          const u = new URL(base); u.pathname = `/${dropDb}`; url = u.toString();
        } else url = `pglite:${join(dir, 'pg')}`;
      }
      db = await openDatabase({ databaseUrl: url, dataDir: dir });
      await db.exec(DDL);
    });
    afterAll(async () => {
      await db?.close();
      if (dropDb) {
        const c = new pg.Client({ connectionString: process.env.CABINET_TEST_PG_URL });
        await c.connect(); await c.query(`drop database ${dropDb} with (force)`); await c.end();
      }
      rmSync(dir, { recursive: true, force: true });
    });

    const lineage = { tenant_id: 't1', house_id: 'h1' };
    const base = { tenant_id: 't1', house_id: 'h1' };

    it('numbers versions per lineage, publishes one at a time and archives the previous', async () => {
      const v1 = await versions.add(db, { ...base, target_c: 32 }, { id: id(), actor: 'a', publish: true, change_note: 'placement' });
      expect(v1).toMatchObject({ version_id: 1, state: 'published', rollback_of: null, change_note: 'placement' });
      expect(v1.published_at).not.toBeNull();
      const other = await versions.add(db, { tenant_id: 't1', house_id: 'h2', target_c: 30 }, { id: id(), actor: 'a' });
      expect(other).toMatchObject({ version_id: 1, state: 'draft' });
      const v2 = await versions.add(db, { ...base, target_c: 31 }, { id: id(), actor: 'b' });
      expect(v2).toMatchObject({ version_id: 2, state: 'draft', published_at: null });
      expect((await versions.published(db, lineage))!.id).toBe(v1.id);
      const { published, archived } = await versions.publish(db, v2);
      expect(published).toMatchObject({ id: v2.id, state: 'published' });
      expect(archived).toMatchObject({ id: v1.id, state: 'archived' });
      expect((await versions.published(db, lineage))!.target_c).toBe(31);
      expect((await versions.published(db, { tenant_id: 't1', house_id: 'h2' }))).toBeUndefined();
    });

    it('refuses to publish what is not a draft, changing nothing', async () => {
      const current = (await versions.published(db, lineage))!;
      await expect(versions.publish(db, current)).rejects.toMatchObject({ code: 'lifecycle_conflict' });
      expect((await versions.published(db, lineage))!.id).toBe(current.id);
    });

    it('rolls back by adding a published copy of the chosen version with rollback_of', async () => {
      const before = await versions.history(db, lineage);
      const { published, archived } = await versions.rollback(db, lineage, 1, { id: id(), actor: 'c' });
      expect(published).toMatchObject({ version_id: before[0]!.version_id + 1, state: 'published', rollback_of: 1, target_c: 32, created_by: 'c' });
      expect(archived!.target_c).toBe(31);
      const history = await versions.history(db, lineage);
      expect(history.map((r) => r.version_id)).toEqual([3, 2, 1]);
      expect(history.filter((r) => r.state === 'published')).toHaveLength(1);
    });

    it('answers not_found for an unknown version and keeps the published one', async () => {
      const err = await versions.rollback(db, lineage, 99, { id: id(), actor: 'c' }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).code).toBe('not_found');
      expect((await versions.published(db, lineage))!.version_id).toBe(3);
      expect(await versions.history(db, lineage)).toHaveLength(3);
    });
  });
}
