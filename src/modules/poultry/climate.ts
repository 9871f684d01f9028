// poultry-climate: climate profiles by age phase (versioned per house, batch and age phase),
// telemetry judged against the phase in force and run through the alarm rules, sensor readings
// normalised into telemetry, and setpoint changes that reach the house controller:
//   commands/setpoint  a new DRAFT version (by profile_id, or house + batch + age_phase_id; a new
//                      age phase needs day_from/day_to that overlap no other phase); answers the
//                      draft with adapter_dispatch {adapter_profile_id, controller_id, transport,
//                      status: pending} (or not_configured when no controller holds a setpoint).
//   commands/ack       the operator's confirmation: THE moment of the write. When the phase is
//                      the flock's active phase, the draft's setpoints are written through the
//                      field-write service (queue per bus, read-back, audit with the draft's
//                      correlation id); verified/written -> the draft is published (the previous
//                      version archived); failed -> the draft stays a draft, the previous version
//                      stays published, adapter_dispatch.status=failed with the field service's
//                      message. A phase that is not active is published without a write
//                      (status skipped): the controller keeps the active phase's setpoints.
import { readingTime } from '../../industry/reading-time.js';
import * as v from 'valibot';
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { command, defineResource } from '../../kernel/resource.js';
import { timeId } from '../../kernel/ids.js';
import { ApiError } from '../../kernel/errors.js';
import { pageItems } from '../../kernel/query.js';
import type { Caller, Services } from '../../kernel/context.js';
import type { AnyRoute, HandlerContext } from '../../kernel/route.js';
import { colOf, tableOf } from '../../db/sql.js';
import { contentOf } from '../../industry/versions.js';
import { defineSetpointProgram } from '../../industry/setpoint-program.js';
import { createRuleEngine, type RuleEngine } from '../../industry/rules.js';
import { ownerSite as writeSite, requiredTenant } from '../../kernel/tenancy.js';
import { adapterRecord, climateRecord, readingRecord, recentReadingTable, ruleStateRecord, type ClimateRow, type ReadingRow } from './climate-schema.js';
import type { Database } from '../../db/client.js';
import { readingSettleOf } from './recent-readings.js';
import { climateVersions } from './climate-versions.js';
import { ageOf, checkPhases, findFlock, fractionalAge } from './flock.js';
import { climateBandFlags, climateLimits, DEFAULT_CLIMATE_RULES } from './climate-eval.js';
import { inForce, inForceKey } from '../../industry/in-force.js';
import { apiReadingSource, readingGather, readingPipeline, readingWriter, type ReadingPipeline, type ReadingSource } from '../../industry/pipeline.js';
import { rulesInForce } from './rules-in-force.js';
import { curveOfPhases, valuesAt } from '../../industry/curve.js';
import { followRecord } from './follow-schema.js';

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const num = (min: number, max: number) => v.pipe(v.number(), v.finite(), v.minValue(min), v.maxValue(max));

/** Setpoint keys an operator may change (also the keys of adapter profile points). */
export const SETPOINT_KEYS = ['target_temp_c', 'temp_tolerance_c', 'humidity_min_pct', 'humidity_max_pct', 'co2_max_ppm', 'nh3_max_ppm', 'min_ventilation_pct'] as const;
type SetpointKey = (typeof SETPOINT_KEYS)[number];

const setpointBody = v.strictObject({
  profile_id: v.optional(key),
  house_id: v.optional(key),
  batch_id: v.optional(key),
  age_phase_id: v.optional(key),
  tenant_id: v.optional(key),
  change_note: v.optional(v.pipe(v.string(), v.maxLength(500))),
  day_from: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000))),
  day_to: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(2000))),
  target_temp_c: v.optional(num(-10, 45)),
  temp_tolerance_c: v.optional(num(0, 10)),
  humidity_min_pct: v.optional(num(0, 100)),
  humidity_max_pct: v.optional(num(0, 100)),
  co2_max_ppm: v.optional(num(0, 20_000)),
  nh3_max_ppm: v.optional(num(0, 500)),
  min_ventilation_pct: v.optional(num(0, 100)),
});
const ackBody = v.strictObject({ id: key, change_note: v.optional(v.pipe(v.string(), v.maxLength(500))) });

