// The server's source has no import cycles: a cycle makes start-up order depend on which file is
// imported first and hides half-initialised modules (issue 16). Type-only imports count too, as
// they tie the files' designs together. The UI (src/ui) is a separate program and is checked alone.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../src');

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sources(path);
    return /\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveImport(from: string, spec: string): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = resolve(dirname(from), spec).replace(/\.js$/, '');
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')]) {
    try { if (statSync(candidate).isFile()) return candidate; } catch { /* next */ }
  }
  return undefined;
}

/** Every cycle found by a depth-first walk, each as the list of files that form it. */
function findCycles(files: string[]): string[][] {
  const edges = new Map(files.map((f) => [f, ts.preProcessFile(readFileSync(f, 'utf8'), true, true)
    .importedFiles.map((i) => resolveImport(f, i.fileName)).filter((x): x is string => !!x)]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (f: string): void => {
    state.set(f, 'open');
    stack.push(f);
    for (const next of edges.get(f) ?? []) {
      if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)));
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(f, 'done');
  };
  for (const f of files) if (!state.has(f)) visit(f);
  return cycles;
}

describe('import graph', () => {
  it('the checker finds a cycle when there is one', () => {
    const fixture = join(import.meta.dirname, 'fixtures', 'cycle');
    const found = findCycles(sources(fixture));
    expect(found.map((c) => c.map((f) => relative(fixture, f)).sort())).toEqual([['a.ts', 'b.ts']]);
  });

  it('src (server) has no import cycles', () => {
    const files = sources(ROOT).filter((f) => !f.startsWith(join(ROOT, 'ui') + '/'));
    expect(files.length).toBeGreaterThan(100);
    const cycles = findCycles(files).map((c) => c.map((f) => relative(ROOT, f)).join(' -> '));
    expect(cycles).toEqual([]);
  });

  // The shared layers are what modules build on; a shared layer that imports a module turns the
  // module into a hidden dependency of everything (issue 20, item 8). Only the composition root
  // (server.ts, main.ts, app.ts, cli files) and modules/ itself may import modules.
  it('the shared layers never import a module', () => {
    const layers = ['kernel', 'db', 'auth', 'realtime', 'field', 'industry', 'runtime', 'docs'];
    const modulesDir = join(ROOT, 'modules') + '/';
    const offending = layers.flatMap((layer) => {
      let files: string[] = [];
      try { files = sources(join(ROOT, layer)); } catch { return []; }
      return files.flatMap((f) => ts.preProcessFile(readFileSync(f, 'utf8'), true, true).importedFiles
        .map((i) => resolveImport(f, i.fileName))
        .filter((t): t is string => !!t && t.startsWith(modulesDir))
        .map((t) => `${relative(ROOT, f)} -> ${relative(ROOT, t)}`));
    });
    expect(offending).toEqual([]);
  });

  it('src/ui has no import cycles', () => {
    const cycles = findCycles(sources(join(ROOT, 'ui', 'src'))).map((c) => c.map((f) => relative(ROOT, f)).join(' -> '));
    expect(cycles).toEqual([]);
  });
});
