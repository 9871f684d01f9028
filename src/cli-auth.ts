// `cabinet token` and `cabinet passkey issue`: first use of a new box, and automation. They use
// the service's own configuration (secret, data directory, database).
import { loadConfig, parseFlags, ConfigError, type Config } from './config.js';
import { openDatabase } from './db/client.js';
import { migrateAll } from './modules/migrate-all.js';
import { loadSessionKey } from './auth/secret.js';
import { signSession } from './auth/tokens.js';
import { createSessionService } from './auth/sessions.js';
import { Store } from './db/store.js';
import { scopeString } from './auth/scope.js';
import { passkeys, type PasskeyRow } from './modules/passkeys/schema.js';
import { newPasskeyId, qrCredential, rfidCredential } from './modules/passkeys/credentials.js';
import { boxIdentity } from './runtime/first-run.js';
import { createCatalogues } from './i18n/site-catalogues.js';
import { join } from 'node:path';

const ROLES = ['operator', 'admin', 'security'] as const;
type Role = (typeof ROLES)[number];

/**
 * On an edge box a tenant scope without --tenant-id is the box's own tenant and site
 * (<data_dir>/site.json), so the first-card command is the same on every box and can be printed
 * by the package before the service has ever started.
 */
function withBoxScope(values: Record<string, string>, config: Config): Record<string, string> {
  const scope = values.scope_type ?? values.scope;
  if (scope !== 'tenant' || values.tenant_id || config.mode !== 'edge-single') return values;
  if (values.site_id) throw new ConfigError('--site-id needs --tenant-id (without both, the card is for the box\'s own tenant and site)');
  const box = boxIdentity(config.data_dir);
  return { ...values, tenant_id: box.tenant_id, site_id: box.site_id };
}

function identity(values: Record<string, string>) {
  const role = values.role as Role | undefined;
  if (!role || !ROLES.includes(role)) throw new ConfigError(`--role must be one of ${ROLES.join(', ')}`);
  const scope = values.scope_type ?? values.scope;
  if (scope !== 'master' && scope !== 'tenant') throw new ConfigError('--scope-type must be master or tenant');
  if (scope === 'tenant' && !values.tenant_id) throw new ConfigError('a tenant scope needs --tenant-id (in cloud-multi; on an edge box it defaults to the box\'s own tenant)');
  if (scope === 'master' && (values.tenant_id || values.site_id)) throw new ConfigError('a master scope takes no --tenant-id or --site-id');
  return { role, scope_type: scope, ...(values.tenant_id ? { tenant_id: values.tenant_id } : {}), ...(values.site_id ? { site_id: values.site_id } : {}) } as const;
}

function minutes(value: string | undefined, fallback: number, flag: string): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 5 * 365 * 24 * 60) throw new ConfigError(`${flag} must be whole minutes from 1 to 2628000`);
  return n;
}

export async function tokenCommand(args: string[]): Promise<number> {
  const { values: flags } = parseFlags(args, ['role', 'scope-type', 'tenant-id', 'site-id', 'ttl', 'subject']);
  const config: Config = loadConfig(flags);
  const values = withBoxScope(flags, config);
  const who = identity(values);
  const { key } = loadSessionKey({ secret: config.session_secret, dataDir: config.data_dir });
  const { token, expiresAt } = await signSession(key, { subject: values.subject ?? `cli-${who.role}`, ...who, ttlMinutes: minutes(values.ttl, config.session_ttl_minutes, '--ttl') });
  process.stdout.write(`${token}\n`);
  process.stderr.write(`expires ${expiresAt.toISOString()}\n`);
  return 0;
}

export async function passkeyCommand(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  if (sub !== 'issue') throw new ConfigError("usage: cabinet passkey issue --type rfid|qr --holder NAME --role R --scope-type master|tenant [--tenant-id T --site-id S] [--card-uid HEX] [--ttl MIN] [--language CODE]");
  const { values: flags } = parseFlags(rest, ['type', 'holder', 'role', 'scope-type', 'tenant-id', 'site-id', 'card-uid', 'ttl', 'language']);
  const config = loadConfig(flags);
  const values = withBoxScope(flags, config);
  const who = identity({ role: 'admin', ...values });
  const type = values.type;
  if (type !== 'rfid' && type !== 'qr') throw new ConfigError('--type must be rfid or qr');
  if (!values.holder?.trim()) throw new ConfigError('--holder is required');
  if (values.card_uid && (type !== 'rfid' || !/^[0-9A-Fa-f]{8,32}$/.test(values.card_uid))) throw new ConfigError('--card-uid is 8-32 hex digits, for rfid');
  // The card's language: one the box offers (shipped, or a catalogue in data_dir/i18n); without it, the site's default.
  const offered = createCatalogues({ dir: join(config.data_dir, 'i18n') }).languages().map((l) => l.code);
  if (values.language !== undefined && !offered.includes(values.language)) throw new ConfigError(`--language must be one of ${offered.join(', ')} (a language this box offers)`);
  const db = await openDatabase({ databaseUrl: config.database_url, dataDir: config.data_dir });
  try {
    await migrateAll(db);
    const { key } = loadSessionKey({ secret: config.session_secret, dataDir: config.data_dir });
    const sessions = createSessionService(db, key, config.session_ttl_minutes);
    const credential = type === 'rfid' ? rfidCredential(values.card_uid) : qrCredential();
    const now = new Date();
    const row: PasskeyRow = {
      id: newPasskeyId(), type, holder: values.holder.trim(), scope: scopeString(who), scope_type: who.scope_type,
      tenant_id: values.tenant_id ?? null, site_id: values.site_id ?? null, role: who.role, status: 'active',
      issued_at: now.toISOString(), issued_by: 'cli', expires_at: new Date(now.getTime() + minutes(values.ttl, 365 * 24 * 60, '--ttl') * 60_000).toISOString(),
      last_used_at: null, revoked_at: null, credential_digest: sessions.digest(credential), language: values.language ?? null,
    };
    const store = new Store<PasskeyRow>(db, passkeys);
    if (await store.find({ credential_digest: row.credential_digest })) throw new ConfigError('this card is already registered');
    await store.insert(row);
    process.stdout.write(`passkey ${row.id} (${row.type}, ${row.role}, ${row.scope}, holder ${row.holder}${row.language ? `, language ${row.language}` : ''}) expires ${row.expires_at}\ncredential ${credential}\n`);
    process.stderr.write('The credential is shown only now; it is stored as a keyed hash.\n');
  } finally {
    await db.close();
  }
  return 0;
}
