// The poultry climate band and alarm rules, as data for the one reading pipeline
// (src/industry/pipeline.ts) and the rule engine (src/industry/rules.ts).
//
// The band of the age phase in force gives the warn-level out_of_norm_flags: temp_high /
// temp_low (beyond target ± temp_tolerance_c), humidity_high / humidity_low (outside the band),
// co2_high, nh3_high (above the maxima), ventilation_low (below the minimum). Whether a reading
// is `alarm` is the rules' in force (the defaults below with a site profile's overrides): a
// reading beyond one of them is `alarm`; whether an alarm *event* is raised is the rule engine's
// decision (hysteresis, hold time), so a single reading never floods the operator.
import type { AlarmRule } from '../../industry/rules.js';
import { FEEDWATER_ALARMS, feedwaterTitleKey } from './feedwater.js';
import type { ClimatePhase } from './default-curve.js';

export interface ClimateReading {
  temp?: number | null;
  humidity?: number | null;
  co2?: number | null;
  nh3?: number | null;
  ventilation?: number | null;
}

/** How far from the target the default temperature rules put the alarm (their `offset`). */
export const TEMP_ALARM_DELTA_C = 3;
export const HUMIDITY_ALARM_DELTA_PCT = 10;

/** The named limits the climate rules compare with, from the phase in force. */
export function climateLimits(p: ClimatePhase): Record<string, number> {
  return {
    target_temp_c: p.target_temp_c,
    // Kept for site rules written against them before the rules took an offset.
    temp_alarm_max: p.target_temp_c + TEMP_ALARM_DELTA_C,
    temp_alarm_min: p.target_temp_c - TEMP_ALARM_DELTA_C,
    humidity_max_pct: p.humidity_max_pct,
    humidity_min_pct: p.humidity_min_pct,
    humidity_alarm_max: Math.min(100, p.humidity_max_pct + HUMIDITY_ALARM_DELTA_PCT),
    co2_max_ppm: p.co2_max_ppm,
    nh3_max_ppm: p.nh3_max_ppm,
    min_ventilation_pct: p.min_ventilation_pct,
  };
}

/** The warn-level flags of a reading against the band of the phase in force. */
export function climateBandFlags(r: ClimateReading, p: ClimatePhase): string[] {
  const flags: string[] = [];
  const has = (x: number | null | undefined): x is number => typeof x === 'number';
  if (has(r.temp)) {
    if (r.temp > p.target_temp_c + p.temp_tolerance_c) flags.push('temp_high');
    if (r.temp < p.target_temp_c - p.temp_tolerance_c) flags.push('temp_low');
  }
  if (has(r.humidity)) {
    if (r.humidity > p.humidity_max_pct) flags.push('humidity_high');
    if (r.humidity < p.humidity_min_pct) flags.push('humidity_low');
  }
  if (has(r.co2) && r.co2 > p.co2_max_ppm) flags.push('co2_high');
  if (has(r.nh3) && r.nh3 > p.nh3_max_ppm) flags.push('nh3_high');
  if (has(r.ventilation) && r.ventilation < p.min_ventilation_pct) flags.push('ventilation_low');
  return flags;
}

/** The default poultry climate rules; a published poultry profile's `alarm_rules` replace rules of the same id. */
export const DEFAULT_CLIMATE_RULES: readonly AlarmRule[] = [
  { id: 'climate:temp_high', metric: 'temp', comparator: 'gt', threshold: 'target_temp_c', offset: TEMP_ALARM_DELTA_C, hysteresis: 0.5, hold_sec: 120, severity: 'critical', priority: 'P1', sla_target_sec: 900, title: 'Temperature far above target', title_key: 'box.rule.climate.temp_high.title' },
  { id: 'climate:temp_low', metric: 'temp', comparator: 'lt', threshold: 'target_temp_c', offset: -TEMP_ALARM_DELTA_C, hysteresis: 0.5, hold_sec: 120, severity: 'critical', priority: 'P1', sla_target_sec: 900, title: 'Temperature far below target', title_key: 'box.rule.climate.temp_low.title' },
  { id: 'climate:ventilation_low', metric: 'ventilation', comparator: 'lt', threshold: 'min_ventilation_pct', hysteresis: 2, hold_sec: 60, severity: 'critical', priority: 'P1', sla_target_sec: 600, title: 'Ventilation below the minimum', title_key: 'box.rule.climate.ventilation_low.title' },
  { id: 'climate:co2_high', metric: 'co2', comparator: 'gt', threshold: 'co2_max_ppm', hysteresis: 200, hold_sec: 300, severity: 'high', priority: 'P1', sla_target_sec: 1800, title: 'CO2 above the maximum', title_key: 'box.rule.climate.co2_high.title' },
  { id: 'climate:nh3_high', metric: 'nh3', comparator: 'gt', threshold: 'nh3_max_ppm', hysteresis: 2, hold_sec: 300, severity: 'high', priority: 'P1', sla_target_sec: 1800, title: 'NH3 above the maximum', title_key: 'box.rule.climate.nh3_high.title' },
  { id: 'climate:humidity_high', metric: 'humidity', comparator: 'gt', threshold: 'humidity_alarm_max', hysteresis: 3, hold_sec: 600, severity: 'medium', priority: 'P2', sla_target_sec: 3600, title: 'Humidity far above the band', title_key: 'box.rule.climate.humidity_high.title' },
];

/**
 * Feed/water deviations as rules over the published feed/water line (poultry-feedwater): the same
 * rule ids, severities and SLAs as its ingest raises (FEEDWATER_ALARMS), against the line's own
 * thresholds, so evaluate and ingest never raise the same condition twice.
 */
export const FEEDWATER_RULES: readonly AlarmRule[] = [
  { id: 'feedwater:water_spike', metric: 'water_deviation_pct', comparator: 'gt', threshold: 'water_alarm_pct', ...pick('water_spike') },
  { id: 'feedwater:water_drop', metric: 'water_deviation_pct', comparator: 'lt', threshold: 'water_alarm_pct_neg', ...pick('water_drop') },
  { id: 'feedwater:feed_spike', metric: 'feed_deviation_pct', comparator: 'gt', threshold: 'feed_alarm_pct', ...pick('feed_spike') },
  { id: 'feedwater:feed_drop', metric: 'feed_deviation_pct', comparator: 'lt', threshold: 'feed_alarm_pct_neg', ...pick('feed_drop') },
  { id: 'feedwater:low_pressure', metric: 'pressure_bar', comparator: 'lt', threshold: 'pressure_min_bar', ...pick('low_pressure') },
];

function pick(flag: keyof typeof FEEDWATER_ALARMS): Pick<AlarmRule, 'severity' | 'priority' | 'sla_target_sec' | 'title' | 'title_key'> {
  const a = FEEDWATER_ALARMS[flag]!;
  return { severity: a.severity, priority: a.priority, sla_target_sec: a.sla_target_sec, title: a.title, title_key: feedwaterTitleKey(flag) };
}

export { mergeRules } from '../../industry/rules.js';
