// Files the service serves or reads at run time (migrations, docs UI, web shell).
// In development they are read from the source tree; a bundle replaces the lookup with
// embedded copies (see build.mjs), so no code path depends on a checkout being present.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Asset name prefix -> folder in the source tree (development only). */
export const ASSET_ROOTS: Readonly<Record<string, string>> = {
  'drizzle/': 'drizzle/',
  'docs/': 'node_modules/swagger-ui-dist/',
  'web/': 'src/ui/public/',
};

export interface AssetSource {
  read(name: string): Buffer | undefined;
  list(prefix: string): string[];
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
      const path = toPath(name);
      if (!path || !existsSync(path) || !statSync(path).isFile()) return undefined;
      return readFileSync(path);
    },
    list(prefix) {
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
