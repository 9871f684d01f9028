// The single executable's addon cache (src/runtime/addon-cache.ts) and serialport hand-over,
// exercised with better-sqlite3's shipped prebuild under the development Node.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync, chmodSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { addonCacheDir, addonHashChecks, dlopenAddon, materializeAddon, sha256 } from '../../src/runtime/addon-cache.js';
import nodeGypBuild from '../../src/runtime/serialport-gyp-build.js';
import type BetterSqlite3 from 'better-sqlite3';

const require = createRequire(import.meta.url);
// better-sqlite3 13 ships its Node-API builds in the package (what build.mjs embeds).
const addonPath = join(dirname(require.resolve('better-sqlite3/package.json')), 'prebuilds', `linux-${process.arch}.node`);

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cabinet-addon-cache-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
  globalThis.__CABINET_NATIVE__ = undefined;
});

describe('addonCacheDir', () => {
  it('prefers CABINET_CACHE_DIR, then systemd CACHE_DIRECTORY, then XDG, then ~/.cache', () => {
    const all = { CABINET_CACHE_DIR: '/a', CACHE_DIRECTORY: '/var/cache/cabinet:/other', XDG_CACHE_HOME: '/x', HOME: '/home/u' };
    expect(addonCacheDir(all)).toBe('/a');
    expect(addonCacheDir({ ...all, CABINET_CACHE_DIR: undefined })).toBe('/var/cache/cabinet');
    expect(addonCacheDir({ XDG_CACHE_HOME: '/x', HOME: '/home/u' })).toBe('/x/cabinet');
    expect(addonCacheDir({ HOME: '/home/u' })).toBe('/home/u/.cache/cabinet');
  });

  it('never falls back to /tmp: without a usable home it asks for CABINET_CACHE_DIR', () => {
    expect(() => addonCacheDir({ HOME: '/nonexistent' })).toThrow(/CABINET_CACHE_DIR/);
  });
});

