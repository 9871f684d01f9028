// The single executable for ship tests: dist/cabinet (or dist/cabinet-arm64 on arm64), built by
// build.mjs when it is missing or older than any file it is made from, so a test never runs a
// stale binary against the current sources.
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { runCommand } from '../helpers/run.js';

const ROOT = resolve(import.meta.dirname, '../..');
const INPUTS = ['src', 'drizzle', 'build.mjs', 'package.json', 'package-lock.json'];

function newestMtime(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) newest = Math.max(newest, newestMtime(join(path, entry)));
  return newest;
}

/** The executable's path, after building it (about a minute, no Debian package) when stale. */
export async function ensureExecutable(): Promise<string> {
  const binary = join(ROOT, process.arch === 'arm64' ? 'dist/cabinet-arm64' : 'dist/cabinet');
  const inputs = Math.max(...INPUTS.map((p) => join(ROOT, p)).filter(existsSync).map(newestMtime));
  if (existsSync(binary) && statSync(binary).mtimeMs > inputs) return binary;
  const r = await runCommand(process.execPath, ['build.mjs', '--no-deb', '--no-smoke'], { cwd: ROOT, timeoutMs: 900_000 });
  if (r.status !== 0) throw new Error(`npm run build failed (${String(r.status)}):\n${r.stdout.slice(-3000)}\n${r.stderr.slice(-3000)}`);
  return binary;
}
