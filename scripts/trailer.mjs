// The trailer build.mjs appends to the single executable, after the SEA blob was injected (the
// ELF loader ignores bytes past the last segment, and the SEA finds its blob through its note):
//
//   section bytes, one after the other          main.cjs (the bundle), main.cache (its V8 code
//                                               cache), chunk/<name> (dependencies loaded when used)
//   index: JSON {format: 1, sections: {name: [offset, length]}, fast?: {version, help}}
//   footer, 32 bytes: "CABINET-TRAILER1", the index's offset and length (uint64 LE)
//
// Offsets count from the start of the file. src/runtime/sea-loader.cjs reads it at every start.
import { appendFileSync, closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';

const MAGIC = 'CABINET-TRAILER1';
const FOOTER = 32;

/**
 * Appends the trailer to `file`.
 * @param {string} file
 * @param {{ sections: [string, Buffer][], fast?: { version: string, help: string } }} trailer
 */
export function appendTrailer(file, { sections, fast }) {
  let offset = readFileSync(file).length;
  const at = {};
  for (const [name, bytes] of sections) {
    appendFileSync(file, bytes);
    at[name] = [offset, bytes.length];
    offset += bytes.length;
  }
  const index = Buffer.from(JSON.stringify({ format: 1, sections: at, ...(fast ? { fast } : {}) }), 'utf8');
  const footer = Buffer.alloc(FOOTER);
  footer.write(MAGIC, 0, 'latin1');
  footer.writeBigUInt64LE(BigInt(offset), 16);
  footer.writeBigUInt64LE(BigInt(index.length), 24);
  appendFileSync(file, Buffer.concat([index, footer]));
}

/**
 * The trailer's index of `file`, and a reader of its sections; undefined when it has none.
 * @param {string} file
 */
export function readTrailer(file) {
  const fd = openSync(file, 'r');
  try {
    const read = (offset, length) => {
      const buf = Buffer.alloc(length);
      readSync(fd, buf, 0, length, offset);
      return buf;
    };
    const footer = read(fstatSync(fd).size - FOOTER, FOOTER);
    if (footer.toString('latin1', 0, MAGIC.length) !== MAGIC) return undefined;
    const index = JSON.parse(read(Number(footer.readBigUInt64LE(16)), Number(footer.readBigUInt64LE(24))).toString('utf8'));
    const sections = Object.fromEntries(Object.entries(index.sections).map(([name, [offset, length]]) => [name, read(offset, length)]));
    return { ...index, bytes: sections };
  } finally {
    closeSync(fd);
  }
}
