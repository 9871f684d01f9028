'use strict';
// Main script of the single executable (build.mjs embeds it as the SEA `main`). It compiles the
// application bundle (asset cabinet/main.cjs) with the V8 code cache the build made after a
// training start (asset cabinet/main.cache) and runs it as the SEA main would have.
//
// Why not the SEA's own `useCodeCache`: Node makes that cache right after compiling the bundle,
// before it runs, so it holds only the top-level code; every function of the modules' lazy
// initialisers is still compiled at each start. A cache made after a start (`createCachedData()`
// once the service has answered /ready and a few requests) holds every function compiled by then.
// V8 checks it against its version, its flags and the source, and compiles normally when it does
// not match (reported as `codeCache` by `cabinet __selfcheck native`).
//
// CABINET_BUILD_CODE_CACHE_OUT=<file> (build.mjs's training run only): write the cache there when
// the process exits.
const sea = require('node:sea');
const vm = require('node:vm');

// The bundle is ASCII (esbuild escapes the rest; build.mjs checks): latin1 is a copy, where
// getAsset(key, 'utf8') runs a UTF-8 decoder over 2.5 MB at every start.
const source = Buffer.from(sea.getAsset('cabinet/main.cjs')).latin1Slice();
let cachedData;
try {
  cachedData = new Uint8Array(sea.getAsset('cabinet/main.cache'));
} catch {
  cachedData = undefined; // a build without a cache (a target this machine cannot run)
}
const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
  filename: 'cabinet.cjs',
  cachedData,
  importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
});
globalThis.__CABINET_CODE_CACHE__ = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'none';
const out = process.env.CABINET_BUILD_CODE_CACHE_OUT;
if (out) process.once('exit', () => require('node:fs').writeFileSync(out, script.createCachedData()));
script.runInThisContext()(module.exports, require, module, __filename, __dirname);
