// Generates SQL migrations for both dialects from the one table list (src/db/schema.ts).
// drizzle-kit wants tables as named exports of a schema file, so this writes a small shim per
// dialect that re-exports each neutral table's dialect variant, then runs `drizzle-kit generate`.
// Usage: npm run db:generate -- [--name <migration_name>]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { ALL_TABLES } from '../src/db/schema.js';

const nameAt = process.argv.indexOf('--name');
const name = nameAt > 0 ? process.argv[nameAt + 1] : undefined;
mkdirSync('.cache', { recursive: true });
for (const [dialect, folder, prop] of [['sqlite', 'sqlite', 'sqlite'], ['postgresql', 'postgres', 'pg']] as const) {
  const shim = `.cache/schema.${folder}.ts`;
  writeFileSync(shim, [
    `import { ALL_TABLES } from '../src/db/schema.js';`,
    `const pick = (n: string) => ALL_TABLES.find((t) => t.name === n)!.${prop};`,
    ...ALL_TABLES.map((t) => `export const ${t.name} = pick('${t.name}');`),
    '',
  ].join('\n'));
  const args = ['drizzle-kit', 'generate', '--dialect', dialect, '--schema', shim, '--out', `drizzle/${folder}`];
  if (name) args.push('--name', name);
  execFileSync('npx', args, { stdio: 'inherit' });
}
