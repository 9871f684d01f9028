// The whole database file is checked (quick_check) only when the last run did not stop cleanly:
// a graceful stop removes the marker beside the database, a SIGKILL leaves it, and the next start
// checks every page, logs it, and refuses a damaged file untouched. A clean restart reads only
// the header and schema, so start time does not grow with the database.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeSync, closeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { cabinetArgs } from '../helpers/cabinet-main.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SERVE = await cabinetArgs('serve');
const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-unclean-'));
const marker = join(dataDir, 'cabinet.sqlite.running');
const env = { CABINET_DATA_DIR: dataDir, CABINET_HTTP_PORT: '0', CABINET_RPC_PORT: '0', CABINET_MQTT_BROKER: 'off', CABINET_HOST: '127.0.0.1', CABINET_SESSION_SECRET: randomBytes(32).toString('hex') };

interface Run { proc: ChildProcess; lines: Record<string, unknown>[]; ready: Promise<boolean>; exited: Promise<number | null>; stderr: () => string }

function serve(): Run {
  const proc = spawn(process.execPath, SERVE, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines: Record<string, unknown>[] = [];
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const ready = new Promise<boolean>((resolve) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      try {
        const msg = JSON.parse(line) as Record<string, unknown>;
        lines.push(msg);
        if (typeof msg.msg === 'string' && msg.msg.startsWith('cabinet listening')) resolve(true);
      } catch { /* not a log line */ }
    });
    void exited.then(() => resolve(false));
  });
  return { proc, lines, ready, exited, stderr: () => stderr };
}

const checked = (r: Run) => r.lines.filter((l) => l.msg === 'the last run did not stop cleanly: the database was checked whole');

afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

describe('integrity check after an unclean stop', () => {
  it('a clean restart does not check the whole file; after SIGKILL the next start does, and logs it', async () => {
    const first = serve();
    expect(await first.ready, first.stderr()).toBe(true);
    expect(existsSync(marker)).toBe(true);
    first.proc.kill('SIGTERM');
    await first.exited;
    expect(existsSync(marker)).toBe(false);

    const clean = serve();
    expect(await clean.ready).toBe(true);
    expect(checked(clean)).toEqual([]);
    clean.proc.kill('SIGKILL');
    await clean.exited;
    expect(readFileSync(marker, 'utf8').trim()).toBe(String(clean.proc.pid));

    const after = serve();
    expect(await after.ready).toBe(true);
    expect(checked(after)).toHaveLength(1);
    expect(checked(after)[0]).toMatchObject({ level: 'warn', result: 'ok', ms: expect.any(Number) });
    after.proc.kill('SIGKILL');
    await after.exited;
  }, 120_000);

  it('after an unclean stop a damaged file is refused at start and left as it was', async () => {
    const file = join(dataDir, 'cabinet.sqlite');
    // a clean stop first, then every page into the file itself (WAL checkpointed and removed)
    const clean = serve();
    expect(await clean.ready).toBe(true);
    clean.proc.kill('SIGTERM');
    await clean.exited;
    const db = new Database(file);
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.pragma('journal_mode = DELETE');
    db.close();
    expect(existsSync(`${file}-wal`)).toBe(false);
    writeFileSync(marker, '1\n'); // as a power cut would have left it
    // Damage pages past the header and schema: the header probe alone would not see it. The
    // schema's pages can lie anywhere in the file (a table's pages follow it, without auto-vacuum
    // too; a new box's file has one every few pages), so the junk goes into a 4 KiB block that holds none.
    const size = statSync(file).size;
    const look = new Database(file, { readonly: true });
    const pageSize = Number(look.pragma('page_size', { simple: true }));
    const schemaPages = new Set((look.prepare(`select pageno from dbstat where name = 'sqlite_schema'`).all() as { pageno: number }[]).map((r) => r.pageno));
    look.close();
    const junk = Buffer.alloc(4096, 0xa5);
    const hits = (from: number) => [...schemaPages].some((p) => (p - 1) * pageSize >= from && (p - 1) * pageSize < from + junk.length);
    // From the middle on, then from the first 64 KiB on.
    let at = Math.floor(size / 2 / 4096) * 4096;
    while (hits(at) && at + junk.length < size) at += 4096;
    if (hits(at) || at + junk.length >= size) for (at = 65_536; hits(at) && at + junk.length < size; at += 4096);
    expect(hits(at)).toBe(false);
    expect(at + junk.length).toBeLessThan(size);
    const fd = openSync(file, 'r+');
    writeSync(fd, junk, 0, junk.length, at);
    closeSync(fd);
    const before = readFileSync(file);
    const run = serve();
    expect(await run.ready).toBe(false);
    expect(await run.exited).not.toBe(0);
    expect(run.stderr()).toMatch(/cannot be read as SQLite: (integrity check|database disk image is malformed)/);
    // the refusal came from the whole-file check: the header and schema probe alone lets it in
    const probe = new Database(file, { readonly: true, fileMustExist: true });
    expect(() => probe.pragma('schema_version')).not.toThrow();
    // (the whole-file check the box runs: it answers a row naming the damage, or throws "malformed",
    // depending on which pages the junk hit)
    const whole = (() => {
      try {
        return String(probe.pragma('quick_check(1)', { simple: true }));
      } catch (err) {
        return (err as Error).message;
      }
    })();
    expect(whole).not.toBe('ok');
    probe.close();
    expect(readFileSync(file).equals(before)).toBe(true);
    expect(existsSync(marker)).toBe(true);
  }, 120_000);
});
