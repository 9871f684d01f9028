// poultry-production: one record per house, batch and day (birds placed, mortality, culls, average
// weight, feed used, eggs), judged against simple norms (out_of_norm_flags), and the batch KPIs
// over a window (GET poultry-production/kpi?window_days=...; formulas in kpi.ts).
import * as v from 'valibot';
import { and, asc, eq } from 'drizzle-orm';
import { defineRecord } from '../../kernel/record.js';
import { command, defineResource } from '../../kernel/resource.js';
import { defineRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import { ownerSite, requiredTenant } from '../../kernel/tenancy.js';
import type { Services } from '../../kernel/context.js';
import { colOf, tableOf } from '../../db/sql.js';
import { broilerKpi, layerKpi, type ProductionDay } from './kpi.js';
import { SUBTYPES } from './climate-schema.js';
import { flockFacts } from './flock.js';

export const PRODUCTION_FLAGS = ['mortality_high', 'weight_low', 'eggs_low'] as const;

export const productionRecord = defineRecord('poultry_production', {
  id: { type: 'string', label: 'ID', readOnly: true, description: 'house_id:batch_id:metric_date' },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  house_id: { type: 'string', label: 'House', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  batch_id: { type: 'string', label: 'Batch', filter: true, sortable: true, searchable: true },
  subtype: { type: 'string', label: 'Subtype', enum: SUBTYPES, filter: true },
  metric_date: { type: 'string', label: 'Date', filter: { description: 'YYYY-MM-DD (the site\'s calendar day).' }, sortable: true, ui: { format: 'date' } },
  age_days: { type: 'integer', label: 'Age', nullable: true, sortable: true, ui: { unit: 'days' } },
  birds_placed: { type: 'integer', label: 'Birds placed', nullable: true, description: 'On the placement day (or the flock\'s figure).' },
  mortality: { type: 'integer', label: 'Dead', ui: { unit: 'birds' } },
  culls: { type: 'integer', label: 'Culled', ui: { unit: 'birds' } },
  birds_alive: { type: 'integer', label: 'Birds alive', nullable: true, readOnly: true, description: 'At the end of the day, when birds placed is known.' },
  avg_weight_g: { type: 'number', label: 'Average weight', nullable: true, ui: { unit: 'g' } },
  feed_used_kg: { type: 'number', label: 'Feed used', nullable: true, ui: { unit: 'kg' } },
  water_l: { type: 'number', label: 'Water used', nullable: true, ui: { unit: 'L' } },
  eggs: { type: 'integer', label: 'Eggs', nullable: true, description: 'Layers and breeders.' },
  egg_weight_g: { type: 'number', label: 'Average egg weight', nullable: true, ui: { unit: 'g' } },
  out_of_norm_flags: { type: 'array', items: 'string', label: 'Out of norm', readOnly: true, ui: { badge: true }, description: `Any of ${PRODUCTION_FLAGS.join(', ')}.` },
  notes: { type: 'string', label: 'Notes', nullable: true, searchable: true },
  recorded_by: { type: 'string', label: 'Recorded by', readOnly: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, {
  primaryKey: ['tenant_id', 'id'],
  indexes: [{ name: 'poultry_production_batch_date', columns: ['tenant_id', 'house_id', 'batch_id', 'metric_date'], unique: true }],
});
export type ProductionRow = typeof productionRecord.row;

/** Norms behind out_of_norm_flags (README "Poultry: production"). */
export const PRODUCTION_NORMS = {
  /** Daily losses above this share of the birds alive that morning. */
  daily_loss_pct: { broiler: 0.2, layer: 0.05, breeder: 0.05 },
  /** Average weight more than this far below the broiler target for the age. */
  weight_below_pct: 10,
  /** Laying hens: eggs per hen alive below this share. */
  hen_day_min_pct: 75,
} as const;
/** Approximate broiler live-weight target (g) by age (days); linear in between. */
const BROILER_WEIGHT: [number, number][] = [[0, 42], [7, 190], [14, 500], [21, 950], [28, 1550], [35, 2200], [42, 2850], [49, 3400]];

export function broilerTarget(age: number): number {
  if (age <= 0) return BROILER_WEIGHT[0]![1];
  for (let i = 1; i < BROILER_WEIGHT.length; i++) {
    const [d0, w0] = BROILER_WEIGHT[i - 1]!;
    const [d1, w1] = BROILER_WEIGHT[i]!;
    if (age <= d1) return w0 + ((age - d0) / (d1 - d0)) * (w1 - w0);
  }
  return BROILER_WEIGHT.at(-1)![1];
}

const DATE = /^\d{4}-\d{2}-\d{2}$/;
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(10_000_000));
const amount = (max: number) => v.pipe(v.number(), v.minValue(0), v.maxValue(max));
const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const ingestBody = v.strictObject({
  house_id: key,
  batch_id: key,
  metric_date: v.pipe(v.string(), v.regex(DATE, 'YYYY-MM-DD'), v.check((s) => !Number.isNaN(Date.parse(`${s}T00:00:00Z`)) && new Date(`${s}T00:00:00Z`).toISOString().startsWith(s), 'a real calendar date')),
  site_id: v.optional(key),
  tenant_id: v.optional(key),
  subtype: v.optional(v.picklist(SUBTYPES)),
  age_days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000))),
  birds_placed: v.optional(count),
  mortality: v.optional(count),
  culls: v.optional(count),
  avg_weight_g: v.optional(amount(20_000)),
  feed_used_kg: v.optional(amount(10_000_000)),
  water_l: v.optional(amount(10_000_000)),
  eggs: v.optional(count),
  egg_weight_g: v.optional(amount(200)),
  notes: v.optional(v.pipe(v.string(), v.maxLength(2000))),
});

