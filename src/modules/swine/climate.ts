// swine-climate: room climate readings judged against the room's phase (by weight, age or a
// named phase): scheme|list|{id}, commands/telemetry (readings in canonical units) and
// sensors/commands/ingest (raw sensor readings in their own units, normalised, then the same
// path). A reading out of norm gives status warn|alarm and out_of_norm_flags; alarm-level
// findings raise industry alarms through the one alarm service (room = unit), and a later reading
// back in the band clears them.
import { readingTime } from '../../industry/reading-time.js';
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { command, defineResource, itemSchema } from '../../kernel/resource.js';
import { defineRecord } from '../../kernel/record.js';
import type { AnyRoute, HandlerContext, JsonSchema } from '../../kernel/route.js';
import { timeId } from '../../kernel/ids.js';
import { ownerSite as writeSite } from '../../kernel/tenancy.js';
import { judgeClimate, selectPhase, SWINE_CATEGORIES, type ClimateReading } from './norms.js';
import { climateTargets } from './climate-targets.js';
import { raisedView, type RaisedAlarm } from './alarms.js';
import { climateRules, limitsOf } from './climate-rules.js';
import { apiReadingSource, readingGather, readingPipeline, readingWriter, type Judged, type PipelineReading, type ReadingPipeline } from '../../industry/pipeline.js';
import { need, type Services } from '../../kernel/context.js';
import { setpointCommand } from './setpoints.js';
import { normaliseReadings, SENSOR_KINDS } from './sensors.js';
import { staleAware, staleFields } from '../../industry/stale.js';
import type { RuleOutcome } from '../../industry/rules.js';
import type { AlarmEventRow } from '../../industry/alarm-schema.js';

const STATUSES = ['ok', 'warn', 'alarm'] as const;

export const climateRecord = defineRecord('swine_climate_readings', {
  id: { type: 'string', label: 'ID', readOnly: true },
  tenant_id: { type: 'string', label: 'Tenant', readOnly: true, filter: true },
  site_id: { type: 'string', label: 'Site', nullable: true, filter: true },
  room_id: { type: 'string', label: 'Room', filter: true, sortable: true, searchable: true, ui: { primary: true } },
  pen_id: { type: 'string', label: 'Pen', nullable: true, filter: true },
  batch_id: { type: 'string', label: 'Batch', nullable: true, filter: true },
  category: { type: 'string', label: 'Animals', enum: SWINE_CATEGORIES, nullable: true, filter: true },
  phase_id: { type: 'string', label: 'Phase', filter: true, description: 'The weight or age phase the reading was judged by.' },
  avg_weight_kg: { type: 'number', label: 'Average weight', nullable: true, ui: { unit: 'kg' } },
  age_days: { type: 'integer', label: 'Age', nullable: true, ui: { unit: 'd' } },
  temp_c: { type: 'number', label: 'Temperature', nullable: true, ui: { unit: '°C', chart: true } },
  humidity_pct: { type: 'number', label: 'Relative humidity', nullable: true, ui: { unit: '%', chart: true } },
  nh3_ppm: { type: 'number', label: 'Ammonia (NH3)', nullable: true, ui: { unit: 'ppm', chart: true } },
  co2_ppm: { type: 'number', label: 'Carbon dioxide (CO2)', nullable: true, ui: { unit: 'ppm', chart: true } },
  ventilation_pct: { type: 'number', label: 'Ventilation', nullable: true, ui: { unit: '%' } },
  targets: { type: 'object', label: 'Targets', readOnly: true, description: 'The phase band used: temp_min_c, temp_max_c, humidity_min_pct, humidity_max_pct, nh3_max_ppm, co2_max_ppm.' },
  targets_source: { type: 'string', label: 'Targets from', readOnly: true, description: '"default" or the published swine-room-climate profile version.' },
  status: { type: 'string', label: 'Status', enum: STATUSES, readOnly: true, filter: true, sortable: true, ui: { badge: true } },
  out_of_norm_flags: { type: 'array', items: 'string', label: 'Out of norm', readOnly: true, ui: { chips: true } },
  alarm_ids: { type: 'array', items: 'string', label: 'Alarms raised', readOnly: true, ui: { hidden: true } },
  source: { type: 'string', label: 'Source', enum: ['device', 'mqtt', 'api', 'manual'], readOnly: true, filter: true, description: 'How the reading came: device (read by the poller from the room controller), mqtt, api (commands/telemetry, sensors/commands/ingest) or manual (typed in).' },
  ts: { type: 'datetime', label: 'Measured', sortable: true },
  received_at: { type: 'datetime', label: 'Received', readOnly: true },
}, { indexes: [{ name: 'swine_climate_room_ts', columns: ['tenant_id', 'room_id', 'ts'] }] });

