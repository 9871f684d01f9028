// Develop and test on the Node the binary ships: the `node` development dependency (which npm puts
// first on the scripts' PATH), the version build.mjs embeds, and the Node running this test are
// one and the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const read = (file: string) => readFileSync(new URL(`../../${file}`, import.meta.url), 'utf8');

describe('runtime', () => {
  it('the tests run on the Node the single executable carries', () => {
    const pkg = JSON.parse(read('package.json')) as { devDependencies: Record<string, string> };
    const shipped = /const NODE_VERSION = '(\d+\.\d+\.\d+)';/.exec(read('build.mjs'))?.[1];
    expect(shipped).toMatch(/^24\./);
    expect(pkg.devDependencies.node).toBe(shipped);
    expect(process.versions.node).toBe(shipped);
  });
});
