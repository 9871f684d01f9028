// Native addons shipped inside the single executable are written to a cache directory, under a
// file name that carries their sha256, and loaded from there with process.dlopen.
//
// - The directory is not /tmp (systemd-tmpfiles and PrivateTmp would pull it away from a running
//   service); see addonCacheDir for the lookup order.
// - A file is written under a temporary name in the same directory, fsynced, then renamed, so a
//   reader never sees a half-written addon, and two processes starting at once both end up with a
//   complete file.
// - An existing file is only reused when its content hash matches; anything else is replaced.
//   A file whose hash was checked gets a stamp (<cache>/verified/<file>: the hash with the file's
//   inode, size, ctime and mtime); while the file's stat matches its stamp it is not read and
//   hashed again at every start (a 2 MB read and sha256, about 4 % of a start's CPU). Any write,
//   chmod or replacement of the file changes its ctime or inode, so the next start hashes it.
// - Files of earlier builds (same addon, other hash) are removed: after an upgrade they are dead
//   weight. Removing a file another process has mapped is safe on Linux.
import {
  closeSync,
  constants as fsConstants,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { homedir } from 'node:os';
import { constants as osConstants } from 'node:os';
import { basename, join } from 'node:path';

/** Where extracted addons live: $CABINET_CACHE_DIR, $CACHE_DIRECTORY (systemd CacheDirectory=),
 *  $XDG_CACHE_HOME/cabinet, ~/.cache/cabinet - first one set wins. */
export function addonCacheDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CABINET_CACHE_DIR) return env.CABINET_CACHE_DIR;
  // systemd passes a colon-separated list when the unit names several cache directories.
  if (env.CACHE_DIRECTORY) return env.CACHE_DIRECTORY.split(':')[0] as string;
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'cabinet');
  const home = env.HOME || homedir();
  if (!home || home === '/' || home === '/nonexistent') {
    throw new Error(
      'no cache directory for native addons: set CABINET_CACHE_DIR (or run under systemd with CacheDirectory=cabinet)',
    );
  }
  return join(home, '.cache', 'cabinet');
}

// node:crypto is loaded on first use, not with this module: the single executable imports this
// module at every start, and `cabinet --help` has no addon to check (loading node:crypto is a
// few ms of a start that is meant to take a bare Node's time).
const crypto = () => process.getBuiltinModule('node:crypto');

export function sha256(data: Uint8Array): string {
  return crypto().createHash('sha256').update(data).digest('hex');
}

const HEX64 = /^[0-9a-f]{64}$/;
const STALE_TMP_MS = 60 * 60 * 1000;

export interface MaterializeOptions {
  /** Base name, e.g. "better_sqlite3"; the file becomes `<base>-<sha256>.node`. */
  name: string;
  /** Addon bytes, or a function giving them: with sha256 set, it is only called when the cache
   *  holds no intact copy (the executable's embedded bytes then stay untouched, out of RSS). */
  data: Uint8Array | (() => Uint8Array);
  /** Expected sha256 (from the build manifest). When given, the embedded bytes are checked too. */
  sha256?: string;
  /** Cache directory; default addonCacheDir(). Addons go to `<dir>/native/`. */
  dir?: string;
}

