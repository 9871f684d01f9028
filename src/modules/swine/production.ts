// swine-production: daily records per room/pen and batch (head count, deaths, culls, weighings,
// feed used; for sows: sows present, litters and piglets weaned) with out_of_norm_flags, and
// GET swine-production/kpi over window_days (formulas in kpi.ts and the README).
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { command, defineResource } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';
import { timeId } from '../../kernel/ids.js';
import { and, eq, gte, lte, max } from 'drizzle-orm';
import { colOf, tableOf } from '../../db/sql.js';
import { boundSite, ownerSite as writeSite } from '../../kernel/tenancy.js';
import { SWINE_CATEGORIES } from './norms.js';
import { growingKpi, sowKpi, type DailyRecord } from './kpi.js';

/** A day losing more than this share of the pen's pigs is out of norm (finishers lose ~0.03 % a day in a normal batch). */
export const DAILY_MORTALITY_FLAG_PCT = 0.5;
/** Fewer piglets weaned per litter than this is out of norm. */
export const WEANED_PER_LITTER_FLAG = 10;

export const productionRecord = defineRecord('swine_production_records', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', filter: true, description: 'Empty when the session names no site.' },
  batch_id: { type: 'string', label: 'Batch', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  room_id: { type: 'string', label: 'Room', filter: true, sortable: true, searchable: true },
  pen_id: { type: 'string', label: 'Pen', filter: true, description: 'Empty for a record of the whole room.' },
  category: { type: 'string', label: 'Animals', enum: SWINE_CATEGORIES, filter: true, description: 'sow for the breeding herd; weaner, grower, finisher for growing pigs.' },
  metric_date: { type: 'string', label: 'Date', filter: true, sortable: true },
  head_count: { type: 'integer', label: 'Head at start of day', ui: { unit: 'head' } },
  deaths: { type: 'integer', label: 'Deaths', ui: { unit: 'head' } },
  culls: { type: 'integer', label: 'Culls', ui: { unit: 'head' } },
  avg_weight_kg: { type: 'number', label: 'Average weight', nullable: true, ui: { unit: 'kg' }, description: 'From a weighing that day, if any.' },
  feed_kg: { type: 'number', label: 'Feed used', nullable: true, ui: { unit: 'kg' }, description: 'Feed used since the previous record.' },
  sows_present: { type: 'integer', label: 'Sows present', nullable: true, ui: { unit: 'head' } },
  litters_weaned: { type: 'integer', label: 'Litters weaned', nullable: true },
  piglets_weaned: { type: 'integer', label: 'Piglets weaned', nullable: true, ui: { unit: 'head' } },
  piglets_born_alive: { type: 'integer', label: 'Piglets born alive', nullable: true, ui: { unit: 'head' } },
  out_of_norm_flags: { type: 'array', items: 'string', label: 'Out of norm', readOnly: true, ui: { chips: true } },
  created_by: { type: 'string', label: 'Entered by', readOnly: true },
  created_at: { type: 'datetime', label: 'Entered', readOnly: true, sortable: true },
}, {
  indexes: [{ name: 'swine_production_day', columns: ['tenant_id', 'site_id', 'batch_id', 'room_id', 'pen_id', 'category', 'metric_date'], unique: true }],
});
export type ProductionRow = typeof productionRecord.row;

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const count = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(1_000_000));
const date = v.pipe(v.string(), v.isoDate(), v.check((d) => new Date(`${d}T00:00:00Z`).toISOString().startsWith(d), 'not a calendar date'));
const ingestBody = v.pipe(v.strictObject({
  batch_id: key, room_id: key, pen_id: v.optional(key), site_id: v.optional(key), tenant_id: v.optional(key),
  category: v.picklist(SWINE_CATEGORIES), metric_date: date,
  head_count: count, deaths: v.optional(count), culls: v.optional(count),
  avg_weight_kg: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0.3), v.maxValue(500))),
  feed_kg: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(10_000_000))),
  sows_present: v.optional(count), litters_weaned: v.optional(count), piglets_weaned: v.optional(count), piglets_born_alive: v.optional(count),
}), v.forward(v.check((b) => (b.deaths ?? 0) + (b.culls ?? 0) <= b.head_count, 'deaths and culls exceed the head count'), ['deaths']));

