// Files the service serves or reads at run time (migrations, docs UI, web shell).
// In development they are read from the source tree; a bundle replaces the lookup with
// embedded copies (see build.mjs), so no code path depends on a checkout being present.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Asset name prefix -> folder in the source tree (development only). */
export const ASSET_ROOTS: Readonly<Record<string, string>> = {
  'drizzle/': 'drizzle/',
  'docs/': 'node_modules/swagger-ui-dist/',
  // The web shell as built by src/ui/build-ui.mjs (Vite) from src/ui.
  'web/': 'dist/web/',
  'i18n/': 'src/i18n/messages/',
};

export interface AssetSource {
  read(name: string): Buffer | undefined;
  list(prefix: string): string[];
  /** sha256 (hex) of the asset's bytes when the source knows it without reading them (the build
   *  computed it); otherwise assetDigest() reads and hashes. */
  digest?(name: string): string | undefined;
}

declare global {
  // Set by the bundle's banner (build.mjs) before any module runs.
  var __CABINET_ASSETS__: AssetSource | undefined;
}

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir) throw new Error('cannot locate the source tree for development assets');
    dir = up;
  }
  return dir;
}

/** Newest modification time of the files under dir (the web shell's sources). */
function newest(dir: string): number {
  let t = 0;
  for (const entry of existsSync(dir) ? readdirSync(dir) : []) {
    const full = join(dir, entry);
    const st = statSync(full);
    t = Math.max(t, st.isDirectory() ? newest(full) : st.mtimeMs);
  }
  return t;
}

/**
 * Development only: builds the web shell (src/ui -> dist/web) when it is missing or older than its
 * sources, once per process, so `npm start` and the tests serve the current shell.
 */
let webChecked = false;
function ensureDevWeb(root: string): void {
  if (webChecked) return;
  webChecked = true;
  const stamp = join(root, 'dist/web/.built');
  const script = join(root, 'src/ui/build-ui.mjs');
  if (!existsSync(script)) return;
  if (existsSync(stamp) && statSync(stamp).mtimeMs >= newest(join(root, 'src/ui'))) return;
  // node:child_process (and the node:dgram it loads) only here, in development: not at every start.
  const res = process.getBuiltinModule('node:child_process').spawnSync(process.execPath, [script, '--if-stale'], { cwd: root, encoding: 'utf8' });
  if (res.status !== 0) process.stderr.write(`cabinet: building the web shell failed: ${res.stderr || res.stdout}\n`);
}

function fileSource(): AssetSource {
  const root = repoRoot();
  const toPath = (name: string): string | undefined => {
    for (const [prefix, folder] of Object.entries(ASSET_ROOTS)) {
      if (name.startsWith(prefix)) {
        const rel = name.slice(prefix.length);
        const base = resolve(root, folder);
        const full = resolve(base, rel);
        return full.startsWith(base) ? full : undefined;
      }
    }
    return undefined;
  };
  const walk = (dir: string, rel: string, out: string[]): void => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir)) {
      const full = join(dir, entry);
      if (statSync(full).isDirectory()) walk(full, `${rel}${entry}/`, out);
      else out.push(`${rel}${entry}`);
    }
  };
  return {
    read(name) {
      if (name.startsWith('web/')) ensureDevWeb(root);
      const path = toPath(name);
      if (!path || !existsSync(path) || !statSync(path).isFile()) return undefined;
      return readFileSync(path);
    },
    list(prefix) {
      if (prefix.startsWith('web/')) ensureDevWeb(root);
      const path = toPath(prefix);
      if (!path) return [];
      const out: string[] = [];
      walk(path, prefix, out);
      return out.sort();
    },
  };
}

let source: AssetSource | undefined;
function current(): AssetSource {
  source ??= globalThis.__CABINET_ASSETS__ ?? fileSource();
  return source;
}

export function readAsset(name: string): Buffer | undefined {
  return current().read(name);
}

export function listAssets(prefix: string): string[] {
  return current().list(prefix);
}

/** sha256 (hex) of an asset's bytes, undefined when there is no such asset. The single executable
 *  answers from its build manifest, so a check of many assets does not read them all. */
export function assetDigest(name: string): string | undefined {
  const src = current();
  const known = src.digest?.(name);
  if (known !== undefined) return known;
  const bytes = src.read(name);
  return bytes && createHash('sha256').update(bytes).digest('hex');
}

/** The content codings a request accepts (Accept-Encoding), without those it refuses with q=0. */
export function acceptedCodings(header: string | undefined): Set<string> {
  const out = new Set<string>();
  for (const part of (header ?? '').split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    if (!name) continue;
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    if (q && Number(q.slice(2)) === 0) continue;
    out.add(name);
  }
  return out;
}

/**
 * An asset as the client can take it: the build's brotli or gzip copy (<name>.br, <name>.gz) when
 * the request accepts that coding, else the file itself. `encoding` is the Content-Encoding to send.
 */
export function readEncodedAsset(name: string, acceptEncoding: string | undefined): { body: Buffer; encoding?: 'br' | 'gzip' } | undefined {
  const accepted = acceptedCodings(acceptEncoding);
  if (accepted.has('br') || accepted.has('*')) {
    const br = readAsset(`${name}.br`);
    if (br) return { body: br, encoding: 'br' };
  }
  if (accepted.has('gzip') || accepted.has('*')) {
    const gz = readAsset(`${name}.gz`);
    if (gz) return { body: gz, encoding: 'gzip' };
  }
  const body = readAsset(name);
  return body ? { body } : undefined;
}
