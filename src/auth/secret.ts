// The HS256 session key: from configuration, or generated once into the data directory with
// mode 0600. It is imported once at start and never logged.
import { randomBytes, createSecretKey, type KeyObject } from 'node:crypto';
import { chmodSync, existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDir } from '../runtime/data-dir.js';

export class SecretError extends Error {}

export function loadSessionKey(opts: { secret: string; dataDir: string }): { key: KeyObject; source: 'config' | 'file' | 'generated' } {
  if (opts.secret) {
    if (Buffer.byteLength(opts.secret) < 32) throw new SecretError('session_secret must be at least 32 bytes');
    return { key: createSecretKey(Buffer.from(opts.secret)), source: 'config' };
  }
  const file = join(opts.dataDir, 'session.key');
  if (existsSync(file)) {
    const mode = statSync(file).mode & 0o777;
    if (mode & 0o077) chmodSync(file, 0o600);
    const raw = readFileSync(file, 'utf8').trim();
    if (raw.length < 43) throw new SecretError(`session key file ${file} is too short; delete it to generate a new one (this logs everyone out)`);
    return { key: createSecretKey(Buffer.from(raw, 'base64url')), source: 'file' };
  }
  makeDataDir(opts.dataDir);
  const raw = randomBytes(32).toString('base64url');
  try {
    writeFileSync(file, `${raw}\n`, { mode: 0o600, flag: 'wx' });
  } catch (err) {
    // Another process sharing this data directory (a master replica starting at the same time)
    // wrote it first: use its key, so a session issued by either is valid at both.
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    return loadSessionKey(opts);
  }
  return { key: createSecretKey(Buffer.from(raw, 'base64url')), source: 'generated' };
}