export const productionResource = defineResource<ProductionRow>({
  name: 'swine-production',
  module: 'swine',
  title: 'Swine production',
  record: productionRecord,
  access: { resource: 'swine-production', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'metric_date', order: 'desc' },
  commands: {
    ingest: command({
      summary: `A daily production record of a room or pen and batch (one per batch, room, pen, category and date: a second one is 409 already_exists). out_of_norm_flags: mortality_high when deaths exceed ${DAILY_MORTALITY_FLAG_PCT} % of the head count that day; weaned_per_litter_low when fewer than ${WEANED_PER_LITTER_FLAG} piglets are weaned per litter.`,
      action: 'execute',
      body: ingestBody,
      status: 201,
      errors: ['already_exists'],
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const site = writeSite(caller, b.site_id) ?? '';
        const flags: string[] = [];
        const deaths = b.deaths ?? 0;
        if (b.head_count > 0 && (deaths / b.head_count) * 100 > DAILY_MORTALITY_FLAG_PCT) flags.push('mortality_high');
        if (b.litters_weaned && b.piglets_weaned !== undefined && b.piglets_weaned / b.litters_weaned < WEANED_PER_LITTER_FLAG) flags.push('weaned_per_litter_low');
        const row: ProductionRow = {
          id: timeId(), tenant_id: caller.tenant_id!, site_id: site, batch_id: b.batch_id, room_id: b.room_id, pen_id: b.pen_id ?? '',
          category: b.category, metric_date: b.metric_date, head_count: b.head_count, deaths, culls: b.culls ?? 0,
          avg_weight_kg: b.avg_weight_kg ?? null, feed_kg: b.feed_kg ?? null, sows_present: b.sows_present ?? null,
          litters_weaned: b.litters_weaned ?? null, piglets_weaned: b.piglets_weaned ?? null, piglets_born_alive: b.piglets_born_alive ?? null,
          out_of_norm_flags: flags, created_by: caller.subject, created_at: new Date().toISOString(),
        };
        const store = kit.store(ctx.services.db);
        const dup = await store.find({ tenant_id: row.tenant_id, site_id: site, batch_id: row.batch_id, room_id: row.room_id, pen_id: row.pen_id, category: row.category, metric_date: row.metric_date });
        if (dup) throw new ApiError('already_exists', `batch ${row.batch_id} room ${row.room_id}${row.pen_id ? ` pen ${row.pen_id}` : ''} already has a ${row.category} record for ${row.metric_date} (${dup.id})`, [{ field: 'metric_date', reason: 'already_exists' }]);
        return kit.toItem((await store.insert(row as never))!);
      },
    }),
  },
});

const kpiQuery = {
  window_days: { type: 'integer' as const, description: 'Days in the window, ending at end_date (default 30, 1-3650).' },
  end_date: { type: 'string' as const, description: 'Last day of the window (YYYY-MM-DD); default the latest record in the filter.' },
  batch_id: { type: 'string' as const },
  room_id: { type: 'string' as const },
  pen_id: { type: 'string' as const },
  site_id: { type: 'string' as const },
  category: { type: 'string' as const, enum: SWINE_CATEGORIES },
};

export const productionKpiRoute: AnyRoute = {
  method: 'get', path: '/api/v1/swine-production/kpi', module: 'swine', tags: ['swine'],
  summary: 'Production KPIs over window_days: growing pigs (mortality %, average daily gain g/day, weight gain, economic FCR) and sows (piglets weaned per sow per year, piglets per litter); formulas in the README ("Swine: production KPIs").',
  access: { resource: 'swine-production', action: 'read', scope: 'tenant' },
  query: kpiQuery,
  response: { kind: 'single', item: { type: 'object', properties: { window_days: { type: 'integer' }, from_date: { type: ['string', 'null'] }, to_date: { type: ['string', 'null'] }, records: { type: 'integer' }, growing: { type: ['object', 'null'] }, sows: { type: ['object', 'null'] } }, required: ['window_days', 'from_date', 'to_date', 'records', 'growing', 'sows'] } },
  handler: async (ctx: HandlerContext<unknown>) => {
    const q = ctx.query;
    const windowDays = (q.window_days as number | undefined) ?? 30;
    if (windowDays < 1 || windowDays > 3650) throw new ApiError('validation_error', 'window_days must be from 1 to 3650', [{ field: 'window_days', reason: 'out_of_range' }]);
    if (q.end_date !== undefined && !/^\d{4}-\d{2}-\d{2}$/.test(q.end_date as string)) throw new ApiError('validation_error', 'end_date must be YYYY-MM-DD', [{ field: 'end_date', reason: 'invalid_date' }]);
    const { db } = ctx.services;
    const t = tableOf(productionRecord.table, db);
    const c = (n: string) => colOf(productionRecord.table, db, n);
    const site = boundSite(ctx.caller);
    if (site && q.site_id !== undefined && q.site_id !== site) return { window_days: windowDays, from_date: null, to_date: null, records: 0, growing: null, sows: null };
    const conds = [eq(c('tenant_id'), ctx.caller!.tenant_id!)];
    for (const k of ['batch_id', 'room_id', 'pen_id', 'category'] as const) if (q[k] !== undefined) conds.push(eq(c(k), q[k] as string));
    const siteFilter = site ?? (q.site_id as string | undefined);
    if (siteFilter !== undefined) conds.push(eq(c('site_id'), siteFilter));
    let end = q.end_date as string | undefined;
    if (!end) {
      const [latest] = (await db.orm.select({ d: max(c('metric_date')) }).from(t).where(and(...conds))) as { d: string | null }[];
      end = latest?.d ?? undefined;
    }
    if (!end) return { window_days: windowDays, from_date: null, to_date: null, records: 0, growing: null, sows: null };
    const from = new Date(Date.parse(`${end}T00:00:00Z`) - (windowDays - 1) * 86_400_000).toISOString().slice(0, 10);
    const rows = (await db.orm.select().from(t).where(and(...conds, gte(c('metric_date'), from), lte(c('metric_date'), end)))) as ProductionRow[];
    const records: DailyRecord[] = rows;
    return { window_days: windowDays, from_date: from, to_date: end, records: rows.length, growing: growingKpi(records), sows: sowKpi(records, windowDays) };
  },
};

// kpi before {id}, so that GET swine-production/kpi is not read as the record with id "kpi".
export const productionRoutes = [productionKpiRoute, ...productionResource.routes];
