// Room climate setpoints that reach the controller: swine-climate/commands/setpoint runs the one
// setpoint program (src/industry/setpoint-program.ts: draft, then write through the room's
// adapter profiles and the field-write service behind /api/rpc: same queue per bus, read-back,
// audit with the correlation id). Setpoints of a room are versioned (src/industry/versions.ts, lineage
// tenant + site + room): the new values are added as a draft, published (the previous version
// archived) only when the controller confirmed them (verified, or written without read-back);
// a failed or unconfigured write leaves the draft and the previous version stays in force.
// The swine contract has no separate ack: the setpoint command is the operator's confirmation.
// swine-adapters holds the adapter profiles of the room controllers; swine-setpoints lists the
// versions with their adapter_dispatch.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { command, defineResource, itemSchema, type CommandDef } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import { defineAdapterRecord } from '../../industry/dispatch.js';
import { defineSetpointProgram } from '../../industry/setpoint-program.js';
import { defineAdapterResource } from '../../industry/adapter-resource.js';
import { versionFields, versioned, type VersionColumns } from '../../industry/versions.js';
import { ownerSite as writeSite } from '../../kernel/tenancy.js';

/** Setpoint keys a room controller may hold (also the keys of adapter profile points). */
export const SETPOINT_KEYS = ['target_temp_c', 'heating_start_c', 'min_ventilation_pct', 'max_ventilation_pct', 'target_humidity_pct'] as const;

export const adapterRecord = defineAdapterRecord('swine_adapter_profiles', 'Room');

export const setpointRecord = defineRecord('swine_setpoints', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', filter: true, description: 'Empty when the session names no site.' },
  room_id: { type: 'string', label: 'Room', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  target_temp_c: { type: 'number', label: 'Target temperature', nullable: true, ui: { unit: '°C' } },
  heating_start_c: { type: 'number', label: 'Heating starts below', nullable: true, ui: { unit: '°C' } },
  min_ventilation_pct: { type: 'number', label: 'Minimum ventilation', nullable: true, ui: { unit: '%' } },
  max_ventilation_pct: { type: 'number', label: 'Maximum ventilation', nullable: true, ui: { unit: '%' } },
  target_humidity_pct: { type: 'number', label: 'Target humidity', nullable: true, ui: { unit: '%' } },
  correlation_id: { type: 'string', label: 'Correlation id', readOnly: true, filter: true },
  adapter_dispatch: { type: 'object', label: 'Controller write', readOnly: true, description: '{adapter_profile_id, controller_id, transport, status (written|verified|failed|not_configured), message, correlation_id, at, written[]}' },
  ...versionFields,
}, { indexes: [{ name: 'swine_setpoints_lineage', columns: ['tenant_id', 'site_id', 'room_id', 'version_id'], unique: true }] });
export type SetpointRow = typeof setpointRecord.row;

const setpointVersions = versioned<SetpointRow & VersionColumns>(setpointRecord.table, ['tenant_id', 'site_id', 'room_id']);

/** The swine setpoint program (src/industry/setpoint-program.ts); setpoints only reach controllers, so none configured keeps the draft. */
export const swineSetpoints = defineSetpointProgram<SetpointRow>({
  industry: 'swine', resource: 'swine-climate', versions: setpointVersions, adapters: adapterRecord.table, keys: SETPOINT_KEYS,
  unitOf: (row) => row.room_id, audit: { draft: 'swine.climate.setpoint', confirm: 'setpoint.dispatch' }, unconfigured: 'keep-draft',
});

const pct = v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(100)));
const temp = v.optional(v.pipe(v.number(), v.finite(), v.minValue(5), v.maxValue(40)));
const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const setpointBody = v.pipe(v.strictObject({
  room_id: key, site_id: v.optional(key), tenant_id: v.optional(key),
  target_temp_c: temp, heating_start_c: temp, min_ventilation_pct: pct, max_ventilation_pct: pct, target_humidity_pct: pct,
  change_note: v.optional(v.pipe(v.string(), v.maxLength(2000))),
}),
v.check((b) => SETPOINT_KEYS.some((k) => b[k] !== undefined), `give at least one of ${SETPOINT_KEYS.join(', ')}`),
v.check((b) => b.min_ventilation_pct === undefined || b.max_ventilation_pct === undefined || b.min_ventilation_pct <= b.max_ventilation_pct, 'min_ventilation_pct above max_ventilation_pct'));

export const setpointCommand: CommandDef<v.InferOutput<typeof setpointBody>> = command({
  summary: `Change a room's climate setpoints (${SETPOINT_KEYS.join(', ')}). The values are written at once (this command is the operator's confirmation) through the room's adapter profiles (swine-adapters) and the field-write service of /api/rpc: same queue per bus, read-back verification, audit with the correlation id (the request id). The new setpoint version is published (the previous one archived) when adapter_dispatch.status is verified or written; on failed (with the field service's message, e.g. "Connection refused <ip:port> addr:<n>") or not_configured it stays a draft and the previous version stays in force. Answers 201 with the version in every case. Action confirm: operators set their rooms' setpoints, as at the controller's own panel (and as they confirm poultry setpoints); readings stay for devices, integrations and admins.`,
  action: 'confirm',
  body: setpointBody,
  status: 201,
  response: itemSchema(setpointRecord.fields),
  handler: async (ctx) => {
    const b = ctx.body;
    const caller = ctx.caller!;
    const { services } = ctx;
    const tenant = caller.tenant_id!;
    const site = writeSite(caller, b.site_id) ?? '';
    const lineage = { tenant_id: tenant, site_id: site, room_id: b.room_id };
    const current = await setpointVersions.published(services.db, lineage);
    const changed = SETPOINT_KEYS.filter((k) => b[k] !== undefined);
    const value = (k: (typeof SETPOINT_KEYS)[number]) => b[k] ?? current?.[k] ?? null;
    // This command is the operator's confirmation (no ack in the swine contract): draft, then confirm.
    const draft = await swineSetpoints.draft(services, {
      ...lineage, target_temp_c: value('target_temp_c'), heating_start_c: value('heating_start_c'), min_ventilation_pct: value('min_ventilation_pct'),
      max_ventilation_pct: value('max_ventilation_pct'), target_humidity_pct: value('target_humidity_pct'),
    }, { id: randomUUID(), actor: caller.subject, change_note: b.change_note ?? null, correlation_id: ctx.requestId, changed, details: { room_id: b.room_id } });
    const { row } = await swineSetpoints.confirm(services, draft, { caller, correlation_id: ctx.requestId });
    return { ...row };
  },
});

export const setpointResource = defineResource<SetpointRow>({
  name: 'swine-setpoints',
  module: 'swine',
  title: 'Swine room setpoints',
  record: setpointRecord,
  access: { resource: 'swine-climate', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'created_at', order: 'desc' },
});

export const adapterResource = defineAdapterResource({ name: 'swine-adapters', module: 'swine', title: 'Swine controller adapters', record: adapterRecord, accessResource: 'swine-climate' });

export const setpointRoutes = [...setpointResource.routes, ...adapterResource.routes];
