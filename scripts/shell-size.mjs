#!/usr/bin/env node
// What the languages cost the tablet: the translator (FormatJS intl-messageformat and our wrapper)
// bundled alone, the English catalogue inside the main script, each other language's catalogue
// (fetched only when a reader chooses it), and the main script itself, brotli quality 11 as the box
// serves them. With --baseline <git ref>, the main script of that commit is built in a scratch
// worktree in the same run, for the growth.
//
//   node scripts/shell-size.mjs [--baseline 691eab4]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { brotliCompressSync, constants as zlib, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const ROOT = resolve(new URL('..', import.meta.url).pathname);
const br = (buf) => brotliCompressSync(buf, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length;
const gz = (buf) => gzipSync(buf, { level: 9 }).length;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** The main script of a built shell: the module script index.html loads. */
function mainScript(webDir) {
  const html = readFileSync(join(webDir, 'index.html'), 'utf8');
  const src = /<script[^>]+type="module"[^>]+src="\/app\/([^"]+)"/.exec(html)?.[1];
  if (!src) throw new Error(`no module script in ${webDir}/index.html`);
  return readFileSync(join(webDir, src));
}

async function bundled(entryCode) {
  const out = await build({ stdin: { contents: entryCode, resolveDir: ROOT, loader: 'ts' }, bundle: true, minify: true, format: 'esm', platform: 'browser', target: 'es2020', write: false, legalComments: 'none' });
  return Buffer.from(out.outputFiles[0].contents);
}

function buildShellAt(dir) {
  execFileSync(process.execPath, [join(dir, 'src/ui/build-ui.mjs')], { cwd: dir, stdio: 'pipe' });
  return mainScript(join(dir, 'dist/web'));
}

const args = process.argv.slice(2);
const baselineRef = args.includes('--baseline') ? args[args.indexOf('--baseline') + 1] : undefined;

const mechanism = await bundled(`import { makeTranslator } from './src/i18n/translate.ts'; export const t = makeTranslator('en', 'en', {}, {});`);
const main = buildShellAt(ROOT);
const rows = [['the translator alone (intl-messageformat + src/i18n/translate.ts)', mechanism]];
for (const lang of readdirSync(join(ROOT, 'src/i18n/messages')).filter((d) => !d.includes('.'))) {
  const merged = {};
  for (const f of readdirSync(join(ROOT, 'src/i18n/messages', lang))) Object.assign(merged, JSON.parse(readFileSync(join(ROOT, 'src/i18n/messages', lang, f), 'utf8')));
  rows.push([`catalogue ${lang} (${Object.keys(merged).length} keys)${lang === 'en' ? ', a chunk loaded with the main script' : ', fetched when chosen'}`, Buffer.from(JSON.stringify(merged))]);
}
rows.push(['main script now (code; the English words are a chunk of their own)', main]);
for (const f of readdirSync(join(ROOT, 'dist/web')).filter((f) => /^words-.*\.js$/.test(f))) rows.push([`English words chunk ${f}, loaded with the main script`, readFileSync(join(ROOT, 'dist/web', f))]);
let baseline;
if (baselineRef) {
  const dir = mkdtempSync(join(tmpdir(), 'shell-size-'));
  try {
    execFileSync('git', ['worktree', 'add', '--detach', dir, baselineRef], { cwd: ROOT, stdio: 'pipe' });
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
    baseline = buildShellAt(dir);
    rows.push([`main script at ${baselineRef}`, baseline]);
  } finally {
    execFileSync('git', ['worktree', 'remove', '--force', dir], { cwd: ROOT, stdio: 'pipe' });
    if (existsSync(dir)) rmSync(dir, { recursive: true, force: true });
  }
}
console.log('| what | raw | gzip -9 | brotli 11 |\n|---|---|---|---|');
for (const [name, buf] of rows) console.log(`| ${name} | ${kb(buf.length)} | ${kb(gz(buf))} | ${kb(br(buf))} |`);
if (baseline) console.log(`\nmain script growth (brotli): ${kb(br(main) - br(baseline))}; the translator alone: ${kb(br(mechanism))} (limit 15 KB)`);
