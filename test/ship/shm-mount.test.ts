// The log index (`cabinet.sqlite-shm`) on tmpfs: `cabinet storage shm-mount` / `shm-unmount`
// (src/runtime/shm-mount.ts), with real bind mounts when the run is root (CI runs as root):
// the real server writes and reads through the mounted index while another process (a readonly
// connection, as `cabinet backup` opens) maps the same file and sees the same rows; the mount is
// refused while another process holds the index on the data directory, the unmount while one holds
// the tmpfs file; `cabinet restore` over a mounted index; the package's postrm fragment with a
// mount under the data directory. Without root the same commands are run and must say they need
// it and change nothing; the parsing of /proc and restore's put-back run either way.
import { spawn, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  decodeDev,
  deviceKnown,
  fileIdOf,
  holders,
  lockHolders,
  mapsHold,
  mountAt,
  parseMountInfo,
  shmMount,
  shmUnmount,
  type FileId,
} from '../../src/runtime/shm-mount.js';
import { cabinetArgs, ROOT } from '../helpers/cabinet-main.js';
import { spawnServe } from '../helpers/serve-child.js';
import { runCommand } from '../helpers/run.js';

const IS_ROOT = process.getuid?.() === 0;
const base = mkdtempSync(join(tmpdir(), 'cabinet-shm-'));
const children = new Set<ChildProcess>();
/** Data directories outside `base` (another user must reach them), removed at the end. */
const userDirs: string[] = [];

/** Every mount under this test's directory, deepest first (from this process's mountinfo). */
function mountsUnder(dir: string): string[] {
  return parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8'))
    .map((e) => e.mountPoint)
    .filter((m) => m === dir || m.startsWith(`${dir}/`))
    .sort()
    .reverse();
}

/** The run directory's tmpfs (/run on a box), for every describe here. */
const runTmpfs = join(base, 'run');
beforeAll(async () => {
  mkdirSync(runTmpfs);
  if (IS_ROOT) {
    const r = await runCommand('mount', ['-t', 'tmpfs', '-o', 'size=8m,mode=755', 'tmpfs', runTmpfs]);
    expect(r.status, r.stderr).toBe(0);
  }
});

afterAll(async () => {
  for (const c of children) c.kill('SIGKILL');
  await new Promise((r) => setTimeout(r, 200));
  for (const m of [...userDirs, base].flatMap(mountsUnder)) {
    const r = await runCommand('umount', [m]);
    if (r.status !== 0) await runCommand('umount', ['-l', m]);
  }
  for (const d of [...userDirs, base]) rmSync(d, { recursive: true, force: true });
});

async function cabinet(...args: string[]): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return runCommand(process.execPath, await cabinetArgs(...args), { cwd: ROOT, timeoutMs: 120_000 });
}

/** node as uid/gid 65534 (nobody), its stdout. */
function runAsNobody(args: string[]): Promise<{ stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: '/', uid: 65534, gid: 65534, stdio: ['ignore', 'pipe', 'inherit'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.once('error', reject);
    child.once('close', () => resolve({ stdout }));
  });
}

const idOf = (path: string): FileId => fileIdOf(statSync(path, { bigint: true }));
const sameId = (a: FileId, b: FileId) => a.major === b.major && a.minor === b.minor && a.ino === b.ino;
const isMountPoint = (path: string) => mountAt(parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')), path) !== undefined;

/** A data directory with a migrated database (the run's template, as the test servers start from). */
function dataDirWithDatabase(name: string): string {
  const dir = join(base, name);
  mkdirSync(dir, { mode: 0o700 });
  const template = process.env.CABINET_TEST_SQLITE_TEMPLATE;
  if (template && existsSync(template)) copyFileSync(template, join(dir, 'cabinet.sqlite'));
  return dir;
}

/** A child process holding a better-sqlite3 connection on the database (a read done: the index is open and mapped); it prints its count and the index's line in its maps. */
async function holder(dbFile: string, opts: { readonly?: boolean } = {}): Promise<{ proc: ChildProcess; count: number; maps: string; stop(): Promise<void> }> {
  const code = `
    const D = require('better-sqlite3');
    const db = new D(${JSON.stringify(dbFile)}, { readonly: ${opts.readonly === true}, timeout: 5000 });
    ${opts.readonly ? '' : "db.pragma('journal_mode = WAL');"}
    const t = db.prepare('select count(*) c from tables_items').get().c;
    const maps = require('fs').readFileSync('/proc/self/maps', 'utf8').split('\\n').filter((l) => l.endsWith('-shm')).join('|');
    process.stdout.write(JSON.stringify({ count: t, maps }) + '\\n');
    process.stdin.on('data', () => {}); process.stdin.on('end', () => { db.close(); process.exit(0); });`;
  const proc = spawn(process.execPath, ['-e', code], { cwd: ROOT, stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(proc);
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => proc.once('exit', () => resolve()));
  const first = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).once('line', resolve);
    void exited.then(() => reject(new Error(`holder exited: ${stderr}`)));
  });
  const { count, maps } = JSON.parse(first) as { count: number; maps: string };
  return { proc, count, maps, stop: async () => { proc.stdin!.end(); await exited; children.delete(proc); } };
}

