// Generates SQL migrations, per module and per dialect, from the modules' table declarations.
// drizzle-kit wants tables as named exports of a schema file, so this writes a small shim per
// module and dialect that re-exports each neutral table's dialect variant, then runs
// `drizzle-kit generate` into drizzle/<dialect>/<module>/.
// Usage: npm run db:generate -- [--module <id>] [--name <migration_name>]
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { MODULES } from '../src/modules/index.js';

const arg = (flag: string) => {
  const at = process.argv.indexOf(flag);
  return at > 0 ? process.argv[at + 1] : undefined;
};
const only = arg('--module');
const name = arg('--name');
mkdirSync('.cache', { recursive: true });
for (const mod of MODULES) {
  if (only && mod.id !== only) continue;
  if (!mod.tables.length) continue;
  for (const [dialect, folder, prop] of [['sqlite', 'sqlite', 'sqlite'], ['postgresql', 'postgres', 'pg']] as const) {
    const shim = `.cache/schema.${mod.id}.${folder}.ts`;
    writeFileSync(shim, [
      `import { MODULES } from '../src/modules/index.js';`,
      `const mod = MODULES.find((m) => m.id === '${mod.id}')!;`,
      `const pick = (n: string) => mod.tables.find((t) => t.name === n)!.${prop};`,
      ...mod.tables.map((t) => `export const ${t.name} = pick('${t.name}');`),
      '',
    ].join('\n'));
    const args = ['drizzle-kit', 'generate', '--dialect', dialect, '--schema', shim, '--out', `drizzle/${folder}/${mod.id}`];
    if (name) args.push('--name', name);
    execFileSync('npx', args, { stdio: 'inherit' });
  }
}
