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

/** Every login, logout, allow and deny of an auth or action check. */
export const securityLog = defineTable('auth_security_log', {
  id: col.id(),
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
}, { indexes: [{ name: 'auth_security_log_at', columns: ['at'] }, { name: 'auth_security_log_tenant_at', columns: ['tenant_id', 'at'] }] });



/** UI access rules per shell resource (ui.sidebar.menu), per tenant ('*' = the fleet default). */
export const uiAccess = defineTable('auth_ui_access', {
  id: col.text({ notNull: true }),
  tenant_id: col.text({ notNull: true }),
  rules: col.json({ notNull: true }),
  updated_at: col.timestamp({ notNull: true }),
  updated_by: col.text({ notNull: true }),
}, { primaryKey: ['id', 'tenant_id'] });
export const authTables = [revokedSessions, challenges, securityLog, uiAccess];
