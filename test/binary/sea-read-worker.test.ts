// Long reads run in the read worker thread inside the single executable too, not only under tsx:
// the built dist/cabinet serves on port 0 with a temporary data directory, answers the KPI and a
// list page of a table past SMALL_TABLE_ROWS with its total, and its runtime snapshot says the
// worker (not the main thread) answered them; a small table's list stays on the main thread. And the
// OpenAPI document it serves is the one the build embedded, equal to the document of the routes.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';
import { ensureExecutable } from './executable.js';
import { openapiDocumentYaml } from '../../src/server.js';
import { SIZE_CHECK_MS, SMALL_TABLE_ROWS } from '../../src/db/store.js';

let binary: string;
let dataDir: string;
let cacheDir: string;
let child: ChildProcess | undefined;
let base: string;
let token: string;
let env: NodeJS.ProcessEnv;
/** What serve wrote to stderr (its log goes to stdout). */
let stderrText = '';

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
    proc.stderr!.setEncoding('utf8').on('data', (d: string) => { output += d; stderrText += d; });
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

  it('answers the KPI, and a large table\'s list page and its total, from the worker; a small table\'s list on the main thread', async () => {
    const action = `sea-probe-${Date.now()}`;
    for (const actor of ['first', 'second', 'third']) {
      const r = await api('/api/v1/audit/commands/log', { method: 'POST', body: JSON.stringify({ actor, action, resource: 'sea', result: 'success' }) });
      expect(r.status, JSON.stringify(r.body)).toBe(201);
    }
    // The runtime snapshot reports the storage budget, which it reads on the worker too: what one
    // snapshot costs is measured and left out of each count below.
    const first = (await persistence()).worker_reads ?? 0;
    const start = (await persistence()).worker_reads ?? 0;
    const cost = start - first;
    const small = await api(`/api/v1/audit/list?action=${action}&limit=2&offset=2`);
    expect(small.status).toBe(200);
    expect((small.body.items as { actor: string }[]).map((i) => i.actor)).toEqual(['first']);
    expect(small.body.total).toBe(3);
    expect((await persistence()).worker_reads ?? 0).toBe(start + cost);

    const kpi = await api('/api/v1/devices/telemetry/kpi');
    expect(kpi.status, JSON.stringify(kpi.body)).toBe(200);
    expect((await persistence()).worker_reads ?? 0).toBe(start + 2 * cost + 1);

    // Past the threshold (one ingest of SMALL_TABLE_ROWS + 100 points), once the size is checked again.
    const n = SMALL_TABLE_ROWS + 100;
    const t0 = Date.UTC(2026, 0, 1);
    const points = Array.from({ length: n }, (_, i) => ({ device_id: 'sea-dev', metric: 'temperature', value: 20, ts: new Date(t0 + i * 1000).toISOString() }));
    const ingest = await api('/api/v1/devices/telemetry/commands/ingest', { method: 'POST', body: JSON.stringify({ tenant_id: 'sea', points }) });
    expect(ingest.status, JSON.stringify(ingest.body)).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, SIZE_CHECK_MS + 100));
    const before = (await persistence()).worker_reads ?? 0;
    const page = await api('/api/v1/devices/telemetry/list?device_id=sea-dev&limit=2&offset=1');
    expect(page.status, JSON.stringify(page.body)).toBe(200);
    expect((page.body.items as { ts: string }[]).map((i) => i.ts)).toEqual([new Date(t0 + (n - 2) * 1000).toISOString(), new Date(t0 + (n - 3) * 1000).toISOString()]);
    expect(page.body.total).toBe(n);
    // One list, a page and a total: the worker answered both, the main thread neither.
    expect(((await persistence()).worker_reads ?? 0) - before).toBe(2 + cost);
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
    expect(served).toBe(await openapiDocumentYaml());
    expect(served.length).toBeGreaterThan(1_000_000);
  });
});

describe('the single executable at start', () => {
  it('writes no Node warning (an experimental feature reached at start printed one to every journal)', async () => {
    // The first request has been answered by now: start-up is over.
    expect((await api('/api/v1/auth/me')).status).toBe(200);
    expect(stderrText).not.toMatch(/Warning/);
  });
});
