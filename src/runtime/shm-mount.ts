// `cabinet storage shm-mount` / `shm-unmount`: SQLite's log index (`cabinet.sqlite-shm`) on tmpfs.
//
// SQLite maps the index into memory and dirties it at every commit; on the data directory the
// kernel writes those pages back to flash (about 32 MiB a day, docs/storage-and-reads.md, "The log
// index (`-shm`) on tmpfs"). The index is derived data (the first connection rebuilds it from the
// log), so it can live in RAM: a file under /run is bind-mounted over the `-shm` path. The unit runs
// shm-mount as root before the service (ExecStartPre=-+) and shm-unmount after every stop
// (ExecStopPost=-+), so nothing outside the running service (restore, a rollback to any version,
// purge) ever meets a mount point.
//
// The one thing that must never happen: two processes using two different index files for the
// same database (each would think it sees every commit; a checkpoint can then overwrite log frames
// another still reads, and committed rows are lost). So the mount is made only when no process has
// the current index open, mapped or locked (/proc/*/fd, /proc/*/maps, /proc/locks), and the check
// is made again after the mount for the file now hidden under it. While it checks, the file is
// mode 000 (and the tmpfs file too until the second check), so a process of the service's user
// that opens the index in between fails to open it (SQLITE_CANTOPEN) instead of opening either
// file. The unmount checks the tmpfs file the same way; the kernel refuses (EBUSY) to unmount a
// file that is open or mapped through the mount. Neither command is ever fatal to the start.
//
// Only node:fs and the `mount`/`umount` binaries (util-linux): no SQLite here (as root it would
// make root-owned files beside the database, and extract the native addon into the service's cache).
import { execFile, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  closeSync,
  constants,
  existsSync,
  fchmodSync,
  fchownSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  chownSync,
  openSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statfsSync,
  statSync,
  unlinkSync,
  type BigIntStats,
} from 'node:fs';
import { basename, join, resolve } from 'node:path';

export const DEFAULT_RUN_DIR = '/run/cabinet-shm';
const DB_FILE = 'cabinet.sqlite';
/** statfs f_type of the file systems that are memory (linux/magic.h). */
const MEMORY_FS = new Map<bigint, string>([[0x01021994n, 'tmpfs'], [0x858458f6n, 'ramfs']]);

// ---- pure parsing of /proc (unit-tested with fixture text) --------------------------------------

/** A file as the kernel names it in /proc/<pid>/maps and /proc/locks: the super block's device and the inode. */
export interface FileId {
  major: number;
  minor: number;
  ino: bigint;
}

/** major/minor of a stat() st_dev as glibc encodes it (gnu_dev_major / gnu_dev_minor). */
export function decodeDev(dev: bigint): { major: number; minor: number } {
  const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & 0xfffff000n);
  const minor = (dev & 0xffn) | ((dev >> 12n) & 0xffffff00n);
  return { major: Number(major), minor: Number(minor) };
}

export function fileIdOf(st: BigIntStats): FileId {
  return { ...decodeDev(st.dev), ino: st.ino };
}

const sameFile = (a: FileId, b: FileId) => a.major === b.major && a.minor === b.minor && a.ino === b.ino;

/** True when a /proc/<pid>/maps text has a mapping of the file (`addr perms offset MAJ:MIN inode path`, hex device, decimal inode). */
export function mapsHold(maps: string, id: FileId): boolean {
  for (const line of maps.split('\n')) {
    const f = line.trim().split(/\s+/);
    if (f.length < 5) continue;
    const dev = /^([0-9a-f]+):([0-9a-f]+)$/i.exec(f[3]!);
    if (!dev || !/^\d+$/.test(f[4]!)) continue;
    if (sameFile({ major: Number.parseInt(dev[1]!, 16), minor: Number.parseInt(dev[2]!, 16), ino: BigInt(f[4]!) }, id)) return true;
  }
  return false;
}

/** The pids with a lock on the file in a /proc/locks text (`n: POSIX ADVISORY WRITE pid MAJ:MIN:inode start end`; OFD locks have pid -1). */
export function lockHolders(locks: string, id: FileId): number[] {
  const pids: number[] = [];
  for (const line of locks.split('\n')) {
    const m = /(-?\d+)\s+([0-9a-f]+):([0-9a-f]+):(\d+)\s/i.exec(line);
    if (!m) continue;
    if (sameFile({ major: Number.parseInt(m[2]!, 16), minor: Number.parseInt(m[3]!, 16), ino: BigInt(m[4]!) }, id)) pids.push(Number(m[1]));
  }
  return pids;
}

