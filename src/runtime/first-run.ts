// First run: while no active admin passkey exists nobody can log in (every login needs a passkey),
// so the service says, in its log and through GET /api/v1/auth/passkey/status, the one command
// that creates the first admin card. The command is built for this process as it runs: the same
// program, user, configuration file and data directory, so it can be pasted as it is.
// On an edge box that card is the administrator of the box's own tenant and site (a master card
// sees no industry workspace); the ids are fixed at first start in <data_dir>/site.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig, type Config } from '../config.js';
import type { Database } from '../db/client.js';
import { isBundled } from './native.js';
import { DATA_FILE_MODE, makeDataDir } from './data-dir.js';

/** The configuration file `cabinet serve` was started with (set by src/main.ts). */
let configFile: string | undefined;
export function rememberConfigFile(file: string | undefined): void {
  configFile = file ? resolve(file) : undefined;
}

/** True while no admin passkey is active (not revoked, not expired). */
export async function setupRequired(db: Database): Promise<boolean> {
  const rows = await db.rows<{ n: number | string }>(
    sql`select count(*) as n from passkeys where role = 'admin' and status = 'active' and expires_at > ${new Date().toISOString()}`,
  );
  return Number(rows[0]?.n ?? 0) === 0;
}

const quote = (s: string) => (/^[A-Za-z0-9_./:=@%+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

function onPath(file: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => dir && resolve(dir) === dirname(file) && existsSync(join(dir, 'cabinet')));
}

export interface BoxIdentity { tenant_id: string; site_id: string }

export const SITE_FILE = 'site.json';
const IDENT = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/** The box's site id from its host name (a box names its site), or site-1 without a usable one. */
export function siteIdFromHost(host: string): string {
  const id = host.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/^[^a-z0-9]+/, '').slice(0, 64).replace(/[^a-z0-9]+$/, '');
  return id || 'site-1';
}

const identities = new Map<string, BoxIdentity>();

/**
 * The edge box's own tenant and site: read from <data_dir>/site.json, written there at first start
 * when missing (tenant farm-<8 hex>, site from the host name). Written before anyone can log in,
 * it never changes afterwards: cards, records and the master's register-site all use these ids.
 * An installer who wants other ids writes the file before the first start.
 */
export function boxIdentity(dataDir: string): BoxIdentity {
  const file = resolve(dataDir, SITE_FILE);
  const known = identities.get(file);
  if (known) return known;
  let id: BoxIdentity;
  if (existsSync(file)) {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as Partial<BoxIdentity>;
    if (typeof parsed.tenant_id !== 'string' || !IDENT.test(parsed.tenant_id) || typeof parsed.site_id !== 'string' || !IDENT.test(parsed.site_id)) {
      throw new Error(`${file} must hold {"tenant_id": "...", "site_id": "..."}: 1-64 of A-Z a-z 0-9 . _ : - each`);
    }
    id = { tenant_id: parsed.tenant_id, site_id: parsed.site_id };
  } else {
    id = { tenant_id: `farm-${randomBytes(4).toString('hex')}`, site_id: siteIdFromHost(hostname()) };
    try {
      // Owner-only like everything in the data directory: nothing on the box needs others to read it.
      makeDataDir(dataDir);
      writeFileSync(file, `${JSON.stringify(id, null, 2)}\n`, { flag: 'wx', mode: DATA_FILE_MODE });
    } catch (err) {
      // Another process (the CLI beside the service) wrote it first: theirs holds.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      return boxIdentity(dataDir);
    }
  }
  identities.set(file, id);
  return id;
}

/** The box's identity for a diagnostic answer: undefined in cloud-multi or when site.json cannot be read or written. */
export function siteOf(config: Config): BoxIdentity | undefined {
  if (config.mode !== 'edge-single') return undefined;
  try {
    return boxIdentity(config.data_dir);
  } catch {
    return undefined;
  }
}

/**
 * The scope of the first admin card: master in the cloud; on an edge box a tenant card, which the
 * CLI binds to the box's own tenant and site (site.json, fixed here so the hint and the card agree).
 * The command names no ids, so the package can print the same one before the first start.
 */
export function firstCardScope(config: Config): string[] {
  if (config.mode === 'cloud-multi') return ['--scope-type', 'master'];
  boxIdentity(config.data_dir);
  return ['--scope-type', 'tenant'];
}

/** The exact command that creates the first admin card for this service. */
export function setupCommand(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const parts: string[] = [];
  if (isBundled()) {
    // Run it as the service's user, so the files it touches stay the service's.
    const uid = process.getuid?.();
    if (uid !== undefined && uid !== 0) parts.push('sudo', '-u', quote(userInfo().username));
    // Under systemd the addons are extracted to CacheDirectory=; the command uses the same one.
    const cache = env.CABINET_CACHE_DIR ?? env.CACHE_DIRECTORY?.split(':')[0];
    if (cache && uid !== 0) parts.push(`CABINET_CACHE_DIR=${quote(cache)}`);
    const exe = process.execPath;
    parts.push(exe.endsWith('/cabinet') && onPath(exe) ? 'cabinet' : quote(exe));
  } else {
    parts.push('npx', 'tsx', 'src/main.ts');
  }
  parts.push('passkey', 'issue');
  let fileDataDir: string | undefined;
  if (configFile) {
    parts.push('--config', quote(configFile));
    try {
      fileDataDir = resolve(loadConfig({ config: configFile }, {}).data_dir);
    } catch {
      fileDataDir = undefined;
    }
  }
  const dataDir = resolve(config.data_dir);
  if (dataDir !== fileDataDir && !config.database_url) parts.push('--data-dir', quote(dataDir));
  parts.push('--type', 'rfid', '--holder', '"Site admin"', '--role', 'admin', ...firstCardScope(config), '--card-uid', '<card UID>');
  return parts.join(' ');
}

/** What to do with the card once the command has made it. */
export const LOGIN_HINT = 'then hold the card to the panel\'s reader, or type the credential the command prints (RF-<card UID>) into the login screen\'s card field';

/** The first-start line of the log: the command, and how to log in with its card. */
export function setupMessage(config: Config): string {
  return `no admin passkey yet: create the first admin card with: ${setupCommand(config)}; ${LOGIN_HINT}`;
}
