import { col, defineTable } from '../../db/table.js';

/**
 * Login passkeys. `id` (PK-...) is a public identifier, never a credential; the credential
 * (RF-... or QR-...) is shown once at issue and stored only as an HMAC keyed by the session key.
 */
export const passkeys = defineTable('passkeys', {
  id: col.id(),
  type: col.text({ notNull: true }),
  holder: col.text({ notNull: true }),
  scope: col.text({ notNull: true }),
  scope_type: col.text({ notNull: true }),
  tenant_id: col.text(),
  site_id: col.text(),
  role: col.text({ notNull: true }),
  status: col.text({ notNull: true }),
  issued_at: col.timestamp({ notNull: true }),
  issued_by: col.text({ notNull: true }),
  expires_at: col.timestamp({ notNull: true }),
  last_used_at: col.timestamp(),
  revoked_at: col.timestamp(),
  credential_digest: col.text({ notNull: true, unique: true }),
}, { indexes: [{ name: 'passkeys_tenant_status', columns: ['tenant_id', 'status'] }] });

export interface PasskeyRow extends Record<string, unknown> {
  id: string;
  type: 'qr' | 'rfid';
  holder: string;
  scope: string;
  scope_type: 'master' | 'tenant';
  tenant_id: string | null;
  site_id: string | null;
  role: 'operator' | 'admin' | 'security';
  status: 'active' | 'revoked';
  issued_at: string;
  issued_by: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
  credential_digest: string;
}
