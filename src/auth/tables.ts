// Tables of the auth module: revoked sessions, login challenges and the security log.
import { col, defineTable } from '../db/table.js';

/** Sessions ended by logout before their expiry; a token whose sid is here is refused. */
export const revokedSessions = defineTable('auth_revoked_sessions', {
  sid: col.id(),
  subject: col.text({ notNull: true }),
  revoked_at: col.timestamp({ notNull: true }),
  expires_at: col.timestamp({ notNull: true }),
}, { indexes: [{ name: 'auth_revoked_sessions_expires', columns: ['expires_at'] }] });

/** Login challenges (contract 2.3). Secrets (nonce, code) are stored as hashes only. */
export const challenges = defineTable('auth_challenges', {
  id: col.id(),
  method: col.text({ notNull: true }),
  status: col.text({ notNull: true }),
  nonce_hash: col.text(),
  code_hash: col.text(),
  bound_passkey_id: col.text(),
  bound_subject: col.text(),
  bound_role: col.text(),
  bound_scope_type: col.text(),
  bound_tenant_id: col.text(),
  bound_site_id: col.text(),
  attempts: col.integer({ notNull: true }),
  client_address: col.text(),
  created_at: col.timestamp({ notNull: true }),
  expires_at: col.timestamp({ notNull: true }),
  completed_at: col.timestamp(),
  passkey_id: col.text(),
}, { indexes: [{ name: 'auth_challenges_status_expires', columns: ['status', 'expires_at'] }] });

/**
 * Every login, logout, allow and deny of an auth or action check. One entry per API request, so
 * its bytes are most of what a site with a tablet writes to its flash (docs/storage-and-reads.md,
 * "Writes sized to the data"). The rows are kept in the order they are listed, keyed by (at, id)
 * (SQLite: WITHOUT ROWID, the row and its key are one b-tree), so the newest-first list, the
 * retention purge and the id's uniqueness need no index of their own. On SQLite (a box) no other
 * index: a tenant's list reads the key newest first and skips other tenants' entries, which on a
 * box are few (the master's); PostgreSQL (a server of many tenants) keeps the tenant index. Before,
 * a rowid table with three indexes (at; tenant and at; the text id): 99 pages of 1 KiB for 300
 * entries, now 66. Allowed reads repeated within the minute are merged into one entry (count,
 * last_at; migration auth/0003): a tablet's polling was an entry a request.
 */
export const securityLog = defineTable('auth_security_log', {
  id: col.text({ notNull: true }),
  at: col.timestamp({ notNull: true }),
  category: col.text({ notNull: true }),
  result: col.text({ notNull: true }),
  event: col.text({ notNull: true }),
  method: col.text({ notNull: true }),
  path: col.text({ notNull: true }),
  tenant_id: col.text(),
  subject: col.text(),
  role: col.text(),
  client_address: col.text(),
  reason: col.text(),
  request_id: col.text(),
  route_context: col.json({ notNull: true }),
  // An allowed read repeated within the minute is one entry (src/auth/security-log.ts): how many
  // requests it stands for, and the time of the last (null when it stands for one: no bytes).
  count: col.integer({ notNull: true, default: 1 }),
  last_at: col.timestamp(),
}, { primaryKey: ['at', 'id'], indexes: [{ name: 'auth_security_log_tenant_at', columns: ['tenant_id', 'at'], only: 'postgres' }] });

/** UI access rules per shell resource (ui.sidebar.menu), per tenant ('*' = the fleet default). */
export const uiAccess = defineTable('auth_ui_access', {
  id: col.text({ notNull: true }),
  tenant_id: col.text({ notNull: true }),
  rules: col.json({ notNull: true }),
  updated_at: col.timestamp({ notNull: true }),
  updated_by: col.text({ notNull: true }),
}, { primaryKey: ['id', 'tenant_id'] });
export const authTables = [revokedSessions, challenges, securityLog, uiAccess];
