import { defineRecord } from '../../kernel/record.js';

/**
 * Login passkeys. `id` (PK-...) is a public identifier, never a credential; the credential
 * (RF-... or QR-...) is shown once at issue and stored only as an HMAC keyed by the session key.
 */
const TYPES = ['qr', 'rfid'] as const;

export const passkeyRecord = defineRecord('passkeys', {
  id: { type: 'string', label: 'Passkey', sortable: true, searchable: true, description: 'Public identifier (PK-...); it is never a credential and cannot log in.' },
  type: { type: 'string', label: 'Type', enum: TYPES, sortable: true, filter: { description: 'Passkey type.' } },
  holder: { type: 'string', label: 'Holder', sortable: true, searchable: true },
  scope: { type: 'string', label: 'Scope', sortable: true, searchable: true, description: 'master, tenant:<id> or tenant:<id>/site:<id>' },
  scope_type: { type: 'string', label: 'Scope type', enum: ['master', 'tenant'] },
  tenant_id: { type: 'string', label: 'Tenant', nullable: true, filter: { description: 'Tenant of the passkey (master callers).' } },
  site_id: { type: 'string', label: 'Site', nullable: true },
  role: { type: 'string', label: 'Role', enum: ['operator', 'admin', 'security'] },
  status: { type: 'string', label: 'Status', enum: ['active', 'revoked'], sortable: true, filter: { description: 'Passkey status.' } },
  issued_at: { type: 'datetime', label: 'Issued', sortable: true },
  issued_by: { type: 'string', label: 'Issued by' },
  expires_at: { type: 'datetime', label: 'Expires', sortable: true },
  last_used_at: { type: 'datetime', label: 'Last used', nullable: true },
  language: { type: 'string', label: 'Language', nullable: true, description: 'The language the tablet reads in while this card or badge is logged in (en, ru, es or a language the site added); null: the site\'s default (setting site_language).' },
  revoked_at: { type: 'datetime', label: 'Revoked', nullable: true, internal: true },
  credential_digest: { type: 'string', label: 'Credential digest', internal: true, column: { unique: true } },
}, { indexes: [{ name: 'passkeys_tenant_status', columns: ['tenant_id', 'status'] }] });

export const passkeys = passkeyRecord.table;
export type PasskeyRow = typeof passkeyRecord.row;