export const telemetryBody = v.pipe(v.strictObject({
  house_id: key,
  batch_id: v.optional(key),
  tenant_id: v.optional(key),
  site_id: v.optional(key),
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp('an RFC 3339 timestamp'))),
  temp: v.optional(num(-40, 70)),
  humidity: v.optional(num(0, 100)),
  co2: v.optional(num(0, 100_000)),
  nh3: v.optional(num(0, 1000)),
  ventilation: v.optional(num(0, 100)),
}), v.check((b) => ['temp', 'humidity', 'co2', 'nh3', 'ventilation'].some((k) => b[k as 'temp'] !== undefined), 'at least one of temp, humidity, co2, nh3, ventilation'));
export type TelemetryInput = v.InferOutput<typeof telemetryBody>;

const engines = new WeakMap<Services, RuleEngine>();
export function poultryRules(services: Services): RuleEngine {
  let e = engines.get(services);
  if (!e) engines.set(services, (e = createRuleEngine(services, { table: ruleStateRecord.table, industry_code: 'poultry', source: 'poultry-rules', unit: 'House' })));
  return e;
}

const ageFits = (row: Pick<ClimateRow, 'day_from' | 'day_to'>, age: number | null | undefined) => age !== null && age !== undefined && row.day_from <= age && age <= row.day_to;

/** The published phases of a house and batch. */
async function publishedPhases(services: Services, tenant: string, house: string, batch: string): Promise<ClimateRow[]> {
  const t = tableOf(climateRecord.table, services.db);
  const c = (n: string) => colOf(climateRecord.table, services.db, n);
  return (await services.db.orm.select().from(t).where(and(eq(c('tenant_id'), tenant), eq(c('house_id'), house), eq(c('batch_id'), batch), eq(c('state'), 'published')))) as ClimateRow[];
}

/** The published phase in force for an age (the phases through the in-force cache). */
export async function activePhase(services: Services, tenant: string, house: string, batch: string, age: number): Promise<ClimateRow | undefined> {
  const phases = await inForce(services.db, inForceKey('poultry-phases', tenant, house, batch), () => publishedPhases(services, tenant, house, batch));
  return phases.find((r) => ageFits(r, age));
}

/** The flock a reading is for, through the in-force cache (place and close invalidate it). */
const flockInForce = (services: Services, tenant: string, house: string, batch: string | undefined) =>
  inForce(services.db, inForceKey('poultry-flock', tenant, house, batch ?? '\u0001active'), () => findFlock(services, tenant, house, batch));

export async function unknownHouse(house: string): Promise<never> {
  throw new ApiError('not_found', `house ${house} has no flock: place a flock first (poultry-flock/commands/place)`, [{ field: 'house_id', reason: 'unknown_house' }]);
}

const toStored = readingWriter<ReadingRow>(readingRecord.table);
const toRecent = readingWriter<ReadingRow>(recentReadingTable);
/** On SQLite a reading waits in the recent table until the settle (recent-readings.ts); PostgreSQL writes it in place. */
const insertReading = (db: Database, row: ReadingRow, opts: { gatherMs: number }): Promise<void> => {
  if (db.dialect !== 'sqlite') return toStored(db, row, opts);
  const stored = toRecent(db, row, opts);
  stored.then(() => readingSettleOf(db)?.appended(1), () => undefined);
  return stored;
};

/** Whether the box follows the house's curve now (switched on, not paused), through the in-force cache. */
const followingNow = (services: Services, tenant: string, house: string) =>
  inForce(services.db, inForceKey('poultry-follow', tenant, house), async () => {
    const c = (n: string) => colOf(followRecord.table, services.db, n);
    const [row] = (await services.db.orm.select({ enabled: c('enabled'), paused: c('paused') }).from(tableOf(followRecord.table, services.db))
      .where(and(eq(c('tenant_id'), tenant), eq(c('house_id'), house))).limit(1)) as { enabled: boolean | number; paused: boolean | number }[];
    return Boolean(row?.enabled) && !row?.paused;
  });

