// A gzip'd POSIX tar (ustar) of a few regular files, written and read in memory: the format of
// `cabinet backup`, so an admin can look inside with `tar tzf` without cabinet. Only what the
// backup needs: flat names under 100 bytes, regular files, no links.
import { gunzipSync, gzipSync } from 'node:zlib';

export interface ArchiveEntry {
  name: string;
  data: Buffer;
  mode?: number;
}

const BLOCK = 512;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function header(entry: ArchiveEntry, mtime: number): Buffer {
  const h = Buffer.alloc(BLOCK);
  const name = Buffer.from(entry.name, 'utf8');
  if (name.length === 0 || name.length > 99 || entry.name.includes('/')) throw new Error(`archive entry name ${entry.name} is not a flat name under 100 bytes`);
  name.copy(h, 0);
  h.write(octal(entry.mode ?? 0o600, 8), 100, 'latin1');
  h.write(octal(0, 8), 108, 'latin1'); // uid
  h.write(octal(0, 8), 116, 'latin1'); // gid
  h.write(octal(entry.data.length, 12), 124, 'latin1');
  h.write(octal(mtime, 12), 136, 'latin1');
  h.write('        ', 148, 'latin1'); // checksum field counts as spaces while summing
  h.write('0', 156, 'latin1'); // regular file
  h.write('ustar\u000000', 257, 'latin1');
  let sum = 0;
  for (const byte of h) sum += byte;
  h.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return h;
}

export function writeArchive(entries: ArchiveEntry[], mtime = Math.floor(Date.now() / 1000)): Buffer {
  const parts: Buffer[] = [];
  for (const e of entries) {
    parts.push(header(e, mtime), e.data);
    const pad = (BLOCK - (e.data.length % BLOCK)) % BLOCK;
    if (pad) parts.push(Buffer.alloc(pad));
  }
  parts.push(Buffer.alloc(BLOCK * 2));
  return gzipSync(Buffer.concat(parts), { level: 6 });
}

export class ArchiveError extends Error {}

export function readArchive(gz: Buffer): Map<string, Buffer> {
  let tar: Buffer;
  try {
    tar = gunzipSync(gz);
  } catch (err) {
    throw new ArchiveError(`not a gzip file (${(err as Error).message})`);
  }
  const files = new Map<string, Buffer>();
  for (let off = 0; off + BLOCK <= tar.length; ) {
    const h = tar.subarray(off, off + BLOCK);
    if (h.every((b) => b === 0)) break;
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : (h[i] as number);
    const stored = parseInt(h.toString('latin1', 148, 156).replace(/\0.*$/, '').trim(), 8);
    if (stored !== sum) throw new ArchiveError(`tar header checksum mismatch at byte ${off}`);
    const name = h.toString('utf8', 0, 100).replace(/\0.*$/s, '');
    const size = parseInt(h.toString('latin1', 124, 136).replace(/\0.*$/, '').trim() || '0', 8);
    const type = h.toString('latin1', 156, 157);
    off += BLOCK;
    if (off + size > tar.length) throw new ArchiveError(`tar entry ${name} is truncated`);
    if (type === '0' || type === '\0') files.set(name, Buffer.from(tar.subarray(off, off + size)));
    off += Math.ceil(size / BLOCK) * BLOCK;
  }
  return files;
}
