// Changing a saved poultry adapter profile: poultry-adapters/commands/revise replaces the profile's
// content (the same body as a create's item) and keeps the previous content as an archived
// version; GET poultry-adapters/{id}/versions lists them. The profile keeps its id, so the poller
// keeps its link state and reads the controller with the new content from its next poll (the
// device-polling runtime has the new set before the answer leaves); setpoint writes use it from
// the next confirmation. Create, revise and delete are audit records (adapter-profile.create,
// .revise, .delete, resource poultry-adapters). A refused revision changes nothing.
import * as v from 'valibot';
import { defineRoute, type AnyRoute, type HandlerContext, type JsonSchema } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { itemSchema } from '../../kernel/resource.js';
import { pageItems } from '../../kernel/query.js';
import type { ResourceKit } from '../../kernel/resource.js';
import type { Services } from '../../kernel/context.js';
import { adapterBodySchema, type AdapterRow } from '../../industry/dispatch.js';
import { adapterChanged, POLL_DEFAULTS } from '../../industry/polled-devices.js';
import { refuseOnMaster } from '../../runtime/egress.js';
import { addVersion, adapterVersionRecord, adapterVersions, changedFields, contentOfRow, versionsOf, type AdapterVersionRow, type ProfileContent } from './adapter-versions.js';

const RESOURCE = 'poultry-adapters';
const BASE = `/api/v1/${RESOURCE}`;
const ACCESS = 'poultry-climate';

const reviseBody = v.strictObject({
  id: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100)),
  item: adapterBodySchema,
  change_note: v.optional(v.pipe(v.string(), v.trim(), v.maxLength(500))),
});
type ReviseBody = v.InferOutput<typeof reviseBody>;

const versionItem = itemSchema(adapterVersionRecord.fields);
const revisedItem: JsonSchema = {
  ...versionItem,
  properties: { ...(versionItem.properties as Record<string, JsonSchema>), changed: { type: 'array', items: { type: 'string' }, description: 'The profile fields this version changed against the one before it (empty for the first).' } },
  required: [...(versionItem.required as string[]), 'changed'],
};

/** A create's item as the stored content: the defaults a create applies, applied again. */
function contentOf(b: ReviseBody['item']): ProfileContent {
  return {
    unit_id: b.unit_id, controller_id: b.controller_id, transport: b.transport, host: b.host ?? null, port: b.port ?? null, serial_path: b.serial_path ?? null,
    modbus_unit_id: b.modbus_unit_id ?? null, device_instance: b.device_instance ?? null, points: b.points, readings: b.readings ?? [],
    poll_period_s: b.poll_period_s ?? POLL_DEFAULTS.poll_period_s, loss_after_misses: b.loss_after_misses ?? POLL_DEFAULTS.loss_after_misses, comm_loss_priority: b.comm_loss_priority ?? 'P1',
  };
}

const actorOf = (ctx: HandlerContext<unknown>) => ctx.caller?.subject ?? 'system';

function audit(ctx: HandlerContext<unknown>, op: 'create' | 'revise' | 'delete', row: { id: string; tenant_id: string }, details: Record<string, unknown>) {
  return ctx.services.audit.record({ actor: actorOf(ctx), action: `adapter-profile.${op}`, resource: RESOURCE, result: 'success', correlation_id: ctx.requestId, tenant_id: row.tenant_id, details: { id: row.id, ...details } });
}

/** The profile as it stood becomes version 1 when it has none yet (saved before versions were kept). */
async function ensureFirst(services: Services, row: AdapterRow): Promise<AdapterVersionRow> {
  const current = await adapterVersions.published(services.db, { tenant_id: row.tenant_id, adapter_id: row.id });
  return current ?? addVersion(services, row, contentOfRow(row), { actor: 'system', change_note: 'the profile as it stood before its first revision' });
}