export interface MountEntry {
  major: number;
  minor: number;
  /** The mounted path inside its file system (for a bind mount of a file: that file). */
  root: string;
  mountPoint: string;
  fsType: string;
}

/** mountinfo's octal escapes (space \040, tab \011, newline \012, backslash \134). */
const unescape = (s: string) => s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(Number.parseInt(o, 8)));

/** The entries of a /proc/<pid>/mountinfo text, in mount order. */
export function parseMountInfo(text: string): MountEntry[] {
  const out: MountEntry[] = [];
  for (const line of text.split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-', 6);
    const dev = /^(\d+):(\d+)$/.exec(f[2] ?? '');
    if (dash < 0 || !dev || f.length < dash + 2) continue;
    out.push({ major: Number(dev[1]), minor: Number(dev[2]), root: unescape(f[3]!), mountPoint: unescape(f[4]!), fsType: f[dash + 1]! });
  }
  return out;
}

/** The mount on top at a path, or undefined when the path is not a mount point. */
export function mountAt(entries: readonly MountEntry[], path: string): MountEntry | undefined {
  let top: MountEntry | undefined;
  for (const e of entries) if (e.mountPoint === path) top = e;
  return top;
}

/** True when some mount's super block has this device: what /proc/<pid>/maps and /proc/locks print (not so on btrfs subvolumes or overlayfs). */
export function deviceKnown(entries: readonly MountEntry[], id: FileId): boolean {
  return entries.some((e) => e.major === id.major && e.minor === id.minor);
}

// ---- who has a file in use ---------------------------------------------------------------------

export interface Holder {
  pid: number;
  how: 'open' | 'mapped' | 'locked';
  command: string;
}

function command(proc: string, pid: number): string {
  try {
    return readFileSync(join(proc, String(pid), 'comm'), 'utf8').trim();
  } catch {
    return '?';
  }
}

/**
 * Every process (but `exceptPid`) that has the file open (a /proc/<pid>/fd link to the same device
 * and inode), mapped (/proc/<pid>/maps) or locked (/proc/locks). Run as root to see every process.
 */
export function holders(id: FileId, opts: { proc?: string; exceptPid?: number } = {}): Holder[] {
  const proc = opts.proc ?? '/proc';
  const found: Holder[] = [];
  let pids: number[] = [];
  try {
    pids = readdirSync(proc).filter((n) => /^\d+$/.test(n)).map(Number);
  } catch {
    return found;
  }
  for (const pid of pids) {
    if (pid === opts.exceptPid) continue;
    let fds: string[] = [];
    try {
      fds = readdirSync(join(proc, String(pid), 'fd'));
    } catch { /* gone, or a kernel thread */ }
    for (const fd of fds) {
      try {
        if (sameFile(fileIdOf(statSync(join(proc, String(pid), 'fd', fd), { bigint: true })), id)) {
          found.push({ pid, how: 'open', command: command(proc, pid) });
          break;
        }
      } catch { /* closed meanwhile */ }
    }
    try {
      if (mapsHold(readFileSync(join(proc, String(pid), 'maps'), 'utf8'), id)) found.push({ pid, how: 'mapped', command: command(proc, pid) });
    } catch { /* gone */ }
  }
  try {
    for (const pid of lockHolders(readFileSync(join(proc, 'locks'), 'utf8'), id)) {
      if (pid !== opts.exceptPid) found.push({ pid, how: 'locked', command: pid > 0 ? command(proc, pid) : '?' });
    }
  } catch { /* no /proc/locks */ }
  return found;
}

const describeHolders = (hs: readonly Holder[]) =>
  [...new Set(hs.map((h) => `${h.command} (pid ${h.pid}, ${h.how})`))].join(', ');

// ---- the commands ------------------------------------------------------------------------------

export interface ShmOptions {
  dataDir: string;
  databaseUrl: string;
  /** Where the tmpfs file goes; default /run/cabinet-shm. */
  runDir?: string;
  /** /proc, for the checks. */
  proc?: string;
  /** shm-unmount: how long to wait for the processes that have the tmpfs file in use to let it go (a `cabinet backup` that is running); default 0. */
  waitMs?: number;
  /** Called between the mount and the second check (a test opens the hidden file there). */
  onMounted?: () => Promise<void> | void;
  /** Called between the first check and the mount (a test puts a symbolic link in the index's place there). */
  onBeforeMount?: () => Promise<void> | void;
}

export interface ShmResult {
  /** mounted | unmounted | skipped (mount: nothing done, the index stays on the data directory) | nothing (unmount: no mount) | refused (unmount: left mounted) */
  outcome: 'mounted' | 'unmounted' | 'skipped' | 'nothing' | 'refused';
  message: string;
}

