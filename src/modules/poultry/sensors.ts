// POST /api/v1/poultry-climate/sensors/commands/ingest: raw sensor readings of a house, by kind
// and unit, normalised into one climate telemetry reading (the same path as commands/telemetry).
// Units (value -> normalised):
//   temperature  C (default) | F: (F - 32) × 5/9 | K: K - 273.15                     -> temp °C
//   humidity     % (default, %RH) | fraction: × 100                                  -> humidity %RH
//   co2          ppm (default) | percent (% by volume): × 10,000                     -> co2 ppm
//   nh3          ppm (default) | mg/m3: × 24.45 / 17.031 (25 °C, 1 atm)              -> nh3 ppm
//   pressure     Pa (default) | hPa: × 100 | kPa: × 1000 (house static pressure; reported, not judged)
// Two readings of the same kind in one request: the last one counts.
import * as v from 'valibot';
import { defineRoute } from '../../kernel/route.js';
import { ApiError } from '../../kernel/errors.js';
import type { Caller } from '../../kernel/context.js';
import { ownerSite as writeSite, requiredTenant } from '../../kernel/tenancy.js';
import { apiReadingSource } from '../../industry/pipeline.js';
import { ingestClimate, telemetryAnswer, telemetryBody } from './climate.js';

export const SENSOR_UNITS = {
  temperature: { C: (x: number) => x, F: (x: number) => ((x - 32) * 5) / 9, K: (x: number) => x - 273.15 },
  humidity: { '%': (x: number) => x, fraction: (x: number) => x * 100 },
  co2: { ppm: (x: number) => x, percent: (x: number) => x * 10_000 },
  nh3: { ppm: (x: number) => x, 'mg/m3': (x: number) => (x * 24.45) / 17.031 },
  pressure: { Pa: (x: number) => x, hPa: (x: number) => x * 100, kPa: (x: number) => x * 1000 },
} as const satisfies Record<string, Record<string, (x: number) => number>>;
type Kind = keyof typeof SENSOR_UNITS;
const DEFAULT_UNIT: Record<Kind, string> = { temperature: 'C', humidity: '%', co2: 'ppm', nh3: 'ppm', pressure: 'Pa' };
const FIELD: Record<Exclude<Kind, 'pressure'>, 'temp' | 'humidity' | 'co2' | 'nh3'> = { temperature: 'temp', humidity: 'humidity', co2: 'co2', nh3: 'nh3' };

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(100));
const body = v.strictObject({
  house_id: key,
  batch_id: v.optional(key),
  tenant_id: v.optional(key),
  site_id: v.optional(key),
  ts: v.optional(v.pipe(v.string(), v.isoTimestamp('an RFC 3339 timestamp'))),
  readings: v.pipe(v.array(v.strictObject({
    kind: v.picklist(Object.keys(SENSOR_UNITS) as Kind[]),
    value: v.pipe(v.number(), v.finite()),
    unit: v.optional(v.pipe(v.string(), v.maxLength(20))),
    sensor_id: v.optional(key),
  })), v.minLength(1), v.maxLength(100)),
});

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

export function normalise(readings: v.InferOutput<typeof body>['readings']) {
  const out: { temp?: number; humidity?: number; co2?: number; nh3?: number; pressure_pa?: number } = {};
  readings.forEach((r, i) => {
    const unit = r.unit ?? DEFAULT_UNIT[r.kind];
    const convert = (SENSOR_UNITS[r.kind] as Record<string, (x: number) => number>)[unit];
    if (!convert) throw new ApiError('validation_error', `readings[${i}]: unit ${unit} is not one of ${Object.keys(SENSOR_UNITS[r.kind]).join(', ')} for ${r.kind}`, [{ field: `readings.${i}.unit`, reason: 'unsupported_value' }]);
    const value = round(convert(r.value));
    if (r.kind === 'pressure') out.pressure_pa = value;
    else out[FIELD[r.kind]] = value;
  });
  return out;
}

export const sensorsRoute = defineRoute({
  method: 'post',
  path: '/api/v1/poultry-climate/sensors/commands/ingest',
  module: 'poultry',
  tags: ['poultry'],
  summary: 'Sensor readings of a house ({kind temperature|humidity|pressure|co2|nh3, value, unit}) normalised into one climate telemetry reading (temperature C|F|K, humidity %|fraction, co2 ppm|percent, nh3 ppm|mg/m3, pressure Pa|hPa|kPa) and judged like commands/telemetry; the answer adds normalised and pressure_pa.',
  access: { resource: 'poultry-climate', action: 'execute', scope: 'tenant' },
  body,
  errors: ['not_found'],
  response: { kind: 'single', item: { ...telemetryAnswer, properties: { ...telemetryAnswer.properties, normalised: { type: 'object' }, pressure_pa: { type: ['number', 'null'] } } } },
  handler: async (ctx) => {
    const b = ctx.body;
    const caller = ctx.caller as Caller;
    const { pressure_pa, ...climate } = normalise(b.readings);
    const tenant = requiredTenant(caller, b.tenant_id);
    const telemetry = { house_id: b.house_id, batch_id: b.batch_id, ts: b.ts, ...climate };
    if (Object.keys(climate).length === 0) throw new ApiError('validation_error', 'no climate reading (temperature, humidity, co2, nh3) in readings', [{ field: 'readings', reason: 'no_climate_reading' }]);
    const checked = v.safeParse(telemetryBody, telemetry);
    if (!checked.success) throw new ApiError('validation_error', `normalised reading out of range: ${checked.issues[0]!.message}`, checked.issues.map((i) => ({ field: (i.path ?? []).map((p) => String(p.key)).join('.'), reason: 'out_of_range' })));
    const answer = await ingestClimate(ctx.services, { tenant, site_bound: writeSite(caller, b.site_id) ?? undefined, actor: caller.subject, correlation_id: ctx.requestId }, checked.output, apiReadingSource(caller));
    return { ...answer, normalised: climate, pressure_pa: pressure_pa ?? null };
  },
});
