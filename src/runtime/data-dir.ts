// The data directory holds the session key, the CA's key, credential digests and the site's
// records: the service's user alone reads it, whoever made it (the package, the service, a CLI
// command run before the first start, an installer's mkdir). Every writer uses these modes; at each
// start the service makes private again what someone else loosened (issue 33, item 6).
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';

export const DATA_DIR_MODE = 0o700;
export const DATA_FILE_MODE = 0o600;

const mine = (uid: number) => {
  const me = process.getuid?.();
  return me === undefined || me === 0 || me === uid;
};

/** Makes the data directory (and missing parents) owner-only; an existing one of ours is made owner-only too. */
export function makeDataDir(dir: string): void {
  if (!existsSync(dir)) mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE });
  const st = lstatSync(dir);
  // The umask may have taken bits off a new one; an old one may have been made 0755 by hand.
  if (st.isDirectory() && (st.mode & 0o777) !== DATA_DIR_MODE && mine(st.uid)) chmodSync(dir, DATA_DIR_MODE);
}

export interface Tightened {
  /** Paths (relative to the data directory) whose mode was changed. */
  changed: string[];
  /** Paths that others may read and this process could not change (not its own). */
  failed: string[];
}

/**
 * Walks the data directory: directories become 0700 and files 0600 when they allow anything to
 * group or others. Symbolic links are left alone (they may point out of it). A box's directory
 * holds a handful of files; a PGlite cluster in it (tests) about a thousand, a few milliseconds.
 */
export function tightenDataDir(dir: string): Tightened {
  const out: Tightened = { changed: [], failed: [] };
  if (!existsSync(dir)) return out;
  const visit = (path: string, depth: number) => {
    let st;
    try {
      st = lstatSync(path);
    } catch {
      return; // gone meanwhile (a SQLite -shm file)
    }
    if (st.isSymbolicLink()) return;
    const want = st.isDirectory() ? DATA_DIR_MODE : DATA_FILE_MODE;
    if ((st.mode & 0o077) !== 0 || (st.isDirectory() && (st.mode & 0o700) !== 0o700)) {
      const name = relative(dir, path) || '.';
      try {
        if (!mine(st.uid)) throw new Error('not ours');
        chmodSync(path, want);
        out.changed.push(name);
      } catch {
        out.failed.push(name);
      }
    }
    if (st.isDirectory() && depth < 8) {
      let entries: string[] = [];
      try {
        entries = readdirSync(path);
      } catch {
        return;
      }
      for (const e of entries) visit(join(path, e), depth + 1);
    }
  };
  visit(dir, 0);
  return out;
}