/**
 * The phase a reading is judged by: the published phase in force for the age, and for a house
 * whose controller follows the interpolated curve (the box writes it), that phase with the curve's
 * values at the reading's fractional age, so the band is what the controller holds.
 */
async function judgedPhase(services: Services, tenant: string, flock: { house_id: string; batch_id: string; start_date: string }, age: number, at: Date): Promise<ClimateRow | undefined> {
  const phase = await activePhase(services, tenant, flock.house_id, flock.batch_id, age);
  if (!phase || !(await followingNow(services, tenant, flock.house_id))) return phase;
  const phases = await inForce(services.db, inForceKey('poultry-phases', tenant, flock.house_id, flock.batch_id), () => publishedPhases(services, tenant, flock.house_id, flock.batch_id));
  return { ...phase, ...valuesAt(curveOfPhases(phases, SETPOINT_KEYS), fractionalAge(flock.start_date, services, at)) };
}

const pipelines = new WeakMap<Services, ReadingPipeline>();
const pipelineOf = (services: Services): ReadingPipeline => {
  let p = pipelines.get(services);
  if (!p) pipelines.set(services, (p = readingPipeline('poultry', poultryRules(services))));
  return p;
};

/** One climate reading through the reading pipeline (src/industry/pipeline.ts). Used by telemetry, sensors and MQTT. */
export async function ingestClimate(services: Services, who: { tenant: string; site_bound?: string; actor: string; correlation_id: string }, b: TelemetryInput, source: ReadingSource) {
  const at = readingTime(b.ts, services.clock.now());
  const flock = await flockInForce(services, who.tenant, b.house_id, b.batch_id);
  if (!flock) return unknownHouse(b.house_id);
  if (who.site_bound && flock.site_id !== who.site_bound) return unknownHouse(b.house_id);
  const age = ageOf(flock, services, at);
  const phase = await judgedPhase(services, who.tenant, flock, age, at);
  const rules = await rulesInForce(services, who.tenant, flock.site_id, DEFAULT_CLIMATE_RULES);
  const values = { temp: b.temp, humidity: b.humidity, co2: b.co2, nh3: b.nh3, ventilation: b.ventilation };
  const { judged, outcomes, stored: reading } = await pipelineOf(services).run({
    tenant_id: who.tenant, site_id: flock.site_id, unit_id: flock.house_id, batch_id: flock.batch_id, at, values,
    band_flags: phase ? climateBandFlags(b, phase) : [], rules, limits: phase ? climateLimits(phase) : {},
    correlation_id: who.correlation_id, actor: who.actor, source,
    details: { age_days: age, age_phase_id: phase?.age_phase_id ?? null, target_temp_c: phase?.target_temp_c ?? null },
  }, async (j) => {
    // A time-ordered id (as swine's): readings are appended, and a random key cost a page of the
    // key's index per reading (bench/readings-pipeline.ts).
    const row: ReadingRow = {
      id: timeId(), tenant_id: who.tenant, site_id: flock.site_id, house_id: flock.house_id, batch_id: flock.batch_id, ts: at.toISOString(),
      age_days: age, age_phase_id: phase?.age_phase_id ?? null, profile_id: phase?.id ?? null,
      temp: b.temp ?? null, humidity: b.humidity ?? null, co2: b.co2 ?? null, nh3: b.nh3 ?? null, ventilation: b.ventilation ?? null,
      status: j.status, out_of_norm_flags: j.out_of_norm_flags, source,
    };
    const gather = readingGather(source, services.config);
    const stored = insertReading(services.db, row, gather);
    // Nobody waits for a device poll's or an MQTT reading: it is judged now and stored with the
    // next gathered commit, and the device's next reading is not held behind that commit.
    if (gather.gatherMs > 0) stored.catch((err: Error) => services.log.error('climate reading not stored', { house_id: row.house_id, error: err.message }));
    else await stored;
    return row;
  });
  return {
    house_id: flock.house_id, batch_id: flock.batch_id, site_id: flock.site_id, ts: reading.ts, current_age_days: age,
    age_phase_id: phase?.age_phase_id ?? null, profile_id: phase?.id ?? null, version_id: phase?.version_id ?? null,
    target_temp_c: phase?.target_temp_c ?? null,
    temp: reading.temp, humidity: reading.humidity, co2: reading.co2, nh3: reading.nh3, ventilation: reading.ventilation,
    status: judged.status, out_of_norm_flags: judged.out_of_norm_flags,
    alarms: outcomes.filter((o) => o.action !== 'none' && o.action !== 'skipped').map((o) => ({ rule_id: o.rule_id, action: o.action, alarm_id: o.alarm?.id ?? null, correlation_id: o.alarm?.correlation_id ?? null, priority: o.alarm?.priority ?? null })),
  };
}

