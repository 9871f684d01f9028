// `cabinet backup --to FILE` and `cabinet restore --from FILE` for the SQLite database.
//
// Backup runs beside a live service: it copies the database with SQLite's online backup API
// (better-sqlite3's db.backup()), all pages in one step, which holds one read transaction, so the
// copy is the database as committed at that instant (WAL: writers go on meanwhile). The archive
// (a gzip'd tar, mode 0600) holds the copy, the session key (without it the sessions and the
// passkeys' keyed hashes are useless) and a manifest naming the cabinet version and the applied
// migrations. Restore refuses a backup from a newer cabinet or with a migration this build does
// not know, and refuses while a service holds the database open.
import { createHash } from 'node:crypto';
import {
  chownSync,
  closeSync,
  existsSync,
  fsyncSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  unlinkSync,
  writeSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import semver from './semver.js';
import type { Config } from '../config.js';
import { bundledMigrations } from '../db/migrate.js';
import { betterSqlite3Binding } from './native.js';
import { readArchive, writeArchive, ArchiveError } from './archive.js';
import pkg from '../../package.json' with { type: 'json' };

export const BACKUP_FORMAT = 'cabinet-backup';
export const BACKUP_FORMAT_VERSION = 1;
const DB_FILE = 'cabinet.sqlite';
const KEY_FILE = 'session.key';
/** The CA's files under data_dir/tls (src/runtime/tls.ts), carried so tablets keep trusting a restored box. */
const CA_FILES = ['ca.key', 'ca.crt'] as const;

/** A backup or restore that cannot be done; the message says why and what to do. */
export class BackupError extends Error {
  constructor(message: string, readonly exitCode = 1) {
    super(message);
  }
}
/** Exit code of `cabinet backup` when there is nothing for it to copy (PostgreSQL, no database yet). */
export const NOTHING_TO_BACK_UP = 3;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  format_version: number;
  cabinet_version: string;
  node: string;
  sqlite: string;
  created_at: string;
  migrations: string[];
  session_key: 'included' | 'from_config';
  files: Record<string, { size: number; sha256: string }>;
}

const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function sqliteModule() {
  const { default: BetterSqlite3 } = await import('better-sqlite3');
  const binding = betterSqlite3Binding();
  const options = binding ? { nativeBinding: binding as unknown as string } : {};
  return { BetterSqlite3, options };
}

function sqliteFile(config: Config, verb: string, pgHint: string): string {
  const url = config.database_url.trim();
  if (url && !url.startsWith('sqlite:')) {
    throw new BackupError(`database_url is not SQLite, so cabinet ${verb} does not apply: ${pgHint}`, NOTHING_TO_BACK_UP);
  }
  const dir = url.startsWith('sqlite:') ? url.slice('sqlite:'.length) || config.data_dir : config.data_dir;
  return resolve(dir, DB_FILE);
}

