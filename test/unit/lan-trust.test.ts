// Issue 33, items 5 and 6, below the listeners: which browser requests count as another origin's
// (src/kernel/web-policy.ts), and the data directory owner-only whoever makes it: the SQLite
// opener, the session key, site.json (each also used by the CLI before the first start) and the
// sweep the service runs at every start (src/runtime/data-dir.ts). The same over a real network
// boundary: test/e2e/https-lan.test.ts.
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { crossSiteReason } from '../../src/kernel/web-policy.js';
import { makeDataDir, tightenDataDir } from '../../src/runtime/data-dir.js';
import { boxIdentity } from '../../src/runtime/first-run.js';
import { loadSessionKey } from '../../src/auth/secret.js';
import { openDatabase } from '../../src/db/client.js';

const dirs: string[] = [];
const scratch = () => {
  const d = mkdtempSync(join(tmpdir(), 'cabinet-lan-trust-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);

/** Every path under dir (itself included) with its mode. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = { '.': mode(dir) };
  const walk = (rel: string) => {
    for (const e of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const p = rel ? `${rel}/${e.name}` : e.name;
      out[p] = mode(join(dir, p));
      if (e.isDirectory()) walk(p);
    }
  };
  walk('');
  return out;
}

describe('requests from another origin', () => {
  const h = (origin: string | undefined, host: string | undefined, secFetchSite?: string) => crossSiteReason({ origin, host, secFetchSite });
  it('passes the box\'s own pages and clients that are no browser, refuses every other origin', () => {
    // No browser headers: curl, a device, the sync.
    expect(h(undefined, '10.0.0.5:8443')).toBeUndefined();
    // Same host and port.
    expect(h('https://10.0.0.5:8443', '10.0.0.5:8443')).toBeUndefined();
    expect(h('http://127.0.0.1:8080', '127.0.0.1:8080')).toBeUndefined();
    expect(h('https://Box.Local:8443', 'box.local:8443')).toBeUndefined();
    expect(h('https://[fd00::2]:8443', '[fd00::2]:8443')).toBeUndefined();
    // Behind the master's TLS proxy: Host names no port, the page was https on 443.
    expect(h('https://cloud.example', 'cloud.example')).toBeUndefined();
    // Another site, another port of the same box, a sandboxed page, a made-up Host.
    expect(h('https://evil.example', '10.0.0.5:8443')).toMatch(/Origin https:\/\/evil.example is not this box/);
    expect(h('http://10.0.0.5:9000', '10.0.0.5:8443')).toBeDefined();
    expect(h('https://10.0.0.5:8443', '10.0.0.5:8080')).toBeDefined();
    expect(h('null', '10.0.0.5:8443')).toBeDefined();
    expect(h('https://10.0.0.5:8443', undefined)).toBeDefined();
    expect(h('https://10.0.0.5:8443/path', '10.0.0.5:8443')).toBeDefined();
    // Sec-Fetch-Site, computed by the browser, decides when present (same-site: another port of the box).
    expect(h('https://10.0.0.5:8443', '10.0.0.5:8443', 'cross-site')).toBe('Sec-Fetch-Site is cross-site');
    expect(h(undefined, '10.0.0.5:8443', 'same-site')).toBe('Sec-Fetch-Site is same-site');
    expect(h('https://cloud.example', 'internal:8080', 'same-origin')).toBeUndefined();
    expect(h(undefined, '10.0.0.5:8443', 'none')).toBeUndefined();
  });
});

describe('the data directory', () => {
  it('is made 0700 with every file 0600 by whoever creates it: the database, the session key, site.json', async () => {
    const root = scratch();
    // The CLI's order before a first start: site.json, then the database and the key.
    const cli = join(root, 'made-by-cli', 'data');
    boxIdentity(cli);
    loadSessionKey({ secret: '', dataDir: cli });
    const db = await openDatabase({ databaseUrl: '', dataDir: cli });
    await db.close();
    expect(mode(join(root, 'made-by-cli'))).toBe('700');
    const seen = modes(cli);
    expect(Object.keys(seen)).toEqual(expect.arrayContaining(['.', 'site.json', 'session.key', 'cabinet.sqlite']));
    for (const [path, m] of Object.entries(seen)) expect(`${path} ${m}`).toBe(`${path} ${path === '.' ? '700' : '600'}`);

    // The service's order: the database first.
    const svc = join(root, 'made-by-service');
    const db2 = await openDatabase({ databaseUrl: '', dataDir: svc });
    await db2.close();
    expect(mode(svc)).toBe('700');
  });

  it('is made owner-only again at start when someone loosened it, links left alone', () => {
    const dir = join(scratch(), 'data');
    mkdirSync(join(dir, 'tls'), { recursive: true });
    chmodSync(dir, 0o755);
    chmodSync(join(dir, 'tls'), 0o755);
    writeFileSync(join(dir, 'site.json'), '{}', { mode: 0o644 });
    writeFileSync(join(dir, 'tls', 'ca.crt'), 'x', { mode: 0o666 });
    writeFileSync(join(dir, 'session.key'), 'k', { mode: 0o600 });
    const outside = join(scratch(), 'shared.txt');
    writeFileSync(outside, 'x', { mode: 0o644 });
    symlinkSync(outside, join(dir, 'link'));
    const done = tightenDataDir(dir);
    expect(done.changed.sort()).toEqual(['.', 'site.json', 'tls', 'tls/ca.crt']);
    expect(done.failed).toEqual([]);
    expect(modes(dir)).toMatchObject({ '.': '700', tls: '700', 'site.json': '600', 'tls/ca.crt': '600', 'session.key': '600' });
    expect(mode(outside)).toBe('644');
    // Nothing left to do the second time.
    expect(tightenDataDir(dir)).toEqual({ changed: [], failed: [] });
    // makeDataDir on an existing loose directory tightens it too.
    chmodSync(dir, 0o750);
    makeDataDir(dir);
    expect(mode(dir)).toBe('700');
  });
});
