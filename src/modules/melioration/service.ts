// The melioration service: the water balance of a field from what is stored (weather of its
// site, irrigation and probes of the field), the field's derived state, the two alert rules
// through the one industry alarm service, and the control modes that follow station health.
import type { Config } from '../../config.js';
import { siteDay } from '../../industry/site-day.js';
import { and, asc, desc, eq, gte, lt, lte, sql } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import { timeId } from '../../kernel/ids.js';
import { colOf, tableOf } from '../../db/sql.js';
import type { NeutralTable } from '../../db/table.js';
import { daysBetween, runBalance, totalAvailableWater, type DayBalance, type DayInput, type WeatherSource } from './balance.js';
import { ALERT_RULES, decideDeficit, decideOverwatering, type AlertKind, type Decision } from './rules.js';
import { STATION_HEALTH } from './health.js';
import {
  balanceDays, controlModes, irrigationEvents, meliorationFields, soilMoisture, weather,
  type BalanceDayRow, type ControlModeRow, type FallbackMode, type FieldRow, type IrrigationRow, type SoilRow, type WeatherRow,
} from './schema.js';

export interface AlertChange {
  kind: AlertKind;
  decision: Exclude<Decision, 'keep'>;
  alarm_id: string;
}

export interface StationChange {
  healthy: boolean;
  reason: string;
  actor: string;
  /** Overrides each field's configured fallback mode (telemetry's fallback_mode). */
  fallback_mode?: FallbackMode;
  now?: Date;
}

export interface MeliorationService {
  /** The bucket from the field's balance_start to `to` (days before `from` are run, not returned). */
  balance(field: FieldRow, from: string, to: string): Promise<DayBalance[]>;
  /**
   * Brings the field's balance to its latest day with data, stores the state, raises or clears
   * alerts. `changedFrom`: the earliest day whose inputs changed (an ingest's day); the bucket
   * continues from the stored end of the day before it. Without it (new field, changed
   * parameters) the whole season is run again from balance_start.
   */
  evaluate(field: FieldRow, actor: string, now?: Date, changedFrom?: string): Promise<{ field: FieldRow; alerts: AlertChange[] }>;
  /** Evaluates every field of a site (after its weather of `changedFrom` changed). */
  evaluateSite(tenantId: string, siteId: string, actor: string, changedFrom?: string): Promise<void>;
  /** The site's latest station telemetry (by observation time), if any. */
  stationState(tenantId: string, siteId: string): Promise<WeatherRow | undefined>;
  /** Degrades fields in C (unhealthy) or returns auto-degraded fields to C (healthy); the site's modes after. */
  applyStationHealth(tenantId: string, siteId: string, change: StationChange): Promise<ControlModeRow[]>;
  /** The control modes of a site's fields. */
  siteModes(tenantId: string, siteId: string): Promise<ControlModeRow[]>;
  /** Marks stations silent for longer than max_age_sec as missing (unhealthy); returns how many. */
  sweepMissingStations(now?: Date): Promise<number>;
}

declare module '../../kernel/context.js' {
  interface Services {
    melioration?: MeliorationService;
  }
}

/** Today at the site (setting site_timezone; UTC when not set): balance days are the site's days. */
export const siteToday = (config: Config, now = new Date()) => siteDay(now, config).date;
const nextDay = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

export function fieldSoil(field: FieldRow) {
  const taw = totalAvailableWater(field);
  return { taw_mm: taw, raw_mm: field.depletion_fraction * taw, depletion_fraction: field.depletion_fraction, kc: field.kc };
}

