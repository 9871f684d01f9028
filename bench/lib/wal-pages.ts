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
  /** Distinct pages among the frames: what a checkpoint copies into the database file. */
  pages: number;
  /** Distinct 4 KiB blocks of the database file those pages fall in: what a kernel with 4 KiB page-cache pages writes back for the copy. */
  blocks: number;
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
  // Pages no table owns: the pointer map of auto-vacuum (every 1 + usable/5 pages from page 2),
  // the free list's trunk pages, and pages free (or past the file's end) when counted.
  const autoVacuum = ptrmapOf(file);
  const trunks = freelistTrunks(file, s.pageSize);
  const counts = new Map<string, number>();
  for (const p of pages) {
    const name = p === 1 ? 'page 1 (header, schema)' : (owner.get(p) ?? (autoVacuum && isPtrmap(p, s.pageSize) ? '(pointer map)' : trunks.has(p) ? '(free-list trunk)' : '(free or new page)'));
    counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  const commits = s.ends.slice(restarted ? 0 : mark.frames).filter(Boolean).length;
  const distinct = new Set(pages);
  const blocks = new Set([...distinct].map((p) => Math.floor(((p - 1) * s.pageSize) / 4096)));
  return { frames: pages.length, commits, pageSize: s.pageSize, restarted, byTree: [...counts].sort((a, b) => b[1] - a[1]), pages: distinct.size, blocks: blocks.size };
}

function ptrmapOf(file: string): boolean {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    return Number(db.pragma('auto_vacuum', { simple: true })) !== 0;
  } finally {
    db.close();
  }
}

/** Whether page `p` is a pointer-map page (auto-vacuum; no bytes reserved per page). */
function isPtrmap(p: number, pageSize: number): boolean {
  const span = Math.floor(pageSize / 5) + 1;
  return p >= 2 && (p - 2) % span === 0;
}

/** The free list's trunk pages, read from the database file (the log's newer copies aside). */
function freelistTrunks(file: string, pageSize: number): Set<number> {
  const trunks = new Set<number>();
  let fd: number;
  try { fd = openSync(file, 'r'); } catch { return trunks; }
  try {
    const head = Buffer.alloc(100);
    readSync(fd, head, 0, 100, 0);
    let next = head.readUInt32BE(32);
    const page = Buffer.alloc(8);
    while (next > 0 && !trunks.has(next) && trunks.size < 100_000) {
      trunks.add(next);
      if (readSync(fd, page, 0, 8, (next - 1) * pageSize) < 8) break;
      next = page.readUInt32BE(0);
    }
  } finally {
    closeSync(fd);
  }
  return trunks;
}
