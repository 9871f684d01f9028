// Curve following over HTTP:
//   GET  /api/v1/poultry-climate-curve?house_id=   the house's curve: the interpolated targets at
//        the flock's age now and for the days ahead (days, step_hours), and the points (phases).
//   POST /api/v1/poultry-climate/commands/follow   {house_id, enabled, deadband?, interval_s?}
//        switches following on or off for a house (off by default); on again after a pause is
//        the resume: the curve_follow alarm clears and the next pass compares again. Audited
//        (poultry-climate.follow, actor, old and new). An operational switch: operators run the
//        houses, so it takes the poultry-climate execute permission operators hold.
//   GET  /api/v1/poultry-curve-follow/list          the state per house (tenant and site scoped).
import * as v from 'valibot';
import { randomUUID } from 'node:crypto';
import { inForceChanged } from '../../industry/in-force.js';
import { defineResource, itemSchema } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { defineRoute, type AnyRoute, type HandlerContext } from '../../kernel/route.js';
import type { Caller, Services } from '../../kernel/context.js';
import { boundSite, requiredTenant } from '../../kernel/tenancy.js';
import { curveOfPhases, sampleCurve, valuesAt } from '../../industry/curve.js';
import { publishedPhases, SETPOINT_KEYS, unknownHouse } from './climate.js';
import { findFlock } from './flock.js';
import { followRecord, type FollowRow } from './follow-schema.js';
import type { FlockRow } from './climate-schema.js';
import { clockOf, DEFAULT_DEADBAND, FOLLOW_RULE, fractionalAge } from './follow-service.js';

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const band = (max: number) => v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(max)));

const followBody = v.strictObject({
  house_id: key,
  enabled: v.boolean(),
  deadband: v.optional(v.strictObject({
    target_temp_c: band(5), temp_tolerance_c: band(5), humidity_min_pct: band(20), humidity_max_pct: band(20), co2_max_ppm: band(2000), nh3_max_ppm: band(50), min_ventilation_pct: band(20),
  })),
  interval_s: v.optional(v.pipe(v.number(), v.integer(), v.minValue(60), v.maxValue(86_400))),
  tenant_id: v.optional(key),
});

export const followResource = defineResource<FollowRow>({
  name: 'poultry-curve-follow',
  module: 'poultry',
  title: 'Poultry curve following',
  record: followRecord,
  access: { resource: 'poultry-climate', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'house_id', order: 'asc' },
});