/** Writes data to path through a temporary file in the same directory: a reader never sees half a file. */
function writeAtomically(path: string, data: Buffer, mode: number): void {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  const fd = openSync(tmp, 'w', mode);
  try {
    writeSync(fd, data);
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

export interface BackupResult {
  file: string;
  manifest: BackupManifest;
  bytes: number;
  ms: number;
}

export async function backupDatabase(config: Config, to: string): Promise<BackupResult> {
  const started = Date.now();
  const dbFile = sqliteFile(config, 'backup', 'use pg_dump (see the README, "Back up and restore")');
  if (!existsSync(dbFile)) throw new BackupError(`no database at ${dbFile} yet: nothing to back up`, NOTHING_TO_BACK_UP);
  const target = resolve(to);
  if (!existsSync(dirname(target))) throw new BackupError(`directory ${dirname(target)} does not exist`);
  const { BetterSqlite3, options } = await sqliteModule();

  // The copy goes to a private directory beside the target (same file system, mode 0700).
  const work = mkdtempSync(join(dirname(target), '.cabinet-backup-'));
  try {
    const copy = join(work, DB_FILE);
    const source = new BetterSqlite3(dbFile, { ...options, readonly: true, fileMustExist: true, timeout: 5000 });
    try {
      // The first step copies nothing; returning the maximum makes the second copy every page in
      // one sqlite3_backup_step, inside one read transaction: no restart when the service writes.
      await source.backup(copy, { progress: () => 0x7fffffff });
    } finally {
      source.close();
    }
    const check = new BetterSqlite3(copy, { ...options, fileMustExist: true });
    let migrations: string[];
    let sqlite: string;
    try {
      const ok = check.pragma('quick_check', { simple: true });
      if (ok !== 'ok') throw new BackupError(`the copy of ${dbFile} fails SQLite's quick_check: ${String(ok)}`);
      // A self-contained file: no -wal beside it when it is restored.
      check.pragma('journal_mode = DELETE');
      migrations = (check.prepare('select module, tag from cabinet_migrations order by module, tag').all() as { module: string; tag: string }[]).map(
        (r) => `${r.module}/${r.tag}`,
      );
      sqlite = (check.prepare('select sqlite_version() as v').get() as { v: string }).v;
    } finally {
      check.close();
    }
    const dbData = readFileSync(copy);
    const files: { name: string; data: Buffer }[] = [{ name: DB_FILE, data: dbData }];
    const keyFile = join(dirname(dbFile), KEY_FILE);
    let sessionKey: BackupManifest['session_key'] = 'from_config';
    if (!config.session_secret) {
      if (!existsSync(keyFile)) throw new BackupError(`session key ${keyFile} is missing; a backup without it could not log anyone in`);
      files.push({ name: KEY_FILE, data: readFileSync(keyFile) });
      sessionKey = 'included';
    }
    // The box's certificate authority: a restored box keeps the CA its tablets already trust (its
    // server certificate is issued again from it at the first start, so it is not carried).
    for (const name of CA_FILES) {
      const path = join(config.data_dir, 'tls', name);
      if (existsSync(path)) files.push({ name: `tls-${name}`, data: readFileSync(path) });
    }
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT,
      format_version: BACKUP_FORMAT_VERSION,
      cabinet_version: pkg.version,
      node: process.version,
      sqlite,
      created_at: new Date().toISOString(),
      migrations,
      session_key: sessionKey,
      files: Object.fromEntries(files.map((f) => [f.name, { size: f.data.length, sha256: sha256(f.data) }])),
    };
    const archive = writeArchive([{ name: 'manifest.json', data: Buffer.from(`${JSON.stringify(manifest, null, 1)}\n`), mode: 0o600 }, ...files]);
    // Holds the session key and the credential digests: owner-only, like the data directory.
    writeAtomically(target, archive, 0o600);
    return { file: target, manifest, bytes: archive.length, ms: Date.now() - started };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

export interface RestoreResult {
  database: string;
  manifest: BackupManifest;
  previous?: string;
  migrationsToApply: number;
}

function readBackup(from: string): { manifest: BackupManifest; files: Map<string, Buffer> } {
  let files: Map<string, Buffer>;
  try {
    files = readArchive(readFileSync(from));
  } catch (err) {
    if (err instanceof ArchiveError) throw new BackupError(`${from} is not a cabinet backup: ${err.message}`);
    throw new BackupError(`cannot read ${from}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(files.get('manifest.json')?.toString('utf8') ?? '') as BackupManifest;
  } catch {
    throw new BackupError(`${from} is not a cabinet backup: it has no readable manifest.json`);
  }
  if (manifest.format !== BACKUP_FORMAT || typeof manifest.format_version !== 'number' || !Array.isArray(manifest.migrations)) {
    throw new BackupError(`${from} is not a cabinet backup: its manifest is not one`);
  }
  if (manifest.format_version > BACKUP_FORMAT_VERSION) {
    throw new BackupError(`${from} has backup format ${manifest.format_version}; this cabinet ${pkg.version} reads format ${BACKUP_FORMAT_VERSION}: restore it with the cabinet that made it (${manifest.cabinet_version}) or newer`);
  }
  for (const [name, meta] of Object.entries(manifest.files ?? {})) {
    const data = files.get(name);
    if (!data || data.length !== meta.size || sha256(data) !== meta.sha256) throw new BackupError(`${from} is damaged: ${name} does not match its manifest`);
  }
  if (!files.has(DB_FILE)) throw new BackupError(`${from} holds no database`);
  return { manifest, files };
}

/** True when some process (a running service) has the database open. */
async function databaseInUse(file: string): Promise<boolean> {
  if (!existsSync(file)) return false;
  const { BetterSqlite3, options } = await sqliteModule();
  // A WAL connection keeps a shared lock while open; an exclusive lock is refused if one exists.
  const probe = new BetterSqlite3(file, { ...options, fileMustExist: true, timeout: 0 });
  try {
    probe.pragma('locking_mode = EXCLUSIVE');
    probe.exec('BEGIN EXCLUSIVE');
    probe.exec('COMMIT');
    return false;
  } catch (err) {
    if ((err as { code?: string }).code === 'SQLITE_BUSY') return true;
    throw err;
  } finally {
    probe.close();
  }
}

/** A file a restore writes: staged at `from`, for `to`, and what `to` held before (with its owner), to put back. */
interface Staged {
  from: string;
  to: string;
  before: { data: Buffer; uid: number; gid: number } | undefined;
}

/**
 * Undoes the swap of a restore that failed half way: the restored file out, the database (and its
 * log) that was there back in place, the session key and CA files as they were. True when done.
 */
function putBack(dbFile: string, incoming: string, previous: string | undefined, placed: boolean, replaced: readonly Staged[]): boolean {
  try {
    for (const r of replaced) {
      if (!r.before) {
        rmSync(r.to, { force: true });
        continue;
      }
      writeAtomically(r.to, r.before.data, 0o600);
      // Written again by root (sudo cabinet restore): given back to its owner, or the service
      // could not read its own session key and CA.
      if (process.getuid?.() === 0) chownSync(r.to, r.before.uid, r.before.gid);
    }
    if (placed) renameSync(dbFile, incoming);
    if (previous && existsSync(previous)) renameSync(previous, dbFile);
    if (previous && existsSync(`${previous}-wal`)) renameSync(`${previous}-wal`, `${dbFile}-wal`);
    return true;
  } catch {
    return false;
  }
}

/** `moduleIds`: the catalogue's modules, whose migrations this binary knows (the caller passes them: runtime/ never imports modules). */
export async function restoreDatabase(config: Config, from: string, moduleIds: readonly string[]): Promise<RestoreResult> {
  const dbFile = sqliteFile(config, 'restore', 'restore a pg_dump file with pg_restore (see the README, "Back up and restore")');
  const { manifest, files } = readBackup(resolve(from));
  const version = semver.valid(manifest.cabinet_version);
  if (!version) throw new BackupError(`${from}: its manifest names no valid cabinet version (${String(manifest.cabinet_version)})`);
  if (semver.gt(version, pkg.version)) {
    throw new BackupError(`${from} was made by cabinet ${version}, newer than this cabinet ${pkg.version}: install ${version} or newer to restore it. Nothing was changed.`);
  }
  const known = new Set(bundledMigrations('sqlite', moduleIds).map((m) => `${m.module}/${m.tag}`));
  const unknown = manifest.migrations.filter((m) => !known.has(m));
  if (unknown.length) {
    throw new BackupError(`${from} holds migration ${unknown.join(', ')}, which this cabinet ${pkg.version} does not know: its schema is newer. Nothing was changed.`);
  }
  const dir = dirname(dbFile);
  // A fresh box (or a fresh directory for a test restore) gets the directory the service would make.
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (await databaseInUse(dbFile)) {
    throw new BackupError(`the database ${dbFile} is open in a running cabinet: stop the service first (sudo systemctl stop cabinet). Nothing was changed.`);
  }
  if (manifest.session_key === 'from_config' && !config.session_secret) {
    throw new BackupError(`${from} was made with session_secret set in the configuration; set the same session_secret before restoring it. Nothing was changed.`);
  }

  // Files written by root (sudo cabinet restore) go to the data directory's owner, or the service
  // user could not open them.
  const owner = statSync(dir);
  const own = (path: string) => {
    if (process.getuid?.() === 0 && (owner.uid !== 0 || owner.gid !== 0)) chownSync(path, owner.uid, owner.gid);
  };
  const incoming = join(dir, `.${DB_FILE}.restoring`);
  writeAtomically(incoming, files.get(DB_FILE) as Buffer, 0o600);
  own(incoming);
  const { BetterSqlite3, options } = await sqliteModule();
  const check = new BetterSqlite3(incoming, { ...options, fileMustExist: true, readonly: true });
  try {
    const ok = check.pragma('quick_check', { simple: true });
    if (ok !== 'ok') throw new BackupError(`the database in ${from} fails SQLite's quick_check: ${String(ok)}. Nothing was changed.`);
  } catch (err) {
    check.close();
    unlinkSync(incoming);
    throw err;
  }
  check.close();

  // Everything that writes (and so can fail: a full disk) is staged first, beside its place;
  // then the files are swapped by renames. The current database is kept beside it (one
  // generation), with its log (-wal) if a crash left one: a log left beside the restored file
  // would be applied to it. The log index (-shm) is never renamed or deleted: it is derived data
  // (the first connection finds no other holding it and rebuilds it from the log, which is gone),
  // and the unit may have a tmpfs file mounted there (`cabinet storage shm-mount`).
  const staged: Staged[] = [];
  const stage = (to: string, data: Buffer) => {
    const from = join(dirname(to), `.${basename(to)}.restoring`);
    writeAtomically(from, data, 0o600);
    own(from);
    const st = existsSync(to) ? lstatSync(to) : undefined;
    staged.push({ from, to, before: st?.isFile() ? { data: readFileSync(to), uid: st.uid, gid: st.gid } : undefined });
  };
  let previous: string | undefined;
  let moved = false;
  let placed = false;
  const replaced: Staged[] = [];
  try {
    const key = files.get(KEY_FILE);
    if (key) stage(join(dir, KEY_FILE), key);
    const tls = join(config.data_dir, 'tls');
    const withCa = CA_FILES.every((name) => files.has(`tls-${name}`));
    if (withCa) {
      if (!existsSync(tls)) mkdirSync(tls, { recursive: true, mode: 0o700 });
      own(tls);
      for (const name of CA_FILES) stage(join(tls, name), files.get(`tls-${name}`) as Buffer);
    }
    if (existsSync(dbFile) || existsSync(`${dbFile}-wal`)) {
      previous = `${dbFile}.before-restore`;
      for (const suffix of ['', '-wal', '-shm']) rmSync(`${previous}${suffix}`, { force: true });
    }
    if (previous && existsSync(dbFile)) {
      renameSync(dbFile, previous);
      moved = true;
    }
    if (previous && existsSync(`${dbFile}-wal`)) {
      renameSync(`${dbFile}-wal`, `${previous}-wal`);
      moved = true;
    }
    renameSync(incoming, dbFile);
    placed = true;
    for (const s of staged) {
      renameSync(s.from, s.to);
      replaced.push(s);
    }
    // Issued again from the restored CA at the next start.
    if (withCa) for (const name of ['server.key', 'server.crt']) rmSync(join(tls, name), { force: true });
  } catch (err) {
    const why = (err as NodeJS.ErrnoException).code ?? (err as Error).message;
    if (!moved && !placed) {
      for (const s of staged) rmSync(s.from, { force: true });
      rmSync(incoming, { force: true });
      if (err instanceof BackupError) throw err;
      throw new BackupError(`the restore of ${from} failed before anything was replaced (${why}). Nothing was changed.`);
    }
    const back = putBack(dbFile, incoming, previous, placed, replaced);
    for (const s of staged) rmSync(s.from, { force: true });
    rmSync(incoming, { force: true });
    if (back) throw new BackupError(`the restore of ${from} failed half way (${why}); the database that was there is back at ${dbFile}, unchanged. Nothing was restored.`);
    throw new BackupError(
      `the restore of ${from} failed half way (${why}), and the database that was there could not be put back: it is ${previous}` +
        ` (with ${previous}-wal if it had a log). Before starting the service, put it back: mv ${previous} ${dbFile}` +
        ` (and mv ${previous}-wal ${dbFile}-wal if it exists)`,
    );
  }
  return { database: dbFile, manifest, previous: previous && existsSync(previous) ? previous : undefined, migrationsToApply: known.size - manifest.migrations.length };
}
