// The web shell's TypeScript (src/ui, DOM + Preact JSX) has its own strict tsconfig, kept out of the
// server's (no DOM types there); `npm test` checks it here.
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { runCommand } from '../helpers/run.js';

describe('web shell sources', () => {
  it('typecheck under src/ui/tsconfig.json (strict)', async () => {
    const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
    const r = await runCommand(process.execPath, [tsc, '-p', 'src/ui/tsconfig.json', '--noEmit'], { timeoutMs: 115_000 });
    expect(`${r.stdout}${r.stderr}`).toBe('');
    expect(r.status).toBe(0);
  }, 120_000);
});
