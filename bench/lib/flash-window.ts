// One measured window of the flash benchmarks: what the process hands its storage between a
// checkpoint at the start and a checkpoint at the end, so that a window pays for the copy of its
// own log into the database file (a window shorter than the server's checkpoint threshold would
// otherwise leave that copy out), beside the readings' own bytes: the record payload (SQLite's
// dbstat) that the window added to the tables holding the readings, without indexes or roll-ups.
import { closeSync, openSync, readSync } from 'node:fs';
import BetterSqlite3 from 'better-sqlite3';
import { procIo } from './proc-io.js';
import { walMark, walPagesSince, type WalMark, type WalPages } from './wal-pages.js';

export interface FlashWindow {
  /** write_bytes between the two checkpoints (the end checkpoint included). */
  disk: number;
  /** Of which the end checkpoint: the window's distinct pages copied into the database file. */
  checkpointDisk: number;
  /** wchar over the same span (sockets included). */
  all: number;
  /** Record bytes added to the readings' tables. */
  own: number;
  wal: WalPages | undefined;
}

/** Record payload (dbstat) of `tables`. */
export function payload(file: string, tables: readonly string[]): number {
  const db = new BetterSqlite3(file, { readonly: true });
  try {
    const q = db.prepare('select coalesce(sum(payload), 0) as n from dbstat where name = ? and aggregate = 1');
    return tables.reduce((sum, t) => sum + Number((q.get(t) as { n: number }).n), 0);
  } finally {
    db.close();
  }
}

/** Copies the whole log into the database file from a connection of this process (its bytes count). */
export function checkpoint(file: string): void {
  const db = new BetterSqlite3(file);
  try {
    db.pragma('busy_timeout = 5000');
    db.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    db.close();
  }
}

export interface OpenWindow {
  end(): FlashWindow;
}

/** The salt of the log's header, or '' while the log is empty. */
function salt(file: string): string {
  try {
    const fd = openSync(`${file}-wal`, 'r');
    try {
      const head = Buffer.alloc(24);
      return readSync(fd, head, 0, 24, 0) === 24 ? `${head.readUInt32BE(16)}:${head.readUInt32BE(20)}` : '';
    } finally {
      closeSync(fd);
    }
  } catch {
    return '';
  }
}

export function openWindow(file: string, tables: readonly string[]): OpenWindow {
  checkpoint(file);
  const own0 = payload(file, tables);
  const mark: WalMark = walMark(file);
  const io0 = procIo();
  // A checkpoint that copies the whole log (the storage run's, hourly and a minute after start)
  // makes the next commit start the log again: the frames before it are no longer there to count.
  const salts = new Set<string>();
  const watch = setInterval(() => { const x = salt(file); if (x) salts.add(x); }, 100);
  return {
    end() {
      clearInterval(watch);
      const wal = walPagesSince(file, mark);
      if (wal && salts.size > 1) wal.restarted = true;
      const before = procIo();
      checkpoint(file);
      const io1 = procIo();
      return { disk: io1.writeBytes - io0.writeBytes, checkpointDisk: io1.writeBytes - before.writeBytes, all: io1.wchar - io0.wchar, own: payload(file, tables) - own0, wal };
    },
  };
}

/** Where a window's log frames went, as one line. */
export function walLine(w: WalPages | undefined, top = 6): string {
  if (!w) return 'no log';
  const trees = w.byTree.slice(0, top).map(([name, n]) => `${name} ${n}`).join(', ');
  return `${w.frames} frames of ${w.pageSize} B in ${w.commits} commits${w.restarted ? ' (log restarted: lower bound)' : ''}, ${w.pages} pages in ${w.blocks} 4 KiB blocks: ${trees}`;
}

/**
 * The window's bytes on a kernel that writes back 4 KiB page-cache pages (the box's): its log
 * frames (page + 24 B header) and, for the checkpoint, each distinct 4 KiB block of the database
 * file its pages fall in. write_bytes on a kernel with large page-cache folios (this machine's)
 * counts a whole folio for each scattered page the checkpoint writes: tens of KiB for 1 KiB.
 * The log index (-shm) and a log block written twice are not in it.
 */
export function modelBytes(w: WalPages | undefined): number {
  return w ? w.frames * (w.pageSize + 24) + w.blocks * 4096 : 0;
}