describe('materializeAddon', () => {
  it('writes the addon under its sha256, read-only, and loads it with process.dlopen', () => {
    const data = readFileSync(addonPath);
    const file = materializeAddon({ name: 'better_sqlite3', data, sha256: sha256(data), dir });
    expect(file).toBe(join(dir, 'native', `better_sqlite3-${sha256(data)}.node`));
    expect(statSync(file).mode & 0o777).toBe(0o555);
    expect(readdirSync(join(dir, 'native'))).toEqual([`better_sqlite3-${sha256(data)}.node`]);

    const binding = dlopenAddon(file);
    const Database = require('better-sqlite3') as typeof BetterSqlite3;
    const db = new Database(':memory:', { nativeBinding: binding as unknown as string });
    expect((db.prepare('select 41 + 1 as v').get() as { v: number }).v).toBe(42);
    db.close();
  });

  it('with the expected sha256 and lazy bytes, reuses an intact file without reading the embedded bytes', () => {
    const data = Buffer.from('embedded addon bytes');
    const digest = sha256(data);
    let reads = 0;
    const bytes = () => {
      reads++;
      return data;
    };
    const file = materializeAddon({ name: 'y', data: bytes, sha256: digest, dir });
    expect(reads).toBe(1);
    expect(materializeAddon({ name: 'y', data: bytes, sha256: digest, dir })).toBe(file);
    expect(reads).toBe(1);

    // A damaged cache file is noticed by its hash: the bytes are read again and written back.
    chmodSync(file, 0o644);
    writeFileSync(file, 'tampered');
    expect(materializeAddon({ name: 'y', data: bytes, sha256: digest, dir })).toBe(file);
    expect(reads).toBe(2);
    expect(readFileSync(file)).toEqual(data);
    // Embedded bytes that do not match the build manifest are refused, not cached.
    rmSync(file, { force: true });
    expect(() => materializeAddon({ name: 'y', data: () => Buffer.from('corrupt'), sha256: digest, dir })).toThrow(/corrupt/);
  });

  it('hashes a cached file once: its stamp spares the read until the file changes', () => {
    const data = Buffer.from('stamped addon bytes');
    const digest = sha256(data);
    const file = materializeAddon({ name: 's', data: () => data, sha256: digest, dir });
    expect(readdirSync(join(dir, 'verified'))).toEqual([`s-${digest}.node`]);
    const before = addonHashChecks();
    expect(materializeAddon({ name: 's', data: () => data, sha256: digest, dir })).toBe(file);
    expect(materializeAddon({ name: 's', data: () => data, sha256: digest, dir })).toBe(file);
    expect(addonHashChecks()).toBe(before);

    // Same size, other bytes, written in place: the stat no longer matches the stamp, the file is
    // hashed, found damaged and replaced from the embedded bytes.
    chmodSync(file, 0o644);
    writeFileSync(file, 'stamped addon BYTES');
    expect(materializeAddon({ name: 's', data: () => data, sha256: digest, dir })).toBe(file);
    expect(addonHashChecks()).toBeGreaterThan(before);
    expect(readFileSync(file)).toEqual(data);

    // A stamp that does not match (another hash) is no proof either.
    writeFileSync(join(dir, 'verified', `s-${digest}.node`), 'f'.repeat(64));
    const rewritten = addonHashChecks();
    expect(materializeAddon({ name: 's', data: () => data, sha256: digest, dir })).toBe(file);
    expect(addonHashChecks()).toBe(rewritten + 1);
    expect(materializeAddon({ name: 's', data: () => data, sha256: digest, dir })).toBe(file);
    expect(addonHashChecks()).toBe(rewritten + 1);

    // A new build's addon replaces the old one, and the old stamp goes with it.
    const v2 = Buffer.from('stamped addon bytes v2');
    materializeAddon({ name: 's', data: () => v2, sha256: sha256(v2), dir });
    expect(readdirSync(join(dir, 'verified'))).toEqual([`s-${sha256(v2)}.node`]);
    expect(readdirSync(join(dir, 'native'))).toEqual([`s-${sha256(v2)}.node`]);
  });

  it('reuses an intact file and replaces a damaged one', () => {
    const data = Buffer.from('addon bytes v1');
    const file = materializeAddon({ name: 'x', data, dir });
    const mtime = statSync(file).mtimeMs;
    expect(materializeAddon({ name: 'x', data, dir })).toBe(file);
    expect(statSync(file).mtimeMs).toBe(mtime);

    chmodSync(file, 0o644);
    writeFileSync(file, 'addon bytes v2');
    expect(materializeAddon({ name: 'x', data, dir })).toBe(file);
    expect(readFileSync(file, 'utf8')).toBe('addon bytes v1');
  });

  it('refuses embedded bytes that do not match the build manifest', () => {
    expect(() => materializeAddon({ name: 'x', data: Buffer.from('tampered'), sha256: 'a'.repeat(64), dir })).toThrow(/corrupt/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('removes earlier builds of the same addon and leaves other addons alone', () => {
    const old = materializeAddon({ name: 'x', data: Buffer.from('old build'), dir });
    const other = materializeAddon({ name: 'y', data: Buffer.from('another addon'), dir });
    const current = materializeAddon({ name: 'x', data: Buffer.from('new build'), dir });
    const names = readdirSync(join(dir, 'native')).sort();
    expect(names).toEqual([current, other].map((f) => f.slice(join(dir, 'native').length + 1)).sort());
    expect(names).not.toContain(old.slice(join(dir, 'native').length + 1));
  });

  it('leaves no temporary file behind', () => {
    materializeAddon({ name: 'x', data: Buffer.from('bytes'), dir });
    expect(readdirSync(join(dir, 'native')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });
});

describe('serialport binding hand-over (node-gyp-build stand-in)', () => {
  it('returns the addon the executable loaded', () => {
    const binding = { open() {} };
    globalThis.__CABINET_NATIVE__ = { serialport: binding };
    expect(nodeGypBuild('/snapshot/node_modules/@serialport/bindings-cpp')).toBe(binding);
  });

  it('fails loudly outside the executable instead of pretending', () => {
    expect(() => nodeGypBuild('/x')).toThrow(/single executable/);
  });
});
