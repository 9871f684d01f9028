// poultry-flock: houses, batches and flocks. POST places a flock (house + batch, subtype,
// start_date = day 0) and creates its climate phases as published version 1 records: from the
// newest published poultry profile with `climate_phases` for the flock's site (else for every
// site of the tenant), or the one named by profile_id, else from the built-in broiler curve
// (default-curve.ts). commands/close ends it. A house holds one active flock at a time.
// current_age_days is computed at every read from start_date and the site's calendar day
// (setting site_timezone), never stored.
import { inForceChanged } from '../../industry/in-force.js';
import * as v from 'valibot';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import type { Services } from '../../kernel/context.js';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';
import { colOf, tableOf } from '../../db/sql.js';
import { industryProfiles, profileInForce, type ProfileRow } from '../../industry/profiles.js';
import { ownerSite as writeSite, requiredTenant } from '../../kernel/tenancy.js';
import { climateRecord, flockRecord, SUBTYPES, type ClimateRow, type FlockRow } from './climate-schema.js';
import { DEFAULT_BROILER_CURVE, overlapping, type ClimatePhase } from './default-curve.js';
import { climateVersions } from './climate-versions.js';
import { siteDay } from '../../industry/site-day.js';

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const date = v.pipe(v.string(), v.isoDate('a date YYYY-MM-DD'));

const placeBody = v.strictObject({
  house_id: key,
  batch_id: key,
  subtype: v.picklist(SUBTYPES),
  start_date: date,
  planned_close_date: v.optional(date),
  birds_placed: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(10_000_000))),
  tenant_id: v.optional(key),
  site_id: v.optional(key),
  profile_id: v.optional(key),
});
const closeBody = v.strictObject({ id: key, closed_date: v.optional(date) });

const phaseSchema = v.strictObject({
  age_phase_id: key,
  day_from: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000)),
  day_to: v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000)),
  target_temp_c: v.pipe(v.number(), v.minValue(-10), v.maxValue(45)),
  temp_tolerance_c: v.optional(v.pipe(v.number(), v.minValue(0), v.maxValue(10)), 1.5),
  humidity_min_pct: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
  humidity_max_pct: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
  co2_max_ppm: v.pipe(v.number(), v.minValue(0), v.maxValue(20_000)),
  nh3_max_ppm: v.pipe(v.number(), v.minValue(0), v.maxValue(500)),
  min_ventilation_pct: v.pipe(v.number(), v.minValue(0), v.maxValue(100)),
});
/** What a poultry profile's `climate_phases` must hold. */
export const climatePhasesSchema = v.pipe(v.array(phaseSchema), v.minLength(1), v.maxLength(100));

/** Whole days from `from` to `to` (both YYYY-MM-DD). */
export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);

// Every reading asks for its flock's age, and formatting a date in a time zone costs more than
// the rest of the judgement. Zone offsets and their changes fall on quarter hours, so the site's
// date is the same for every moment of one UTC quarter hour: it is worked out once per quarter.
const QUARTER_MS = 15 * 60_000;
let lastDate: { quarter: number; config: Services['config']; tz: string | undefined; date: string } | undefined;
function siteDate(at: Date, services: Services): string {
  const quarter = Math.floor(at.getTime() / QUARTER_MS);
  const { config } = services;
  const tz = (config as { site_timezone?: string }).site_timezone;
  if (lastDate && lastDate.quarter === quarter && lastDate.config === config && lastDate.tz === tz) return lastDate.date;
  const date = siteDay(at, config).date;
  lastDate = { quarter, config, tz, date };
  return date;
}

/** The flock's age in days at `at` on the site's calendar; a closed flock stays at its closing day. */
export function ageOf(flock: Pick<FlockRow, 'start_date' | 'closed_date'>, services: Services, at = new Date()): number {
  const today = siteDate(at, services);
  const end = flock.closed_date && flock.closed_date < today ? flock.closed_date : today;
  return daysBetween(flock.start_date, end);
}

/** The flock's age at `at` in days, fractional: whole days on the site calendar plus the part of today gone. */
export function fractionalAge(startDate: string, services: Services, at: Date): number {
  const day = siteDay(at, services.config);
  return daysBetween(startDate, day.date) + day.fraction;
}

export const flockItem = (row: FlockRow, services: Services) => ({ ...row, current_age_days: ageOf(row, services) });

const flocks = (services: Services) => flockResource.kit.store(services.db);

/** A flock of a house: the named batch, else the active flock of the house. */
export async function findFlock(services: Services, tenant: string, house: string, batch?: string): Promise<(FlockRow & { current_age_days: number }) | undefined> {
  const row = batch
    ? await flocks(services).find({ tenant_id: tenant, house_id: house, batch_id: batch })
    : await flocks(services).find({ tenant_id: tenant, house_id: house, status: 'active' });
  return row ? flockItem(row, services) : undefined;
}