export function adapterVersionRoutes(kit: ResourceKit<AdapterRow>): AnyRoute[] {
  const revise = defineRoute({
    method: 'post', path: `${BASE}/commands/revise`, module: 'poultry', tags: ['poultry'],
    summary: 'Change a saved adapter profile: the item (as a create takes it) replaces the profile\'s content and becomes its next version; the previous one is kept, archived. The profile keeps its id, so the poller keeps its link state and reads the controller with the new content from its next poll.',
    description: 'Audited as adapter-profile.revise (details: the fields changed, the version and the change note). 404 not_found for a profile the caller cannot see; 409 lifecycle_conflict when the item changes nothing; nothing is stored when refused.',
    access: { resource: ACCESS, action: 'update', scope: 'tenant' },
    body: reviseBody, errors: ['not_found', 'lifecycle_conflict', 'not_on_master'], response: { kind: 'single', item: revisedItem },
    handler: async (ctx) => {
      const { services, body } = ctx;
      refuseOnMaster(services.config, `an adapter profile (${RESOURCE})`);
      const row = await kit.load(ctx as HandlerContext<unknown>, body.id);
      for (const k of ['id', 'tenant_id', 'site_id'] as const) {
        const given = body.item[k];
        const held = k === 'id' ? row.id : row[k];
        if (given !== undefined && given !== held) throw new ApiError('validation_error', `item.${k} cannot change in a revision (it is ${held ?? 'empty'})`, [{ field: `item.${k}`, reason: 'immutable' }]);
      }
      const next = contentOf(body.item);
      const changed = changedFields(contentOfRow(row), next);
      if (!changed.length) throw new ApiError('lifecycle_conflict', `nothing changed: the profile of ${row.controller_id} already holds this`, [{ field: 'item', reason: 'unchanged' }]);
      const db = services.db;
      const { version, previous } = await db.transaction(async () => {
        const before = await ensureFirst(services, row);
        const saved = await kit.store(db).update({ ...kit.scope(ctx.caller), id: row.id }, { ...next, updated_at: new Date().toISOString() });
        if (!saved) throw new ApiError('not_found', `${RESOURCE} ${row.id} not found`);
        return { version: await addVersion(services, saved, next, { actor: actorOf(ctx as HandlerContext<unknown>), change_note: body.change_note || null }), previous: before };
      });
      await adapterChanged(services);
      await audit(ctx as HandlerContext<unknown>, 'revise', row, { controller_id: next.controller_id, unit_id: next.unit_id, version_id: version.version_id, previous_version: previous.version_id, changed, change_note: version.change_note });
      return { ...version, changed };
    },
  });

  const history = defineRoute({
    method: 'get', path: `${BASE}/{id}/versions`, module: 'poultry', tags: ['poultry'],
    summary: 'The versions of an adapter profile, newest first: what each saved state of it held, who saved it and when (the one in force is published). The versions of a deleted profile stay.',
    access: { resource: ACCESS, action: 'read', scope: 'tenant' },
    query: { limit: { type: 'integer', min: 1, max: 200, default: 50 }, offset: { type: 'integer', min: 0, default: 0 } },
    errors: ['not_found'], response: { kind: 'list', item: revisedItem },
    handler: async (ctx) => {
      const id = ctx.params.id as string;
      const rows = await versionsOf(ctx.services, ctx.caller, id);
      if (!rows.length) await kit.load(ctx, id);
      // Each version with what it changed against the one before it (the first: nothing).
      const items = rows.map((r, i) => ({ ...r, changed: rows[i + 1] ? changedFields(rows[i + 1]!.profile as unknown as ProfileContent, r.profile as unknown as ProfileContent) : [] }));
      return pageItems(items, ctx.query);
    },
  });
  return [revise, history];
}

/**
 * The resource's create and delete, audited once they succeeded; a create also stores version 1.
 * A failed version write does not undo the saved profile: its first revision writes version 1.
 */
export function withAudit(routes: AnyRoute[]): AnyRoute[] {
  return routes.map((r) => {
    const create = r.method === 'post' && r.path === BASE;
    const del = r.method === 'delete' && r.path === `${BASE}/{id}`;
    if (!create && !del) return r;
    return {
      ...r,
      description: [r.description, `Audited as adapter-profile.${create ? 'create' : 'delete'}.`].filter(Boolean).join(' '),
      handler: async (ctx: HandlerContext<unknown>) => {
        const item = (await r.handler(ctx)) as AdapterRow;
        if (create) {
          const v1 = await addVersion(ctx.services, item, contentOfRow(item), { actor: actorOf(ctx) }).catch((err: Error) => {
            ctx.services.log.warn('adapter profile: version 1 not stored', { id: item.id, error: err.message });
            return undefined;
          });
          await audit(ctx, 'create', item, { controller_id: item.controller_id, unit_id: item.unit_id, transport: item.transport, version_id: v1?.version_id ?? null });
        } else {
          await audit(ctx, 'delete', item, { controller_id: item.controller_id, unit_id: item.unit_id });
        }
        return item;
      },
    } as AnyRoute;
  });
}
