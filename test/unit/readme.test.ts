// The README and docs/ tell the truth about what the code enforces: the generated tables are
// current, the README stays a short start, its links lead somewhere, and its stated facts
// (the first-card command, the test command CI runs, the migration count) are the code's.
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, normalize } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BLOCKS, BLOCK_PAGES, GENERATED_PAGES, renderPage } from '../../src/docs/readme-tables.js';
import { loadConfig } from '../../src/config.js';
import { setupCommand } from '../../src/runtime/first-run.js';

const readme = readFileSync('README.md', 'utf8');
const docPages = readdirSync('docs').filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`);

// Written on the parallel branches of issue 20 and merged by the lead; the README links them by
// these exact names. Remove a name once its page is on main (the test below then checks it).

/** Relative link targets of a markdown page, resolved from the repository root, without anchors. */
function links(page: string): string[] {
  const text = readFileSync(page, 'utf8');
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)]
    .map((m) => m[1]!)
    .filter((t) => !/^[a-z]+:/.test(t) && !t.startsWith('#'))
    .map((t) => normalize(join(dirname(page), t.split('#')[0]!)));
}

describe('README and docs/', () => {
  it('carry the current configuration, error-code and decision tables, in their pages (npm run docs)', () => {
    for (const page of GENERATED_PAGES) {
      const text = readFileSync(page, 'utf8');
      expect(renderPage(page, text), `${page} is stale: run npm run docs`).toBe(text);
    }
    expect(Object.keys(BLOCK_PAGES).sort()).toEqual(Object.keys(BLOCKS).sort());
    // The README itself carries no generated table any more.
    expect(readme).not.toMatch(/<!-- \w+:start -->/);
  });

  it('keep the README a short start: at most 200 lines, the two commands, a map of docs/', () => {
    expect(readme.split('\n').length).toBeLessThanOrEqual(200);
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
    for (const page of ['install', 'operate', 'commission', 'configuration', 'errors-and-decisions', 'poultry', 'swine', 'melioration', 'development', 'figures']) {
      expect(readme).toContain(`(docs/${page}.md)`);
    }
  });

  it('link only pages and files that exist', () => {
    const missing: string[] = [];
    for (const page of ['README.md', ...docPages]) {
      for (const target of links(page)) if (!existsSync(target)) missing.push(`${page} -> ${target}`);
    }
    expect(missing).toEqual([]);
    // Only the README may point at a page of the parallel branches.
    for (const page of docPages) for (const target of links(page)) if (!existsSync(target)) expect(page).toBe('docs/figures.md');
  });

  it('run the test command as written: CI runs it with no extra environment', () => {
    const ci = readFileSync('.ci/run', 'utf8');
    expect(ci).toMatch(/^npm test$/m);
    expect(ci).not.toContain('CABINET_TEST_PG_URL');
  });

  it('show the first-card command the first start prints', () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-readme-'));
    writeFileSync(join(dir, 'site.json'), JSON.stringify({ tenant_id: 'farm-1a2b3c4d', site_id: 'barn-box' }));
    const printed = setupCommand(loadConfig({ data_dir: dir }, {}), {}).replace(dir, '/home/me/cabinet/data');
    expect(readme).toContain(printed);
  });

  it('state the migration count the code has', () => {
    const count = (engine: string) =>
      readdirSync(`drizzle/${engine}`, { recursive: true }).filter((f) => String(f).endsWith('.sql')).length;
    expect(count('postgres')).toBe(count('sqlite'));
    const stated = ['README.md', ...docPages].flatMap((p) => [...readFileSync(p, 'utf8').matchAll(/\b(\d+) migrations\b/g)].map((m) => Number(m[1])));
    expect(stated.length).toBeGreaterThan(0);
    for (const n of stated) expect(n).toBe(count('sqlite'));
  });

  it('name no tracker issue a reader cannot follow', () => {
    for (const page of ['README.md', ...docPages]) expect(readFileSync(page, 'utf8'), page).not.toMatch(/\bissue \d+\b/i);
  });
});