export function createMeliorationService(services: Services): MeliorationService {
  const db = () => services.db;
  const t = (table: NeutralTable) => tableOf(table, db());
  const c = (table: NeutralTable, name: string) => colOf(table, db(), name);

  /** The site's daily weather records of a window, oldest received first. */
  async function siteWeather(tenantId: string, siteId: string, from: string, to: string): Promise<WeatherRow[]> {
    return (await db().orm.select().from(t(weather)).where(and(
      eq(c(weather, 'tenant_id'), tenantId), eq(c(weather, 'site_id'), siteId), eq(c(weather, 'kind'), 'daily'),
      gte(c(weather, 'day'), from), lte(c(weather, 'day'), to),
    )).orderBy(asc(c(weather, 'received_at')), asc(c(weather, 'id')))) as WeatherRow[];
  }

  /** The field's irrigation events and probe readings of a window. */
  async function fieldRows(field: FieldRow, from: string, to: string): Promise<{ irrigation: IrrigationRow[]; soil: SoilRow[] }> {
    const inRange = (table: NeutralTable) => and(eq(c(table, 'tenant_id'), field.tenant_id), eq(c(table, 'field_id'), field.id), gte(c(table, 'day'), from), lte(c(table, 'day'), to));
    const [irrigation, soil] = await Promise.all([
      db().orm.select().from(t(irrigationEvents)).where(inRange(irrigationEvents)).then((rows) => rows as IrrigationRow[]),
      db().orm.select().from(t(soilMoisture)).where(inRange(soilMoisture)).orderBy(asc(c(soilMoisture, 'observed_at'))).then((rows) => rows as SoilRow[]),
    ]);
    return { irrigation, soil };
  }

  /** Balance input per day: weather (a healthy station record, else the service's; the latest received of each), irrigation, probes. */
  function toDays(from: string, to: string, wxRows: readonly WeatherRow[], rows: { irrigation: IrrigationRow[]; soil: SoilRow[] }): DayInput[] {
    const wx = new Map<string, { row: WeatherRow; source: WeatherSource }>();
    for (const row of wxRows) {
      if (!row.healthy) continue;
      const prior = wx.get(row.day);
      if (row.source === 'station' || !prior || prior.source !== 'station') wx.set(row.day, { row, source: row.source });
    }
    const irrigated = new Map<string, { machine: number; drip: number }>();
    for (const e of rows.irrigation) {
      const d = irrigated.get(e.day) ?? { machine: 0, drip: 0 };
      d[e.kind] += e.field_depth_mm;
      irrigated.set(e.day, d);
    }
    // The day's measurement: the last reading of each probe and depth that day, averaged.
    const probes = new Map<string, Map<string, SoilRow>>();
    for (const r of rows.soil) {
      const day = probes.get(r.day) ?? new Map<string, SoilRow>();
      day.set(`${r.probe_id}@${r.depth_cm}`, r);
      probes.set(r.day, day);
    }
    return daysBetween(from, to).map((day) => {
      const w = wx.get(day);
      const i = irrigated.get(day);
      const readings = [...(probes.get(day)?.values() ?? [])];
      return {
        day,
        et0_mm: w?.row.et0_mm ?? null,
        weather_source: w?.source ?? 'none',
        rain_mm: w?.row.rain_mm ?? 0,
        irrigation_machine_mm: i?.machine ?? 0,
        irrigation_drip_mm: i?.drip ?? 0,
        measured_depletion_mm: readings.length ? mean(readings.map((r) => r.depletion_mm)) : null,
        measured_surplus_mm: readings.length ? mean(readings.map((r) => r.surplus_mm)) : null,
      };
    });
  }

  const fieldDays = (field: FieldRow) => and(eq(c(balanceDays, 'tenant_id'), field.tenant_id), eq(c(balanceDays, 'field_id'), field.id));

  /**
   * Where the bucket resumes for a change from `changedFrom`: the stored end of the latest
   * computed day before it (days are stored without gaps from balance_start), else balance_start
   * with the field's initial depletion.
   */
  async function resumePoint(field: FieldRow, changedFrom: string | undefined): Promise<{ from: string; depletion: number }> {
    const start = { from: field.balance_start, depletion: field.initial_depletion_mm };
    if (changedFrom === undefined || changedFrom <= field.balance_start) return start;
    const [row] = (await db().orm.select().from(t(balanceDays))
      .where(and(fieldDays(field), gte(c(balanceDays, 'day'), field.balance_start), lt(c(balanceDays, 'day'), changedFrom)))
      .orderBy(desc(c(balanceDays, 'day'))).limit(1)) as BalanceDayRow[];
    return row ? { from: nextDay(row.day), depletion: row.depletion_end_mm } : start;
  }

  /**
   * Evaluates a field: the bucket from its resume point to the latest day with data (weather of
   * the site, irrigation or probes of the field, or the day already computed), stored per day.
   * `wxRows` holds the site's daily weather from at least the resume point.
   */
  async function evaluateWith(field: FieldRow, actor: string, now: Date, wxRows: readonly WeatherRow[], resume: { from: string; depletion: number }, full: boolean): Promise<{ field: FieldRow; alerts: AlertChange[] }> {
    const start = field.balance_start;
    const today = siteToday(services.config, now);
    if (today < start) return { field, alerts: [] };
    const rows = await fieldRows(field, resume.from, today);
    const computed = field.balance_day !== null && field.balance_day >= resume.from ? [field.balance_day] : [];
    const end = [...wxRows.map((r) => r.day), ...rows.irrigation.map((r) => r.day), ...rows.soil.map((r) => r.day), ...computed]
      .reduce<string | undefined>((latest, day) => (day >= resume.from && (!latest || day > latest) ? day : latest), undefined);
    if (!end) return { field, alerts: [] };
    const days = runBalance(fieldSoil(field), resume.depletion, toDays(resume.from, end, wxRows.filter((r) => r.day >= resume.from), rows));
    const last = days.at(-1) as DayBalance;
    const soil = fieldSoil(field);
    const [saved] = (await db().transaction(async () => {
      // A full run replaces every stored day (the parameters may have changed); a resumed run the days from its resume point.
      await db().orm.delete(t(balanceDays)).where(full ? fieldDays(field) : and(fieldDays(field), gte(c(balanceDays, 'day'), resume.from)));
      const stored = days.map((d) => ({ tenant_id: field.tenant_id, field_id: field.id, day: d.day, depletion_end_mm: d.depletion_end_mm }));
      // An upsert: a concurrent evaluation of the same field may have stored the same days first.
      for (let i = 0; i < stored.length; i += 200) {
        await db().orm.insert(t(balanceDays)).values(stored.slice(i, i + 200) as never)
          .onConflictDoUpdate({ target: [c(balanceDays, 'tenant_id'), c(balanceDays, 'field_id'), c(balanceDays, 'day')] as never, set: { depletion_end_mm: sql`excluded.depletion_end_mm` } as never });
      }
      return db().orm.update(t(meliorationFields)).set({
        depletion_mm: last.depletion_end_mm, surplus_mm: last.surplus_mm, balance_day: last.day, weather_source: last.weather_source, updated_at: now.toISOString(),
      } as never).where(and(eq(c(meliorationFields, 'tenant_id'), field.tenant_id), eq(c(meliorationFields, 'id'), field.id))).returning();
    })) as FieldRow[];
    const open = await need(services, 'industryAlarms').open({ tenant_id: field.tenant_id, industry_code: 'melioration', unit_id: field.id });
    const active = (kind: AlertKind) => open.some((e) => e.rule_id === kind);
    const details = { day: last.day, depletion_mm: last.depletion_end_mm, surplus_mm: last.surplus_mm, taw_mm: soil.taw_mm, raw_mm: soil.raw_mm, weather_source: last.weather_source };
    const changes = [
      await applyRule(field, 'water_deficit', decideDeficit(active('water_deficit'), last.depletion_end_mm, soil.taw_mm, field.depletion_fraction), last.depletion_end_mm,
        { day: last.day, depletion: last.depletion_end_mm, raw: soil.raw_mm, taw: soil.taw_mm }, actor, details),
      await applyRule(field, 'overwatering', decideOverwatering(active('overwatering'), last.surplus_mm), last.surplus_mm,
        { day: last.day, surplus: last.surplus_mm }, actor, details),
    ];
    return { field: saved ?? field, alerts: changes.filter((x): x is AlertChange => x !== undefined) };
  }

  /** `words`: the balance's figures the alert's title and message are worded from (box.melioration.<kind>.*), as data. */
  async function applyRule(field: FieldRow, kind: AlertKind, decision: Decision, value: number, words: Record<string, string | number>, actor: string, details: Record<string, unknown>): Promise<AlertChange | undefined> {
    if (decision === 'keep') return undefined;
    const alarms = need(services, 'industryAlarms');
    if (decision === 'clear') {
      const cleared = await alarms.clear({ tenant_id: field.tenant_id, industry_code: 'melioration', unit_id: field.id, rule_id: kind, actor });
      return cleared ? { kind, decision, alarm_id: cleared.id } : undefined;
    }
    const rule = ALERT_RULES[kind];
    const { event } = await alarms.raise({
      tenant_id: field.tenant_id, site_id: field.site_id, industry_code: 'melioration', unit_id: field.id, rule_id: kind,
      metric: kind === 'water_deficit' ? 'depletion_mm' : 'surplus_mm', value, severity: rule.severity, priority: rule.priority,
      source: 'melioration-balance', sla_target_sec: rule.sla_target_sec,
      text: { title_key: `box.melioration.${kind}.title`, message_key: `box.melioration.${kind}.message`, params: { field: field.name, ...words } },
      details, actor, bridge: 'all',
    });
    return { kind, decision, alarm_id: event.id };
  }

  const service: MeliorationService = {
    async balance(field, from, to) {
      const start = field.balance_start;
      if (to < start) return [];
      const [wx, rows] = await Promise.all([siteWeather(field.tenant_id, field.site_id, start, to), fieldRows(field, start, to)]);
      return runBalance(fieldSoil(field), field.initial_depletion_mm, toDays(start, to, wx, rows)).filter((d) => d.day >= from);
    },

    async evaluate(field, actor, now = new Date(), changedFrom) {
      const resume = await resumePoint(field, changedFrom);
      return evaluateWith(field, actor, now, await siteWeather(field.tenant_id, field.site_id, resume.from, siteToday(services.config, now)), resume, changedFrom === undefined);
    },

    async evaluateSite(tenantId, siteId, actor, changedFrom) {
      const fields = (await db().orm.select().from(t(meliorationFields)).where(and(eq(c(meliorationFields, 'tenant_id'), tenantId), eq(c(meliorationFields, 'site_id'), siteId)))) as FieldRow[];
      if (!fields.length) return;
      // The site's weather is read once for all its fields, from the earliest day any of them resumes at.
      const now = new Date();
      const resumes = await Promise.all(fields.map((f) => resumePoint(f, changedFrom)));
      const from = resumes.map((r) => r.from).sort()[0] as string;
      const wx = await siteWeather(tenantId, siteId, from, siteToday(services.config, now));
      for (const [i, f] of fields.entries()) await evaluateWith(f, actor, now, wx, resumes[i]!, changedFrom === undefined);
    },

    async stationState(tenantId, siteId) {
      const [row] = (await db().orm.select().from(t(weather)).where(and(
        eq(c(weather, 'tenant_id'), tenantId), eq(c(weather, 'site_id'), siteId), eq(c(weather, 'kind'), 'telemetry'), eq(c(weather, 'source'), 'station'),
      )).orderBy(desc(c(weather, 'observed_at')), desc(c(weather, 'received_at'))).limit(1)) as WeatherRow[];
      return row;
    },

    async siteModes(tenantId, siteId) {
      return (await db().orm.select().from(t(controlModes)).where(and(eq(c(controlModes, 'tenant_id'), tenantId), eq(c(controlModes, 'site_id'), siteId))).orderBy(asc(c(controlModes, 'field_id')))) as ControlModeRow[];
    },

    async applyStationHealth(tenantId, siteId, change) {
      const now = (change.now ?? new Date()).toISOString();
      const site = and(eq(c(controlModes, 'tenant_id'), tenantId), eq(c(controlModes, 'site_id'), siteId));
      const rows = (await db().orm.select().from(t(controlModes)).where(site).orderBy(asc(c(controlModes, 'field_id')))) as ControlModeRow[];
      const moved: ControlModeRow[] = [];
      for (const row of rows) {
        let next: Partial<ControlModeRow> | undefined;
        if (!change.healthy && row.control_mode === 'C') {
          next = { control_mode: change.fallback_mode ?? row.fallback_mode, auto_degraded: true, station_healthy: false, reason: change.reason, changed_at: now, changed_by: change.actor };
        } else if (change.healthy && row.auto_degraded) {
          next = { control_mode: 'C', auto_degraded: false, station_healthy: true, reason: change.reason, changed_at: now, changed_by: change.actor };
        }
        if (!next) continue;
        // Conditional on the mode read, so a person's concurrent set is never overwritten.
        const [saved] = (await db().transaction(async () => db().orm.update(t(controlModes)).set(next as never).where(and(
          site, eq(c(controlModes, 'field_id'), row.field_id), eq(c(controlModes, 'control_mode'), row.control_mode), eq(c(controlModes, 'auto_degraded'), row.auto_degraded),
        )).returning())) as ControlModeRow[];
        if (saved) moved.push(saved);
      }
      for (const m of moved) {
        const degraded = m.auto_degraded;
        await services.audit.record({ actor: change.actor, action: degraded ? 'control_mode.degrade' : 'control_mode.restore', resource: 'melioration-control-mode', result: 'success', tenant_id: tenantId, details: { field_id: m.field_id, control_mode: m.control_mode, reason: change.reason } });
        await services.status?.publish({ tenant_id: tenantId, site_id: siteId, source: 'melioration-control-mode', event: degraded ? 'control_mode_degraded' : 'control_mode_restored', status: degraded ? 'warn' : 'ok', details: { field_id: m.field_id, control_mode: m.control_mode, fallback_mode: m.fallback_mode, auto_degraded: m.auto_degraded, reason: change.reason } });
      }
      if (!moved.length) return rows;
      return (await db().orm.select().from(t(controlModes)).where(site).orderBy(asc(c(controlModes, 'field_id')))) as ControlModeRow[];
    },

    async sweepMissingStations(now = new Date()) {
      const sites = (await db().orm.selectDistinct({ tenant_id: c(weather, 'tenant_id'), site_id: c(weather, 'site_id') }).from(t(weather))
        .where(and(eq(c(weather, 'kind'), 'telemetry'), eq(c(weather, 'source'), 'station')))) as { tenant_id: string; site_id: string }[];
      let missing = 0;
      for (const s of sites) {
        const last = await service.stationState(s.tenant_id, s.site_id);
        if (!last || !last.healthy || now.getTime() - Date.parse(last.observed_at) <= STATION_HEALTH.max_age_sec * 1000) continue;
        const iso = now.toISOString();
        const reason = `station ${last.station_id ?? ''} silent since ${last.observed_at}`.replace('  ', ' ');
        const modes = await service.applyStationHealth(s.tenant_id, s.site_id, { healthy: false, reason, actor: 'melioration-health', now });
        await db().transaction(async () => db().orm.insert(t(weather)).values(missingFrame(last, iso, modes) as never));
        missing++;
      }
      return missing;
    },
  };
  return service;
}

/** The row a health check stores when a station has gone silent. */
function missingFrame(last: WeatherRow, iso: string, modes: ControlModeRow[]): WeatherRow {
  return {
    id: timeId(), tenant_id: last.tenant_id, site_id: last.site_id, kind: 'telemetry', source: 'station', station_id: last.station_id, day: iso.slice(0, 10), observed_at: iso,
    t_min_c: null, t_max_c: null, rh_min_pct: null, rh_max_pct: null, rh_mean_pct: null, wind_2m_ms: null, solar_mj_m2: null, sunshine_h: null, rain_mm: null,
    latitude_deg: null, elevation_m: null, air_temp_c: null, rh_pct: null, wind_ms: null, solar_w_m2: null, et0_mm: null, et0_method: null,
    reported_healthy: null, telemetry_healthy: false, healthy: false, health_reasons: ['missing'], fallback_mode: null,
    fields: modeSummary(modes), reading_source: null, received_at: iso,
  };
}

export const modeSummary = (modes: ControlModeRow[]) => modes.map((m) => ({ field_id: m.field_id, control_mode: m.control_mode, fallback_mode: m.fallback_mode, auto_degraded: m.auto_degraded }));