export type ClimateRow = typeof climateRecord.row;

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));
const measure = (lo: number, hi: number) => v.optional(v.nullable(v.pipe(v.number(), v.finite(), v.minValue(lo), v.maxValue(hi))));
const where = {
  room_id: key,
  pen_id: v.optional(key),
  site_id: v.optional(key),
  tenant_id: v.optional(key),
  batch_id: v.optional(key),
  category: v.optional(v.picklist(SWINE_CATEGORIES)),
  phase_id: v.optional(key),
  avg_weight_kg: v.optional(v.pipe(v.number(), v.finite(), v.minValue(0), v.maxValue(500))),
  age_days: v.optional(v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(5000))),
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp())),
};
const telemetryBody = v.strictObject({
  ...where,
  temp_c: measure(-40, 60),
  humidity_pct: measure(0, 100),
  nh3_ppm: measure(0, 1000),
  co2_ppm: measure(0, 100000),
  ventilation_pct: measure(0, 100),
});
type TelemetryInput = v.InferOutput<typeof telemetryBody>;

const sensorsBody = v.strictObject({
  ...where,
  readings: v.pipe(v.array(v.strictObject({ kind: v.picklist(SENSOR_KINDS), value: v.pipe(v.number(), v.finite()), unit: v.pipe(v.string(), v.maxLength(20)) })), v.minLength(1), v.maxLength(20)),
});

/** A reading's id is a new time id: no lookup before the INSERT. */
const insertReading = readingWriter<ClimateRow>(climateRecord.table);

const climateItem = itemSchema(climateRecord.fields);
const alarmRef: JsonSchema = { type: 'object', properties: { id: { type: 'string' }, rule_id: { type: ['string', 'null'] }, severity: { type: 'string' }, priority: { type: ['string', 'null'] }, correlation_id: { type: 'string' }, status: { type: 'string' } } };
const judgedResponse: JsonSchema = {
  type: 'object',
  properties: { reading: climateItem, status: { type: 'string', enum: [...STATUSES] }, out_of_norm_flags: { type: 'array', items: { type: 'string' } }, alarms: { type: 'array', items: alarmRef } },
  required: ['reading', 'status', 'out_of_norm_flags', 'alarms'],
  additionalProperties: false,
};

