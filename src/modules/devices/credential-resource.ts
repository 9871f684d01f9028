// The device-credentials resource: list, {id}, issue (the credential shown once) and revoke (its
// MQTT connections closed at once). Admins issue and revoke; security reads and revokes.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { ownerSite, requiredTenant } from '../../kernel/tenancy.js';
import type { Services } from '../../kernel/context.js';
import { credentialDigest, deviceCredentialRecord, newCredentialId, newDeviceCredential, type DeviceCredentialRow } from './credentials.js';

const ident = v.pipe(v.string(), v.regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/, 'letters, digits and . _ : - (1-128, starting with a letter or digit)'));

const issueBody = v.strictObject({
  /** The device's id: the last level of its telemetry topic, and the device_id of its stored points. */
  device_id: ident,
  name: v.optional(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200))),
  tenant_id: v.optional(ident),
  site_id: v.optional(ident),
});

const NONE = '_';
const seg = (value: string | null) => (value ? encodeURIComponent(value) : NONE);

/** The only topics a device credential may use (src/modules/status/mqtt.ts enforces them). */
export function credentialTopics(services: Pick<Services, 'config'>, r: Pick<DeviceCredentialRow, 'tenant_id' | 'site_id' | 'device_id'>) {
  const base = `${services.config.mqtt_topic_prefix}/${seg(r.tenant_id)}/${seg(r.site_id)}`;
  return { publish: `${base}/telemetry/${seg(r.device_id)}`, subscribe: `${base}/commands/${seg(r.device_id)}` };
}

const toItem = (r: DeviceCredentialRow) => ({
  id: r.id, device_id: r.device_id, tenant_id: r.tenant_id, site_id: r.site_id, name: r.name, status: r.status,
  issued_at: r.issued_at, issued_by: r.issued_by, revoked_at: r.revoked_at, last_used_at: r.last_used_at, last_address: r.last_address,
});

export const deviceCredentialsResource = defineResource<DeviceCredentialRow>({
  name: 'device-credentials',
  module: 'devices',
  title: 'Device credentials (MQTT)',
  record: deviceCredentialRecord,
  access: { resource: 'device-credentials', scope: 'any' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'issued_at', order: 'desc' },
  toItem,
  commands: {
    issue: command({
      summary: 'Issue an MQTT credential for one device: the answer carries the credential once (stored only as a SHA-256 digest) and the topics it may use: publish its telemetry, subscribe to its commands. It is the MQTT password (over TLS on mqtt_tls_port); it never opens the HTTP API.',
      action: 'issue', body: issueBody, status: 201, idempotent: false,
      response: {
        type: 'object', required: ['id', 'device_id', 'credential', 'topics'],
        properties: {
          ...Object.fromEntries(Object.keys(toItem({} as DeviceCredentialRow)).map((k) => [k, {}])),
          credential: { type: 'string', description: 'MQD-...: the MQTT password, shown only in this answer.' },
          topics: { type: 'object', properties: { publish: { type: 'string' }, subscribe: { type: 'string' } } },
        },
      },
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const credential = newDeviceCredential();
        const row: DeviceCredentialRow = {
          id: newCredentialId(), device_id: b.device_id, tenant_id: requiredTenant(ctx.caller, b.tenant_id), site_id: ownerSite(ctx.caller, b.site_id),
          name: b.name ?? null, status: 'active', issued_at: new Date().toISOString(), issued_by: ctx.caller?.subject ?? 'cli',
          revoked_at: null, last_used_at: null, last_address: null, credential_digest: credentialDigest(credential),
        };
        const saved = (await kit.store(ctx.services.db).insert(row)) as DeviceCredentialRow;
        return { ...toItem(saved), credential, topics: credentialTopics(ctx.services, saved) };
      },
    }),
    revoke: command({
      summary: 'Revoke a device credential: it no longer connects, and the MQTT connections made with it are closed at once. Revoking twice answers the revoked credential again.',
      action: 'revoke', body: v.strictObject({ id: v.pipe(v.string(), v.minLength(1)) }), errors: ['not_found'],
      handler: async (ctx, kit) => {
        const { id } = ctx.body;
        const row = (await kit.load(ctx, id)) as DeviceCredentialRow;
        if (row.status === 'revoked') return toItem(row);
        const saved = await kit.store(ctx.services.db).update({ id }, { status: 'revoked', revoked_at: new Date().toISOString() });
        ctx.services.mqtt?.disconnectCredential?.(id);
        return toItem(saved as DeviceCredentialRow);
      },
    }),
  },
});
