// Long reads run in the read worker thread inside the single executable too, not only under tsx:
// the built dist/cabinet serves on port 0 with a temporary data directory, answers a list page and
// its total, and its runtime snapshot says the worker (not the main thread) answered them. And the
// OpenAPI document it serves is the one the build embedded, equal to the document of the routes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';
import { ensureExecutable } from './executable.js';
import { openapiDocumentYaml } from '../../src/server.js';

let binary: string;
let dataDir: string;
let cacheDir: string;
let child: ChildProcess | undefined;
let base: string;
let token: string;
let env: NodeJS.ProcessEnv;

/** The first log line saying where the service listens. */
function listeningUrl(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffered = '';
    let output = '';
    const onData = (d: string) => {
      output += d;
      buffered += d;
      let nl: number;
      while ((nl = buffered.indexOf('\n')) >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        if (!line.startsWith('{')) continue;
        const entry = JSON.parse(line) as { msg?: string; url?: string };
        if (entry.msg?.startsWith('cabinet listening') && entry.url) resolve(entry.url);
      }
    };
    proc.stdout!.setEncoding('utf8').on('data', onData);
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => { output += d; });
    proc.once('exit', (code) => reject(new Error(`cabinet serve exited with ${String(code)}:\n${output.slice(-3000)}`)));
  });
}

async function api(path: string, init: RequestInit = {}): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers } });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

async function persistence(): Promise<{ engine: string; read_worker?: string; worker_reads?: number }> {
  const r = await api('/api/v1/operability/runtime');
  expect(r.status).toBe(200);
  return (r.body.item as { persistence: { engine: string; read_worker?: string; worker_reads?: number } }).persistence;
}

beforeAll(async () => {
  binary = await ensureExecutable();
  dataDir = mkdtempSync(join(tmpdir(), 'cabinet-sea-reads-'));
  cacheDir = mkdtempSync(join(tmpdir(), 'cabinet-sea-cache-'));
  // Only what this test sets: a developer's CABINET_* variables must not reach the service.
  env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CABINET_')));
  env.CABINET_CACHE_DIR = cacheDir;
  child = spawn(binary, ['serve', '--http-port', '0', '--host', '127.0.0.1', '--data-dir', dataDir, '--mqtt-broker', 'off', '--rpc-port', 'off'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  base = await listeningUrl(child);
  const t = await runCommand(binary, ['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dataDir], { env });
  expect(t.status, t.stderr).toBe(0);
  token = t.stdout.trim().split('\n').pop()!;
}, 900_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(cacheDir, { recursive: true, force: true });
});

describe('the read worker in the single executable', { timeout: 60_000 }, () => {
  it('reports long reads as running in a worker thread', async () => {
    const p = await persistence();
    expect(p.engine).toBe('sqlite');
    expect(p.read_worker).toBe('thread');
  });

  it('answers a list page and its total from the worker', async () => {
    const action = `sea-probe-${Date.now()}`;
    for (const actor of ['first', 'second', 'third']) {
      const r = await api('/api/v1/audit/commands/log', { method: 'POST', body: JSON.stringify({ actor, action, resource: 'sea', result: 'success' }) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    const before = (await persistence()).worker_reads ?? 0;

    const all = await api(`/api/v1/audit/list?action=${action}`);
    expect(all.status, JSON.stringify(all.body)).toBe(200);
    expect((all.body.items as { actor: string }[]).map((i) => i.actor)).toEqual(['third', 'second', 'first']);
    expect(all.body.total).toBe(3);

    const page = await api(`/api/v1/audit/list?action=${action}&limit=2&offset=2`);
    expect(page.status).toBe(200);
    expect((page.body.items as { actor: string }[]).map((i) => i.actor)).toEqual(['first']);
    expect(page.body.total).toBe(3);

    // Two lists, each a page and a total: the worker answered them, the main thread did not.
    const after = (await persistence()).worker_reads ?? 0;
    expect(after - before).toBeGreaterThanOrEqual(2);
  });

  it('still answers bad list input with the error envelope', async () => {
    const r = await api('/api/v1/audit/list?limit=-1');
    expect(r.status).toBe(400);
    expect((r.body.error as { code: string }).code).toBe('validation_error');
  });
});

describe('the OpenAPI document in the single executable', { timeout: 60_000 }, () => {
  it('is the document of the routes, embedded by the build (not built on the box at the first request)', async () => {
    const res = await fetch(`${base}/openapi.yaml`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/yaml');
    const served = await res.text();
    // The same text the source's routes give: the embedded copy cannot drift from the routes.
    expect(served).toBe(openapiDocumentYaml());
    expect(served.length).toBeGreaterThan(1_000_000);
  });
});