/** Judges one reading against the room's phase, stores it, raises or clears its alarms. */
export async function judgeReading(ctx: HandlerContext<unknown>, input: TelemetryInput, source: ClimateRow['source']) {
  const caller = ctx.caller!;
  const reading: ClimateReading = { temp_c: input.temp_c, humidity_pct: input.humidity_pct, nh3_ppm: input.nh3_ppm, co2_ppm: input.co2_ppm };
  if (Object.values(reading).every((x) => x === null || x === undefined)) throw new ApiError('validation_error', 'a reading needs at least one of temp_c, humidity_pct, nh3_ppm, co2_ppm', [{ field: 'temp_c', reason: 'missing' }]);
  const tenant = caller.tenant_id!;
  const site = writeSite(caller, input.site_id);
  const targets = await climateTargets(ctx.services.db, tenant, site, input.room_id);
  if (input.phase_id === undefined && input.avg_weight_kg === undefined && input.age_days === undefined) {
    throw new ApiError('validation_error', 'name the phase: phase_id, avg_weight_kg or age_days', [{ field: 'phase_id', reason: 'missing' }]);
  }
  const phase = selectPhase(targets.phases, input);
  if (!phase) {
    throw new ApiError('validation_error', `no climate phase of room ${input.room_id} (${targets.source}) fits ${input.phase_id ? `phase ${input.phase_id}` : input.avg_weight_kg !== undefined ? `${input.avg_weight_kg} kg` : `${input.age_days} days`}; phases: ${targets.phases.map((p) => p.phase_id).join(', ')}`,
      [{ field: input.phase_id !== undefined ? 'phase_id' : input.avg_weight_kg !== undefined ? 'avg_weight_kg' : 'age_days', reason: 'no_phase' }]);
  }
  const at = readingTime(input.ts, ctx.services.clock.now());
  const findings = judgeClimate(phase, reading);
  // One reading pipeline (src/industry/pipeline.ts): the band's flags, the rules in force (the
  // room profile's alarm_rules over the defaults) for status and alarms, then the row.
  const { judged, stored: saved, alarms } = await runPipeline(ctx, {
    tenant_id: tenant, site_id: site, unit_id: input.room_id, batch_id: input.batch_id ?? null, at,
    values: { temp_c: input.temp_c, humidity_pct: input.humidity_pct, nh3_ppm: input.nh3_ppm, co2_ppm: input.co2_ppm, ventilation_pct: input.ventilation_pct },
    band_flags: findings.map((f) => f.flag), rules: targets.rules, limits: limitsOf(phase), correlation_id: ctx.requestId, actor: caller.subject, source,
    details: { phase_id: phase.phase_id, targets_source: targets.source },
  }, (j, alarmIds) => {
    const now = new Date().toISOString();
    const row: ClimateRow = {
      id: timeId(), tenant_id: tenant, site_id: site, room_id: input.room_id, pen_id: input.pen_id ?? null, batch_id: input.batch_id ?? null,
      category: input.category ?? null, phase_id: phase.phase_id, avg_weight_kg: input.avg_weight_kg ?? null, age_days: input.age_days ?? null,
      temp_c: input.temp_c ?? null, humidity_pct: input.humidity_pct ?? null, nh3_ppm: input.nh3_ppm ?? null, co2_ppm: input.co2_ppm ?? null,
      ventilation_pct: input.ventilation_pct ?? null,
      targets: { temp_min_c: phase.temp_min_c, temp_max_c: phase.temp_max_c, humidity_min_pct: phase.humidity_min_pct, humidity_max_pct: phase.humidity_max_pct, nh3_max_ppm: phase.nh3_max_ppm, co2_max_ppm: phase.co2_max_ppm },
      targets_source: targets.source, status: j.status, out_of_norm_flags: j.out_of_norm_flags, alarm_ids: alarmIds,
      source, ts: at.toISOString(), received_at: now,
    };
    const gather = readingGather(source, ctx.services.config);
    const stored = insertReading(ctx.services.db, row, gather);
    // A device poll's or an MQTT reading: judged now, stored with the next gathered commit (nobody waits for it).
    if (gather.gatherMs > 0) {
      stored.catch((err: Error) => ctx.services.log.error('climate reading not stored', { room_id: row.room_id, error: err.message }));
      return Promise.resolve(row);
    }
    return stored.then(() => row);
  });
  return { reading: { ...saved }, status: judged.status, out_of_norm_flags: judged.out_of_norm_flags, alarms };
}

/** The pipeline's run, with the room's open alarms of the rules in breach (the answer's `alarms`, the row's alarm_ids). */
async function runPipeline<T>(ctx: HandlerContext<unknown>, reading: PipelineReading, store: (judged: Judged, alarmIds: string[]) => Promise<T>) {
  let alarms: RaisedAlarm[] = [];
  const out = await pipelineOf(ctx.services).run(reading, async (judged, outcomes) => {
    const raisedRules = new Set(outcomes.filter((o) => o.state === 'raised').map((o) => o.rule_id));
    alarms = (await openOfRules(ctx.services, reading, outcomes, raisedRules)).map(raisedView);
    return store(judged, alarms.map((a) => a.id));
  });
  return { ...out, alarms };
}

/**
 * The room's open alarms of the rules in breach, oldest first. A rule raised by this reading
 * carries its alarm in its outcome (the row the raise stored or found open: status active or
 * acked, what the open lookup would answer), so a reading that raised every rule in breach
 * asks nothing more; a rule raised by an earlier reading needs the room's open alarms.
 */