interface Server { proc: ChildProcess; url: string; stop(): Promise<void> }

async function serve(dataDir: string): Promise<Server> {
  const { proc, url, exited } = await spawnServe(['--data-dir', dataDir, '--http-port', '0', '--rpc-port', '0', '--https-port', '0', '--mqtt-broker', 'off', '--host', '127.0.0.1'], { timeoutMs: 90_000 });
  children.add(proc);
  return { proc, url, stop: async () => { proc.kill('SIGTERM'); await exited; children.delete(proc); } };
}

describe('the /proc parsing (fixture text)', () => {
  const id: FileId = { major: 0xb3, minor: 2, ino: 131074n };

  it('decodes st_dev as glibc does', () => {
    // glibc's makedev: the minor's low byte, the major's 12 bits, the minor's rest, the major's rest.
    const makedev = (major: number, minor: number) =>
      (BigInt(minor) & 0xffn) | ((BigInt(major) & 0xfffn) << 8n) | ((BigInt(minor) & ~0xffn) << 12n) | ((BigInt(major) & ~0xfffn) << 32n);
    expect(decodeDev(0xb302n)).toEqual({ major: 0xb3, minor: 2 });
    for (const [major, minor] of [[0, 38], [253, 0], [0, 0x12345], [0x1001, 3], [259, 1048575]] as const) {
      expect(decodeDev(makedev(major, minor))).toEqual({ major, minor });
    }
  });

  it('finds a mapping of the file by device and inode, not by name', () => {
    const maps = [
      '55d0c0a00000-55d0c0a02000 r--p 00000000 b3:02 262155                     /usr/bin/node',
      '7f3a1c000000-7f3a1c008000 rw-s 00000000 b3:02 131074                     /var/lib/cabinet/cabinet.sqlite-shm',
      '7ffd2a1f0000-7ffd2a211000 rw-p 00000000 00:00 0                          [stack]',
    ].join('\n');
    expect(mapsHold(maps, id)).toBe(true);
    expect(mapsHold(maps, { ...id, ino: 131075n })).toBe(false);
    // The same path on another device (the tmpfs file mounted over it) is another file.
    expect(mapsHold(maps.replace('b3:02 131074', '00:26 3'), id)).toBe(false);
    expect(mapsHold('', id)).toBe(false);
  });

  it('finds the locks on the file in /proc/locks (POSIX, OFD, and a waiter)', () => {
    const locks = [
      '1: POSIX  ADVISORY  READ 4242 b3:02:131074 128 128',
      '1: -> POSIX  ADVISORY  WRITE 4343 b3:02:131074 128 128',
      '2: OFDLCK ADVISORY  READ -1 b3:02:131074 120 120',
      '3: FLOCK  ADVISORY  WRITE 77 00:19:1234 0 EOF',
    ].join('\n');
    expect(lockHolders(locks, id)).toEqual([4242, 4343, -1]);
    expect(lockHolders(locks, { major: 0, minor: 0x19, ino: 1234n })).toEqual([77]);
    expect(lockHolders(locks, { ...id, minor: 3 })).toEqual([]);
  });

  it('reads mountinfo: the mount at a path (escaped), the top one when stacked, and the devices it knows', () => {
    const info = [
      '22 1 179:2 / / rw,relatime shared:1 - ext4 /dev/mmcblk0p2 rw',
      '25 22 0:24 / /run rw,nosuid,nodev shared:5 - tmpfs tmpfs rw,mode=755',
      '90 22 0:24 /cabinet-shm/index-0123 /var/lib/cabinet/cabinet.sqlite-shm rw,relatime shared:5 - tmpfs tmpfs rw,mode=755',
      '91 22 0:24 /x /var/lib/my\\040data/cabinet.sqlite-shm rw shared:5 - tmpfs tmpfs rw',
      '92 90 0:24 /cabinet-shm/index-4567 /var/lib/cabinet/cabinet.sqlite-shm rw - tmpfs tmpfs rw',
    ].join('\n');
    const entries = parseMountInfo(info);
    expect(entries).toHaveLength(5);
    expect(mountAt(entries, '/var/lib/cabinet/cabinet.sqlite-shm')).toMatchObject({ root: '/cabinet-shm/index-4567', fsType: 'tmpfs', major: 0, minor: 24 });
    expect(mountAt(entries, '/var/lib/my data/cabinet.sqlite-shm')?.root).toBe('/x');
    expect(mountAt(entries, '/var/lib/cabinet/cabinet.sqlite')).toBeUndefined();
    expect(deviceKnown(entries, { major: 179, minor: 2, ino: 1n })).toBe(true);
    expect(deviceKnown(entries, { major: 0, minor: 44, ino: 1n })).toBe(false);
  });

  it('finds this machine\'s real holders: a child with the database open has its index open and mapped', async () => {
    const dir = dataDirWithDatabase('proc-real');
    const h = await holder(join(dir, 'cabinet.sqlite'));
    const index = idOf(join(dir, 'cabinet.sqlite-shm'));
    try {
      const found = holders(index);
      expect(found.filter((f) => f.pid === h.proc.pid).map((f) => f.how).sort()).toEqual(['locked', 'mapped', 'open']);
      // SQLite holds a read lock on the index's dead-man byte while it has it open.
      expect(found.every((f) => f.pid !== process.pid)).toBe(true);
      // The device /proc prints is one mountinfo knows (the check refuses a file system where not).
      expect(deviceKnown(parseMountInfo(readFileSync('/proc/self/mountinfo', 'utf8')), index)).toBe(true);
    } finally {
      await h.stop();
    }
    expect(holders(index).filter((f) => f.pid === h.proc.pid)).toEqual([]);
  }, 60_000);
});

