// Which b-trees a window's commits rewrote: the frames of a SQLite WAL, from a mark to its end,
// counted by the table or index that owns each page (dbstat). What the flash benchmarks print to
// say where the bytes go; a diagnostic, it reads the files and changes nothing.
import { openSync, readSync, closeSync, fstatSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';

export interface WalMark {
  /** Frames in the log when marked (valid for the log's current salts). */
  frames: number;
  salt: string;
}

interface WalScan {
  pageSize: number;
  salt: string;
  /** Page number of each valid frame, in log order. */
  pages: number[];
  /** Whether each frame ends a transaction. */
  ends: boolean[];
}

function scan(file: string): WalScan | undefined {
  let fd: number;
  try { fd = openSync(`${file}-wal`, 'r'); } catch { return undefined; }
  try {
    const size = fstatSync(fd).size;
    if (size < 32) return undefined;
    const head = Buffer.alloc(32);
    readSync(fd, head, 0, 32, 0);
    const pageSize = head.readUInt32BE(8);
    const s1 = head.readUInt32BE(16);
    const s2 = head.readUInt32BE(20);
    const frame = Buffer.alloc(24);
    const pages: number[] = [];
    const ends: boolean[] = [];
    for (let at = 32; at + 24 + pageSize <= size; at += 24 + pageSize) {
      readSync(fd, frame, 0, 24, at);
      // A frame of an older generation of the log (before its last restart) ends the valid part.
      if (frame.readUInt32BE(8) !== s1 || frame.readUInt32BE(12) !== s2) break;
      pages.push(frame.readUInt32BE(0));
      ends.push(frame.readUInt32BE(4) !== 0);
    }
    return { pageSize, salt: `${s1}:${s2}`, pages, ends };
  } finally {
    closeSync(fd);
  }
}

/** Where the log stands now; frames after it are the window's. */
export function walMark(file: string): WalMark {
  const s = scan(file);
  return { frames: s?.pages.length ?? 0, salt: s?.salt ?? '' };
}

export interface WalPages {
  /** Frames written since the mark (lower bound when the log restarted meanwhile). */
  frames: number;
  commits: number;
  pageSize: number;
  restarted: boolean;
  /** Frames per b-tree name, most first. */
  byTree: [string, number][];
}

/** Frames since `mark`, per table or index. */
export function walPagesSince(file: string, mark: WalMark): WalPages | undefined {
  const s = scan(file);
  if (!s) return undefined;
  // A mark on an empty log (just truncated) has no salt: the first generation written after it is the window's.
  const restarted = mark.salt !== '' && s.salt !== mark.salt;
  const pages = s.pages.slice(restarted ? 0 : mark.frames);
  const owner = new Map<number, string>();
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    for (const r of db.prepare('select name, pageno from dbstat').all() as { name: string; pageno: number }[]) owner.set(r.pageno, r.name);
  } finally {
    db.close();
  }
  const counts = new Map<string, number>();
  for (const p of pages) {
    const name = p === 1 ? 'page 1 (header, schema)' : (owner.get(p) ?? '(free or new page)');
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const commits = s.ends.slice(restarted ? 0 : mark.frames).filter(Boolean).length;
  return { frames: pages.length, commits, pageSize: s.pageSize, restarted, byTree: [...counts].sort((a, b) => b[1] - a[1]) };
}