const kpiQuery = {
  window_days: { type: 'integer' as const, min: 1, max: 730, default: 7, description: 'Days back from the newest record, both ends included.' },
  house_id: { type: 'string' as const, required: true },
  batch_id: { type: 'string' as const, required: true },
  subtype: { type: 'string' as const, enum: SUBTYPES, description: 'KPI family; defaults to the batch\'s subtype (broiler for broilers, layer for layers and breeders).' },
  tenant_id: { type: 'string' as const, description: 'Master callers: the tenant; a tenant caller always reads its own.' },
};

async function batchDays(services: Services, tenant: string, house: string, batch: string): Promise<ProductionRow[]> {
  const c = (n: string) => colOf(productionRecord.table, services.db, n);
  return (await services.db.orm.select().from(tableOf(productionRecord.table, services.db))
    .where(and(eq(c('tenant_id'), tenant), eq(c('house_id'), house), eq(c('batch_id'), batch)))
    .orderBy(asc(c('metric_date')))) as ProductionRow[];
}


export const productionResource = defineResource<ProductionRow>({
  name: 'poultry-production',
  module: 'poultry',
  title: 'Poultry production',
  record: productionRecord,
  access: { resource: 'poultry-production', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'metric_date', order: 'desc' },
  commands: {
    ingest: command({
      summary: 'Record a house\'s day (upsert by house, batch and metric_date: a second record of the same day replaces the first and is audited as a correction); answers the record with out_of_norm_flags',
      action: 'execute',
      body: ingestBody,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const tenant = requiredTenant(caller, b.tenant_id);
        const flock = await flockFacts(ctx.services, tenant, b.house_id, b.batch_id);
        const subtype = b.subtype ?? flock?.subtype ?? 'broiler';
        const age = b.age_days ?? (flock ? Math.round((Date.parse(`${b.metric_date}T00:00:00Z`) - Date.parse(`${flock.start_date}T00:00:00Z`)) / 86_400_000) : null);
        if (age !== null && age < 0) throw new ApiError('validation_error', `metric_date ${b.metric_date} is before the flock's placement on ${flock?.start_date}`, [{ field: 'metric_date', reason: 'before_placement' }]);
        const earlier = (await batchDays(ctx.services, tenant, b.house_id, b.batch_id)).filter((d) => d.metric_date !== b.metric_date);
        const placed = b.birds_placed ?? earlier.reduce<number | null>((p, d) => (d.birds_placed !== null ? Math.max(p ?? 0, d.birds_placed) : p), null) ?? flock?.birds_placed ?? null;
        const lossesBefore = earlier.filter((d) => d.metric_date < b.metric_date).reduce((s, d) => s + d.mortality + d.culls, 0);
        const mortality = b.mortality ?? 0;
        const culls = b.culls ?? 0;
        const morning = placed === null ? null : placed - lossesBefore;
        if (morning !== null && mortality + culls > morning) throw new ApiError('validation_error', `${mortality + culls} dead and culled exceed the ${morning} birds alive that morning`, [{ field: 'mortality', reason: 'exceeds_birds_alive' }]);
        const flags: string[] = [];
        const lossLimit = PRODUCTION_NORMS.daily_loss_pct[subtype as keyof typeof PRODUCTION_NORMS.daily_loss_pct] ?? 0.2;
        if (morning && ((mortality + culls) / morning) * 100 > lossLimit) flags.push('mortality_high');
        if (subtype === 'broiler' && b.avg_weight_g !== undefined && age !== null && b.avg_weight_g < broilerTarget(age) * (1 - PRODUCTION_NORMS.weight_below_pct / 100)) flags.push('weight_low');
        if (subtype !== 'broiler' && b.eggs !== undefined && morning && (b.eggs / morning) * 100 < PRODUCTION_NORMS.hen_day_min_pct) flags.push('eggs_low');
        const row: ProductionRow = {
          id: `${b.house_id}:${b.batch_id}:${b.metric_date}`,
          tenant_id: tenant,
          site_id: ownerSite(caller, b.site_id),
          house_id: b.house_id,
          batch_id: b.batch_id,
          subtype,
          metric_date: b.metric_date,
          age_days: age,
          birds_placed: b.birds_placed ?? null,
          mortality,
          culls,
          birds_alive: morning === null ? null : morning - mortality - culls,
          avg_weight_g: b.avg_weight_g ?? null,
          feed_used_kg: b.feed_used_kg ?? null,
          water_l: b.water_l ?? null,
          eggs: b.eggs ?? null,
          egg_weight_g: b.egg_weight_g ?? null,
          out_of_norm_flags: flags,
          notes: b.notes ?? null,
          recorded_by: caller.subject,
          updated_at: new Date().toISOString(),
        };
        const store = kit.store(ctx.services.db);
        const keyOf = { tenant_id: tenant, id: row.id };
        const existing = await store.find(keyOf);
        const saved = existing ? await store.update(keyOf, row) : await store.insert(row);
        await ctx.services.audit.record({ actor: caller.subject, action: existing ? 'production.correct' : 'production.record', resource: 'poultry-production', result: 'success', correlation_id: ctx.requestId, tenant_id: tenant, details: { id: row.id, out_of_norm_flags: flags } });
        return saved ?? row;
      },
    }),
  },
});