/** The active flock of a house the caller may see (tenant and bound site), else 404. */
async function houseFlock(services: Services, caller: Caller | undefined, tenant: string, house: string) {
  const flock = await findFlock(services, tenant, house);
  const bound = boundSite(caller);
  if (!flock || flock.status !== 'active' || (bound && flock.site_id !== bound)) return unknownHouse(house);
  return flock;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

const curveRoute = defineRoute({
  method: 'get',
  path: '/api/v1/poultry-climate-curve',
  module: 'poultry',
  tags: ['poultry'],
  summary: 'The climate curve of a house\'s active flock as the controller follows it: the targets interpolated at the flock\'s age now (fractional days, site calendar) and every step_hours for the next `days` days (linear between the phases\' first days; the first values before, the last after), with the curve points (the published phases) and the house\'s following state.',
  access: { resource: 'poultry-climate', action: 'read', scope: 'tenant' },
  query: {
    house_id: { type: 'string', required: true, description: 'The house.' },
    days: { type: 'integer', min: 1, max: 120, default: 7, description: 'How many days ahead.' },
    step_hours: { type: 'integer', min: 1, max: 168, default: 24, description: 'Hours between two samples.' },
    tenant_id: { type: 'string', description: 'Master callers: the tenant.' },
  },
  errors: ['not_found'],
  response: { kind: 'single', item: {
    type: 'object',
    properties: {
      house_id: { type: 'string' }, batch_id: { type: 'string' }, age_days: { type: 'number' }, at: { type: 'string', format: 'date-time' },
      now: { type: 'object', description: 'Setpoint key -> interpolated target now.' },
      ahead: { type: 'array', items: { type: 'object', properties: { at: { type: 'string', format: 'date-time' }, age_days: { type: 'number' }, values: { type: 'object' } } } },
      points: { type: 'array', items: { type: 'object', properties: { age_phase_id: { type: 'string' }, day: { type: 'number' }, values: { type: 'object' } } } },
      following: { type: ['object', 'null'], description: 'The house\'s poultry-curve-follow row, null when never switched on.' },
    },
    required: ['house_id', 'batch_id', 'age_days', 'at', 'now', 'ahead', 'points', 'following'],
  } },
  handler: async (ctx) => {
    const q = ctx.query as { house_id: string; days: number; step_hours: number; tenant_id?: string };
    const tenant = requiredTenant(ctx.caller, q.tenant_id);
    const flock = await houseFlock(ctx.services, ctx.caller, tenant, q.house_id);
    const now = clockOf(ctx.services);
    const age = fractionalAge(flock.start_date, ctx.services, now);
    const phases = (await publishedPhases(ctx.services, tenant, q.house_id, flock.batch_id)).sort((a, b) => a.day_from - b.day_from);
    const curve = curveOfPhases(phases, SETPOINT_KEYS);
    const step = q.step_hours / 24;
    const ahead = sampleCurve(curve, age, q.days, step).map((p, i) => ({ at: new Date(now.getTime() + i * q.step_hours * 3_600_000).toISOString(), ...p }));
    const following = await followResource.kit.store(ctx.services.db).find({ tenant_id: tenant, house_id: q.house_id });
    return {
      house_id: q.house_id, batch_id: flock.batch_id, age_days: round(age), at: now.toISOString(), now: valuesAt(curve, age), ahead,
      points: phases.map((p, i) => ({ age_phase_id: p.age_phase_id, day: p.day_from, values: curve[i]!.values })),
      following: following ?? null,
    };
  },
});

const followRoute = defineRoute({
  method: 'post',
  path: '/api/v1/poultry-climate/commands/follow',
  module: 'poultry',
  tags: ['poultry'],
  summary: 'Switch curve following of a house on or off (off by default). On: every interval_s (default 900, 60-86400) the box compares the interpolated curve with what the controller holds and writes the keys that drift beyond their deadband (defaults: target_temp_c 0.2, temp_tolerance_c 0.1, humidities 1, co2 100, nh3 1, ventilation 1) through the setpoint dispatch. Following pauses with a P2 curve_follow alarm when a write fails or a value is changed at the controller; enabled=true again resumes (the alarm clears). Operators and admins; audited with the old and new state.',
  access: { resource: 'poultry-climate', action: 'follow', scope: 'tenant' },
  body: followBody,
  errors: ['not_found', 'lifecycle_conflict'],
  response: { kind: 'single', item: itemSchema(followRecord.fields) },
  handler: async (ctx) => {
    const { services } = ctx;
    const b = ctx.body;
    const caller = ctx.caller!;
    const tenant = requiredTenant(caller, b.tenant_id);
    const flock = await houseFlock(services, caller, tenant, b.house_id);
    const follower = services.curveFollower;
    return follower ? follower.exclusive(() => switchFollowing(ctx, tenant, flock)) : switchFollowing(ctx, tenant, flock);
  },
});

/** Writes the switch; run between the follower's passes so a pass never writes over it. */
async function switchFollowing(ctx: HandlerContext<v.InferOutput<typeof followBody>>, tenant: string, flock: FlockRow) {
  const { services } = ctx;
  const b = ctx.body;
  const caller = ctx.caller!;
  const store = followResource.kit.store(services.db);
  const before = await store.find({ tenant_id: tenant, house_id: b.house_id });
  const now = clockOf(services).toISOString();
  const seen = services.curveFollower?.heldOf(tenant, b.house_id);
  // Switching (on, off, or on again after a pause) starts clean: what the box wrote before is no
  // longer what the controller must hold, so a value changed by hand is not judged again.
  const next: FollowRow = {
    id: before?.id ?? randomUUID(), tenant_id: tenant, site_id: flock.site_id, house_id: b.house_id, enabled: b.enabled,
    interval_s: b.interval_s ?? before?.interval_s ?? 900, deadband: { ...DEFAULT_DEADBAND, ...(before?.deadband ?? {}), ...(b.deadband ?? {}) },
    paused: false, pause_reason: null, pause_message: null, alarm_id: null, last_check_at: null,
    last_write_at: null, last_written: null, last_correlation_id: before?.last_correlation_id ?? null,
    held: seen?.held ?? before?.held ?? null, held_at: seen?.at ?? before?.held_at ?? null, updated_by: caller.subject, updated_at: now,
  };
  const saved = before ? (await store.update({ tenant_id: tenant, id: before.id }, next))! : await store.insert(next);
  // Readings of a following house are judged by the curve (climate.ts): what is in force changed.
  inForceChanged(ctx.services.db);
  if (!saved) throw new ApiError('lifecycle_conflict', `house ${b.house_id}: following was switched by someone else at the same moment; try again`, [{ field: 'house_id', reason: 'concurrent_switch' }]);
  if (before?.paused || before?.alarm_id) {
    await services.industryAlarms?.clear({ tenant_id: tenant, industry_code: 'poultry', unit_id: b.house_id, rule_id: FOLLOW_RULE, actor: caller.subject });
  }
  const view = (r: FollowRow | undefined) => (r ? { enabled: r.enabled, paused: r.paused, pause_reason: r.pause_reason, interval_s: r.interval_s, deadband: r.deadband } : null);
  await services.audit.record({
    actor: caller.subject, action: 'poultry-climate.follow', resource: 'poultry-climate', result: 'success', correlation_id: ctx.requestId, tenant_id: tenant,
    details: { house_id: b.house_id, batch_id: flock.batch_id, old: view(before), new: view(saved), resumed: Boolean(before?.paused && saved.enabled) },
  });
  return saved;
}

export const followRoutes: AnyRoute[] = [curveRoute, followRoute, ...followResource.routes];