export const telemetryAnswer = {
  type: 'object',
  properties: {
    house_id: { type: 'string' }, batch_id: { type: 'string' }, site_id: { type: ['string', 'null'] }, ts: { type: 'string', format: 'date-time' },
    current_age_days: { type: 'integer' }, age_phase_id: { type: ['string', 'null'] }, profile_id: { type: ['string', 'null'] }, version_id: { type: ['integer', 'null'] },
    target_temp_c: { type: ['number', 'null'] }, temp: { type: ['number', 'null'] }, humidity: { type: ['number', 'null'] }, co2: { type: ['number', 'null'] }, nh3: { type: ['number', 'null'] }, ventilation: { type: ['number', 'null'] },
    status: { enum: ['ok', 'warn', 'alarm'] }, out_of_norm_flags: { type: 'array', items: { type: 'string' } },
    alarms: { type: 'array', description: 'What the alarm rules did with this reading: pending (hold time running), raised, cleared.', items: { type: 'object' } },
  },
  required: ['house_id', 'batch_id', 'status', 'out_of_norm_flags', 'alarms'],
};

/** The poultry setpoint program (src/industry/setpoint-program.ts): draft on setpoint, write and publish on ack. */
export const climateSetpoints = defineSetpointProgram<ClimateRow>({
  industry: 'poultry', resource: 'poultry-climate', versions: climateVersions, adapters: adapterRecord.table, keys: SETPOINT_KEYS,
  unitOf: (row) => row.house_id, audit: { draft: 'poultry.climate.setpoint', confirm: 'poultry.climate.ack' }, unconfigured: 'publish',
});

/** A version as answered by setpoint and ack: with the flock's age and whether it is the phase in force. */
const withDispatch = (row: ClimateRow, age: number | null = null) => ({ ...row, current_age_days: age, active_by_age: row.state === 'published' && ageFits(row, age) });