export const productionKpiRoute = defineRoute({
  method: 'get',
  path: '/api/v1/poultry-production/kpi',
  module: 'poultry',
  tags: ['poultry'],
  summary: 'Batch KPIs over window_days: broilers livability, average daily gain, FCR, EPEF; layers hen-day production, egg mass, feed per kg of eggs, mortality (formulas in the README)',
  access: { resource: 'poultry-production', action: 'read', scope: 'tenant' },
  query: kpiQuery,
  response: { kind: 'single', item: { type: 'object', required: ['kind', 'house_id', 'batch_id', 'window_days'], properties: { kind: { enum: ['broiler', 'layer'] }, house_id: { type: 'string' }, batch_id: { type: 'string' }, window_days: { type: 'integer' }, records: { type: 'integer' } } } },
  handler: async (ctx) => {
    const q = ctx.query as { window_days: number; house_id: string; batch_id: string; subtype?: string; tenant_id?: string };
    const tenant = requiredTenant(ctx.caller, q.tenant_id);
    const rows = await batchDays(ctx.services, tenant, q.house_id, q.batch_id);
    const flock = await flockFacts(ctx.services, tenant, q.house_id, q.batch_id);
    const subtype = q.subtype ?? flock?.subtype ?? rows.at(-1)?.subtype ?? 'broiler';
    const kind = subtype === 'broiler' ? 'broiler' : 'layer';
    const days: ProductionDay[] = rows.map((r) => ({ metric_date: r.metric_date, age_days: r.age_days, birds_placed: r.birds_placed, mortality: r.mortality, culls: r.culls, avg_weight_g: r.avg_weight_g, feed_used_kg: r.feed_used_kg, eggs: r.eggs, egg_weight_g: r.egg_weight_g }));
    const placed = flock?.birds_placed ?? null;
    const kpi = kind === 'broiler' ? broilerKpi(days, q.window_days, placed) : layerKpi(days, q.window_days, placed);
    return { kind, house_id: q.house_id, batch_id: q.batch_id, subtype, records: rows.length, ...kpi };
  },
});
