// node:https is loaded only when HTTPS is served (src/server.ts): loading it loads node:tls, and
// Node 24 then parses its bundled root certificates on a thread of its own, CPU a restart of a
// box with https_port off spends for nothing (docs/figures.md, "A restart counted whole"). Each
// case starts the server in a child process and reads its process.moduleLoadList. (node:tls itself
// cannot be checked this way: under tsx the pg driver loads it at import; in the executable pg is
// a chunk loaded on first use.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Starts and stops the server with these ports; returns the built-in modules loaded by then. */
function loadedWith(httpsPort: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-https-lazy-'));
  dirs.push(dir);
  const src = (f: string) => JSON.stringify(pathToFileURL(join(process.cwd(), 'src', f)).href);
  const script = `
    const { loadConfig } = await import(${src('config.ts')});
    const { startServer } = await import(${src('server.ts')});
    const config = loadConfig({ http_port: '0', https_port: ${JSON.stringify(httpsPort)}, mqtt_tls_port: 'off', mqtt_port: '0', rpc_port: '0', host: '127.0.0.1', data_dir: ${JSON.stringify(dir)}, log_level: 'error' }, {});
    const server = await startServer(config);
    const loaded = process.moduleLoadList.filter((m) => m.startsWith('NativeModule '));
    await server.close();
    process.stdout.write(JSON.stringify(loaded));
  `;
  const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  expect(r.status, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as string[];
}

describe('node:https at start', () => {
  it('is not loaded when https_port is off, and is when HTTPS is served', () => {
    expect(loadedWith('off')).not.toContain('NativeModule https');
    expect(loadedWith('0')).toContain('NativeModule https');
  }, 120_000);
});
