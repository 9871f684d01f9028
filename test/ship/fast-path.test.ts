// `cabinet version` and `cabinet help` answer without loading the service: the command runs with a
// module hook (node:module registerHooks) that records every module Node loads, and the list must
// hold the settings table but no part of the server, the HTTP kit, the database layer or the
// modules. The single executable is the same graph bundled by esbuild, where a module reached
// only through import() is evaluated when that import runs.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';

const HOOK = `import { registerHooks } from 'node:module';
import { writeFileSync } from 'node:fs';
const seen = [];
registerHooks({ load(url, context, next) { seen.push(url); return next(url, context); } });
process.on('exit', () => writeFileSync(process.env.CABINET_TEST_LOADED, seen.join('\\n')));
`;

const SERVICE = ['src/server.ts', 'src/app.ts', 'src/kernel/', 'src/db/', 'src/modules/', 'src/auth/', 'node_modules/hono/', 'node_modules/@hono/', 'node_modules/drizzle-orm/'];

async function loadedBy(args: string[]): Promise<{ status: number | null; stdout: string; stderr: string; loaded: string[] }> {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-fast-'));
  const hook = join(dir, 'hook.mjs');
  const out = join(dir, 'loaded.txt');
  writeFileSync(hook, HOOK);
  const r = await runCommand(process.execPath, ['--import', 'tsx', '--import', hook, 'src/main.ts', ...args], {
    env: { ...process.env, CABINET_TEST_LOADED: out },
  });
  const root = `file://${process.cwd()}/`;
  const loaded = readFileSync(out, 'utf8').split('\n').filter((u) => u.startsWith(root)).map((u) => u.slice(root.length));
  return { ...r, loaded };
}

describe('version and help load no part of the service', { timeout: 120_000 }, () => {
  it.each([['version'], ['--version'], ['--help'], ['help'], ['-h']])('cabinet %s', async (command) => {
    const r = await loadedBy([command]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout).toMatch(command.includes('version') ? /^cabinet \d+\.\d+\.\d+\nnode v[\d.]+\nsqlite 3\.\d+\.\d+\n$/ : /^cabinet \d+\.\d+\.\d+: the site controller service\n[\s\S]*--http-port\s+CABINET_HTTP_PORT/);
    expect(r.loaded).toContain('src/cli-fast.ts');
    expect(r.loaded).toContain('src/config.ts');
    expect(r.loaded.filter((f) => SERVICE.some((s) => f.startsWith(s)))).toEqual([]);
  });

  it('the hook sees what a command loads lazily (token loads the database layer and the modules)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-fast-data-'));
    const r = await loadedBy(['token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dataDir]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim().split('\n').pop()).toMatch(/^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(r.loaded).toContain('src/cli-auth.ts');
    expect(r.loaded).toContain('src/db/client.ts');
    expect(r.loaded.some((f) => f.startsWith('src/modules/'))).toBe(true);
    // ...and still no HTTP server: only `serve` loads it.
    expect(r.loaded).not.toContain('src/server.ts');
  });
});
