#!/usr/bin/env node
// Builds the tablet web shell (src/ui, Preact + Vite) into dist/web, which the server serves at
// / and /app/<file> (src/runtime/assets.ts in development, embedded in the executable by build.mjs).
//
//   node src/ui/build-ui.mjs             build, print the budget
//   node src/ui/build-ui.mjs --if-stale  build only when a file under src/ui is newer than the build
//
// Used by build.mjs (npm run build), by the test suite's global setup (test/e2e/ui-build.setup.ts)
// and, in development, by src/runtime/assets.ts when dist/web is missing or stale.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';

const UI = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(UI, '../..');
export const WEB_OUT = join(ROOT, 'dist/web');
const STAMP = '.built';
/** Budget of the shell's code, JavaScript and CSS, gzipped (aim at most 150 KB); the catalogue of words is counted apart. */
export const BUDGET_BYTES = 150 * 1024;

function newestSource(dir = UI) {
  let newest = 0;
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const full = join(dir, entry);
    const st = statSync(full);
    newest = Math.max(newest, st.isDirectory() ? newestSource(full) : st.mtimeMs);
  }
  return newest;
}

/** Sources outside src/ui the shell bundles: the catalogues and the translator (src/i18n). */
const SHARED_SOURCES = [join(ROOT, 'src/i18n')];

/** True when dist/web is missing or older than a file under src/ui or a shared source it bundles. */
export function uiIsStale() {
  const stamp = join(WEB_OUT, STAMP);
  if (!existsSync(stamp)) return true;
  const newest = Math.max(newestSource(), ...SHARED_SOURCES.map((d) => newestSource(d)));
  return newest > statSync(stamp).mtimeMs;
}

function sizes(dir) {
  const out = { js: 0, css: 0, jsGzip: 0, cssGzip: 0, files: [] };
  for (const f of readdirSync(dir).sort()) {
    const full = join(dir, f);
    if (!statSync(full).isFile() || f.startsWith('.') || f.endsWith('.gz') || f.endsWith('.br')) continue;
    const data = readFileSync(full);
    out.files.push(f);
    // The service worker is not part of the page's download; it is counted separately.
    if (f === 'sw.js') continue;
    // The English words (a chunk of their own, build option manualChunks) are counted apart from the code.
    if (f.startsWith('words-') && f.endsWith('.js')) { out.words = (out.words ?? 0) + data.length; out.wordsGzip = (out.wordsGzip ?? 0) + gzipSync(data, { level: 9 }).length; continue; }
    if (f.endsWith('.js')) { out.js += data.length; out.jsGzip += gzipSync(data, { level: 9 }).length; }
    if (f.endsWith('.css')) { out.css += data.length; out.cssGzip += gzipSync(data, { level: 9 }).length; }
  }
  return out;
}

export function budgetLine(s) {
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const total = s.jsGzip + s.cssGzip;
  const words = s.wordsGzip ? `; and the English words ${kb(s.wordsGzip)} gzipped (raw ${kb(s.words)}), outside the code's budget` : '';
  return `web shell budget: JS ${kb(s.jsGzip)} + CSS ${kb(s.cssGzip)} = ${kb(total)} gzipped (raw ${kb(s.js + s.css)}); budget ${kb(BUDGET_BYTES)}: ${total <= BUDGET_BYTES ? 'within' : 'OVER'}${words}`;
}

/** Text assets worth compressing; the server picks <file>.br or <file>.gz by Accept-Encoding. */
const COMPRESSIBLE = /\.(js|css|html|svg|webmanifest|json)$/;

/**
 * Writes <file>.br (brotli, quality 11) and <file>.gz (gzip -9) beside each text asset that
 * shrinks by at least 10 %, once at build time, so the box never compresses per request.
 */
