// How a test runs cabinet as a child process (`serve`, the CLI, a second master): node with the
// application bundled into one file, as the executable carries it, instead of `--import tsx
// src/main.ts`. Under tsx a child resolved and compiled some 600 source files and loaded
// drizzle-orm's ES modules one by one (Node 24 reads its 179 kB package.json again for each): about
// 2.9 s of CPU to a restarted server's /ready, against 0.56 s from the bundle. The suite starts a
// hundred such children. Dependencies stay in node_modules where they carry native code or files of
// their own.
//
// Built once per run with esbuild: the first worker to need it builds it while the others wait for
// the file. It lives under node_modules/.cache (the source tree's assets and node_modules resolve
// from there as from src/) in a folder named after the run's directory (tmp-root.setup.ts removes
// both when the run ends).
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

/** The folder the run's bundle goes in (removed by tmp-root.setup.ts at the end of the run). */
export function bundleDir(runDir: string): string {
  return join(ROOT, 'node_modules', '.cache', 'cabinet-test', basename(runDir));
}

const EXTERNAL = ['better-sqlite3', '@electric-sql/pglite', 'serialport', '@serialport/*', 'pg-native', 'bindings'];

async function buildBundle(file: string): Promise<void> {
  const part = `${file}.${process.pid}.part.mjs`;
  await build({
    entryPoints: [join(ROOT, 'src/main.ts')],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outfile: part,
    external: EXTERNAL,
    // CommonJS dependencies bundled into an ES module still call require() for Node's built-ins.
    banner: { js: "import { createRequire as __cabinetRequire } from 'node:module'; const require = __cabinetRequire(import.meta.url);" },
    logLevel: 'error',
  });
  renameSync(part, file);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function bundledMain(): Promise<string> {
  const runDir = process.env.CABINET_TEST_RUN_DIR;
  const dir = bundleDir(runDir ?? `pid-${process.pid}`);
  const file = join(dir, 'main.mjs');
  if (existsSync(file)) return file;
  mkdirSync(dir, { recursive: true });
  const lock = join(dir, 'building');
  let mine = false;
  try {
    mkdirSync(lock);
    mine = true;
  } catch { /* another worker builds it */ }
  if (mine) {
    try {
      await buildBundle(file);
    } finally {
      rmSync(lock, { recursive: true, force: true });
    }
    return file;
  }
  for (let waited = 0; waited < 120_000; waited += 100) {
    if (existsSync(file)) return file;
    // The builder failed (its lock is gone without a file): build it here, and see its error.
    if (!existsSync(lock)) {
      await buildBundle(file);
      return file;
    }
    await sleep(100);
  }
  throw new Error(`the test bundle of cabinet was not built within 120 s (${file})`);
}

let held: Promise<string> | undefined;

/** Node's arguments that run cabinet's main with `args` (run with process.execPath, cwd ROOT or any). */
export async function cabinetArgs(...args: string[]): Promise<string[]> {
  held ??= bundledMain();
  return [await held, ...args];
}
