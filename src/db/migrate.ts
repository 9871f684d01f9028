// Applies the SQL migrations drizzle-kit generated per module (drizzle/<dialect>/<module>/).
// Each applied migration is recorded by module, tag and checksum in cabinet_migrations, so one
// module's history can never hide another's (the shared-journal pitfall). A database holding a
// migration this binary does not know was written by a newer cabinet and is refused untouched.
// A checksum is the start of the sha256 of the file's bytes; the single executable carries them
// in its build manifest, so a start with a migrated database reads no SQL file at all.
import { sql } from 'drizzle-orm';
import { assetDigest, readAsset } from '../runtime/assets.js';
import type { Database } from './client.js';
import { crossProcessLock } from './sql.js';

export interface Migration {
  module: string;
  tag: string;
  checksum: string;
  /** The SQL statements, read only when the migration is about to run. */
  statements(): string[];
}

export class MigrationRefused extends Error {}

interface Journal {
  entries: { idx: number; tag: string }[];
}

/** The migrations of one module for a dialect, in order (empty when it has no tables). */
export function moduleMigrations(dialect: Database['dialect'], module: string): Migration[] {
  const folder = `drizzle/${dialect === 'sqlite' ? 'sqlite' : 'postgres'}/${module}`;
  const journalRaw = readAsset(`${folder}/meta/_journal.json`);
  if (!journalRaw) return [];
  const journal = JSON.parse(journalRaw.toString('utf8')) as Journal;
  return [...journal.entries]
    .sort((a, b) => a.idx - b.idx)
    .map((entry) => {
      const file = `${folder}/${entry.tag}.sql`;
      const missing = () => new Error(`migration ${module}/${entry.tag} is listed in the journal but missing`);
      const digest = assetDigest(file);
      if (digest === undefined) throw missing();
      return {
        module,
        tag: entry.tag,
        checksum: digest.slice(0, 16),
        statements() {
          const text = readAsset(file)?.toString('utf8');
          if (text === undefined) throw missing();
          return text.split('--> statement-breakpoint').map((s) => s.trim()).filter(Boolean);
        },
      };
    });
}

/** Every module's migrations, in catalogue order (the caller names the modules: src/modules/index.ts). */
export function bundledMigrations(dialect: Database['dialect'], modules: readonly string[]): Migration[] {
  return modules.flatMap((id) => moduleMigrations(dialect, id));
}

export interface AppliedMigration {
  module: string;
  tag: string;
  checksum: string;
  applied_at: string;
}

export async function appliedMigrations(db: Database): Promise<AppliedMigration[]> {
  await db.exec(
    'CREATE TABLE IF NOT EXISTS cabinet_migrations (module text NOT NULL, tag text NOT NULL, checksum text NOT NULL, applied_at text NOT NULL, PRIMARY KEY (module, tag))',
  );
  return db.rows<AppliedMigration>(sql`select module, tag, checksum, applied_at from cabinet_migrations order by module, tag`);
}

/**
 * Returns `module/tag` of each migration applied by this call (empty when already current).
 * On a PostgreSQL server several master processes may start at once on one database: the run
 * holds a transaction-scoped advisory lock, so one process migrates and the others wait, then
 * find the database current. The whole run is then one transaction: all of it or none.
 */
export async function migrate(db: Database, migrations: Migration[]): Promise<string[]> {
  if (db.engine !== 'postgresql') return migrateUnlocked(db, migrations);
  return db.transaction(async () => {
    await crossProcessLock(db, 'cabinet_migrations');
    return migrateUnlocked(db, migrations);
  });
}

async function migrateUnlocked(db: Database, migrations: Migration[]): Promise<string[]> {
  const applied = await appliedMigrations(db);
  const known = new Map(migrations.map((m) => [`${m.module}/${m.tag}`, m]));
  for (const row of applied) {
    const mine = known.get(`${row.module}/${row.tag}`);
    if (!mine) {
      throw new MigrationRefused(
        `database ${db.location} has migration ${row.module}/${row.tag}, which this cabinet build does not know: it was written by a newer version. Refusing to start; the database was not modified.`,
      );
    }
    if (mine.checksum !== row.checksum) {
      throw new MigrationRefused(
        `database ${db.location} applied migration ${row.module}/${row.tag} with checksum ${row.checksum}, but this build carries ${mine.checksum}. Refusing to start; the database was not modified.`,
      );
    }
  }
  const done = new Set(applied.map((r) => `${r.module}/${r.tag}`));
  const ran: string[] = [];
  for (const m of migrations) {
    const id = `${m.module}/${m.tag}`;
    if (done.has(id)) continue;
    await db.transaction(async () => {
      for (const statement of m.statements()) await db.exec(statement);
      await db.run(
        sql`insert into cabinet_migrations (module, tag, checksum, applied_at) values (${m.module}, ${m.tag}, ${m.checksum}, ${new Date().toISOString()})`,
      );
    });
    ran.push(id);
  }
  return ran;
}