function precompress(dir) {
  for (const f of readdirSync(dir)) {
    if (f.startsWith('.') || !COMPRESSIBLE.test(f)) continue;
    const data = readFileSync(join(dir, f));
    const br = brotliCompressSync(data, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11, [zlib.BROTLI_PARAM_SIZE_HINT]: data.length } });
    const gz = gzipSync(data, { level: 9 });
    if (gz.length <= data.length * 0.9) writeFileSync(join(dir, `${f}.gz`), gz);
    if (br.length <= data.length * 0.9) writeFileSync(join(dir, `${f}.br`), br);
  }
}

/** Builds into a temporary folder, then swaps it in, so a running server never reads half a build. */
export async function buildUi({ quiet = false } = {}) {
  const { build } = await import('vite');
  const tmp = join(ROOT, 'dist', `.web-${process.pid}-${Date.now()}`);
  mkdirSync(tmp, { recursive: true });
  try {
    await build({
      configFile: false,
      root: UI,
      base: '/app/',
      // Copied as they are (no hash): the manifest and the icon have fixed names browsers ask for.
      publicDir: join(UI, 'public'),
      logLevel: quiet ? 'silent' : 'warn',
      esbuild: { jsx: 'automatic', jsxImportSource: 'preact', legalComments: 'none' },
      build: {
        outDir: tmp,
        emptyOutDir: true,
        // Flat file names: the server serves /app/<file> (one path segment).
        assetsDir: '',
        target: 'es2020',
        modulePreload: { polyfill: false },
        reportCompressedSize: false,
        cssCodeSplit: false,
        rollupOptions: {
          input: { index: join(UI, 'index.html'), sw: join(UI, 'src/sw.ts') },
          output: {
            entryFileNames: (chunk) => (chunk.name === 'sw' ? 'sw.js' : '[name]-[hash].js'),
            chunkFileNames: '[name]-[hash].js',
            assetFileNames: '[name]-[hash][extname]',
            // The English words (every key's fallback, and the default language) in a file of their
            // own beside the code: loaded with it (modulepreload), cached apart, counted apart.
            manualChunks: (id) => (/[\\/]src[\\/]i18n[\\/]messages[\\/]en[\\/]/.test(id) || /[\\/]src[\\/]i18n[\\/]messages[\\/]en\.ts$/.test(id) ? 'words-en' : undefined),
          },
        },
      },
    });
    // The service worker precaches the shell: its file list and a version that changes with it.
    const files = readdirSync(tmp).filter((f) => f !== 'sw.js' && !f.startsWith('.'));  // before precompress(): no .br/.gz yet
    const hash = createHash('sha256');
    for (const f of files.sort()) hash.update(f).update(readFileSync(join(tmp, f)));
    const swFile = join(tmp, 'sw.js');
    const sw = readFileSync(swFile, 'utf8');
    if (!sw.includes('__CABINET_PRECACHE__') || !sw.includes('__CABINET_VERSION__')) throw new Error('sw.js lacks its precache placeholders');
    const assets = ['/', ...files.filter((f) => f !== 'index.html').map((f) => `/app/${f}`)];
    writeFileSync(swFile, sw.replace(/["']__CABINET_PRECACHE__["']/, JSON.stringify(assets)).replace(/__CABINET_VERSION__/g, hash.digest('hex').slice(0, 12)));
    precompress(tmp);
    writeFileSync(join(tmp, STAMP), new Date().toISOString());
    const old = `${WEB_OUT}.old-${process.pid}`;
    if (existsSync(WEB_OUT)) renameSync(WEB_OUT, old);
    renameSync(tmp, WEB_OUT);
    rmSync(old, { recursive: true, force: true });
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true });
    throw err;
  }
  return sizes(WEB_OUT);
}

export async function ensureUiBuilt(opts = {}) {
  if (!uiIsStale()) return { built: false, ...sizes(WEB_OUT) };
  return { built: true, ...(await buildUi(opts)) };
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const ifStale = process.argv.includes('--if-stale');
  const t0 = Date.now();
  const result = ifStale ? await ensureUiBuilt() : { built: true, ...(await buildUi()) };
  process.stdout.write(`${result.built ? `web shell built into dist/web in ${Date.now() - t0} ms` : 'web shell up to date'}\n${budgetLine(result)}\n`);
}
