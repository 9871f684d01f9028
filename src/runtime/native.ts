// Native addons. In development Node resolves them from node_modules; the single executable
// replaces this lookup (see build.mjs and src/runtime/sea.ts) with addons extracted from its own
// assets into a content-hashed cache directory and loaded with process.dlopen.

/** What the single executable's start-up code provides; the getters load an addon on first use. */
export interface NativeAddons {
  /** better-sqlite3's addon, for its `nativeBinding` option. */
  betterSqlite3?: object;
  /** Where that addon's file is in the cache, for a worker thread to process.dlopen it again. */
  betterSqlite3File?: string;
  /** @serialport/bindings-cpp's addon (what node-gyp-build would have returned). */
  serialport?: object;
}

declare global {
  // Set by the single executable's start-up code (src/runtime/sea.ts) before the app runs.
  var __CABINET_NATIVE__: NativeAddons | undefined;
}

/** The value for better-sqlite3's `nativeBinding` option, or undefined to let it find its own. */
export function betterSqlite3Binding(): object | undefined {
  return globalThis.__CABINET_NATIVE__?.betterSqlite3;
}

/** The better-sqlite3 addon's file inside the single executable's cache; undefined in development. */
export function betterSqlite3File(): string | undefined {
  return globalThis.__CABINET_NATIVE__?.betterSqlite3File;
}

/** serialport's bindings inside the single executable; undefined in development. */
export function serialportBinding(): object | undefined {
  return globalThis.__CABINET_NATIVE__?.serialport;
}

/** True when running as the single executable (addons and assets come from the binary). */
export function isBundled(): boolean {
  return globalThis.__CABINET_NATIVE__ !== undefined;
}
