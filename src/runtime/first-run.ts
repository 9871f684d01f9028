// First run: while no active admin passkey exists nobody can log in (every login needs a passkey),
// so the service says, in its log and through GET /api/v1/auth/passkey/status, the one command
// that creates the first admin card. The command is built for this process as it runs: the same
// program, user, configuration file and data directory, so it can be pasted as it is.
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { sql } from 'drizzle-orm';
import { loadConfig, type Config } from '../config.js';
import type { Database } from '../db/client.js';
import { isBundled } from './native.js';

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
  parts.push('--type', 'rfid', '--holder', '"Site admin"', '--role', 'admin', '--scope-type', 'master', '--card-uid', '<card UID>');
  return parts.join(' ');
}