describe('the unit', () => {
  it('mounts before the start and unmounts after every stop, as root, never fatally, with the ExecStart binary and config', () => {
    const unit = readFileSync(join(ROOT, 'systemd/cabinet.service'), 'utf8');
    const start = /^ExecStart=(\S+) serve (--config \S+)$/m.exec(unit)!;
    expect(start).not.toBeNull();
    expect(unit).toContain(`\nExecStartPre=-+${start[1]} storage shm-mount ${start[2]}\n`);
    expect(unit).toContain(`\nExecStopPost=-+${start[1]} storage shm-unmount ${start[2]}\n`);
    expect(unit).toMatch(/^PrivateMounts=yes$/m);
  });
});

describe('cabinet storage shm-mount / shm-unmount', () => {
  const runDir = join(runTmpfs, 'cabinet-shm');

  it('mounts over a live data directory: the server writes and reads through it, another process maps the same index and sees the same rows; the unmount waits for them', async () => {
    const dir = dataDirWithDatabase('live');
    const shm = join(dir, 'cabinet.sqlite-shm');
    const m = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', runDir);
    expect(m.status, m.stderr).toBe(0);
    if (!IS_ROOT) {
      expect(m.stdout).toContain('skipped: the log index stays on the data directory: a bind mount needs root');
      expect(existsSync(runDir)).toBe(false);
      return;
    }
    expect(m.stdout).toMatch(/^cabinet storage shm-mount: mounted: the log index .*cabinet\.sqlite-shm is now on tmpfs/);
    expect(isMountPoint(shm)).toBe(true);
    const dirStat = statSync(runDir);
    expect([dirStat.mode & 0o777, dirStat.uid]).toEqual([0o700, statSync(dir).uid]);
    const dbMode = statSync(join(dir, 'cabinet.sqlite')).mode & 0o777;
    expect(statSync(shm).mode & 0o777).toBe(dbMode);
    const tmpfsFile = idOf(shm);
    const again = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', runDir);
    expect(again.stdout).toContain('is a mount point already');

    const server = await serve(dir);
    let rows: string[] = [];
    let token = '';
    try {
      const t = await cabinet('token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dir);
      expect(t.status, t.stderr).toBe(0);
      token = t.stdout.trim();
      const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
      for (let i = 0; i < 40; i++) {
        const res = await fetch(`${server.url}/api/v1/tables`, { method: 'POST', headers, body: JSON.stringify({ item: { id: `shm-${i}`, i } }) });
        expect(res.status, await res.text()).toBe(201);
        rows.push(`shm-${i}`);
      }
      const list = await fetch(`${server.url}/api/v1/tables/list?limit=500`, { headers });
      const listed = ((await list.json()) as { items: { id: string }[] }).items.map((r) => r.id);
      expect(rows.filter((id) => !listed.includes(id))).toEqual([]);
      // The server's index is the tmpfs file.
      const serverMaps = readFileSync(`/proc/${server.proc.pid}/maps`, 'utf8');
      expect(mapsHold(serverMaps, tmpfsFile)).toBe(true);

      // Another process, as `cabinet backup` opens the database: the same index, the same rows.
      const reader = await holder(join(dir, 'cabinet.sqlite'), { readonly: true });
      try {
        expect(reader.count).toBe(listed.length);
        expect(mapsHold(reader.maps.split('|').join('\n'), tmpfsFile)).toBe(true);
      } finally {
        await reader.stop();
      }

      // Not while the server has it: refused (exit 1), left mounted.
      const busy = await cabinet('storage', 'shm-unmount', '--data-dir', dir, '--run-dir', runDir, '--wait-s', '1');
      expect(busy.status).toBe(1);
      expect(busy.stdout).toMatch(new RegExp(`refused: .* is in use by .*pid ${server.proc.pid}.* after 1 s: left mounted`));
      expect(isMountPoint(shm)).toBe(true);
      expect(statSync(shm).mode & 0o777).toBe(dbMode);
      rows = listed;
    } finally {
      await server.stop();
    }
    const u = await cabinet('storage', 'shm-unmount', '--data-dir', dir, '--run-dir', runDir);
    expect(u.status, u.stdout + u.stderr).toBe(0);
    expect(u.stdout).toContain('unmounted');
    expect(isMountPoint(shm)).toBe(false);
    // The file the mount hid, on the data directory, has the database's mode; the tmpfs file is gone.
    expect(statSync(shm).mode & 0o777).toBe(dbMode);
    expect(readdirSync(runDir)).toEqual([]);
    const none = await cabinet('storage', 'shm-unmount', '--data-dir', dir, '--run-dir', runDir);
    expect([none.status, none.stdout.includes('nothing')]).toEqual([0, true]);
    // Every row, read again with the index back on the data directory.
    const after = await holder(join(dir, 'cabinet.sqlite'), { readonly: true });
    expect(after.count).toBe(rows.length);
    await after.stop();
  }, 240_000);

  it('skips while another process has the index on the data directory open, and mounts once it is gone', async () => {
    const dir = dataDirWithDatabase('held');
    const shm = join(dir, 'cabinet.sqlite-shm');
    const h = await holder(join(dir, 'cabinet.sqlite'));
    try {
      const flash = idOf(shm);
      const m = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', runDir);
      expect(m.status, m.stderr).toBe(0);
      expect(isMountPoint(shm)).toBe(false);
      if (IS_ROOT) {
        expect(m.stdout).toMatch(new RegExp(`skipped: .* is in use by \\S+ \\(pid ${h.proc.pid}, open\\), \\S+ \\(pid ${h.proc.pid}, mapped\\)`));
        // The same file, its mode given back.
        expect(sameId(idOf(shm), flash)).toBe(true);
        expect(statSync(shm).mode & 0o777).toBe(statSync(join(dir, 'cabinet.sqlite')).mode & 0o777);
      } else {
        expect(m.stdout).toContain('needs root');
      }
    } finally {
      await h.stop();
    }
    if (!IS_ROOT) return;
    const m = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', runDir);
    expect(m.stdout).toContain('mounted:');
    expect(isMountPoint(shm)).toBe(true);
    const u = await cabinet('storage', 'shm-unmount', '--data-dir', dir, '--run-dir', runDir);
    expect(u.stdout).toContain('unmounted');
  }, 120_000);

  it('unmounts again when a process opened the hidden file between the mount and the second check; both files are mode 000 meanwhile', async () => {
    const dir = dataDirWithDatabase('race');
    const shm = join(dir, 'cabinet.sqlite-shm');
    writeFileSync(shm, '', { mode: 0o600 });
    const dbMode = statSync(join(dir, 'cabinet.sqlite')).mode & 0o777;
    // The file the mount will hide, reachable by another name (root opens it even at mode 000).
    const link = join(dir, 'hidden-index');
    linkSync(shm, link);
    const flash = idOf(shm);
    let modes: number[] = [];
    let late: ChildProcess | undefined;
    const r = await shmMount({
      dataDir: dir, databaseUrl: '', runDir,
      onMounted: async () => {
        modes = [statSync(link).mode & 0o777, statSync(shm).mode & 0o777];
        late = spawn(process.execPath, ['-e', `require('fs').openSync(${JSON.stringify(link)}, 'r'); console.log('ok'); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'ignore'] });
        children.add(late);
        await new Promise((resolve) => late!.stdout!.once('data', resolve));
      },
    });
    try {
      if (!IS_ROOT) {
        expect(r).toEqual({ outcome: 'skipped', message: 'the log index stays on the data directory: a bind mount needs root (the unit runs this command with ExecStartPre=-+)' });
        return;
      }
      expect(modes).toEqual([0, 0]);
      expect(r.outcome).toBe('skipped');
      expect(r.message).toMatch(new RegExp(`was opened by \\S+ \\(pid ${late!.pid}, open\\) while it was being mounted; unmounted again`));
      expect(isMountPoint(shm)).toBe(false);
      expect(sameId(idOf(shm), flash)).toBe(true);
      expect(statSync(shm).mode & 0o777).toBe(dbMode);
      expect(readdirSync(runDir)).toEqual([]);
    } finally {
      late?.kill('SIGKILL');
    }
  }, 60_000);

  it('mounts over the file it opened and checked: a symbolic link put in its place before the mount never gets root to mount over another file', async () => {
    const dir = dataDirWithDatabase('swapped');
    const shm = join(dir, 'cabinet.sqlite-shm');
    writeFileSync(shm, '', { mode: 0o600 });
    const victim = join(base, 'victim');
    writeFileSync(victim, 'root\'s file\n', { mode: 0o644 });
    const moved = join(dir, 'moved-index');
    const r = await shmMount({
      dataDir: dir, databaseUrl: '', runDir,
      onBeforeMount: () => {
        renameSync(shm, moved);
        symlinkSync(victim, shm);
      },
    });
    try {
      if (!IS_ROOT) {
        expect(r.message).toContain('needs root');
        return;
      }
      expect(r.outcome).toBe('skipped');
      expect(isMountPoint(victim)).toBe(false);
      expect(readFileSync(victim, 'utf8')).toBe('root\'s file\n');
      expect(statSync(victim).mode & 0o777).toBe(0o644);
    } finally {
      for (const m of mountsUnder(dir)) await runCommand('umount', [m]);
      if (isMountPoint(victim)) await runCommand('umount', [victim]);
    }
  }, 60_000);

  it('meanwhile a process of the service\'s user that opens the database gets SQLITE_CANTOPEN, not either index file', async () => {
    if (!IS_ROOT) return expect((await shmMount({ dataDir: base, databaseUrl: '' })).message).toContain('needs root');
    // Outside the run's private directory (mode 0700): the other user has to reach the database.
    const dir = mkdtempSync('/tmp/cabinet-shm-user-');
    userDirs.push(dir);
    chmodSync(dir, 0o755);
    copyFileSync(join(dataDirWithDatabase('user'), 'cabinet.sqlite'), join(dir, 'cabinet.sqlite'));
    writeFileSync(join(dir, 'cabinet.sqlite-shm'), '', { mode: 0o600 });
    for (const f of ['', '/cabinet.sqlite', '/cabinet.sqlite-shm']) chownSync(`${dir}${f}`, 65534, 65534);
    const open = () => runAsNobody(['-e', `
      const D = require(${JSON.stringify(join(ROOT, 'node_modules/better-sqlite3'))});
      try { const db = new D(${JSON.stringify(join(dir, 'cabinet.sqlite'))}, { timeout: 0 }); db.pragma('journal_mode = WAL'); console.log('rows', db.prepare('select count(*) c from tables_items').get().c); db.close(); }
      catch (e) { console.log(e.code); }`]);
    let during = '';
    const r = await shmMount({ dataDir: dir, databaseUrl: '', runDir, onMounted: async () => { during = (await open()).stdout.trim(); } });
    try {
      expect(during).toBe('SQLITE_CANTOPEN');
      expect(r.outcome).toBe('mounted');
      // After the second check the tmpfs file is the service user's, at the database's mode.
      expect((await open()).stdout.trim()).toMatch(/^rows \d+$/);
      expect([statSync(join(dir, 'cabinet.sqlite-shm')).uid, statSync(join(dir, 'cabinet.sqlite-shm')).mode & 0o777]).toEqual([65534, statSync(join(dir, 'cabinet.sqlite')).mode & 0o777]);
    } finally {
      const u = await shmUnmount({ dataDir: dir, databaseUrl: '', runDir });
      expect(u.outcome).toBe('unmounted');
    }
  }, 60_000);

  it('the stop after a mount cut short (its file left at mode 000, no mount) gives the index its mode back, which a skipping mount does not', async () => {
    const dir = dataDirWithDatabase('cut-short');
    const shm = join(dir, 'cabinet.sqlite-shm');
    writeFileSync(shm, '', { mode: 0o600 });
    chmodSync(shm, 0);
    const dbMode = statSync(join(dir, 'cabinet.sqlite')).mode & 0o777;
    // A start whose mount skips before it touches the file (here: a run directory on disk) leaves it at 000.
    const onDisk = join(base, 'cut-short-run');
    mkdirSync(onDisk, { mode: 0o700 });
    const m = await shmMount({ dataDir: dir, databaseUrl: '', runDir: onDisk });
    expect(m.outcome).toBe('skipped');
    expect(statSync(shm).mode & 0o777).toBe(0);
    const u = await shmUnmount({ dataDir: dir, databaseUrl: '', runDir: onDisk });
    expect(u).toEqual({ outcome: 'nothing', message: `${shm} is not a mount point: nothing to unmount; it was mode 000 (a mount cut short), now mode ${dbMode.toString(8)}` });
    expect(statSync(shm).mode & 0o777).toBe(dbMode);
    // Once given back, the stop says nothing more about it.
    expect((await shmUnmount({ dataDir: dir, databaseUrl: '', runDir: onDisk })).message).toBe(`${shm} is not a mount point: nothing to unmount`);
  }, 60_000);

  it('skips for PostgreSQL, and mounts on a first start (no database yet) over an index it makes', async () => {
    const pg = await cabinet('storage', 'shm-mount', '--data-dir', join(base, 'none'), '--database-url', 'postgres://x@127.0.0.1:1/x', '--run-dir', runDir);
    expect([pg.status, pg.stdout]).toEqual([0, 'cabinet storage shm-mount: skipped: the log index stays on the data directory: database_url is not SQLite\n']);
    const dir = join(base, 'first');
    mkdirSync(dir, { mode: 0o700 });
    const m = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', runDir);
    expect(m.status).toBe(0);
    if (!IS_ROOT) return;
    expect(m.stdout).toContain('mounted:');
    const flashStat = statSync(join(dir, 'cabinet.sqlite-shm'));
    expect(flashStat.mode & 0o777).toBe(0o600);
    const u = await cabinet('storage', 'shm-unmount', '--data-dir', dir, '--run-dir', runDir);
    expect(u.stdout).toContain('unmounted');
    // Under the mount it was made empty, the service's user's, the database's mode to come.
    expect([statSync(join(dir, 'cabinet.sqlite-shm')).size, statSync(join(dir, 'cabinet.sqlite-shm')).mode & 0o777]).toEqual([0, 0o600]);
  }, 120_000);

  it('refuses a run directory that exists and is not root\'s or the service user\'s, and never changes its owner', async () => {
    if (!IS_ROOT) return expect((await cabinet('storage', 'shm-mount', '--data-dir', join(base, 'x'), '--run-dir', runDir)).stdout).toContain('needs root');
    const dir = dataDirWithDatabase('foreign');
    const foreign = join(runTmpfs, 'foreign');
    mkdirSync(foreign, { mode: 0o700 });
    const r = await runCommand('chown', ['12345:12345', foreign]);
    expect(r.status).toBe(0);
    const m = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', foreign);
    expect(m.stdout).toContain('belongs to uid 12345, neither root nor the service\'s user');
    expect(statSync(foreign).uid).toBe(12345);
    expect(isMountPoint(join(dir, 'cabinet.sqlite-shm'))).toBe(false);
    // Not on tmpfs: it would write to storage there too.
    const onDisk = join(base, 'on-disk');
    mkdirSync(onDisk, { mode: 0o700 });
    const d = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', onDisk);
    expect(d.stdout).toContain('is not on tmpfs');
  }, 120_000);
});

describe('cabinet restore over a mounted index, and a restore that fails half way', () => {
  let dir = '';
  let archive = '';
  let rowsInBackup = 0;
  beforeAll(async () => {
    dir = dataDirWithDatabase('restore');
    writeFileSync(join(dir, 'session.key'), randomBytes(32), { mode: 0o600 });
    mkdirSync(join(dir, 'tls'), { mode: 0o700 });
    for (const name of ['ca.key', 'ca.crt']) writeFileSync(join(dir, 'tls', name), `${name} of this box\n`, { mode: 0o600 });
    archive = join(base, 'restore.tar.gz');
    const b = await cabinet('backup', '--data-dir', dir, '--to', archive);
    expect(b.status, b.stderr).toBe(0);
    // A row after the backup: the restore takes it away.
    const db = new Database(join(dir, 'cabinet.sqlite'));
    try {
      rowsInBackup = (db.prepare('select count(*) c from tables_items').get() as { c: number }).c;
      db.prepare("insert into tables_items (id, data, created_at, updated_at) values ('after-backup', '{}', 0, 0)").run();
    } finally {
      db.close();
    }
  }, 120_000);

  it('restores with the index a mount point: the mount and its file untouched, the database replaced, readable through the mounted index', async () => {
    const shm = join(dir, 'cabinet.sqlite-shm');
    const runDir = join(runTmpfs, 'cabinet-shm');
    if (IS_ROOT) {
      const m = await cabinet('storage', 'shm-mount', '--data-dir', dir, '--run-dir', runDir);
      expect(m.stdout).toContain('mounted:');
    } else {
      writeFileSync(shm, '');
    }
    const index = idOf(shm);
    const db = idOf(join(dir, 'cabinet.sqlite'));
    try {
      const r = await cabinet('restore', '--data-dir', dir, '--from', archive);
      expect(r.status, r.stderr).toBe(0);
      expect(r.stdout).toContain(`the database it replaced is ${join(dir, 'cabinet.sqlite.before-restore')}`);
      expect(sameId(idOf(shm), index)).toBe(true);
      expect(isMountPoint(shm)).toBe(IS_ROOT);
      expect(sameId(idOf(join(dir, 'cabinet.sqlite')), db)).toBe(false);
      expect(existsSync(`${join(dir, 'cabinet.sqlite.before-restore')}-shm`)).toBe(false);
      const reader = await holder(join(dir, 'cabinet.sqlite'));
      try {
        expect(reader.count).toBe(rowsInBackup);
        if (IS_ROOT) expect(mapsHold(reader.maps.split('|').join('\n'), index)).toBe(true);
      } finally {
        await reader.stop();
      }
    } finally {
      if (IS_ROOT) {
        const u = await cabinet('storage', 'shm-unmount', '--data-dir', dir, '--run-dir', runDir);
        expect(u.stdout).toContain('unmounted');
      }
    }
  }, 120_000);

  it('puts the database, its log and the session key back when a step after moving it aside fails', async () => {
    const dbFile = join(dir, 'cabinet.sqlite');
    const db = idOf(dbFile);
    const shm = join(dir, 'cabinet.sqlite-shm');
    const index = existsSync(shm) ? idOf(shm) : undefined;
    const key = readFileSync(join(dir, 'session.key'));
    writeFileSync(join(dir, 'session.key'), Buffer.alloc(32, 7));
    // The service user's files (a box's data directory): put back, they stay the service user's.
    if (IS_ROOT) for (const f of ['session.key', 'tls/ca.key']) chownSync(join(dir, f), 65534, 65534);
    // The CA certificate's place is a directory with a file in it: its rename, the last step, fails.
    rmSync(join(dir, 'tls', 'ca.crt'), { force: true });
    mkdirSync(join(dir, 'tls', 'ca.crt', 'x'), { recursive: true });
    const r = await cabinet('restore', '--data-dir', dir, '--from', archive);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`failed half way`);
    expect(r.stderr).toContain(`the database that was there is back at ${dbFile}, unchanged. Nothing was restored.`);
    expect(sameId(idOf(dbFile), db)).toBe(true);
    expect(readFileSync(join(dir, 'session.key')).equals(Buffer.alloc(32, 7))).toBe(true);
    expect(key.equals(Buffer.alloc(32, 7))).toBe(false);
    if (IS_ROOT) for (const f of ['session.key', 'tls/ca.key']) expect(statSync(join(dir, f)).uid, f).toBe(65534);
    if (index) expect(sameId(idOf(shm), index)).toBe(true);
    expect(existsSync(join(dir, '.cabinet.sqlite.restoring'))).toBe(false);
    expect(existsSync(join(dir, '.session.key.restoring'))).toBe(false);
    // With the obstacle gone it restores.
    rmSync(join(dir, 'tls', 'ca.crt'), { recursive: true });
    const ok = await cabinet('restore', '--data-dir', dir, '--from', archive);
    expect(ok.status, ok.stderr).toBe(0);
    expect(readFileSync(join(dir, 'session.key')).equals(key)).toBe(true);
  }, 120_000);
});

describe('the package\'s postrm with a mount under the data directory', () => {
  const postrm = readFileSync(join(ROOT, 'systemd/debian/postrm'), 'utf8');
  const fn = /^unmount_under\(\) \{\n[\s\S]*?\n\}\n/m.exec(postrm)?.[0] ?? '';

  it('uses the fragment on purge (lazy) before rm -rf, and on remove', () => {
    expect(fn).not.toBe('');
    const purge = postrm.slice(postrm.indexOf('if [ "$1" = purge ]'));
    expect(purge.indexOf('unmount_under /var/lib/cabinet lazy')).toBeGreaterThan(0);
    expect(purge.indexOf('unmount_under /var/lib/cabinet lazy')).toBeLessThan(purge.indexOf('rm -rf /var/lib/cabinet'));
    expect(postrm).toMatch(/if \[ "\$1" = remove \]; then\n(\t#.*\n)*\tunmount_under \/var\/lib\/cabinet\n/);
  });

  it('purge: unmounts a bind-mounted index (even one in use, lazily), then rm -rf succeeds', async () => {
    const data = join(base, 'var-lib-cabinet');
    mkdirSync(data);
    writeFileSync(join(data, 'cabinet.sqlite'), 'x');
    writeFileSync(join(data, 'cabinet.sqlite-shm'), '');
    let h: { stop(): Promise<void> } | undefined;
    if (IS_ROOT) {
      const src = join(runTmpfs, 'purge-index');
      writeFileSync(src, '');
      expect((await runCommand('mount', ['--bind', src, join(data, 'cabinet.sqlite-shm')])).status).toBe(0);
      // Remove (not lazy) leaves one in use, and says so.
      const holderProc = spawn(process.execPath, ['-e', `const fd = require('fs').openSync(${JSON.stringify(join(data, 'cabinet.sqlite-shm'))}, 'r'); console.log('ok'); setInterval(() => {}, 1000)`], { stdio: ['ignore', 'pipe', 'ignore'] });
      children.add(holderProc);
      await new Promise((r) => holderProc.stdout!.once('data', r));
      h = { stop: async () => { holderProc.kill('SIGKILL'); } };
      const remove = await runCommand('sh', ['-ec', `${fn}unmount_under ${data}`]);
      expect(remove.status).toBe(0);
      expect(remove.stderr).toContain(`${join(data, 'cabinet.sqlite-shm')} is still mounted (in use)`);
      expect(isMountPoint(join(data, 'cabinet.sqlite-shm'))).toBe(true);
    }
    const purge = await runCommand('sh', ['-ec', `${fn}unmount_under ${data} lazy\nrm -rf ${data}`]);
    expect(purge.status, purge.stderr).toBe(0);
    expect(existsSync(data)).toBe(false);
    expect(mountsUnder(data)).toEqual([]);
    await h?.stop();
  }, 60_000);

  it('takes away only the index: a data partition mounted at the data directory, and other mounts under it, stay', async () => {
    const data = join(base, 'data-partition');
    mkdirSync(data);
    const shm = join(data, 'cabinet.sqlite-shm');
    if (IS_ROOT) {
      expect((await runCommand('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', data])).status).toBe(0);
      mkdirSync(join(data, 'tls'));
      expect((await runCommand('mount', ['-t', 'tmpfs', '-o', 'size=1m', 'tmpfs', join(data, 'tls')])).status).toBe(0);
      writeFileSync(join(data, 'cabinet.sqlite'), 'x');
      writeFileSync(shm, '');
      const src = join(runTmpfs, 'partition-index');
      writeFileSync(src, '');
      expect((await runCommand('mount', ['--bind', src, shm])).status).toBe(0);
      expect(mountsUnder(data)).toEqual([join(data, 'tls'), shm, data]);
    }
    for (const lazy of ['', ' lazy']) {
      const r = await runCommand('sh', ['-ec', `${fn}unmount_under ${data}${lazy}`]);
      expect([r.status, r.stderr]).toEqual([0, '']);
    }
    expect(mountsUnder(data)).toEqual(IS_ROOT ? [join(data, 'tls'), data] : []);
    for (const m of mountsUnder(data)) expect((await runCommand('umount', [m])).status).toBe(0);
  }, 60_000);
});
