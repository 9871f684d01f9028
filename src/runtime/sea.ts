// Start-up code of the single executable (imported first by src/runtime/sea-entry.ts).
// Wires the two seams to the executable's embedded assets:
//   globalThis.__CABINET_ASSETS__ -> readAsset/listAssets (src/runtime/assets.ts)
//   globalThis.__CABINET_NATIVE__ -> betterSqlite3Binding/serialportBinding (src/runtime/native.ts)
// build.mjs writes the manifest this reads.
import * as sea from 'node:sea';
import type { AssetSource } from './assets.js';
import { dlopenAddon, materializeAddon } from './addon-cache.js';
import type { NativeAddons } from './native.js';

export const MANIFEST_KEY = 'cabinet/manifest.json';

export interface AddonEntry {
  /** SEA asset key holding the addon bytes. */
  asset: string;
  /** Base file name in the cache (hash appended). */
  name: string;
  sha256: string;
  size: number;
}

export interface SeaManifest {
  format: 1;
  cabinetVersion: string;
  node: string;
  arch: string;
  /** Asset names readable through readAsset/listAssets (drizzle/, docs/, web/). */
  assets: string[];
  /** sha256 (hex) of assets' bytes, computed by the build (the migrations: src/db/migrate.ts). */
  digests: Record<string, string>;
  addons: { betterSqlite3: AddonEntry; serialport: AddonEntry };
}

let manifest: SeaManifest | undefined;

export function seaManifest(): SeaManifest | undefined {
  return manifest;
}

function assetBytes(key: string): Buffer {
  return Buffer.from(sea.getAsset(key));
}

/** Installs the embedded asset source and lazy addon loaders. No-op outside a single executable. */
export function installSeaRuntime(): boolean {
  if (!sea.isSea()) return false;
  const m = JSON.parse(sea.getAsset(MANIFEST_KEY, 'utf8')) as SeaManifest;
  if (m.format !== 1) throw new Error(`unknown SEA manifest format ${String(m.format)}`);
  manifest = m;

  const names = new Set(m.assets);
  const sorted = [...names].sort();
  const assets: AssetSource = {
    read(name) {
      return names.has(name) ? assetBytes(name) : undefined;
    },
    list(prefix) {
      return sorted.filter((n) => n.startsWith(prefix));
    },
    digest(name) {
      return m.digests[name];
    },
  };
  globalThis.__CABINET_ASSETS__ = assets;

  const files = new Map<string, string>();
  const fileOf = (entry: AddonEntry): string => {
    let file = files.get(entry.asset);
    if (!file) {
      file = materializeAddon({ name: entry.name, data: () => assetBytes(entry.asset), sha256: entry.sha256 });
      files.set(entry.asset, file);
    }
    return file;
  };
  const loaded = new Map<string, object>();
  const load = (entry: AddonEntry): object => {
    let exports = loaded.get(entry.asset);
    if (!exports) {
      exports = dlopenAddon(fileOf(entry));
      loaded.set(entry.asset, exports);
    }
    return exports;
  };
  const native: NativeAddons = {
    get betterSqlite3() {
      return load(m.addons.betterSqlite3);
    },
    get betterSqlite3File() {
      return fileOf(m.addons.betterSqlite3);
    },
    get serialport() {
      return load(m.addons.serialport);
    },
  };
  globalThis.__CABINET_NATIVE__ = native;
  return true;
}