/** The SQLite file's directory, or undefined when the database is not SQLite. */
function sqliteDir(o: ShmOptions): string | undefined {
  const url = o.databaseUrl.trim();
  if (url && !url.startsWith('sqlite:')) return undefined;
  return resolve(url.startsWith('sqlite:') ? url.slice('sqlite:'.length) || o.dataDir : o.dataDir);
}

/** The tmpfs file's name for a data directory's index (one run directory may serve several). */
export function tmpfsName(shmPath: string): string {
  return `index-${createHash('sha256').update(shmPath).digest('hex').slice(0, 16)}`;
}

function run(file: string, args: string[]): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    execFile(file, args, { timeout: 30_000 }, (err, _stdout, stderr) => {
      if (err) reject(new Error(`${file} ${args.join(' ')}: ${String(stderr).trim() || err.message}`));
      else resolvePromise();
    });
  });
}

/**
 * `mount --bind` of the file open at `srcFd` over the file open at `targetFd`, named to the kernel as
 * the child's /proc/self/fd/4 and /3 (no canonicalization): the very files opened and checked, so a
 * process of the service's user that puts a symbolic link in the data directory's (or the run
 * directory's) place meanwhile cannot have root mount over, or from, a file elsewhere.
 */
function bindByDescriptors(srcFd: number, targetFd: number, shown: string): Promise<void> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn('mount', ['--no-canonicalize', '--bind', '/proc/self/fd/4', '/proc/self/fd/3'], {
      stdio: ['ignore', 'ignore', 'pipe', targetFd, srcFd],
      timeout: 30_000,
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.once('error', (err) => reject(new Error(`mount --bind ${shown}: ${err.message}`)));
    child.once('close', (code, signal) => {
      if (code === 0) resolvePromise();
      else reject(new Error(`mount --bind ${shown}: ${stderr.trim() || `exit ${code ?? signal}`}`));
    });
  });
}

const mountInfo = (proc: string) => parseMountInfo(readFileSync(join(proc, 'self', 'mountinfo'), 'utf8'));

/** The run directory, made (mode 0700, the service user's) only when it does not exist; an existing one must be root's or the service user's, not writable by others, on tmpfs. */
function runDirectory(dir: string, owner: { uid: number; gid: number }): string | undefined {
  let st;
  try {
    st = lstatSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return `${dir} cannot be read: ${(err as Error).message}`;
    try {
      mkdirSync(dir, { mode: 0o700 });
      chownSync(dir, owner.uid, owner.gid);
      chmodSync(dir, 0o700);
    } catch (e) {
      return `${dir} cannot be made: ${(e as Error).message}`;
    }
    st = lstatSync(dir);
  }
  if (!st.isDirectory()) return `${dir} is not a directory`;
  if (st.uid !== 0 && st.uid !== owner.uid) return `${dir} belongs to uid ${st.uid}, neither root nor the service's user (uid ${owner.uid}); left alone`;
  if (st.mode & 0o022) return `${dir} is writable by others (mode ${(st.mode & 0o777).toString(8)}); left alone`;
  const type = MEMORY_FS.get(BigInt(statfsSync(dir, { bigint: true }).type));
  if (!type) return `${dir} is not on tmpfs: the index would be written to storage there too`;
  return undefined;
}

/**
 * Bind-mounts a tmpfs file over the data directory's `-shm`, or says why not (never throws for a
 * reason to skip: the service then starts with the index on the data directory, as without it).
 */
