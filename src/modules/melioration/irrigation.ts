// melioration-irrigation-machine and melioration-irrigation-drip: one table, two resources
// (fixed kind). commands/ingest takes one event {item} in mm, m3 or both (converted
// consistently, see water.ts), stores it and re-evaluates the field's balance and alerts.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { need } from '../../kernel/context.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import { resolveIrrigation } from './water.js';
import { dayOf, ident, notFuture, num, opt, text, timestamp } from './inputs.js';
import { loadField } from './fields.js';
import { irrigationRecord, type IrrigationRow } from './schema.js';

const ingestItem = v.strictObject({
  field_id: ident,
  equipment_id: ident,
  started_at: opt(timestamp),
  observed_at: timestamp,
  depth_mm: opt(num(0, 1000)),
  volume_m3: opt(num(0, 10_000_000)),
  covered_area_ha: opt(num(0.0001, 1_000_000)),
  covered_fraction: opt(num(0.001, 1)),
  note: opt(text),
});
const ingestBody = v.strictObject({ item: ingestItem });

function irrigationResource(kind: IrrigationRow['kind'], name: string, title: string, equipment: string) {
  return defineResource<IrrigationRow>({
    name,
    module: 'melioration',
    title,
    record: irrigationRecord,
    access: { resource: name, scope: 'tenant' },
    tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
    fixed: { kind },
    defaultSort: { field: 'observed_at', order: 'desc' },
    commands: {
      ingest: command({
        summary: `Ingest one ${equipment} irrigation event ({item}) in mm and/or m3`,
        action: 'execute',
        status: 201,
        errors: ['not_found'],
        body: ingestBody,
        handler: async (ctx, kit) => {
          const b = ctx.body.item;
          const now = new Date();
          notFuture('item.observed_at', b.observed_at, now);
          if (b.started_at) {
            notFuture('item.started_at', b.started_at, now);
            if (Date.parse(b.started_at) > Date.parse(b.observed_at)) throw new ApiError('validation_error', 'started_at is after observed_at (the end)', [{ field: 'item.started_at', reason: 'after_observed_at' }]);
          }
          const field = await loadField(ctx, b.field_id);
          const amount = resolveIrrigation(b, field.area_ha);
          const row: IrrigationRow = {
            id: timeId(), tenant_id: field.tenant_id, site_id: field.site_id, field_id: field.id, kind, equipment_id: b.equipment_id,
            started_at: b.started_at ?? null, observed_at: new Date(Date.parse(b.observed_at)).toISOString(), day: dayOf(b.observed_at, ctx.services.config),
            ...amount, note: b.note ?? null, received_at: now.toISOString(),
          };
          await kit.store(ctx.services.db).insert(row);
          await need(ctx.services, 'melioration').evaluate(field, ctx.caller?.subject ?? 'system', now, row.day);
          return row;
        },
      }),
    },
  });
}

export const machineResource = irrigationResource('machine', 'melioration-irrigation-machine', 'Irrigation machine events', 'irrigation machine (centre pivot, linear, reel)');
export const dripResource = irrigationResource('drip', 'melioration-irrigation-drip', 'Drip irrigation events', 'drip line');

export const irrigationRoutes = [...machineResource.routes, ...dripResource.routes];
