// Vitest global setup: the migrated SQLite database that every SQLite test environment's first
// start copies (makeSqliteTemplate), made once before the workers start; they inherit its path.
// After tmp-root.setup.ts, so it lies under the run's own directory and goes with it.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeSqliteTemplate } from './server.js';

export default async function setup(): Promise<void> {
  process.env.CABINET_TEST_SQLITE_TEMPLATE = await makeSqliteTemplate(mkdtempSync(join(tmpdir(), 'cabinet-sqlite-template-')));
}