/** What production and feed/water need to know about a batch's flock: placement date, subtype, birds placed. */
export interface FlockFacts {
  start_date: string;
  subtype: (typeof SUBTYPES)[number];
  birds_placed: number | null;
}

export async function flockFacts(services: Services, tenant: string, house: string, batch: string): Promise<FlockFacts | undefined> {
  const flock = await findFlock(services, tenant, house, batch);
  return flock ? { start_date: flock.start_date, subtype: flock.subtype, birds_placed: flock.birds_placed } : undefined;
}


/** The climate phases a new flock gets, and where they came from. */
async function phasesFor(services: Services, tenant: string, site: string | null, profileId: string | undefined, subtype: FlockRow['subtype']): Promise<{ phases: ClimatePhase[]; source: string }> {
  const t = tableOf(industryProfiles, services.db);
  const c = (n: string) => colOf(industryProfiles, services.db, n);
  let profile: ProfileRow | undefined;
  if (profileId) {
    [profile] = (await services.db.orm.select().from(t).where(and(eq(c('id'), profileId), eq(c('tenant_id'), tenant), eq(c('industry_code'), 'poultry'))).limit(1)) as ProfileRow[];
    if (!profile) throw new ApiError('not_found', `poultry profile ${profileId} not found`, [{ field: 'profile_id', reason: 'not_found' }]);
  } else {
    profile = await profileInForce(services, { tenant, site, industry: 'poultry', key: 'climate_phases' });
  }
  if (profile) {
    const parsed = v.safeParse(climatePhasesSchema, profile.content.climate_phases);
    if (!parsed.success) {
      throw new ApiError('validation_error', `poultry profile ${profile.id} has no valid climate_phases`, parsed.issues.slice(0, 10).map((i) => ({ field: ['climate_phases', ...(i.path ?? []).map((p) => String(p.key))].join('.'), reason: i.message })));
    }
    checkPhases(parsed.output);
    return { phases: parsed.output, source: `profile:${profile.id} v${profile.version_id}` };
  }
  return { phases: subtype === 'broiler' ? DEFAULT_BROILER_CURVE.map((p) => ({ ...p })) : [], source: subtype === 'broiler' ? 'default-broiler-curve' : 'none' };
}

/** 400 when a phase's range is inverted or two phases share a day. */
export function checkPhases(phases: readonly Pick<ClimatePhase, 'age_phase_id' | 'day_from' | 'day_to' | 'humidity_min_pct' | 'humidity_max_pct'>[]): void {
  for (const p of phases) {
    if (p.day_to < p.day_from) throw new ApiError('validation_error', `age phase ${p.age_phase_id}: day_to ${p.day_to} is before day_from ${p.day_from}`, [{ field: 'day_to', reason: 'before_day_from' }]);
    if (p.humidity_max_pct < p.humidity_min_pct) throw new ApiError('validation_error', `age phase ${p.age_phase_id}: humidity_max_pct below humidity_min_pct`, [{ field: 'humidity_max_pct', reason: 'below_minimum' }]);
  }
  const clash = overlapping(phases);
  if (clash) throw new ApiError('validation_error', `age phases ${clash[0]} and ${clash[1]} overlap: a day of age belongs to one phase only`, [{ field: 'day_from', reason: 'overlapping_age_phase' }]);
}

export const flockResource: ReturnType<typeof defineResource<FlockRow>> = defineResource<FlockRow>({
  name: 'poultry-flock',
  module: 'poultry',
  title: 'Poultry flocks',
  record: flockRecord,
  access: { resource: 'poultry-flock', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'created_at', order: 'desc' },
  commands: {
    place: command({
      summary: 'Place a flock in a house (house_id, batch_id, subtype, start_date = day 0 in the site time zone, planned_close_date, birds_placed). Its climate phases are created as published version 1: from the poultry profile named by profile_id, else the newest published poultry profile with climate_phases for the site (then for every site of the tenant), else the built-in broiler curve. 409 lifecycle_conflict when the house holds an active flock; 409 already_exists for a house and batch placed before; 400 overlapping_age_phase when the profile\'s phases overlap.',
      action: 'create',
      body: placeBody,
      status: 201,
      errors: ['lifecycle_conflict', 'already_exists', 'not_found'],
      handler: async (ctx) => place(ctx),
    }),
    close: command({
      summary: 'Close a flock (depletion): status closed, closed_date (default: today in the site time zone). Closing a closed flock is 409 lifecycle_conflict.',
      action: 'execute',
      body: closeBody,
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => {
        const row = (await kit.load(ctx, ctx.body.id)) as unknown as FlockRow;
        if (row.status === 'closed') throw new ApiError('lifecycle_conflict', `flock ${row.id} was closed on ${row.closed_date}`, [{ field: 'id', reason: 'closed' }]);
        const closed_date = ctx.body.closed_date ?? siteDay(new Date(), ctx.services.config).date;
        if (closed_date < row.start_date) throw new ApiError('validation_error', `closed_date ${closed_date} is before start_date ${row.start_date}`, [{ field: 'closed_date', reason: 'before_start_date' }]);
        const saved = (await flocks(ctx.services).update({ tenant_id: row.tenant_id, id: row.id, status: 'active' }, { status: 'closed', closed_date }))!;
        inForceChanged(ctx.services.db);
        await ctx.services.audit.record({ actor: ctx.caller!.subject, action: 'poultry.flock.close', resource: 'poultry-flock', result: 'success', correlation_id: ctx.requestId, tenant_id: row.tenant_id, details: { id: row.id, house_id: row.house_id, batch_id: row.batch_id, closed_date } });
        return flockItem(saved, ctx.services);
      },
    }),
  },
});

