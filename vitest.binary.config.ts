// The tests of the built single executable (test/binary/): run by .ci/ship.sh right after
// `node build.mjs`, so they test the binary CI just built and never build one mid-suite.
// By hand: `npx vitest run --config vitest.binary.config.ts` (builds dist/cabinet when stale).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/binary/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 900_000,
    pool: 'forks',
  },
});
