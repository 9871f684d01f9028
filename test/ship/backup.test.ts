// `cabinet backup` beside a service under write load, then `cabinet restore` into a fresh data
// directory: every write acknowledged before the backup started is in the restored database, the
// restored service starts and answers with the old session key (the token still works), and
// restore refuses a running service's database and a backup from a newer cabinet or schema.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { readArchive, writeArchive } from '../../src/runtime/archive.js';
import { cabinetArgs } from '../helpers/cabinet-main.js';
import { spawnServe } from '../helpers/serve-child.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const WRITERS = 6;
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
});

/** The cabinet command as a child, asynchronously: the write load goes on while it runs. */
async function cabinet(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string; ms: number }> {
  const argv = await cabinetArgs(...args);
  const t0 = Date.now();
  return new Promise((resolve) => {
    const proc = spawn(process.execPath, argv, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    proc.stdout.on('data', (d: Buffer) => (stdout += d));
    proc.stderr.on('data', (d: Buffer) => (stderr += d));
    proc.on('exit', (status) => resolve({ status, stdout, stderr, ms: Date.now() - t0 }));
  });
}

interface Server { proc: ChildProcess; url: string; log: string[]; stop(): Promise<void> }

async function serve(dataDir: string): Promise<Server> {
  const log: string[] = [];
  const { proc, url, exited } = await spawnServe(['--data-dir', dataDir, '--http-port', '0', '--rpc-port', '0', '--https-port', '0', '--mqtt-broker', 'off', '--host', '127.0.0.1'], { onLine: (line) => log.push(line) });
  children.add(proc);
  return {
    proc, url, log,
    stop: async () => {
      proc.kill('SIGTERM');
      await exited;
      children.delete(proc);
    },
  };
}

/** Writers that create records until stopped; `acked` lists the ids answered 201, in order. */
function writeLoad(url: string, token: string) {
  const acked: string[] = [];
  const errors: string[] = [];
  let stopped = false;
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
  const loops = Array.from({ length: WRITERS }, async (_, w) => {
    for (let n = 0; !stopped; n++) {
      const id = `bk-w${w}-${n}`;
      const res = await fetch(`${url}/api/v1/tables`, { method: 'POST', headers, body: JSON.stringify({ item: { id, n, w } }) });
      const text = await res.text();
      if (res.status !== 201) { errors.push(`${res.status} ${text}`); return; }
      acked.push(id);
    }
  });
  return { acked, errors, stop: async () => { stopped = true; await Promise.all(loops); } };
}

async function allIds(url: string, token: string): Promise<Set<string>> {
  const ids = new Set<string>();
  for (let offset = 0; ; offset += 500) {
    const res = await fetch(`${url}/api/v1/tables/list?limit=500&offset=${offset}`, { headers: { authorization: `Bearer ${token}` } });
    const body = (await res.json()) as { items: { id: string }[]; has_more: boolean };
    expect(res.status).toBe(200);
    for (const r of body.items) ids.add(r.id);
    if (!body.has_more) return ids;
  }
}

const tmp = () => mkdtempSync(join(tmpdir(), 'cabinet-backup-'));

describe('cabinet backup and restore', () => {
  const source = tmp();
  const work = tmp();
  const file = join(work, 'site.tar.gz');
  let token = '';
  let before: string[] = [];
  let totalAcked = 0;

  it('backs up a running service under write load, online', async () => {
    const server = await serve(source);
    try {
      const t = await cabinet(['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', source]);
      expect(t.status, t.stderr).toBe(0);
      token = t.stdout.trim();
      const load = writeLoad(server.url, token);
      while (load.acked.length < 300 && load.errors.length === 0) await new Promise((r) => setTimeout(r, 20));
      // Everything acknowledged up to here must be in the backup; writes go on during it.
      before = [...load.acked];
      const during = load.acked.length;
      const b = await cabinet(['backup', '--data-dir', source, '--to', file]);
      const whileBackingUp = load.acked.length - during;
      await load.stop();
      totalAcked = load.acked.length;
      expect(load.errors).toEqual([]);
      expect(b.status, b.stderr).toBe(0);
      expect(b.stdout).toMatch(/^backup .*site\.tar\.gz: .* session key included, \d+ ms\n$/);
      // Writes went on while the command ran: the service was not stopped for it.
      expect(whileBackingUp).toBeGreaterThan(0);
      const own = /, (\d+) ms\n$/.exec(b.stdout)?.[1];
      console.log(`backup: ${own} ms copying (${b.ms} ms with the tsx start), ${before.length} rows before, ${whileBackingUp} acknowledged during the command, ${statSync(file).size} bytes`);
    } finally {
      await server.stop();
    }
    // Secrets inside: owner-only.
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const entries = readArchive(readFileSync(file));
    expect([...entries.keys()].sort()).toEqual(['cabinet.sqlite', 'manifest.json', 'session.key', 'tls-ca.crt', 'tls-ca.key']);
    expect(entries.get('session.key')!.equals(readFileSync(join(source, 'session.key')))).toBe(true);
    // The box's CA, so tablets that trust it keep trusting the restored box; not its server certificate.
    expect(entries.get('tls-ca.key')!.equals(readFileSync(join(source, 'tls', 'ca.key')))).toBe(true);
  }, 180_000);

  it('restores into a fresh data directory: every row acknowledged before the backup, the same session key, and it serves', async () => {
    const fresh = join(tmp(), 'data');
    const r = await cabinet(['restore', '--data-dir', fresh, '--from', file]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toContain(`restored ${join(fresh, 'cabinet.sqlite')}`);
    expect(statSync(join(fresh, 'session.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(fresh, 'tls', 'ca.key')).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(fresh, 'tls', 'ca.crt')).equals(readFileSync(join(source, 'tls', 'ca.crt')))).toBe(true);
    const server = await serve(fresh);
    // The server certificate is issued again, from the restored CA.
    const { X509Certificate } = await import('node:crypto');
    const ca = new X509Certificate(readFileSync(join(fresh, 'tls', 'ca.crt')));
    expect(new X509Certificate(readFileSync(join(fresh, 'tls', 'server.crt'))).verify(ca.publicKey)).toBe(true);
    try {
      // The token was signed with the original box's key: it works only if the key came along.
      const ids = await allIds(server.url, token);
      const lost = before.filter((id) => !ids.has(id));
      expect(lost).toEqual([]);
      // Nothing that was never written appears; the copy is one moment between start and end.
      expect(ids.size).toBeGreaterThanOrEqual(before.length);
      expect(ids.size).toBeLessThanOrEqual(totalAcked);
      // One instant: each writer writes in sequence, so each has rows 0..k with no gap.
      for (let w = 0; w < WRITERS; w++) {
        const ns = [...ids].filter((id) => id.startsWith(`bk-w${w}-`)).map((id) => Number(id.split('-')[2])).sort((a, b) => a - b);
        expect(ns).toEqual(ns.map((_, i) => i));
      }
      const health = await fetch(`${server.url}/ready`);
      expect(health.status).toBe(200);
      const write = await fetch(`${server.url}/api/v1/tables`, {
        method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ item: { id: 'after-restore' } }),
      });
      expect(write.status).toBe(201);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('refuses to restore over the database of a running service, and changes nothing', async () => {
    const server = await serve(source);
    try {
      // The file itself, not its size: the running service may checkpoint its log into it meanwhile
      // (a clean-clone run saw it grow by 180 KB); a restore would have put another file in its place.
      const before = statSync(join(source, 'cabinet.sqlite'));
      const r = await cabinet(['restore', '--data-dir', source, '--from', file]);
      expect(r.status).toBe(1);
      expect(r.stderr).toContain('is open in a running cabinet: stop the service first');
      expect(existsSync(join(source, 'cabinet.sqlite.before-restore'))).toBe(false);
      const after = statSync(join(source, 'cabinet.sqlite'));
      expect([after.dev, after.ino, after.birthtimeMs]).toEqual([before.dev, before.ino, before.birthtimeMs]);
      expect((await fetch(`${server.url}/ready`)).status).toBe(200);
    } finally {
      await server.stop();
    }
  }, 120_000);

  it('refuses a backup made by a newer cabinet, or holding a newer schema', async () => {
    const entries = readArchive(readFileSync(file));
    const manifest = JSON.parse(entries.get('manifest.json')!.toString()) as { cabinet_version: string; migrations: string[] };
    const rewrite = (name: string, change: (m: typeof manifest) => void) => {
      const m = structuredClone(manifest);
      change(m);
      const out = join(work, name);
      writeFileSync(out, writeArchive([...entries].map(([n, data]) => ({ name: n, data: n === 'manifest.json' ? Buffer.from(JSON.stringify(m)) : data }))));
      return out;
    };
    const target = join(tmp(), 'data');
    const newer = await cabinet(['restore', '--data-dir', target, '--from', rewrite('newer.tar.gz', (m) => { m.cabinet_version = '99.0.0'; })]);
    expect(newer.status).toBe(1);
    expect(newer.stderr).toContain('was made by cabinet 99.0.0, newer than this cabinet');
    const schema = await cabinet(['restore', '--data-dir', target, '--from', rewrite('schema.tar.gz', (m) => { m.migrations.push('core/9999_future'); })]);
    expect(schema.status).toBe(1);
    expect(schema.stderr).toContain('holds migration core/9999_future, which this cabinet');
    expect(existsSync(target) ? readdirSync(target) : []).toEqual([]);
    const damaged = join(work, 'damaged.tar.gz');
    writeFileSync(damaged, 'not a backup');
    const bad = await cabinet(['restore', '--data-dir', target, '--from', damaged]);
    expect(bad.status).toBe(1);
    expect(bad.stderr).toContain('is not a cabinet backup');
  }, 120_000);

  it('says there is nothing to back up for PostgreSQL (exit code 3, the pg_dump hint)', async () => {
    const r = await cabinet(['backup', '--database-url', 'postgres://cabinet@127.0.0.1:1/none', '--to', join(work, 'pg.tar.gz')]);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain('use pg_dump');
  }, 60_000);
});