export async function shmMount(o: ShmOptions): Promise<ShmResult> {
  const skip = (why: string): ShmResult => ({ outcome: 'skipped', message: `the log index stays on the data directory: ${why}` });
  const proc = o.proc ?? '/proc';
  const dir = sqliteDir(o);
  if (!dir) return skip('database_url is not SQLite');
  if (process.getuid?.() !== 0) return skip('a bind mount needs root (the unit runs this command with ExecStartPre=-+)');
  if (!existsSync(dir)) return skip(`no data directory ${dir}`);
  const realDir = realpathSync(dir);
  const db = join(realDir, DB_FILE);
  const shm = `${db}-shm`;
  const entries = mountInfo(proc);
  if (mountAt(entries, shm)) return skip(`${shm} is a mount point already (the stop before did not take it away); it is left as it is`);
  const dirStat = statSync(realDir);
  const owner = { uid: dirStat.uid, gid: dirStat.gid };
  // SQLite gives the index the database file's mode; a first start (no database yet) gets 0600,
  // the mode the service's UMask gives the database it makes.
  const mode = existsSync(db) ? statSync(db).mode & 0o777 : 0o600;
  const runDir = resolve(o.runDir ?? DEFAULT_RUN_DIR);
  const bad = runDirectory(runDir, owner);
  if (bad) return skip(bad);

  let flashFd: number;
  try {
    // O_NONBLOCK: a FIFO in its place must not hang the start (it is refused below).
    flashFd = openSync(shm, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') return skip(`${shm} is a symbolic link`);
    if (code !== 'ENOENT') return skip(`${shm} cannot be opened: ${(err as Error).message}`);
    try {
      flashFd = openSync(shm, constants.O_RDONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0);
      fchownSync(flashFd, owner.uid, owner.gid);
      fchmodSync(flashFd, mode);
    } catch (e) {
      return skip(`${shm} cannot be made: ${(e as Error).message}`);
    }
  }
  const src = join(runDir, tmpfsName(shm));
  let tmpFd: number | undefined;
  let mounted = false;
  let hidden = false;
  try {
    const flashStat = fstatSync(flashFd, { bigint: true });
    if (!flashStat.isFile()) return skip(`${shm} is not a regular file`);
    const flash = fileIdOf(flashStat);
    if (!deviceKnown(entries, flash)) return skip(`the data directory's file system (device ${flash.major}:${flash.minor}) is not one /proc/*/maps and /proc/locks name as mounted, so who uses the index cannot be checked`);
    // Mode 000 while checking: a process of the service's user that opens it now fails, instead of
    // opening the file about to be hidden.
    fchmodSync(flashFd, 0);
    hidden = true;
    const before = holders(flash, { proc, exceptPid: process.pid });
    if (before.length) return skip(`${shm} is in use by ${describeHolders(before)}; a second index file would split the database's readers and writers`);

    try {
      if (lstatSync(src).isFile()) unlinkSync(src);
    } catch { /* none left */ }
    try {
      tmpFd = openSync(src, constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0);
      fchownSync(tmpFd, owner.uid, owner.gid);
      fchmodSync(tmpFd, 0);
    } catch (err) {
      return skip(`${src} cannot be made: ${(err as Error).message}`);
    }
    const tmp = fileIdOf(fstatSync(tmpFd, { bigint: true }));
    if (!deviceKnown(entries, tmp)) return skip(`${runDir}'s file system cannot be checked either (device ${tmp.major}:${tmp.minor})`);
    await o.onBeforeMount?.();
    try {
      await bindByDescriptors(tmpFd, flashFd, `${src} ${shm}`);
    } catch (err) {
      return skip(`the bind mount failed: ${(err as Error).message}`);
    }
    mounted = true;
    await o.onMounted?.();
    const now = fileIdOf(statSync(shm, { bigint: true }));
    const after = holders(flash, { proc, exceptPid: process.pid });
    if (!sameFile(now, tmp) || after.length) {
      await run('umount', [shm]);
      mounted = false;
      return skip(after.length ? `${shm} was opened by ${describeHolders(after)} while it was being mounted; unmounted again` : `${shm} is not the tmpfs file after the mount; unmounted again`);
    }
    fchmodSync(tmpFd, mode);
    return { outcome: 'mounted', message: `the log index ${shm} is now on tmpfs (${src}, mode ${mode.toString(8)}, uid ${owner.uid}); nothing held it` };
  } catch (err) {
    // Left mounted with its file at mode 000: the service cannot open the database (and nothing
    // can split the index) until the stop's shm-unmount takes it away; Restart= then starts again.
    if (mounted) return { outcome: 'skipped', message: `the log index: ${(err as Error).message}; ${shm} may be left mounted, mode 000 (the start fails until the next shm-unmount)` };
    return skip((err as Error).message);
  } finally {
    try {
      if (hidden) fchmodSync(flashFd, mode);
    } catch { /* reported by the next open */ }
    closeSync(flashFd);
    if (tmpFd !== undefined) closeSync(tmpFd);
    if (!mounted && tmpFd !== undefined) {
      try {
        unlinkSync(src);
      } catch { /* gone */ }
    }
  }
}

/**
 * A mount cut short (killed between its chmod and its end) leaves the data directory's file at 000:
 * the database's mode back (0600 without one). The mode given, or undefined when nothing was done.
 */
function giveModeBack(shm: string, db: string): string | undefined {
  let fd: number;
  try {
    // Through a descriptor (no symbolic link followed; root opens a file at 000), else by path (a
    // non-root owner cannot open its own file at 000, and cannot gain anything by a link either).
    fd = openSync(shm, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EACCES' || process.getuid?.() === 0) return undefined;
    try {
      const st = lstatSync(shm);
      if (!st.isFile() || (st.mode & 0o777) !== 0) return undefined;
      const mode = existsSync(db) ? statSync(db).mode & 0o777 : 0o600;
      chmodSync(shm, mode);
      return `mode ${mode.toString(8)}`;
    } catch {
      return undefined;
    }
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile() || (st.mode & 0o777) !== 0) return undefined;
    const mode = existsSync(db) ? statSync(db).mode & 0o777 : 0o600;
    fchmodSync(fd, mode);
    return `mode ${mode.toString(8)}`;
  } catch {
    return undefined;
  } finally {
    closeSync(fd);
  }
}

/** Takes the tmpfs file away from over the `-shm`, unless a process has it in use. */
export async function shmUnmount(o: ShmOptions): Promise<ShmResult> {
  const proc = o.proc ?? '/proc';
  const dir = sqliteDir(o);
  if (!dir) return { outcome: 'nothing', message: 'database_url is not SQLite: nothing to unmount' };
  if (!existsSync(dir)) return { outcome: 'nothing', message: `no data directory ${dir}: nothing to unmount` };
  const realDir = realpathSync(dir);
  const db = join(realDir, DB_FILE);
  const shm = `${db}-shm`;
  const entries = mountInfo(proc);
  const entry = mountAt(entries, shm);
  if (!entry) {
    // Also after a mount cut short before its mount (killed, a power cut): its file at 000 would
    // keep the service from opening the database while every later shm-mount skips.
    const healed = giveModeBack(shm, db);
    return { outcome: 'nothing', message: `${shm} is not a mount point: nothing to unmount${healed ? `; it was mode 000 (a mount cut short), now ${healed}` : ''}` };
  }
  if (!['tmpfs', 'ramfs'].includes(entry.fsType)) return { outcome: 'refused', message: `${shm} is a ${entry.fsType} mount, not one shm-mount makes; left alone` };
  if (process.getuid?.() !== 0) return { outcome: 'refused', message: `${shm} is mounted, and unmounting needs root` };
  let id: FileId;
  let mode: number;
  const fd = openSync(shm, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = fstatSync(fd, { bigint: true });
    id = fileIdOf(st);
    mode = Number(st.mode) & 0o777;
    // Mode 000 while checking, as for the mount; closed before umount (an open file keeps a mount busy).
    fchmodSync(fd, 0);
  } finally {
    closeSync(fd);
  }
  let held = holders(id, { proc, exceptPid: process.pid });
  for (const deadline = Date.now() + (o.waitMs ?? 0); held.length && Date.now() < deadline; ) {
    await new Promise((r) => setTimeout(r, 250));
    held = holders(id, { proc, exceptPid: process.pid });
  }
  if (held.length) {
    chmodSync(shm, mode);
    return { outcome: 'refused', message: `${shm} (tmpfs) is in use by ${describeHolders(held)}${o.waitMs ? ` after ${Math.round(o.waitMs / 1000)} s` : ''}: left mounted, so that every process keeps one index; the next stop tries again` };
  }
  try {
    await run('umount', [shm]);
  } catch (err) {
    chmodSync(shm, mode);
    return { outcome: 'refused', message: `${shm} is left mounted: ${(err as Error).message}` };
  }
  // The tmpfs file: where its file system is mounted, plus its path inside it.
  const base = entries.find((e) => e.major === entry.major && e.minor === entry.minor && e.root === '/');
  if (base && basename(entry.root).startsWith('index-')) {
    const src = join(base.mountPoint, entry.root);
    try {
      if (sameFile(fileIdOf(lstatSync(src, { bigint: true })), id)) unlinkSync(src);
    } catch { /* gone */ }
  }
  giveModeBack(shm, db);
  return { outcome: 'unmounted', message: `the log index ${shm} is back on the data directory (the tmpfs file is unmounted)` };
}

/** `cabinet storage shm-mount|shm-unmount`: one line saying what was done; exit 0 unless an unmount was refused. */
export async function shmCommand(
  sub: 'shm-mount' | 'shm-unmount',
  options: ShmOptions,
  out: (text: string) => void = (t) => process.stdout.write(t),
): Promise<number> {
  const r = sub === 'shm-mount' ? await shmMount(options) : await shmUnmount(options);
  out(`cabinet storage ${sub}: ${r.outcome}: ${r.message}\n`);
  return r.outcome === 'refused' ? 1 : 0;
}
