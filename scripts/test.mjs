// `npm test`: the type check and the lint side by side, then the suite (vitest run, with any
// arguments given after `npm test --`). tsc and eslint are each one thread and each builds the
// TypeScript program (the lint is type-aware): one after the other they took 100 s of a run on the
// 2-core machine, side by side the longer of the two. Each one's output is printed whole when it
// ends, so the two never interleave; the suite does not start when either fails.
import { spawn } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = join(ROOT, 'node_modules', '.bin');

/** Runs a tool with its output held; resolves with its exit code and what it printed. */
function held(name, args) {
  return new Promise((resolve) => {
    const child = spawn(join(BIN, name), args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    const out = [];
    child.stdout.on('data', (b) => out.push(b));
    child.stderr.on('data', (b) => out.push(b));
    child.on('error', (err) => resolve({ name, code: 1, text: `${name}: ${err.message}\n` }));
    child.on('close', (code, signal) => resolve({ name, code: code ?? (signal ? 1 : 0), text: Buffer.concat(out).toString('utf8') }));
  });
}

const started = Date.now();
const checks = await Promise.all([held('tsc', ['--noEmit']), held('eslint', ['.'])]);
let failed = false;
for (const c of checks) {
  if (c.text.trim()) process.stdout.write(`== ${c.name}\n${c.text}${c.text.endsWith('\n') ? '' : '\n'}`);
  if (c.code !== 0) {
    failed = true;
    process.stderr.write(`${c.name} failed (exit ${c.code})\n`);
  }
}
if (failed) process.exit(1);
process.stdout.write(`tsc and eslint passed in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);

const suite = spawn(join(BIN, 'vitest'), ['run', ...process.argv.slice(2)], { cwd: ROOT, stdio: 'inherit' });
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => suite.kill(sig));
suite.on('close', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
