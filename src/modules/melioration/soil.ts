// melioration-soil-moisture: probe readings per field and depth. A reading of volumetric water
// content θ becomes the root-zone depletion it stands for, (θFC - θ) x root depth (at least 0),
// and the water above field capacity, (θ - θFC) x root depth (at least 0). The field's balance
// ends a day with readings at their mean (the last reading of each probe and depth that day).
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import type { HandlerContext } from '../../kernel/route.js';
import { apiReadingSource, type ReadingSource } from '../../industry/pipeline.js';
import { need } from '../../kernel/context.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import { dayOf, ident, notFuture, num, timestamp } from './inputs.js';
import { loadField } from './fields.js';
import { soilRecord, type FieldRow, type SoilRow } from './schema.js';

/** One probe reading (the ingest command's item; a polled probe's reading is checked by it too). */
export const probeItemSchema = v.strictObject({
  field_id: ident,
  probe_id: ident,
  depth_cm: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(500)),
  vwc_pct: num(0, 100),
  observed_at: timestamp,
});
const ingestBody = v.strictObject({ item: probeItemSchema });

export type ProbeItem = v.InferOutput<typeof ingestBody>['item'];

/** Depletion and surplus (mm over the root zone) that a water content stands for. */
export function probeWater(field: Pick<FieldRow, 'field_capacity_pct' | 'root_depth_m'>, vwcPct: number) {
  const fc = field.field_capacity_pct as number;
  const mm = 10 * (fc - vwcPct) * field.root_depth_m; // 1000 mm/m × Δθ(%)/100
  return { depletion_mm: Math.max(0, mm), surplus_mm: Math.max(0, -mm) };
}

export const soilResource = defineResource<SoilRow>({
  name: 'melioration-soil-moisture',
  module: 'melioration',
  title: 'Soil moisture readings',
  record: soilRecord,
  access: { resource: 'melioration-soil-moisture', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'observed_at', order: 'desc' },
  commands: {
    ingest: command({
      summary: 'Ingest one soil-moisture probe reading ({item}); needs the field\'s field capacity',
      action: 'execute',
      status: 201,
      errors: ['not_found'],
      body: ingestBody,
      handler: async (ctx) => ingestProbe(ctx as HandlerContext<unknown>, ctx.body.item, apiReadingSource(ctx.caller)),
    }),
  },
});

/** One probe reading into the field's balance: from the ingest command (api, manual) or a polled probe (device). */
export async function ingestProbe(ctx: HandlerContext<unknown>, b: ProbeItem, source: ReadingSource): Promise<SoilRow> {
  const now = new Date();
  notFuture('item.observed_at', b.observed_at, now);
  const field = await loadField(ctx, b.field_id);
  if (field.field_capacity_pct === null) {
    throw new ApiError('validation_error', `field ${field.id} has no field capacity: a water content cannot be turned into depletion (set field_capacity_pct and wilting_point_pct)`, [{ field: 'item.field_id', reason: 'field_capacity_unknown' }]);
  }
  const row: SoilRow = {
    id: timeId(), tenant_id: field.tenant_id, site_id: field.site_id, field_id: field.id, probe_id: b.probe_id, depth_cm: b.depth_cm, vwc_pct: b.vwc_pct,
    observed_at: new Date(Date.parse(b.observed_at)).toISOString(), day: dayOf(b.observed_at, ctx.services.config), ...probeWater(field, b.vwc_pct), reading_source: source, received_at: now.toISOString(),
  };
  await soilResource.kit.store(ctx.services.db).insert(row);
  await need(ctx.services, 'melioration').evaluate(field, ctx.caller?.subject ?? 'system', now, row.day);
  return row;
}

export const soilRoutes = soilResource.routes;