async function openOfRules(services: Services, reading: PipelineReading, outcomes: readonly RuleOutcome[], raisedRules: ReadonlySet<string>): Promise<AlarmEventRow[]> {
  if (!raisedRules.size) return [];
  const carried = outcomes.flatMap((o) => (o.state === 'raised' && o.alarm && (o.alarm.status === 'active' || o.alarm.status === 'acked') ? [o.alarm] : []));
  if (carried.length < raisedRules.size) {
    const open = await need(services, 'industryAlarms').open({ tenant_id: reading.tenant_id, industry_code: 'swine', unit_id: reading.unit_id });
    return open.filter((e) => e.rule_id !== null && raisedRules.has(e.rule_id));
  }
  // The lookup's order (raised_at, then id: time ids follow the order of the raises).
  return carried.sort((a, b) => (a.raised_at < b.raised_at ? -1 : a.raised_at > b.raised_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

const pipelines = new WeakMap<Services, ReadingPipeline>();
const pipelineOf = (services: Services): ReadingPipeline => {
  let p = pipelines.get(services);
  if (!p) pipelines.set(services, (p = readingPipeline('swine', climateRules(services))));
  return p;
};

export const climateResource = defineResource<ClimateRow>({
  name: 'swine-climate',
  module: 'swine',
  title: 'Swine room climate',
  // Items carry age_s and stale (src/industry/stale.ts): computed when answered, never stored.
  table: climateRecord.table,
  fields: { ...climateRecord.fields, ...staleFields },
  access: { resource: 'swine-climate', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'ts', order: 'desc' },
  commands: {
    telemetry: command({
      summary: 'A room climate reading (temp_c, humidity_pct, nh3_ppm, co2_ppm, ventilation_pct) judged against the room phase (phase_id, or by avg_weight_kg, or by age_days; bands from the room\'s published swine-room-climate profile, else the defaults): status ok|warn|alarm and out_of_norm_flags (alarm: beyond an alarm rule in force; warn: outside the band only); the alarm rules in force (shared rule engine; defaults: temperature 3 C or more outside the band for 120 s, NH3 above its maximum for 300 s, CO2 from 5,000 ppm for 300 s; high/P1; a breach is pending until its hold has passed, measured in the readings\' ts, and a scheduler raises it when no reading arrives; the room profile\'s alarm_rules replace rules of the same id) raise industry alarms on the room with this request\'s id as correlation_id, bridged to status; a reading back past the threshold by the rule\'s hysteresis (1 C, 2 ppm NH3, 300 ppm CO2) clears them. alarms lists the room\'s open alarms of the rules in breach.',
      action: 'execute',
      body: telemetryBody,
      status: 201,
      response: judgedResponse,
      handler: async (ctx) => judgeReading(ctx as HandlerContext<unknown>, ctx.body, apiReadingSource(ctx.caller)),
    }),
    setpoint: setpointCommand,
  },
});

export const sensorsIngestRoute: AnyRoute = {
  method: 'post', path: '/api/v1/swine-climate/sensors/commands/ingest', module: 'swine', tags: ['swine'],
  summary: 'Raw sensor readings of kind temperature (C, F, K), humidity (%, or ratio 0-1), nh3 (ppm, mg/m3) and co2 (ppm, %, mg/m3), normalised to temp_c, humidity_pct, nh3_ppm and co2_ppm (gas conversions at 20 C and 1 atm) and judged like commands/telemetry; one reading per kind.',
  access: { resource: 'swine-climate', action: 'execute', scope: 'tenant' },
  body: sensorsBody,
  status: 201,
  response: { kind: 'single', item: judgedResponse },
  handler: async (ctx: HandlerContext<v.InferOutput<typeof sensorsBody>>) => {
    const { readings, ...rest } = ctx.body;
    return judgeReading(ctx as HandlerContext<unknown>, { ...rest, ...normaliseReadings(readings) }, apiReadingSource(ctx.caller));
  },
};

export const climateRoutes = [sensorsIngestRoute, ...staleAware(climateResource.routes, '/api/v1/swine-climate')];
