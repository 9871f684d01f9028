// Device credentials for MQTT (issue 33): one per publishing device or integration, apart from
// people's sessions. A credential is shown once when it is issued and stored only as a SHA-256
// digest; it names its device's topics (its telemetry to publish, its commands to subscribe to)
// and nothing else, is revocable, and is listed with its last use. It is not a session token:
// sessions.verify() refuses it, so it never opens the HTTP API.
//
// The digest is plain SHA-256, not the session key's HMAC as for passkeys: the secret is 32
// random bytes (nothing to guess), and a credential lives for years in a device's flash, so
// changing the session key (which ends every person's session) must not stop every device.
import { createHash, randomBytes } from 'node:crypto';
import { Store } from '../../db/store.js';
import { defineRecord } from '../../kernel/record.js';
import type { Services } from '../../kernel/context.js';

/** Every device credential starts with this, so the broker knows it from a session token (a JWT) without a lookup. */
export const DEVICE_CREDENTIAL_PREFIX = 'MQD-';
export const DEVICE_CREDENTIAL_ID_PREFIX = 'DC-';

const BASE32 = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789';
export const newCredentialId = () => `${DEVICE_CREDENTIAL_ID_PREFIX}${[...randomBytes(10)].map((b) => BASE32[b % 32]).join('')}`;
export const newDeviceCredential = () => `${DEVICE_CREDENTIAL_PREFIX}${randomBytes(32).toString('base64url')}`;
export const credentialDigest = (credential: string) => createHash('sha256').update(credential).digest('hex');
export const isDeviceCredential = (password: string) => password.startsWith(DEVICE_CREDENTIAL_PREFIX);

export const deviceCredentialRecord = defineRecord('device_credentials', {
  id: { type: 'string', label: 'Credential', sortable: true, searchable: true, description: 'Public identifier (DC-...); never a secret, it cannot connect.' },
  device_id: { type: 'string', label: 'Device', sortable: true, searchable: true, filter: { description: 'The device the credential publishes for (the last level of its telemetry topic).' } },
  tenant_id: { type: 'string', label: 'Tenant', filter: { description: 'Tenant of the credential (master callers).' } },
  site_id: { type: 'string', label: 'Site', nullable: true },
  name: { type: 'string', label: 'Name', nullable: true, searchable: true, description: 'What the installer calls the device (free text).' },
  status: { type: 'string', label: 'Status', enum: ['active', 'revoked'], sortable: true, filter: { description: 'Credential status.' } },
  issued_at: { type: 'datetime', label: 'Issued', sortable: true },
  issued_by: { type: 'string', label: 'Issued by' },
  revoked_at: { type: 'datetime', label: 'Revoked', nullable: true },
  last_used_at: { type: 'datetime', label: 'Last used', nullable: true, sortable: true, description: 'The last MQTT connection accepted with this credential.' },
  last_address: { type: 'string', label: 'Last address', nullable: true, description: 'The address that connection came from.' },
  credential_digest: { type: 'string', label: 'Credential digest', internal: true, column: { unique: true } },
}, { indexes: [{ name: 'device_credentials_tenant_status', columns: ['tenant_id', 'status'] }] });

export const deviceCredentials = deviceCredentialRecord.table;
export type DeviceCredentialRow = typeof deviceCredentialRecord.row;

/** What the broker needs: find an active credential by its secret, and note its use. */
export interface DeviceCredentialCheck {
  verify(credential: string): Promise<DeviceCredentialRow | undefined>;
  /** Whether the credential of this id is still active (the broker's periodic recheck). */
  active(id: string): Promise<boolean>;
  touch(id: string, address: string | null): Promise<void>;
}

export function deviceCredentialCheck(services: Pick<Services, 'db'>): DeviceCredentialCheck {
  const store = () => new Store<DeviceCredentialRow>(services.db, deviceCredentials);
  return {
    async verify(credential) {
      if (!isDeviceCredential(credential)) return undefined;
      const row = await store().find({ credential_digest: credentialDigest(credential) });
      return row && row.status === 'active' ? row : undefined;
    },
    async active(id) {
      return (await store().find({ id }))?.status === 'active';
    },
    async touch(id, address) {
      await store().update({ id }, { last_used_at: new Date().toISOString(), last_address: address });
    },
  };
}
