// The single executable compiles its bundle from the V8 code cache its build made after a training
// start (src/runtime/sea-loader.cjs): V8 accepts it (same version, same flags, same source), so a
// start does not compile the bundle's functions again. A cache V8 refused would cost every start
// its compile without any error, which is why this is checked.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';
import { ensureExecutable } from './executable.js';

describe('the code cache of the single executable', () => {
  it('is accepted by V8 at start', async () => {
    const binary = await ensureExecutable();
    const cacheDir = mkdtempSync(join(tmpdir(), 'cabinet-codecache-'));
    try {
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('CABINET_') && k !== 'NODE_OPTIONS'));
      const r = await runCommand(binary, ['__selfcheck', 'native'], { env: { ...env, CABINET_CACHE_DIR: cacheDir } });
      expect(r.status, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout.trim().split('\n').pop()!)).toMatchObject({ codeCache: 'accepted' });
      // A V8 flag that changes code generation (--jitless) changes the flag hash: V8 refuses the cache and compiles.
      const other = await runCommand(binary, ['__selfcheck', 'native'], { env: { ...env, CABINET_CACHE_DIR: cacheDir, NODE_OPTIONS: '--jitless' } });
      expect(other.status, other.stderr).toBe(0);
      expect(JSON.parse(other.stdout.trim().split('\n').pop()!)).toMatchObject({ codeCache: 'rejected' });
    } finally {
      rmSync(cacheDir, { recursive: true, force: true });
    }
  }, 900_000);
});
