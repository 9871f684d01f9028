// Vitest global setup: chooses the PostgreSQL the suite's PostgreSQL variant uses, once, before
// the workers start (they inherit the environment), and says which in one line. Without a
// server it makes the PGlite cluster that every test environment copies (see makePgliteTemplate);
// with one, the migrated database every environment's database is created from (makePgTemplate).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { choosePostgres, dropPgDatabase, makePgliteTemplate, makePgTemplate } from './server.js';

export default async function setup(): Promise<(() => void | Promise<void>) | undefined> {
  const { url, line } = await choosePostgres();
  process.env.CABINET_TEST_PG_LINE = line;
  process.stdout.write(`${line}\n`);
  if (url) {
    process.env.CABINET_TEST_PG_URL = url;
    const template = await makePgTemplate(url);
    process.env.CABINET_TEST_PG_TEMPLATE = template;
    return () => dropPgDatabase(url, template);
  }
  delete process.env.CABINET_TEST_PG_URL;
  const root = mkdtempSync(join(tmpdir(), 'cabinet-pglite-template-'));
  await makePgliteTemplate(join(root, 'pglite'));
  process.env.CABINET_TEST_PGLITE_TEMPLATE = join(root, 'pglite');
  return () => rmSync(root, { recursive: true, force: true });
}
