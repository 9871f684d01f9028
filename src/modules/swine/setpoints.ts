// Room climate setpoints that reach the controller: swine-climate/commands/setpoint writes the
// new values through the shared setpoint dispatch (src/industry/dispatch.ts: the room's adapter
// profiles -> the field-write service behind /api/rpc: same queue per bus, read-back, audit with
// the correlation id). Setpoints of a room are versioned (src/industry/versions.ts, lineage
// tenant + site + room): the new values are added as a draft, published (the previous version
// archived) only when the controller confirmed them (verified, or written without read-back);
// a failed or unconfigured write leaves the draft and the previous version stays in force.
// The swine contract has no separate ack: the setpoint command is the operator's confirmation.
// swine-adapters holds the adapter profiles of the room controllers; swine-setpoints lists the
// versions with their adapter_dispatch.
import { randomUUID } from 'node:crypto';
import * as v from 'valibot';
import { and, eq } from 'drizzle-orm';
import { command, defineResource, itemSchema, type CommandDef } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import { defineAdapterRecord, dispatchSetpoints, type AdapterRow } from '../../industry/dispatch.js';
import { defineAdapterResource } from '../../industry/adapter-resource.js';
import { versionFields, versioned, type VersionColumns } from '../../industry/versions.js';
import { colOf, tableOf } from '../../db/sql.js';
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
  summary: `Change a room's climate setpoints (${SETPOINT_KEYS.join(', ')}). The values are written at once (this command is the operator's confirmation) through the room's adapter profiles (swine-adapters) and the field-write service of /api/rpc: same queue per bus, read-back verification, audit with the correlation id (the request id). The new setpoint version is published (the previous one archived) when adapter_dispatch.status is verified or written; on failed (with the field service's message, e.g. "Connection refused <ip:port> addr:<n>") or not_configured it stays a draft and the previous version stays in force. Answers 201 with the version in every case.`,
  action: 'execute',
  body: setpointBody,
  status: 201,
  response: itemSchema(setpointRecord.fields),
  handler: async (ctx) => {
    const b = ctx.body;
    const caller = ctx.caller!;
    const { db } = ctx.services;
    const tenant = caller.tenant_id!;
    const site = writeSite(caller, b.site_id) ?? '';
    const lineage = { tenant_id: tenant, site_id: site, room_id: b.room_id };
    const current = await setpointVersions.published(db, lineage);
    const values: Record<string, number> = {};
    for (const k of SETPOINT_KEYS) if (b[k] !== undefined) values[k] = b[k]!;
    const draft = await setpointVersions.add(db, {
      ...lineage,
      target_temp_c: b.target_temp_c ?? current?.target_temp_c ?? null, heating_start_c: b.heating_start_c ?? current?.heating_start_c ?? null,
      min_ventilation_pct: b.min_ventilation_pct ?? current?.min_ventilation_pct ?? null, max_ventilation_pct: b.max_ventilation_pct ?? current?.max_ventilation_pct ?? null,
      target_humidity_pct: b.target_humidity_pct ?? current?.target_humidity_pct ?? null,
      correlation_id: ctx.requestId, adapter_dispatch: { status: 'pending' },
    }, { id: randomUUID(), actor: caller.subject, change_note: b.change_note ?? null });
    const t = tableOf(adapterRecord.table, db);
    const c = (n: string) => colOf(adapterRecord.table, db, n);
    const adapters = (await db.orm.select().from(t).where(and(eq(c('tenant_id'), tenant), eq(c('unit_id'), b.room_id)))) as AdapterRow[];
    const dispatch = await dispatchSetpoints(ctx.services, { adapters: adapters.filter((a) => !site || a.site_id === null || a.site_id === site), values, correlation_id: ctx.requestId, actor: { id: caller.subject, role: caller.role, tenant_id: tenant } });
    const st = tableOf(setpointRecord.table, db);
    const sc = (n: string) => colOf(setpointRecord.table, db, n);
    await db.transaction(async () => db.orm.update(st).set({ adapter_dispatch: dispatch } as never).where(eq(sc('id'), draft.id)));
    let row: SetpointRow = { ...draft, adapter_dispatch: dispatch as unknown as Record<string, unknown> };
    if (dispatch.status === 'verified' || dispatch.status === 'written') row = { ...(await setpointVersions.publish(db, row)).published, adapter_dispatch: dispatch as unknown as Record<string, unknown> };
    await ctx.services.audit.record({ actor: caller.subject, action: 'setpoint.dispatch', resource: 'swine-climate', result: dispatch.status === 'failed' ? 'error' : 'success', correlation_id: ctx.requestId, tenant_id: tenant, details: { id: row.id, room_id: b.room_id, version_id: row.version_id, state: row.state, values, status: dispatch.status, message: dispatch.message } });
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
