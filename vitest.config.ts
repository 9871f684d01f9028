import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Tests of the built single executable run after the build, in the shipping checks
    // (.ci/ship.sh: vitest.binary.config.ts), not in the middle of the suite.
    exclude: ['**/node_modules/**', 'test/binary/**'],
    // Builds the web shell (src/ui -> dist/web) once, when it is missing or stale.
    // tmp-root first: every temporary directory of the run under one, removed at the end.
    globalSetup: ['test/helpers/tmp-root.setup.ts', 'test/helpers/sqlite-template.setup.ts', 'test/helpers/pg-select.setup.ts', 'test/e2e/ui-build.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // expect.poll's own default is 1 s: on a loaded 2-core machine a browser's WebSocket can take
    // longer than that to open after a login (CI saw 'connecting' at 1 s). A poll only ever waits
    // for a state to arrive, so a longer limit slows nothing that passes.
    expect: { poll: { timeout: 10_000 } },
    // drizzle-orm's files are ES modules under a 179 kB package.json, which Node 24 reads again for
    // every file it resolves (its module format): about half a second of CPU in every test file's
    // process, a quarter of a small file's. Bundled once per run by Vite's optimizer, each file
    // loads it as a few modules instead (a worker's CPU for a small file: 2.1 -> 1.2 s).
    deps: {
      optimizer: {
        ssr: {
          enabled: true,
          include: ['drizzle-orm', 'drizzle-orm/sqlite-core', 'drizzle-orm/pg-core', 'drizzle-orm/better-sqlite3', 'drizzle-orm/node-postgres', 'drizzle-orm/pglite'],
        },
      },
    },
    pool: 'forks',
    fileParallelism: true,
    // Three files at once on the 2-core machine: most of a file's time is spent waiting (child
    // processes starting, peers, timers, Chromium), and the whole run used under one core with two.
    maxWorkers: 3,
  },
});
