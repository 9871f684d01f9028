// Native addons. In development Node resolves them from node_modules; the single executable
// replaces this lookup (see build.mjs) with addons extracted from its own assets.

declare global {
  // Set by the single executable's banner: a loaded better-sqlite3 addon object.
  var __CABINET_NATIVE__: { betterSqlite3?: object } | undefined;
}

/** The value for better-sqlite3's `nativeBinding` option, or undefined to let it find its own. */
export function betterSqlite3Binding(): object | undefined {
  return globalThis.__CABINET_NATIVE__?.betterSqlite3;
}