export const climateResource: ReturnType<typeof defineResource<ClimateRow>> = defineResource<ClimateRow>({
  name: 'poultry-climate',
  module: 'poultry',
  title: 'Poultry climate profiles',
  record: climateRecord,
  access: { resource: 'poultry-climate', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  filters: {
    current_age_days: { type: 'integer', min: 0, max: 2000, description: 'Mark the phase of this age active_by_age=true (default: each house\'s active flock age).' },
    age_mode: { type: 'string', enum: ['all', 'active'], description: 'active: only the published phase in force for the age (current_age_days, else the active flock\'s age).' },
  },
  defaultSort: { field: 'day_from', order: 'asc' },
  toItem: (row) => ({ ...row, current_age_days: null, active_by_age: false }),
  commands: {
    setpoint: command({
      summary: 'Propose a setpoint change: a new DRAFT version of a climate profile, selected by profile_id or by house_id + batch_id + age_phase_id (a new age phase needs day_from and day_to overlapping no other phase: else 400 overlapping_age_phase). Answers the draft with adapter_dispatch {adapter_profile_id, controller_id, transport, status pending|not_configured}; nothing is written to the controller before commands/ack.',
      action: 'propose',
      body: setpointBody,
      status: 201,
      errors: ['not_found'],
      handler: async (ctx) => setpoint(ctx),
    }),
    ack: command({
      summary: 'Confirm a setpoint draft (id): this is when it is written to the house controller through the field-write service (queue per bus, read-back, audit with the correlation id). verified/written: the draft is published and the previous version archived. failed: the draft stays a draft and the previous version stays published; adapter_dispatch.status=failed carries the field service\'s message (e.g. "Connection refused 10.0.0.5:502 addr:100"). A phase not active for the flock\'s age is published without a write (status skipped). Answers 200 with the version and adapter_dispatch in every case. Action confirm: the operator who proposed a change confirms it (the one confirmation of the setpoint screen), as at a house controller\'s own panel; admins and integrations too.',
      action: 'confirm',
      body: ackBody,
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => ack(ctx, (await kit.load(ctx, ctx.body.id)) as unknown as ClimateRow),
    }),
    telemetry: command({
      summary: 'A climate reading of a house (temp °C, humidity %RH, co2 ppm, nh3 ppm, ventilation % of fan capacity; ts defaults to now): matched to the published phase in force for the flock\'s age, answers status ok|warn|alarm and out_of_norm_flags, is stored, and runs through the alarm rules (raising P1/P2 events after their hold time). 404 not_found (unknown_house) for a house without a flock.',
      action: 'execute',
      body: telemetryBody,
      response: telemetryAnswer,
      errors: ['not_found'],
      handler: async (ctx) => ingestClimate(ctx.services, { tenant: requiredTenant(ctx.caller, ctx.body.tenant_id), site_bound: boundSiteOf(ctx.caller, ctx.body.site_id), actor: ctx.caller!.subject, correlation_id: ctx.requestId }, ctx.body, apiReadingSource(ctx.caller)),
    }),
  },
});

const boundSiteOf = (caller: Caller | undefined, named: string | undefined) => writeSite(caller, named) ?? undefined;

async function setpoint(ctx: HandlerContext<v.InferOutput<typeof setpointBody>>) {
  const b = ctx.body;
  const caller = ctx.caller!;
  const { services } = ctx;
  const tenant = requiredTenant(caller, b.tenant_id);
  const bound = boundSiteOf(caller, undefined);
  const changes: Partial<Record<SetpointKey | 'day_from' | 'day_to', number>> = {};
  for (const k of [...SETPOINT_KEYS, 'day_from', 'day_to'] as const) if (b[k] !== undefined) changes[k] = b[k];
  let base: ClimateRow | undefined;
  if (b.profile_id) {
    base = await climateResource.kit.store(services.db).find({ tenant_id: tenant, id: b.profile_id });
    if (!base || (bound && base.site_id !== bound)) throw new ApiError('not_found', `climate profile ${b.profile_id} not found`, [{ field: 'profile_id', reason: 'not_found' }]);
  } else {
    if (!b.house_id || !b.batch_id || !b.age_phase_id) throw new ApiError('validation_error', 'name the profile: profile_id, or house_id + batch_id + age_phase_id', [{ field: 'profile_id', reason: 'required' }]);
    const flock = await findFlock(services, tenant, b.house_id, b.batch_id);
    if (!flock || (bound && flock.site_id !== bound)) return unknownHouse(b.house_id);
    const history = await climateVersions.history(services.db, { tenant_id: tenant, house_id: b.house_id, batch_id: b.batch_id, age_phase_id: b.age_phase_id });
    base = history.find((r) => r.state === 'published') ?? history[0];
    if (!base) {
      if (changes.day_from === undefined || changes.day_to === undefined || changes.target_temp_c === undefined) {
        throw new ApiError('validation_error', `age phase ${b.age_phase_id} is new: give day_from, day_to and target_temp_c`, [{ field: 'age_phase_id', reason: 'new_phase_needs_days' }]);
      }
      const template = (await publishedPhases(services, tenant, b.house_id, b.batch_id)).sort((x, y) => y.day_to - x.day_to)[0];
      base = {
        ...(template ?? { temp_tolerance_c: 1.5, humidity_min_pct: 50, humidity_max_pct: 70, co2_max_ppm: 3000, nh3_max_ppm: 20, min_ventilation_pct: 10 }),
        tenant_id: tenant, site_id: flock.site_id, house_id: b.house_id, batch_id: b.batch_id, age_phase_id: b.age_phase_id, subtype: flock.subtype,
      } as ClimateRow;
    }
  }
  if (!Object.keys(changes).some((k) => (SETPOINT_KEYS as readonly string[]).includes(k)) && changes.day_from === undefined && changes.day_to === undefined) {
    throw new ApiError('validation_error', `name at least one setpoint: ${SETPOINT_KEYS.join(', ')}`, [{ field: 'target_temp_c', reason: 'required' }]);
  }
  const next = { ...contentOf(base), ...changes } as ClimateRow;
  const others = (await publishedPhases(services, tenant, next.house_id, next.batch_id)).filter((r) => r.age_phase_id !== next.age_phase_id);
  checkPhases([...others, next]);
  const changedKeys = SETPOINT_KEYS.filter((k) => next[k] !== (base as ClimateRow)[k] || changes[k] !== undefined);
  const draft = await climateSetpoints.draft(services, contentOf(next) as never, {
    id: randomUUID(), actor: caller.subject, correlation_id: ctx.requestId, changed: changedKeys, details: { house_id: next.house_id, batch_id: next.batch_id, age_phase_id: next.age_phase_id, changes },
    change_note: b.change_note ?? `setpoint: ${Object.entries(changes).map(([k, val]) => `${k}=${val}`).join(', ')}`,
  });
  return withDispatch(draft);
}

async function ack(ctx: HandlerContext<v.InferOutput<typeof ackBody>>, draft: ClimateRow) {
  const { services } = ctx;
  const caller = ctx.caller!;
  const bound = boundSiteOf(caller, undefined);
  if (bound && draft.site_id !== bound) throw new ApiError('not_found', `climate profile ${draft.id} not found`);
  if (draft.state !== 'draft') throw new ApiError('lifecycle_conflict', `version ${draft.version_id} is ${draft.state}; only a draft is confirmed`, [{ field: 'id', reason: `state_${draft.state}` }]);
  const flock = await findFlock(services, draft.tenant_id, draft.house_id, draft.batch_id);
  const age = flock && flock.status === 'active' ? ageOf(flock, services) : null;
  const skip = age !== null && !ageFits(draft, age)
    ? { key: 'box.dispatch.skipped_phase', params: { phase: draft.age_phase_id, day_from: draft.day_from, day_to: draft.day_to, age } }
    : undefined;
  const { row: saved } = await climateSetpoints.confirm(services, draft, { caller, correlation_id: draft.correlation_id ?? ctx.requestId, ...(ctx.body.change_note ? { change_note: ctx.body.change_note } : {}), ...(skip ? { skip } : {}) });
  return withDispatch(saved, age);
}

/** list: with age_mode=active only the phases in force; every item says whether it is active by age. */
function ageAwareList(route: AnyRoute): AnyRoute {
  return {
    ...route,
    handler: async (ctx: HandlerContext<unknown>) => {
      const q = ctx.query;
      const givenAge = q.current_age_days as number | undefined;
      const mode = (q.age_mode as string | undefined) ?? 'all';
      delete q.current_age_days;
      delete q.age_mode;
      const ages = new Map<string, number | null>();
      const ageFor = async (row: ClimateRow) => {
        if (givenAge !== undefined) return givenAge;
        const k = `${row.tenant_id}\u0000${row.house_id}\u0000${row.batch_id}`;
        if (!ages.has(k)) {
          const flock = await findFlock(ctx.services, row.tenant_id, row.house_id, row.batch_id);
                  ages.set(k, flock && flock.status === 'active' ? ageOf(flock, ctx.services) : null);
        }
        return ages.get(k) ?? null;
      };
      const mark = async (row: ClimateRow) => {
        const age = await ageFor(row);
        return { ...row, current_age_days: age, active_by_age: row.state === 'published' && ageFits(row, age) };
      };
      if (mode === 'active') {
        // All published rows matching the filters (a site has a few houses × a few phases), then the page.
        const { limit, offset } = q;
        const all = (await route.handler({ ...ctx, query: { ...q, state: 'published', limit: 500, offset: 0 } })) as { items: ClimateRow[] };
        const marked = await Promise.all(all.items.map(mark));
        return pageItems(marked.filter((r) => r.active_by_age), { limit, offset });
      }
      const page = (await route.handler(ctx)) as { items: ClimateRow[] };
      return { ...page, items: await Promise.all(page.items.map(mark)) };
    },
  };
}

export const climateRoutes: AnyRoute[] = climateResource.routes.map((r) => (r.path.endsWith('/list') ? ageAwareList(r) : r));

export { publishedPhases };
