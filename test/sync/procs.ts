// Real cabinet processes for the multi-process tests: `node --import tsx src/main.ts serve`
// (one process per server, so kill -9 hits the server itself), a free port chosen up front so a
// restarted server answers at the same address, tokens signed with the process's session secret.
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { createSecretKey, randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { signSession } from '../../src/auth/tokens.js';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { waitFor } from '../helpers/wait.js';
import { cabinetArgs } from '../helpers/cabinet-main.js';
export { waitFor };

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface Proc {
  name: string;
  url: string;
  secret: string;
  child: ChildProcess | undefined;
  output: string[];
  start(): Promise<void>;
  /** SIGTERM and wait for the exit (a graceful stop). */
  stop(): Promise<void>;
  /** SIGKILL: no shutdown code runs. */
  kill9(): Promise<void>;
  token(claims?: { role?: 'admin' | 'operator'; scope_type?: 'master' | 'tenant'; tenant_id?: string; site_id?: string }): Promise<string>;
}

const running = new Set<ChildProcess>();
/** Children must not outlive a failed test run. */
export function killAll(): void {
  for (const c of running) c.kill('SIGKILL');
  running.clear();
}
process.once('exit', killAll);

export async function proc(name: string, flags: Record<string, string>, opts: { secret?: string } = {}): Promise<Proc> {
  const port = await freePort();
  const secret = opts.secret ?? randomBytes(32).toString('hex');
  const url = `http://127.0.0.1:${port}`;
  const exited = new WeakMap<ChildProcess, Promise<void>>();
  const p: Proc = {
    name, url, secret, child: undefined, output: [],
    async start() {
      const args = await cabinetArgs('serve', '--http-port', String(port), '--host', '127.0.0.1', '--rpc-port', '0', '--mqtt-broker', 'off', '--log-level', 'warn');
      for (const [k, v] of Object.entries(flags)) args.push(`--${k.replace(/_/g, '-')}`, v);
      const child = spawn(process.execPath, args, { env: { ...process.env, CABINET_SESSION_SECRET: secret }, stdio: ['ignore', 'pipe', 'pipe'] });
      running.add(child);
      exited.set(child, new Promise((resolve) => child.once('exit', () => { running.delete(child); resolve(); })));
      const keep = (b: Buffer) => { p.output.push(b.toString()); if (p.output.length > 200) p.output.shift(); };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
      p.child = child;
      const end = Date.now() + 60_000;
      while (Date.now() < end) {
        if (child.exitCode !== null) throw new Error(`${name} exited with ${child.exitCode}: ${p.output.join('').slice(-2000)}`);
        try {
          if ((await fetch(`${url}/ready`)).status === 200) return;
        } catch { /* not listening yet */ }
        await new Promise((r) => setTimeout(r, 100));
      }
      throw new Error(`${name} did not become ready: ${p.output.join('').slice(-2000)}`);
    },
    async stop() {
      const c = p.child;
      if (!c || c.exitCode !== null) return;
      c.kill('SIGTERM');
      await exited.get(c);
    },
    async kill9() {
      const c = p.child;
      if (!c || c.exitCode !== null) return;
      c.kill('SIGKILL');
      await exited.get(c);
    },
    async token(claims = {}) {
      const s = await signSession(createSecretKey(Buffer.from(secret)), { subject: `test-${claims.role ?? 'admin'}`, role: claims.role ?? 'admin', scope_type: claims.scope_type ?? 'master', tenant_id: claims.tenant_id, site_id: claims.site_id, ttlMinutes: 60 });
      return s.token;
    },
  };
  return p;
}

/** A JSON API call with a bearer token; answers {status, body}. */
export async function api(p: Proc, token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> { // eslint-disable-line @typescript-eslint/no-explicit-any
  const res = await fetch(`${p.url}${path}`, {
    method, headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}


/**
 * A master process (cloud-multi, PostgreSQL when the suite has one, else SQLite) with one
 * registered site, farm-a/site-1 (poultry), and a box process (SQLite) holding that site's
 * credential and syncing to the master with `boxFlags`. The master is started, the box is not.
 */
export async function masterWithSite(boxFlags: Record<string, string>): Promise<{ masterEnv: TestEnv; boxEnv: TestEnv; master: Proc; box: Proc; fleet: string; credential: string }> {
  const masterEnv = await createTestEnv(process.env.CABINET_TEST_PG_URL ? 'postgres' : 'sqlite');
  const boxEnv = await createTestEnv('sqlite');
  const master = await proc('master', { mode: 'cloud-multi', data_dir: masterEnv.dataDir, database_url: masterEnv.databaseUrl, sync_stale_ms: '3000' });
  await master.start();
  const fleet = await master.token();
  const reg = await api(master, fleet, 'POST', '/api/v1/tenant-master-sync/commands/register-site', { tenant_id: 'farm-a', site_id: 'site-1', industry_code: 'poultry' });
  if (reg.status !== 201) throw new Error(`register-site answered ${reg.status}: ${JSON.stringify(reg.body)}`);
  const credential = reg.body.item.credential as string;
  writeFileSync(join(boxEnv.dataDir, 'site-credential'), credential, { mode: 0o600 });
  const box = await proc('box', { data_dir: boxEnv.dataDir, sync_master_url: master.url, ...boxFlags });
  return { masterEnv, boxEnv, master, box, fleet, credential };
}
