// The test command as written picks its PostgreSQL by itself: the machine's server on the default
// local address when it answers, else PGlite; CABINET_TEST_PG_URL overrides, `pglite` forces PGlite.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer } from 'node:net';
import { describe, expect, it } from 'vitest';
import { choosePostgres, createTestEnv } from '../helpers/server.js';

describe('PostgreSQL selection of the test suite', () => {
  it('takes CABINET_TEST_PG_URL as given, and pglite as PGlite', async () => {
    expect(await choosePostgres({ CABINET_TEST_PG_URL: 'postgres://u@db.example:5433/x' })).toEqual({ url: 'postgres://u@db.example:5433/x', line: 'PostgreSQL variant: postgres://u@db.example:5433/x (CABINET_TEST_PG_URL)' });
    const forced = await choosePostgres({ CABINET_TEST_PG_URL: 'pglite' });
    expect(forced.url).toBeUndefined();
    expect(forced.line).toContain('PGlite');
  });

  it('falls back to PGlite, saying why, when nothing answers on the address', async () => {
    // A port that was free a moment ago: connection refused.
    const port = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
    });
    const chosen = await choosePostgres({}, `postgres://postgres@127.0.0.1:${port}/test`);
    expect(chosen.url).toBeUndefined();
    expect(chosen.line).toMatch(/^PostgreSQL variant: PGlite in-process \(no PostgreSQL at postgres:\/\/postgres@127\.0\.0\.1:\d+\/test: .*ECONNREFUSED/);
  });

  it('hands the global setup choice to the workers', () => {
    const line = process.env.CABINET_TEST_PG_LINE;
    expect(line).toMatch(/^PostgreSQL variant: /);
    const url = process.env.CABINET_TEST_PG_URL;
    expect(line).toContain(url ?? 'PGlite in-process');
  });

  it('gives every PGlite environment a copy of one migrated cluster instead of its own initdb and migrations', async () => {
    const env = await createTestEnv('postgres');
    try {
      if (process.env.CABINET_TEST_PG_URL) {
        expect(env.databaseUrl).toMatch(/^postgres:\/\//);
        expect(process.env.CABINET_TEST_PGLITE_TEMPLATE).toBeUndefined();
      } else {
        expect(existsSync(join(process.env.CABINET_TEST_PGLITE_TEMPLATE!, 'PG_VERSION'))).toBe(true);
        // Copied before the server opens it: a cluster is already there.
        expect(existsSync(join(env.databaseUrl.slice('pglite:'.length), 'PG_VERSION'))).toBe(true);
      }
    } finally {
      await env.cleanup();
    }
  });
});