/** Writes the addon to the cache (unless an identical file is there) and returns its path. */
export function materializeAddon(opts: MaterializeOptions): string {
  if (!/^[A-Za-z0-9_.+-]+$/.test(opts.name)) throw new Error(`bad addon name ${JSON.stringify(opts.name)}`);
  const root = opts.dir ?? addonCacheDir();
  const dir = join(root, 'native');
  const stamps = join(root, 'verified');
  if (opts.sha256 && HEX64.test(opts.sha256) && typeof opts.data === 'function') {
    const cached = join(dir, `${opts.name}-${opts.sha256}.node`);
    if (isIntact(cached, opts.sha256, undefined, stamps)) {
      prune(dir, opts.name, cached);
      return cached;
    }
  }
  const data = typeof opts.data === 'function' ? opts.data() : opts.data;
  const hash = sha256(data);
  if (opts.sha256 && opts.sha256 !== hash) {
    throw new Error(
      `embedded addon ${opts.name} is corrupt: sha256 ${hash}, build manifest says ${opts.sha256}`,
    );
  }
  const file = join(dir, `${opts.name}-${hash}.node`);

  if (isIntact(file, hash, data.byteLength, stamps)) {
    prune(dir, opts.name, file);
    return file;
  }

  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (err) {
    throw new Error(`cannot create the addon cache directory ${dir}: ${(err as Error).message}`, {
      cause: err,
    });
  }
  const tmp = join(dir, `.${opts.name}-${hash}.${process.pid}.${crypto().randomBytes(4).toString('hex')}.tmp`);
  let fd: number | undefined;
  try {
    fd = openSync(tmp, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o555);
    let off = 0;
    while (off < data.byteLength) off += writeSync(fd, data, off, data.byteLength - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = undefined;
    renameSync(tmp, file);
    stamp(stamps, file, hash);
  } catch (err) {
    if (fd !== undefined) closeSync(fd);
    try {
      unlinkSync(tmp);
    } catch {
      /* already gone */
    }
    throw new Error(`cannot write native addon ${file}: ${(err as Error).message}`, { cause: err });
  }
  prune(dir, opts.name, file);
  return file;
}

let hashChecks = 0;
/** How many cached files this process has read and hashed (tests: the stamp spares it). */
export function addonHashChecks(): number {
  return hashChecks;
}

function stampOf(file: string, hash: string): string {
  const st = statSync(file, { bigint: true });
  return `${hash} ${st.ino} ${st.size} ${st.ctimeNs} ${st.mtimeNs}`;
}

/** Records that file was checked to have hash. Best effort: without a stamp the next start hashes. */
function stamp(stamps: string, file: string, hash: string): void {
  try {
    mkdirSync(stamps, { recursive: true, mode: 0o700 });
    const target = join(stamps, basename(file));
    const tmp = `${target}.${process.pid}.tmp`;
    writeFileSync(tmp, stampOf(file, hash), { mode: 0o600 });
    renameSync(tmp, target);
  } catch {
    /* read-only or full: hash again next time */
  }
}

function isIntact(file: string, hash: string, size: number | undefined, stamps: string): boolean {
  try {
    if (size !== undefined && statSync(file).size !== size) return false;
    try {
      if (readFileSync(join(stamps, basename(file)), 'utf8') === stampOf(file, hash)) return true;
    } catch {
      /* no stamp yet */
    }
    hashChecks++;
    if (sha256(readFileSync(file)) !== hash) return false;
    stamp(stamps, file, hash);
    return true;
  } catch {
    return false;
  }
}

/** Removes other builds of the same addon and leftover temporary files. Best effort. */
function prune(dir: string, name: string, keep: string): void {
  pruneIn(dir, name, basename(keep));
  // The stamps of earlier builds' files go with them (a stamp has its file's name).
  pruneIn(join(dir, '..', 'verified'), name, basename(keep));
}

function pruneIn(dir: string, name: string, keep: string): void {
  let entries: string[];
  try {
    entries = readdirSync(dir);
  } catch {
    return;
  }
  const now = Date.now();
  for (const entry of entries) {
    const full = join(dir, entry);
    if (entry === keep) continue;
    try {
      if (entry.startsWith(`${name}-`) && entry.endsWith('.node')) {
        const h = entry.slice(name.length + 1, -'.node'.length);
        if (HEX64.test(h)) unlinkSync(full);
      } else if (entry.startsWith(`.${name}-`) && entry.endsWith('.tmp')) {
        if (now - statSync(full).mtimeMs > STALE_TMP_MS) unlinkSync(full);
      }
    } catch {
      /* another process may be pruning too */
    }
  }
}

/** process.dlopen wrapper: returns the addon's exports. */
export function dlopenAddon(file: string): object {
  const mod: { exports: object } = { exports: {} };
  process.dlopen(mod, file, osConstants.dlopen.RTLD_NOW);
  return mod.exports;
}
