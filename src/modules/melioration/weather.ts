// melioration-weather: the weather of a site. The station is the primary source and a weather
// service the fallback. commands/ingest stores a day's weather ({item}, either source) with its
// ET0; commands/telemetry stores a live station frame, judges the station's health (data age,
// plausibility, its own flag) and moves the site's fields between C and their fallback mode.
import * as v from 'valibot';
import { and, desc, eq, lt } from 'drizzle-orm';
import { command, defineResource } from '../../kernel/resource.js';
import type { HandlerContext } from '../../kernel/route.js';
import { apiReadingSource, type ReadingSource } from '../../industry/pipeline.js';
import { need, type Services } from '../../kernel/context.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import { colOf, tableOf } from '../../db/sql.js';
import { dayOfYear, referenceEt, windAt2m } from './et0.js';
import { judgeDaily, judgeFrame, type DailyReadings, type Frame, type HealthReason } from './health.js';
import { dayNotFuture, dayOf, dayString, ident, notFuture, num, opt, timestamp, writeSite } from './inputs.js';
import { modeSummary } from './service.js';
import { FALLBACK_MODES, WEATHER_SOURCES, weather, weatherRecord, type WeatherRow } from './schema.js';

const dailyBody = v.strictObject({
  item: v.strictObject({
    site_id: v.optional(ident),
    source: v.picklist(WEATHER_SOURCES),
    station_id: opt(ident),
    day: dayString,
    observed_at: v.optional(timestamp),
    t_min_c: num(-90, 70),
    t_max_c: num(-90, 70),
    rh_min_pct: opt(num(0, 100)),
    rh_max_pct: opt(num(0, 100)),
    rh_mean_pct: opt(num(0, 100)),
    wind_ms: opt(num(0, 75)),
    wind_height_m: v.optional(num(0.5, 100), 2),
    solar_mj_m2: opt(num(0, 50)),
    sunshine_h: opt(num(0, 24)),
    rain_mm: opt(num(0, 2000)),
    latitude_deg: opt(num(-90, 90)),
    elevation_m: opt(num(-500, 9000)),
    et0_mm: opt(num(0, 30)),
    healthy: opt(v.boolean()),
  }),
});

/** One station frame (the telemetry command's item; a polled station's frame is checked by it too). */
export const stationFrameSchema = v.strictObject({
  site_id: v.optional(ident),
  station_id: ident,
  observed_at: timestamp,
  air_temp_c: opt(num(-90, 70)),
  rh_pct: opt(num(0, 100)),
  wind_ms: opt(num(0, 75)),
  solar_w_m2: opt(num(0, 2000)),
  rain_mm: opt(num(0, 500)),
  healthy: opt(v.boolean()),
  fallback_mode: v.optional(v.picklist(FALLBACK_MODES)),
});
const telemetryBody = v.strictObject({ item: stationFrameSchema });

export type StationFrame = v.InferOutput<typeof telemetryBody>['item'];

const bad = (field: string, reason: string, message: string) => new ApiError('validation_error', message, [{ field, reason }]);
const previousDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10);

async function previousStationDay(services: Services, tenantId: string, siteId: string, day: string): Promise<WeatherRow | undefined> {
  const c = (n: string) => colOf(weather, services.db, n);
  const [row] = (await services.db.orm.select().from(tableOf(weather, services.db)).where(and(
    eq(c('tenant_id'), tenantId), eq(c('site_id'), siteId), eq(c('kind'), 'daily'), eq(c('source'), 'station'), eq(c('day'), previousDay(day)),
  )).orderBy(desc(c('received_at'))).limit(1)) as WeatherRow[];
  return row;
}

async function previousFrames(services: Services, tenantId: string, siteId: string, stationId: string, before: string): Promise<Frame[]> {
  const c = (n: string) => colOf(weather, services.db, n);
  return (await services.db.orm.select().from(tableOf(weather, services.db)).where(and(
    eq(c('tenant_id'), tenantId), eq(c('site_id'), siteId), eq(c('kind'), 'telemetry'), eq(c('station_id'), stationId), lt(c('observed_at'), before),
  )).orderBy(desc(c('observed_at'))).limit(3)) as WeatherRow[];
}

