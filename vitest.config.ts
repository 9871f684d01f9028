import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    // Builds the web shell (src/ui -> dist/web) once, when it is missing or stale.
    globalSetup: ['test/helpers/pg-select.setup.ts', 'test/e2e/ui-build.setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
  },
});
