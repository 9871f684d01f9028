// melioration-field: scheme, list, {id}, create and PATCH of fields, and the field's water
// balance by source and time window (GET melioration-field/{id}/balance, mm or m3).
import * as v from 'valibot';
import { defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { need } from '../../kernel/context.js';
import type { AnyRoute, HandlerContext, RouteDef } from '../../kernel/route.js';
import { timeId } from '../../kernel/ids.js';
import { totals, type DayBalance } from './balance.js';
import { mmToM3 } from './water.js';
import { dayString, ident, num, opt, writeSite } from './inputs.js';
import { boundSite } from '../../kernel/tenancy.js';
import { fieldSoil, siteToday } from './service.js';
import { controlModes, fieldRecord, FALLBACK_MODES, type ControlModeRow, type FieldRow } from './schema.js';
import { Store } from '../../db/store.js';

const soilShape = {
  area_ha: opt(num(0.0001, 1_000_000)),
  field_capacity_pct: opt(num(0.1, 100)),
  wilting_point_pct: opt(num(0, 100)),
  available_water_mm_per_m: opt(num(1, 1000)),
  root_depth_m: num(0.05, 5),
  depletion_fraction: num(0.05, 0.95),
  kc: num(0.05, 2),
  initial_depletion_mm: num(0, 5000),
};

const createItem = v.strictObject({
  id: v.optional(ident),
  site_id: v.optional(ident),
  name: ident,
  crop: ident,
  ...soilShape,
  depletion_fraction: v.optional(soilShape.depletion_fraction, 0.5),
  kc: v.optional(soilShape.kc, 1),
  initial_depletion_mm: v.optional(soilShape.initial_depletion_mm, 0),
  balance_start: v.optional(dayString),
  fallback_mode: v.optional(v.picklist(FALLBACK_MODES), 'B'),
});
const createBody = v.strictObject({ item: createItem });

const patchItem = v.strictObject({
  name: v.optional(ident),
  crop: v.optional(ident),
  area_ha: soilShape.area_ha,
  field_capacity_pct: soilShape.field_capacity_pct,
  wilting_point_pct: soilShape.wilting_point_pct,
  available_water_mm_per_m: soilShape.available_water_mm_per_m,
  root_depth_m: v.optional(soilShape.root_depth_m),
  depletion_fraction: v.optional(soilShape.depletion_fraction),
  kc: v.optional(soilShape.kc),
  initial_depletion_mm: v.optional(soilShape.initial_depletion_mm),
  balance_start: v.optional(dayString),
});
const patchBody = v.strictObject({ item: patchItem });

/** The soil must give the bucket a size: field capacity above wilting point, or available water. */
function checkSoil(f: Pick<FieldRow, 'field_capacity_pct' | 'wilting_point_pct' | 'available_water_mm_per_m' | 'root_depth_m' | 'initial_depletion_mm'>): void {
  const fc = f.field_capacity_pct;
  const wp = f.wilting_point_pct;
  if ((fc === null) !== (wp === null)) throw new ApiError('validation_error', 'field_capacity_pct and wilting_point_pct go together', [{ field: fc === null ? 'item.field_capacity_pct' : 'item.wilting_point_pct', reason: 'required' }]);
  if (fc !== null && wp !== null && fc <= wp) throw new ApiError('validation_error', `field capacity ${fc}% must be above the wilting point ${wp}%`, [{ field: 'item.field_capacity_pct', reason: 'not_above_wilting_point' }]);
  if (fc === null && f.available_water_mm_per_m === null) throw new ApiError('validation_error', 'the soil needs field_capacity_pct and wilting_point_pct, or available_water_mm_per_m', [{ field: 'item.available_water_mm_per_m', reason: 'required' }]);
  const taw = fieldSoil({ ...f, depletion_fraction: 0.5, kc: 1 } as FieldRow).taw_mm;
  if (f.initial_depletion_mm > taw) throw new ApiError('validation_error', `initial depletion ${f.initial_depletion_mm} mm exceeds the total available water ${taw} mm`, [{ field: 'item.initial_depletion_mm', reason: 'above_total_available_water' }]);
}

export const fieldResource = defineResource<FieldRow, v.InferOutput<typeof createBody>, v.InferOutput<typeof patchBody>>({
  name: 'melioration-field',
  module: 'melioration',
  title: 'Melioration fields',
  record: fieldRecord,
  access: { resource: 'melioration-field', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'name', order: 'asc' },
  toItem: (row) => {
    const soil = fieldSoil(row);
    return { ...row, taw_mm: soil.taw_mm, raw_mm: soil.raw_mm };
  },
  create: {
    body: createBody,
    toRow: (body, ctx) => {
      const b = body.item;
      const now = new Date().toISOString();
      const row: FieldRow = {
        id: b.id ?? timeId(), tenant_id: ctx.caller?.tenant_id ?? '', site_id: writeSite(ctx.caller, b.site_id),
        name: b.name, crop: b.crop, area_ha: b.area_ha ?? null,
        field_capacity_pct: b.field_capacity_pct ?? null, wilting_point_pct: b.wilting_point_pct ?? null, available_water_mm_per_m: b.available_water_mm_per_m ?? null,
        root_depth_m: b.root_depth_m, depletion_fraction: b.depletion_fraction, kc: b.kc,
        balance_start: b.balance_start ?? siteToday(ctx.services.config), initial_depletion_mm: b.initial_depletion_mm,
        depletion_mm: null, surplus_mm: null, balance_day: null, weather_source: null, created_at: now, updated_at: now,
      };
      checkSoil(row);
      // A season may be planned ahead, not years ahead.
      if (row.balance_start > siteToday(ctx.services.config, new Date(Date.now() + 366 * 86_400_000))) throw new ApiError('validation_error', `balance_start ${row.balance_start} is more than a year ahead`, [{ field: 'item.balance_start', reason: 'too_far_ahead' }]);
      return row;
    },
  },
  patch: {
    body: patchBody,
    apply: (current, body) => {
      const changes: Partial<FieldRow> = {};
      for (const [k, value] of Object.entries(body.item)) if (value !== undefined) (changes as Record<string, unknown>)[k] = value;
      checkSoil({ ...current, ...changes });
      return { ...changes, updated_at: new Date().toISOString() };
    },
  },
});

/** A field the caller may see (tenant through the kit, site through the session's site), else 404. */
export async function loadField(ctx: HandlerContext<unknown>, id: string, field = 'item.field_id'): Promise<FieldRow> {
  const row = await fieldResource.kit.store(ctx.services.db).find({ ...fieldResource.kit.scope(ctx.caller), id });
  const site = boundSite(ctx.caller);
  if (!row || (site && row.site_id !== site)) throw new ApiError('not_found', `field ${id} not found`, [{ field, reason: 'not_found' }]);
  return row;
}

const modesStore = new WeakMap<object, Store<ControlModeRow>>();
const modes = (ctx: HandlerContext<unknown>) => {
  let s = modesStore.get(ctx.services.db);
  if (!s) modesStore.set(ctx.services.db, (s = new Store<ControlModeRow>(ctx.services.db, controlModes)));
  return s;
};

/** After create: the field's control mode (A, manual, until someone turns automatic on). After create and PATCH: a fresh balance. */
function afterWrites(routes: AnyRoute[]): AnyRoute[] {
  return routes.map((route) => {
    if (route.method === 'post' && route.path === '/api/v1/melioration-field') {
      return {
        ...route,
        handler: async (ctx: HandlerContext<v.InferOutput<typeof createBody>>) => {
          const item = (await route.handler(ctx)) as FieldRow;
          const station = await need(ctx.services, 'melioration').stationState(item.tenant_id, item.site_id);
          await modes(ctx as HandlerContext<unknown>).insert({
            field_id: item.id, tenant_id: item.tenant_id, site_id: item.site_id, control_mode: 'A', fallback_mode: ctx.body.item.fallback_mode,
            auto_degraded: false, station_healthy: station ? station.healthy : null, reason: 'new field', changed_at: item.created_at, changed_by: ctx.caller?.subject ?? 'system',
          });
          return fieldResource.def.toItem((await need(ctx.services, 'melioration').evaluate(item, ctx.caller?.subject ?? 'system')).field);
        },
      } satisfies RouteDef<v.InferOutput<typeof createBody>>;
    }
    if (route.method === 'patch') {
      return {
        ...route,
        handler: async (ctx: HandlerContext<unknown>) => {
          await loadField(ctx, ctx.params.id as string, 'id');
          const item = (await route.handler(ctx)) as FieldRow;
          return fieldResource.def.toItem((await need(ctx.services, 'melioration').evaluate(item, ctx.caller?.subject ?? 'system')).field);
        },
      };
    }
    return route;
  });
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const dayProps = ['rain', 'effective_rain', 'irrigation_machine', 'irrigation_drip', 'etc', 'deep_percolation', 'depletion_start', 'depletion_end', 'surplus'] as const;

function dayView(d: DayBalance, convert: (mm: number) => number) {
  return {
    day: d.day, weather_source: d.weather_source, et0_mm: d.et0_mm === null ? null : round(d.et0_mm), ks: round(d.ks),
    rain: round(convert(d.rain_mm)), effective_rain: round(convert(d.effective_rain_mm)), irrigation_machine: round(convert(d.irrigation_machine_mm)),
    irrigation_drip: round(convert(d.irrigation_drip_mm)), etc: round(convert(d.etc_mm)), deep_percolation: round(convert(d.deep_percolation_mm)),
    depletion_start: round(convert(d.depletion_start_mm)), depletion_end: round(convert(d.depletion_end_mm)), surplus: round(convert(d.surplus_mm)),
    measured: typeof d.measured_depletion_mm === 'number',
  };
}

const numberOrNull = { anyOf: [{ type: 'number' }, { type: 'null' }] };
const balanceSchema = {
  type: 'object',
  required: ['field_id', 'unit', 'from', 'to', 'area_ha', 'taw', 'raw', 'by_source', 'totals', 'days'],
  properties: {
    field_id: { type: 'string' },
    unit: { type: 'string', enum: ['mm', 'm3'] },
    from: { type: 'string' },
    to: { type: 'string' },
    area_ha: numberOrNull,
    taw: { type: 'number' },
    raw: { type: 'number' },
    sources_used: { type: 'object', description: 'Days per weather source (station, service, none).' },
    by_source: {
      type: 'array', description: 'Water in and out of the root zone over the window, per source.',
      items: { type: 'object', required: ['source', 'amount'], properties: { source: { type: 'string', enum: ['rain', 'irrigation_machine', 'irrigation_drip', 'crop_evapotranspiration', 'deep_percolation'] }, amount: { type: 'number' }, effective: { type: 'number' } } },
    },
    totals: { type: 'object' },
    days: { type: 'array', items: { type: 'object', required: ['day', 'weather_source', ...dayProps], properties: { day: { type: 'string' }, weather_source: { type: 'string', enum: ['station', 'service', 'none'] }, et0_mm: numberOrNull } } },
  },
};

const balanceRoute: RouteDef<unknown> = {
  method: 'get', path: '/api/v1/melioration-field/{id}/balance', module: 'melioration', tags: ['melioration'],
  summary: 'Water balance of a field by source and day over a time window, in mm or m3',
  description: [
    'Daily root-zone bucket (FAO-56 Eq. 85): depletion = previous + ETc - effective rain - irrigation, bounded by 0 (field capacity; the excess is deep percolation) and TAW.',
    'ETc = Ks x Kc x ET0; ET0 by Penman-Monteith when the day has radiation and wind, else Hargreaves. Each day names the weather source it used: the station when its record is healthy, else the weather service (fallback), else none (no ET that day).',
    'Rain below 0.2 x ET0 is lost to interception; irrigation counts as depth over the whole field (a pass over part of it: depth x covered share). A day with probe readings ends at the measured depletion.',
    'unit=m3 converts every amount with the field area (1 mm on 1 ha = 10 m3); a field without an area answers 400 validation_error (unit, field_has_no_area). Window: from/to (days of the site, site_timezone; default the last 7 days up to today), clipped to the field\'s balance_start, at most 366 days.',
  ].join(' '),
  access: { resource: 'melioration-field', action: 'read', scope: 'tenant' },
  query: {
    from: { type: 'string', description: 'First day (YYYY-MM-DD, a day of the site: site_timezone, UTC when not set).' },
    to: { type: 'string', description: 'Last day (YYYY-MM-DD, a day of the site); default today at the site.' },
    unit: { type: 'string', enum: ['mm', 'm3'], default: 'mm', description: 'mm (primary) or m3 (needs the field area).' },
  },
  errors: ['not_found'],
  response: { kind: 'single', item: balanceSchema },
  handler: async (ctx) => {
    const field = await loadField(ctx, ctx.params.id as string, 'id');
    const isDay = (s: unknown): s is string => typeof s === 'string' && v.is(dayString, s);
    for (const k of ['from', 'to'] as const) {
      if (ctx.query[k] !== undefined && !isDay(ctx.query[k])) throw new ApiError('validation_error', `${k} must be a day YYYY-MM-DD`, [{ field: k, reason: 'invalid_format' }]);
    }
    const unit = ctx.query.unit as 'mm' | 'm3';
    if (unit === 'm3' && field.area_ha === null) throw new ApiError('validation_error', `field ${field.id} has no area: its balance is available in mm only`, [{ field: 'unit', reason: 'field_has_no_area' }]);
    const to = (ctx.query.to as string | undefined) ?? siteToday(ctx.services.config);
    const fromAsked = (ctx.query.from as string | undefined) ?? new Date(Date.parse(`${to}T00:00:00Z`) - 6 * 86_400_000).toISOString().slice(0, 10);
    if (fromAsked > to) throw new ApiError('validation_error', `from ${fromAsked} is after to ${to}`, [{ field: 'from', reason: 'after_to' }]);
    if (Date.parse(to) - Date.parse(fromAsked) > 365 * 86_400_000) throw new ApiError('validation_error', 'the window is longer than 366 days', [{ field: 'from', reason: 'window_too_long' }]);
    const from = fromAsked < field.balance_start ? field.balance_start : fromAsked;
    const days = await need(ctx.services, 'melioration').balance(field, from, to);
    const convert = unit === 'm3' ? (mm: number) => mmToM3(mm, field.area_ha as number) : (mm: number) => mm;
    const sum = totals(days);
    const soil = fieldSoil(field);
    const used = { station: 0, service: 0, none: 0 };
    for (const d of days) used[d.weather_source]++;
    return {
      field_id: field.id, unit, from, to, area_ha: field.area_ha, taw: round(convert(soil.taw_mm)), raw: round(convert(soil.raw_mm)), sources_used: used,
      by_source: [
        { source: 'rain', amount: round(convert(sum.rain_mm)), effective: round(convert(sum.effective_rain_mm)) },
        { source: 'irrigation_machine', amount: round(convert(sum.irrigation_machine_mm)) },
        { source: 'irrigation_drip', amount: round(convert(sum.irrigation_drip_mm)) },
        { source: 'crop_evapotranspiration', amount: round(convert(sum.etc_mm)) },
        { source: 'deep_percolation', amount: round(convert(sum.deep_percolation_mm)) },
      ],
      totals: Object.fromEntries(Object.entries(sum).map(([k, x]) => [k.replace(/_mm$/, ''), k === 'et0_mm' ? round(x) : round(convert(x))])),
      days: days.map((d) => dayView(d, convert)),
    };
  },
};

export const fieldRoutes: AnyRoute[] = [balanceRoute, ...afterWrites(fieldResource.routes)];
