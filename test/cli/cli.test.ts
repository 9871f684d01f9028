// The cabinet command as a real process: start-up failures are one clear line, a non-zero exit
// code, and no change to the data.
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';
import { cabinetArgs } from '../helpers/cabinet-main.js';

const cabinet = async (args: string[], env: Record<string, string> = {}) => runCommand(process.execPath, await cabinetArgs(...args), { env: { ...process.env, ...env } });
const tmp = () => mkdtempSync(join(tmpdir(), 'cabinet-cli-'));
const sha = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

// Each test runs the real command one to three times; on a loaded machine that takes a while.
describe('cabinet CLI', { timeout: 180_000 }, () => {
  it('prints versions', async () => {
    const r = await cabinet(['version']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^cabinet \d+\.\d+\.\d+\nnode v\d+\.\d+\.\d+\nsqlite 3\.\d+\.\d+\n$/);
  });

  it('refuses a wrong setting with one line and exit code 2', async () => {
    const r = await cabinet(['serve', '--http-port', 'eighty']);
    expect(r.status).toBe(2);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('setting http_port = "eighty"');
    const env = await cabinet(['serve'], { CABINET_MODE: 'fleet' });
    expect(env.status).toBe(2);
    expect(env.stderr).toContain('setting mode = "fleet" (from environment CABINET_MODE) is not allowed: expected edge-single | cloud-multi');
  });

  it('migrates without serving, once', async () => {
    const dir = tmp();
    const first = await cabinet(['migrate', '--data-dir', dir]);
    expect(first.status).toBe(0);
    // Every module's migrations, in catalogue order (the count grows as modules add tables).
    expect(first.stdout).toMatch(/applied \d+ migration\(s\): core\/0000_init, core\/0001_registry, auth\/0000_init, /);
    for (const m of ['tables/0000_init', 'forms/0000_init']) expect(first.stdout).toContain(m);
    const second = await cabinet(['migrate', '--data-dir', dir]);
    expect(second.stdout).toContain('database is up to date');
  });

  it('stops on a corrupt database file and leaves it untouched', async () => {
    const dir = tmp();
    const file = join(dir, 'cabinet.sqlite');
    writeFileSync(file, Buffer.alloc(8192, 'not a database '));
    const before = sha(file);
    const r = await cabinet(['serve', '--data-dir', dir, '--http-port', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/cannot be read as SQLite/);
    expect(sha(file)).toBe(before);
    expect(readdirSync(dir)).toEqual(['cabinet.sqlite']);
  });

  it('stops when the data directory is not a usable directory', async () => {
    const notDir = join(tmp(), 'file');
    writeFileSync(notDir, 'x');
    const r = await cabinet(['serve', '--data-dir', notDir, '--http-port', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(`data directory ${notDir} is not usable`);
    const under = await cabinet(['migrate', '--data-dir', join(notDir, 'data')]);
    expect(under.status).toBe(1);
    expect(under.stderr).toContain('is not usable');
  });

  it('refuses a database written by a newer cabinet and does not modify it', async () => {
    const dir = tmp();
    expect((await cabinet(['migrate', '--data-dir', dir])).status).toBe(0);
    const file = join(dir, 'cabinet.sqlite');
    const db = new BetterSqlite3(file);
    db.prepare("insert into cabinet_migrations (module, tag, checksum, applied_at) values ('core', '9999_future', 'abc', '2030-01-01T00:00:00Z')").run();
    db.pragma('wal_checkpoint(TRUNCATE)');
    db.close();
    const before = sha(file);
    const r = await cabinet(['serve', '--data-dir', dir, '--http-port', '0']);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain('has migration core/9999_future, which this cabinet build does not know');
    expect(sha(file)).toBe(before);
    expect(existsSync(file)).toBe(true);
  });
});
