// The backup archive is a plain gzip'd ustar: GNU tar reads what cabinet writes, and cabinet reads
// what GNU tar writes, so an admin can inspect or assemble a backup with standard tools.
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { readArchive, writeArchive } from '../../src/runtime/archive.js';

const files = { 'manifest.json': Buffer.from('{"a":1}\n'), 'cabinet.sqlite': randomBytes(70_001), 'session.key': Buffer.from('k'.repeat(44)), empty: Buffer.alloc(0) };

describe('backup archive', () => {
  it('is read by GNU tar, contents and modes intact', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-archive-'));
    writeFileSync(join(dir, 'a.tar.gz'), writeArchive(Object.entries(files).map(([name, data]) => ({ name, data }))));
    mkdirSync(join(dir, 'out'));
    const r = spawnSync('tar', ['-xzf', join(dir, 'a.tar.gz'), '-C', join(dir, 'out')], { encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    for (const [name, data] of Object.entries(files)) expect(readFileSync(join(dir, 'out', name)).equals(data)).toBe(true);
    const list = spawnSync('tar', ['-tvzf', join(dir, 'a.tar.gz')], { encoding: 'utf8' }).stdout;
    expect(list).toMatch(/^-rw------- .* session\.key$/m);
  });

  it('reads what GNU tar writes', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-archive-'));
    for (const [name, data] of Object.entries(files)) writeFileSync(join(dir, name), data);
    const r = spawnSync('tar', ['--format=ustar', '-czf', 'b.tar.gz', ...Object.keys(files)], { cwd: dir, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const read = readArchive(readFileSync(join(dir, 'b.tar.gz')));
    expect([...read.keys()].sort()).toEqual(Object.keys(files).sort());
    for (const [name, data] of Object.entries(files)) expect(read.get(name)!.equals(data)).toBe(true);
  });

  it('refuses a damaged archive', () => {
    const good = writeArchive([{ name: 'x', data: Buffer.from('hello') }]);
    expect(() => readArchive(Buffer.from('nope'))).toThrow(/not a gzip file/);
    const tar = gunzipSync(good);
    tar[0] = 0x79; // the name changes, the header checksum no longer matches
    expect(() => readArchive(gzipSync(tar))).toThrow(/checksum mismatch/);
  });
});