const empty = {
  t_min_c: null, t_max_c: null, rh_min_pct: null, rh_max_pct: null, rh_mean_pct: null, wind_2m_ms: null, solar_mj_m2: null, sunshine_h: null, rain_mm: null,
  latitude_deg: null, elevation_m: null, air_temp_c: null, rh_pct: null, wind_ms: null, solar_w_m2: null, et0_mm: null, et0_method: null,
  fallback_mode: null, fields: null,
} as const;


export const weatherResource = defineResource<WeatherRow>({
  name: 'melioration-weather',
  module: 'melioration',
  title: 'Weather',
  record: weatherRecord,
  access: { resource: 'melioration-weather', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  defaultSort: { field: 'observed_at', order: 'desc' },
  commands: {
    ingest: command({
      summary: 'Ingest a day\'s weather of a site ({item}) from the station (primary) or the weather service (fallback); ET0 is computed (FAO-56) unless given',
      action: 'execute',
      status: 201,
      body: dailyBody,
      handler: async (ctx, kit) => {
        const b = ctx.body.item;
        const now = new Date();
        const site = writeSite(ctx.caller, b.site_id);
        dayNotFuture('item.day', b.day, now, ctx.services.config);
        const endOfDay = `${b.day}T23:59:59.000Z`;
        const observed = b.observed_at ? new Date(Date.parse(b.observed_at)).toISOString() : (Date.parse(endOfDay) < now.getTime() ? endOfDay : now.toISOString());
        notFuture('item.observed_at', observed, now);
        if (b.t_min_c > b.t_max_c) throw bad('item.t_min_c', 'above_t_max_c', `t_min_c ${b.t_min_c} is above t_max_c ${b.t_max_c}`);
        if (typeof b.rh_min_pct === 'number' && typeof b.rh_max_pct === 'number' && b.rh_min_pct > b.rh_max_pct) throw bad('item.rh_min_pct', 'above_rh_max_pct', 'rh_min_pct is above rh_max_pct');
        if (b.source === 'station' && !b.station_id) throw bad('item.station_id', 'required', 'a station record names its station_id');
        const wind2 = typeof b.wind_ms === 'number' ? (b.wind_height_m === 2 ? b.wind_ms : windAt2m(b.wind_ms, b.wind_height_m)) : null;
        const readings = {
          doy: dayOfYear(b.day), latitude_deg: b.latitude_deg ?? null, elevation_m: b.elevation_m ?? null, t_min_c: b.t_min_c, t_max_c: b.t_max_c,
          rh_min_pct: b.rh_min_pct ?? null, rh_max_pct: b.rh_max_pct ?? null, rh_mean_pct: b.rh_mean_pct ?? null, wind_2m_ms: wind2, solar_mj_m2: b.solar_mj_m2 ?? null, sunshine_h: b.sunshine_h ?? null,
        };
        let et0: { et0_mm: number; method: WeatherRow['et0_method'] };
        if (typeof b.et0_mm === 'number') et0 = { et0_mm: b.et0_mm, method: 'given' };
        else if (readings.latitude_deg === null) throw bad('item.latitude_deg', 'required', 'latitude_deg is needed to compute ET0 (or send et0_mm)');
        else {
          const r = referenceEt({ ...readings, latitude_deg: readings.latitude_deg, elevation_m: readings.elevation_m ?? 0 });
          et0 = { et0_mm: r.et0_mm, method: r.method };
        }
        const tenant = ctx.caller?.tenant_id ?? '';
        let previous: DailyReadings | undefined;
        if (b.source === 'station') {
          const p = await previousStationDay(ctx.services, tenant, site, b.day);
          if (p && p.station_id === b.station_id) previous = { ...p, doy: dayOfYear(p.day), t_min_c: p.t_min_c ?? Number.NaN, t_max_c: p.t_max_c ?? Number.NaN };
        }
        const reasons: HealthReason[] = judgeDaily(readings, previous);
        const telemetryHealthy = reasons.length === 0;
        if (b.healthy === false) reasons.push('reported_unhealthy');
        if (b.source === 'station') {
          const state = await need(ctx.services, 'melioration').stationState(tenant, site);
          if (state && !state.healthy) reasons.push('station_unhealthy');
        }
        const { doy: _doy, ...stored } = readings;
        const row: WeatherRow = {
          ...empty, id: timeId(), tenant_id: tenant, site_id: site, kind: 'daily', source: b.source, station_id: b.station_id ?? null, day: b.day, observed_at: observed,
          ...stored, rain_mm: b.rain_mm ?? 0, et0_mm: et0.et0_mm, et0_method: et0.method,
          reported_healthy: b.healthy ?? null, telemetry_healthy: telemetryHealthy, healthy: reasons.length === 0, health_reasons: reasons, reading_source: apiReadingSource(ctx.caller), received_at: now.toISOString(),
        };
        await kit.store(ctx.services.db).insert(row);
        await need(ctx.services, 'melioration').evaluateSite(tenant, site, ctx.caller?.subject ?? 'system', b.day);
        return row;
      },
    }),
    telemetry: command({
      summary: 'Station telemetry frame ({item}): judged for health (telemetry_healthy, healthy); unhealthy moves the site\'s fields in C to their fallback mode (auto_degraded), healthy returns auto-degraded fields to C',
      action: 'execute',
      status: 201,
      body: telemetryBody,
      handler: async (ctx) => ingestStationFrame(ctx as HandlerContext<unknown>, ctx.body.item, apiReadingSource(ctx.caller)),
    }),
  },
});

/** One station frame (judged for health; it may move the site's fields between modes): from the telemetry command (api, manual) or a polled station (device). */
export async function ingestStationFrame(ctx: HandlerContext<unknown>, b: StationFrame, source: ReadingSource): Promise<WeatherRow> {
  const now = new Date();
  const site = writeSite(ctx.caller, b.site_id);
  notFuture('item.observed_at', b.observed_at, now);
  const tenant = ctx.caller?.tenant_id ?? '';
  const observed = new Date(Date.parse(b.observed_at)).toISOString();
  const frame: Frame = { observed_at: observed, air_temp_c: b.air_temp_c ?? null, rh_pct: b.rh_pct ?? null, wind_ms: b.wind_ms ?? null, solar_w_m2: b.solar_w_m2 ?? null };
  const judged = judgeFrame(frame, await previousFrames(ctx.services, tenant, site, b.station_id, observed), now, b.healthy ?? null);
  const melioration = need(ctx.services, 'melioration');
  const latest = await melioration.stationState(tenant, site);
  const row: WeatherRow = {
    ...empty, id: timeId(), tenant_id: tenant, site_id: site, kind: 'telemetry', source: 'station', station_id: b.station_id, day: dayOf(observed, ctx.services.config),
    ...frame, rain_mm: b.rain_mm ?? null, reported_healthy: b.healthy ?? null, telemetry_healthy: judged.telemetry_healthy, healthy: judged.healthy,
    health_reasons: judged.reasons, reading_source: source, received_at: now.toISOString(),
  };
  await weatherResource.kit.store(ctx.services.db).insert(row);
  // A late frame (older than the newest one seen) is kept but does not change the modes.
  const newest = !latest || observed >= latest.observed_at;
  const modes = newest
    ? await melioration.applyStationHealth(tenant, site, {
      healthy: judged.healthy, fallback_mode: b.fallback_mode, actor: ctx.caller?.subject ?? 'system',
      reason: judged.healthy ? `station ${b.station_id} healthy again` : `station ${b.station_id} unhealthy: ${judged.reasons.join(', ')}`,
    })
    : await melioration.siteModes(tenant, site);
  const degraded = modes.filter((m) => m.auto_degraded);
  const saved = await weatherResource.kit.store(ctx.services.db).update({ id: row.id }, {
    fields: modeSummary(modes),
    // The frame's own fallback_mode, else the one the degraded fields share (null when they differ: see fields).
    fallback_mode: !judged.healthy && degraded.length ? (b.fallback_mode ?? (new Set(degraded.map((m) => m.control_mode)).size === 1 ? degraded[0]!.control_mode as 'A' | 'B' : null)) : null,
  });
  return saved ?? row;
}

export const weatherRoutes = weatherResource.routes;
