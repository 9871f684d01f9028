'use strict';
// Main script of the single executable (build.mjs embeds it as the SEA `main`). The application is
// not in the SEA blob but in a trailer build.mjs appends to the executable (scripts/trailer.mjs
// writes and describes it): the bundle, its V8 code cache, the chunks of the dependencies loaded
// only when used, and the texts of `cabinet version` and `cabinet --help`.
//
// Why a trailer read through a file descriptor, not SEA assets: an asset is a view of the mapped
// executable, so the 3 MB bundle and its 3 MB cache stayed in RSS as file pages after the start,
// beside the string and the code compiled from them; read(2) into a buffer that is freed after the
// compile leaves only what V8 keeps. And `version`/`--help` are answered here from the texts the
// build asked of this very executable, without compiling or running the bundle.
//
// Why the code cache is ours, not the SEA's `useCodeCache`: Node makes that one right after
// compiling the bundle, before it runs, so it holds only the top-level code. A cache made after a
// training start (`createCachedData()` once the service answered /ready and a few requests)
// holds every function compiled by then. V8 checks it against its version, flags and the source
// and compiles normally when it does not match (`codeCache` of `cabinet __selfcheck native`).
//
// CABINET_BUILD_CODE_CACHE_OUT=<file> (build.mjs's training run only): write the cache there when
// the process exits. CABINET_CHUNKS_OUT=<file>: write the names of the chunks loaded then.
const fs = require('node:fs');
const vm = require('node:vm');

const MAGIC = 'CABINET-TRAILER1';
const FOOTER = 32; // MAGIC, then the index's offset and length as uint64 LE

// Held open for the process's life: chunks are read long after the start, possibly after a
// package upgrade replaced the file at this path; the descriptor still reads this executable.
const fd = fs.openSync(process.execPath, 'r');

function read(offset, length, buf = Buffer.allocUnsafeSlow(length)) {
  for (let done = 0; done < length; ) {
    const n = fs.readSync(fd, buf, done, length - done, offset + done);
    if (n === 0) throw new Error(`${process.execPath}: the trailer is cut short`);
    done += n;
  }
  return buf;
}

const footer = read(fs.fstatSync(fd).size - FOOTER, FOOTER);
if (footer.latin1Slice(0, MAGIC.length) !== MAGIC) throw new Error(`${process.execPath}: no cabinet trailer (not built by build.mjs?)`);
const index = JSON.parse(read(Number(footer.readBigUInt64LE(16)), Number(footer.readBigUInt64LE(24))).utf8Slice());

const FAST = { version: 'version', '--version': 'version', help: 'help', '--help': 'help', '-h': 'help' };
const fast = index.fast?.[FAST[process.argv[2] ?? 'help']];
if (fast !== undefined) {
  fs.closeSync(fd);
  fs.writeSync(1, fast);
} else {
  // Sections are ASCII (esbuild escapes the rest; build.mjs checks): latin1 is a copy, where a
  // UTF-8 decode would scan 3 MB at every start.
  //
  // Page faults: fresh memory is handed over by the kernel page by page, and on a virtual machine
  // each fault costs microseconds (about 17 us here: 2.4 MB is some 10 ms of CPU). So the module
  // wrapper is written around the section in the same buffer and the string is made from the
  // whole: a wrapper added by string concatenation made a cons string that V8 flattened into one
  // more 2 MB copy when it compiled it. And the code cache is then read into that same buffer
  // (its pages already mapped), since the source is a string by then. Together about 1,100
  // faults and 40 ms of CPU less per start (measured on this bundle with Node 24's own node).
  const PREFIX = '(function (exports, require, module, __filename, __dirname) {';
  const SUFFIX = '\n})';
  const wrapped = (name, scratchAtLeast = 0) => {
    const [offset, length] = index.sections[name];
    const total = PREFIX.length + length + SUFFIX.length;
    const buf = Buffer.allocUnsafeSlow(Math.max(total, scratchAtLeast));
    buf.latin1Write(PREFIX, 0);
    read(offset, length, buf.subarray(PREFIX.length, PREFIX.length + length));
    buf.latin1Write(SUFFIX, PREFIX.length + length);
    return { source: buf.latin1Slice(0, total), buf };
  };
  const compileSource = (name, source, cachedData) =>
    new vm.Script(source, {
      filename: name === 'main.cjs' ? 'cabinet.cjs' : `cabinet-${name.replace('/', '-')}`,
      cachedData,
      importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    });
  const compile = (name) => compileSource(name, wrapped(name).source);
  const run = (script) => {
    const mod = { exports: {} };
    script.runInThisContext()(mod.exports, require, mod, __filename, __dirname);
    return mod.exports;
  };

  // A dependency build.mjs left out of the bundle (its `chunk/<name>` section), compiled and run
  // the first time the bundle requires it.
  const chunks = new Map();
  globalThis.__CABINET_CHUNK__ = (name) => {
    if (!chunks.has(name)) {
      if (!index.sections[`chunk/${name}`]) throw new Error(`the executable has no chunk ${name}`);
      chunks.set(name, run(compile(`chunk/${name}`)));
    }
    return chunks.get(name);
  };
  globalThis.__CABINET_CHUNKS_LOADED__ = () => [...chunks.keys()];
  // CABINET_CHUNKS_OUT=<file> (test/binary/trailer.test.ts): the chunks loaded, written at exit.
  const chunksOut = process.env.CABINET_CHUNKS_OUT;
  if (chunksOut) process.once('exit', () => fs.writeFileSync(chunksOut, JSON.stringify([...chunks.keys()])));

  const cacheAt = index.sections['main.cache'];
  const main = wrapped('main.cjs', cacheAt ? cacheAt[1] : 0);
  const cachedData = cacheAt ? read(cacheAt[0], cacheAt[1], main.buf).subarray(0, cacheAt[1]) : undefined;
  const script = compileSource('main.cjs', main.source, cachedData);
  globalThis.__CABINET_CODE_CACHE__ = cachedData ? (script.cachedDataRejected ? 'rejected' : 'accepted') : 'none';
  const out = process.env.CABINET_BUILD_CODE_CACHE_OUT;
  if (out) process.once('exit', () => fs.writeFileSync(out, script.createCachedData()));
  script.runInThisContext()(module.exports, require, module, __filename, __dirname);
}
