// The versions of a poultry adapter profile. The profile row (poultry_adapter_profiles) stays the
// one the poller and the setpoint dispatch read; every saved state of it is also a version here,
// append-only (src/industry/versions.ts: the one in force is published, earlier ones archived),
// so an installer who changes a register can see and name what the controller was read with
// before. Version 1 is written at create; a profile saved before versions were kept gets its
// version 1, from the profile as it stood, at its first revision.
import { randomUUID } from 'node:crypto';
import { and, desc, eq } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { Caller } from '../../kernel/context.js';
import { defineRecord } from '../../kernel/record.js';
import { colOf, tableOf } from '../../db/sql.js';
import { versionFields, versioned } from '../../industry/versions.js';
import type { AdapterRow } from '../../industry/dispatch.js';

export const adapterVersionRecord = defineRecord('poultry_adapter_versions', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true },
  adapter_id: { type: 'string', label: 'Adapter profile', readOnly: true, description: 'The adapter profile (poultry-adapters id) this is a version of.' },
  unit_id: { type: 'string', label: 'House' },
  controller_id: { type: 'string', label: 'Controller' },
  profile: { type: 'object', label: 'Profile', description: 'The profile as saved in this version: transport, address fields, points, readings, poll period, loss after misses, comm_loss priority.' },
  ...versionFields,
}, { indexes: [{ name: 'poultry_adapter_versions_lineage', columns: ['tenant_id', 'adapter_id', 'version_id'], unique: true }] });
export type AdapterVersionRow = typeof adapterVersionRecord.row;

export const adapterVersions = versioned<AdapterVersionRow>(adapterVersionRecord.table, ['tenant_id', 'adapter_id']);

/** The fields of a profile a version holds and a revision may change (not its id, tenant, site or times). */
export const PROFILE_FIELDS = ['unit_id', 'controller_id', 'transport', 'host', 'port', 'serial_path', 'modbus_unit_id', 'device_instance', 'points', 'readings', 'poll_period_s', 'loss_after_misses', 'comm_loss_priority'] as const;
export type ProfileContent = Pick<AdapterRow, (typeof PROFILE_FIELDS)[number]>;

export const contentOfRow = (row: AdapterRow): ProfileContent =>
  Object.fromEntries(PROFILE_FIELDS.map((k) => [k, row[k] ?? null])) as ProfileContent;

/** Stable text of a value, keys sorted, so two equal profiles compare equal whatever their key order. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') return `{${Object.keys(v).sort().filter((k) => (v as Record<string, unknown>)[k] !== undefined).map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

const BIT_TABLES = new Set(['coil', 'discrete input']);
type PointLike = Record<string, unknown>;

/**
 * A setpoint or reading with the defaults the poller applies written out (register table, data
 * type, word order, read-back), so a form that sends them explicitly is not a change.
 */
function withDefaults(row: PointLike, kind: 'points' | 'readings'): PointLike {
  const table = (row.object_type as string | undefined) ?? (kind === 'points' ? 'holding register' : 'input register');
  const bit = BIT_TABLES.has(table);
  return {
    ...row, object_type: table, data_type: row.data_type ?? (bit ? 'bool' : 'int16'), order: bit ? undefined : (row.order ?? 'LE'),
    ...(kind === 'points' ? { read_back: row.read_back ?? true } : {}),
  };
}

const comparable = (c: ProfileContent, k: (typeof PROFILE_FIELDS)[number]): unknown =>
  k === 'points' || k === 'readings' ? ((c[k] ?? []) as PointLike[]).map((r) => withDefaults(r, k)) : c[k];

/** The profile fields whose value differs between two contents (defaults written out or not alike). */
export function changedFields(before: ProfileContent, after: ProfileContent): string[] {
  return PROFILE_FIELDS.filter((k) => canonical(comparable(before, k)) !== canonical(comparable(after, k)));
}

/** Adds `content` as the published version of the profile `row` (its lineage: tenant and profile id). */
export function addVersion(services: Services, row: AdapterRow, content: ProfileContent, meta: { actor: string; change_note?: string | null }): Promise<AdapterVersionRow> {
  return adapterVersions.add(services.db, {
    tenant_id: row.tenant_id, site_id: row.site_id, adapter_id: row.id, unit_id: content.unit_id, controller_id: content.controller_id, profile: content as unknown as Record<string, unknown>,
  }, { id: randomUUID(), actor: meta.actor, change_note: meta.change_note ?? null, publish: true });
}

/** The versions of one profile the caller may see, newest first (a tenant caller: its tenant; a site session: its site). */
export async function versionsOf(services: Services, caller: Caller | undefined, adapterId: string): Promise<AdapterVersionRow[]> {
  const db = services.db;
  const t = adapterVersionRecord.table;
  const c = (k: string) => colOf(t, db, k);
  const conditions = [eq(c('adapter_id'), adapterId)];
  if (caller?.scope_type === 'tenant' && caller.tenant_id) conditions.push(eq(c('tenant_id'), caller.tenant_id));
  if (caller?.scope_type === 'tenant' && caller.site_id) conditions.push(eq(c('site_id'), caller.site_id));
  return (await db.orm.select().from(tableOf(t, db)).where(and(...conditions)).orderBy(desc(c('version_id')))) as AdapterVersionRow[];
}