async function place(ctx: HandlerContext<v.InferOutput<typeof placeBody>>) {
  const b = ctx.body;
  const caller = ctx.caller!;
  const { services } = ctx;
  const tenant = requiredTenant(caller, b.tenant_id);
  const site = writeSite(caller, b.site_id);
  if (b.planned_close_date && b.planned_close_date < b.start_date) throw new ApiError('validation_error', 'planned_close_date is before start_date', [{ field: 'planned_close_date', reason: 'before_start_date' }]);
  if (await flocks(services).find({ tenant_id: tenant, house_id: b.house_id, batch_id: b.batch_id })) {
    throw new ApiError('already_exists', `house ${b.house_id} batch ${b.batch_id} was placed before`, [{ field: 'batch_id', reason: 'already_exists' }]);
  }
  const active = await flocks(services).find({ tenant_id: tenant, house_id: b.house_id, status: 'active' });
  if (active) throw new ApiError('lifecycle_conflict', `house ${b.house_id} holds active flock ${active.batch_id}; close it first`, [{ field: 'house_id', reason: 'house_occupied' }]);
  const { phases, source } = await phasesFor(services, tenant, site, b.profile_id, b.subtype);
  const row: FlockRow = {
    id: randomUUID(), tenant_id: tenant, site_id: site, house_id: b.house_id, batch_id: b.batch_id, subtype: b.subtype, status: 'active',
    start_date: b.start_date, planned_close_date: b.planned_close_date ?? null, closed_date: null, birds_placed: b.birds_placed ?? null,
    climate_source: source, created_by: caller.subject, created_at: new Date().toISOString(),
  };
  const saved = await services.db.transaction(async () => {
    const f = await flocks(services).insert(row);
    if (!f) throw new ApiError('already_exists', `house ${b.house_id} batch ${b.batch_id} was placed before`, [{ field: 'batch_id', reason: 'already_exists' }]);
    for (const p of phases) {
      await climateVersions.add(services.db, {
        tenant_id: tenant, site_id: site, house_id: b.house_id, batch_id: b.batch_id, subtype: b.subtype, ...p, correlation_id: null, adapter_dispatch: null,
      } as Omit<ClimateRow, 'id' | 'version_id' | 'state' | 'change_note' | 'rollback_of' | 'created_by' | 'created_at' | 'published_at'>, { id: randomUUID(), actor: caller.subject, publish: true, change_note: `placement: ${source}` });
    }
    return f;
  }).finally(() => inForceChanged(services.db));
  await services.audit.record({ actor: caller.subject, action: 'poultry.flock.place', resource: 'poultry-flock', result: 'success', correlation_id: ctx.requestId, tenant_id: tenant, details: { id: saved.id, house_id: b.house_id, batch_id: b.batch_id, climate_source: source, phases: phases.length } });
  return flockItem(saved, services);
}

/** Adds current_age_days to every flock the routes answer. */
function withAge(routes: AnyRoute[]): AnyRoute[] {
  return routes.map((route) => ({
    ...route,
    handler: async (ctx: HandlerContext<unknown>) => {
      const out = (await route.handler(ctx)) as Record<string, unknown>;
      if (Array.isArray(out?.items)) return { ...out, items: (out.items as FlockRow[]).map((r) => flockItem(r, ctx.services)) };
      if (out && typeof out === 'object' && 'start_date' in out) return flockItem(out as unknown as FlockRow, ctx.services);
      return out;
    },
  }));
}

export const flockRoutes = withAge(flockResource.routes);
export { climateRecord };
