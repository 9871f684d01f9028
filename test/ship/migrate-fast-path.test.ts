// The migration check as the single executable runs it: checksums come from the build manifest
// (an asset source that knows digests), so a start with a migrated database reads no SQL file,
// and still refuses a database whose applied migrations differ from or are unknown to this build.
// A real SQLite file in a temporary directory; the asset source serves the repository's drizzle/.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetSource } from '../../src/runtime/assets.js';

const root = resolve(import.meta.dirname, '../..');
const sqlReads: string[] = [];
const digests = new Map<string, string>();
const source: AssetSource = {
  read(name) {
    const file = join(root, name);
    if (!name.startsWith('drizzle/') || !existsSync(file)) return undefined;
    if (name.endsWith('.sql')) sqlReads.push(name);
    return readFileSync(file);
  },
  list: () => [],
  digest: (name) => digests.get(name),
};
// Installed before src/runtime/assets.ts first picks its source (as src/runtime/sea.ts does).
globalThis.__CABINET_ASSETS__ = source;

const { openDatabase } = await import('../../src/db/client.js');
const { bundledMigrations, migrate, MigrationRefused } = await import('../../src/db/migrate.js');
const { MODULES } = await import('../../src/modules/index.js');
type Db = Awaited<ReturnType<typeof openDatabase>>;

const ids = MODULES.map((m) => m.id);
let dir: string;
let db: Db;

/** What build.mjs writes into the manifest: sha256 of each embedded .sql file's bytes. */
function buildManifest(): void {
  digests.clear();
  for (const m of bundledMigrations('sqlite', ids)) {
    const name = `drizzle/sqlite/${m.module}/${m.tag}.sql`;
    digests.set(name, createHash('sha256').update(readFileSync(join(root, name))).digest('hex'));
  }
  sqlReads.length = 0;
}

const sqlTag = (s: string) => sql.raw(s);
const count = async () => (await db.rows<{ n: number }>(sqlTag('select count(*) as n from cabinet_migrations')))[0]?.n;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cabinet-migrate-fast-'));
  db = await openDatabase({ dataDir: dir });
  buildManifest();
});
afterAll(async () => {
  await db.close();
  rmSync(dir, { recursive: true, force: true });
  globalThis.__CABINET_ASSETS__ = undefined;
});

describe('migration check against the build manifest', () => {
  it('an empty database reads and applies every migration', async () => {
    const ran = await migrate(db, bundledMigrations('sqlite', ids));
    expect(ran.length).toBeGreaterThan(20);
    expect(sqlReads.length).toBe(ran.length);
  });

  it('a migrated database is checked without reading any SQL file', async () => {
    sqlReads.length = 0;
    expect(await migrate(db, bundledMigrations('sqlite', ids))).toEqual([]);
    expect(sqlReads).toEqual([]);
  });

  it('the checksums are the ones earlier builds recorded (sha256 of the text, first 16 hex digits)', async () => {
    const rows = await db.rows<{ module: string; tag: string; checksum: string }>(sqlTag('select module, tag, checksum from cabinet_migrations'));
    for (const r of rows) {
      const text = readFileSync(join(root, `drizzle/sqlite/${r.module}/${r.tag}.sql`), 'utf8');
      expect(r.checksum).toBe(createHash('sha256').update(text).digest('hex').slice(0, 16));
    }
  });

  it('refuses a database whose applied migration differs from the one this build carries, and changes nothing', async () => {
    const before = await count();
    const name = 'drizzle/sqlite/core/0000_init.sql';
    digests.set(name, createHash('sha256').update('a different core/0000_init').digest('hex'));
    try {
      await expect(migrate(db, bundledMigrations('sqlite', ids))).rejects.toThrow(MigrationRefused);
      await expect(migrate(db, bundledMigrations('sqlite', ids))).rejects.toThrow(/core\/0000_init with checksum \w+, but this build carries/);
      expect(await count()).toBe(before);
      expect(sqlReads).toEqual([]);
    } finally {
      buildManifest();
    }
  });

  it('refuses a database holding a migration this build does not know, and changes nothing', async () => {
    await db.exec("insert into cabinet_migrations (module, tag, checksum, applied_at) values ('core', '9999_future', '0000000000000000', '2030-01-01T00:00:00Z')");
    const before = await count();
    await expect(migrate(db, bundledMigrations('sqlite', ids))).rejects.toThrow(/has migration core\/9999_future, which this cabinet build does not know/);
    expect(await count()).toBe(before);
    expect(sqlReads).toEqual([]);
  });

  it('a migration listed in a journal but absent from the build is an error, not a skipped migration', () => {
    const name = 'drizzle/sqlite/core/0000_init.sql';
    const saved = digests.get(name);
    digests.delete(name);
    const realRead = source.read;
    source.read = (n) => (n === name ? undefined : realRead(n));
    try {
      expect(() => bundledMigrations('sqlite', ids)).toThrow(/core\/0000_init is listed in the journal but missing/);
    } finally {
      source.read = realRead;
      if (saved) digests.set(name, saved);
    }
  });
});
