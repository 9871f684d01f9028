// What a swine producer expects of a room, a pen's feed and its water, as data and pure
// functions (tested with hand-worked numbers). Sources: room temperature bands by weight phase as
// in common producer guidance (weaners warm at 26-28 C falling to 16-20 C for finishers);
// NH3 at most 20 ppm and CO2 at most 3,000 ppm (the usual limits under EU Directive 2008/120/EC's
// "not harmful" rule); feed intake of growing pigs from the NRC (2012) digestible-energy intake
// curve DE = 10,447 x (1 - e^(-0.0204 x BW)) kcal/day at 3,400 kcal DE per kg of feed; water at
// 2.5 litres per kg of feed for growing pigs, fixed allowances for sows.
// A site replaces the climate bands by publishing an industry profile (industry swine, equipment
// profile swine-room-climate, name = the room id or "default"); see climate-targets.ts.

export const SWINE_CATEGORIES = ['sow', 'piglet', 'weaner', 'grower', 'finisher', 'boar'] as const;
export type SwineCategory = (typeof SWINE_CATEGORIES)[number];
export const SOW_PHASES = ['gestating', 'lactating', 'dry'] as const;
export type SowPhase = (typeof SOW_PHASES)[number];

export interface ClimatePhase {
  phase_id: string;
  label?: string;
  /** The phase applies from this average live weight (kg, inclusive) ... */
  min_weight_kg?: number;
  /** ... up to this one (exclusive). */
  max_weight_kg?: number;
  /** Or by age in days since birth (inclusive / exclusive). */
  min_age_days?: number;
  max_age_days?: number;
  temp_min_c: number;
  temp_max_c: number;
  humidity_min_pct: number;
  humidity_max_pct: number;
  nh3_max_ppm: number;
  co2_max_ppm: number;
}

/** The default room climate bands by phase (a site may publish its own). */
export const DEFAULT_CLIMATE_PHASES: readonly ClimatePhase[] = [
  { phase_id: 'weaner-early', label: 'Weaners 5-10 kg', min_weight_kg: 5, max_weight_kg: 10, min_age_days: 21, max_age_days: 35, temp_min_c: 26, temp_max_c: 28, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 },
  { phase_id: 'weaner-late', label: 'Weaners 10-30 kg', min_weight_kg: 10, max_weight_kg: 30, min_age_days: 35, max_age_days: 70, temp_min_c: 22, temp_max_c: 26, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 },
  { phase_id: 'grower', label: 'Growers 30-60 kg', min_weight_kg: 30, max_weight_kg: 60, min_age_days: 70, max_age_days: 110, temp_min_c: 18, temp_max_c: 22, humidity_min_pct: 50, humidity_max_pct: 75, nh3_max_ppm: 20, co2_max_ppm: 3000 },
  { phase_id: 'finisher', label: 'Finishers 60-130 kg', min_weight_kg: 60, max_weight_kg: 130, min_age_days: 110, max_age_days: 200, temp_min_c: 16, temp_max_c: 20, humidity_min_pct: 50, humidity_max_pct: 75, nh3_max_ppm: 20, co2_max_ppm: 3000 },
  { phase_id: 'farrowing', label: 'Farrowing room (sow and litter)', temp_min_c: 18, temp_max_c: 22, humidity_min_pct: 50, humidity_max_pct: 70, nh3_max_ppm: 20, co2_max_ppm: 3000 },
  { phase_id: 'gestation', label: 'Gestating sows', temp_min_c: 16, temp_max_c: 20, humidity_min_pct: 50, humidity_max_pct: 75, nh3_max_ppm: 20, co2_max_ppm: 3000 },
];

export type PhaseKey = { phase_id?: string; avg_weight_kg?: number; age_days?: number };

/** The phase a reading is judged by: named, else by weight, else by age; undefined when none fits. */
export function selectPhase(phases: readonly ClimatePhase[], key: PhaseKey): ClimatePhase | undefined {
  if (key.phase_id !== undefined) return phases.find((p) => p.phase_id === key.phase_id);
  const within = (x: number, lo?: number, hi?: number) => lo !== undefined && hi !== undefined && x >= lo && x < hi;
  if (key.avg_weight_kg !== undefined) return phases.find((p) => within(key.avg_weight_kg!, p.min_weight_kg, p.max_weight_kg));
  if (key.age_days !== undefined) return phases.find((p) => within(key.age_days!, p.min_age_days, p.max_age_days));
  return undefined;
}

export type Severity = 'critical' | 'high' | 'medium';
export interface Finding {
  flag: string;
  metric: string;
  value: number;
  limit: number;
  severity: Severity;
  priority: 'P1' | 'P2';
}

/** How far outside the temperature band (C) turns a warning into a P1 alarm. */
export const TEMP_ALARM_MARGIN_C = 3;
/** CO2 at or above this (ppm) is a P1 alarm rather than a P2 warning. */
export const CO2_ALARM_PPM = 5000;

export interface ClimateReading { temp_c?: number | null; humidity_pct?: number | null; nh3_ppm?: number | null; co2_ppm?: number | null }

/**
 * Judges a room reading against its phase: temperature outside the band is medium/P2, or
 * high/P1 when 3 C or more outside; humidity outside the band medium/P2; NH3 above the maximum
 * high/P1; CO2 above the maximum medium/P2, high/P1 from 5,000 ppm.
 */
export function judgeClimate(phase: ClimatePhase, r: ClimateReading): Finding[] {
  const out: Finding[] = [];
  const band = (metric: string, value: number | null | undefined, lo: number, hi: number, flagLow: string, flagHigh: string, sev: (miss: number) => [Severity, 'P1' | 'P2']) => {
    if (value === null || value === undefined) return;
    if (value < lo) out.push({ flag: flagLow, metric, value, limit: lo, ...pair(sev(lo - value)) });
    else if (value > hi) out.push({ flag: flagHigh, metric, value, limit: hi, ...pair(sev(value - hi)) });
  };
  const pair = ([severity, priority]: [Severity, 'P1' | 'P2']) => ({ severity, priority });
  band('temp_c', r.temp_c, phase.temp_min_c, phase.temp_max_c, 'temp_low', 'temp_high', (miss) => (miss >= TEMP_ALARM_MARGIN_C ? ['high', 'P1'] : ['medium', 'P2']));
  band('humidity_pct', r.humidity_pct, phase.humidity_min_pct, phase.humidity_max_pct, 'humidity_low', 'humidity_high', () => ['medium', 'P2']);
  if (r.nh3_ppm !== null && r.nh3_ppm !== undefined && r.nh3_ppm > phase.nh3_max_ppm) out.push({ flag: 'nh3_high', metric: 'nh3_ppm', value: r.nh3_ppm, limit: phase.nh3_max_ppm, severity: 'high', priority: 'P1' });
  if (r.co2_ppm !== null && r.co2_ppm !== undefined && r.co2_ppm > phase.co2_max_ppm) {
    out.push({ flag: 'co2_high', metric: 'co2_ppm', value: r.co2_ppm, limit: phase.co2_max_ppm, ...(r.co2_ppm >= CO2_ALARM_PPM ? { severity: 'high', priority: 'P1' } : { severity: 'medium', priority: 'P2' }) });
  }
  return out;
}

/** ok when nothing is out of norm, alarm when a finding is P1, warn otherwise. */
export const statusOf = (findings: readonly Finding[]): 'ok' | 'warn' | 'alarm' =>
  findings.length === 0 ? 'ok' : findings.some((f) => f.priority === 'P1') ? 'alarm' : 'warn';

/** Seconds to acknowledge before escalation: P1 15 minutes, P2 1 hour. */
export const SLA_SEC = { P1: 900, P2: 3600 } as const;

// ---- feed and water ------------------------------------------------------------------------

/** Expected feed per head and day (kg): NRC (2012) for growing pigs; fixed allowances for sows and boars. */
export function expectedFeedKgPerDay(category: SwineCategory, avgWeightKg: number | null, sowPhase: SowPhase | null): number | null {
  if (category === 'sow') return sowPhase === 'lactating' ? 6.5 : 2.8;
  if (category === 'boar') return 2.5;
  if (avgWeightKg === null || avgWeightKg <= 0) return null;
  return (10447 * (1 - Math.exp(-0.0204 * avgWeightKg))) / 3400;
}

/** Expected water per head and day (litres): 2.5 l per kg of expected feed; sows 15 l (30 l lactating), boars 15 l. */
export function expectedWaterLPerDay(category: SwineCategory, avgWeightKg: number | null, sowPhase: SowPhase | null): number | null {
  if (category === 'sow') return sowPhase === 'lactating' ? 30 : 15;
  if (category === 'boar') return 15;
  const feed = expectedFeedKgPerDay(category, avgWeightKg, sowPhase);
  return feed === null ? null : feed * 2.5;
}

/** Feed: 15 % off the curve is a warning, 30 % an anomaly (low: off feed or a blocked valve; high: spill). */
export const FEED_WARN_PCT = 15;
export const FEED_ALARM_PCT = 30;
/** Water: 25 % off the baseline is a warning; +50 % a leak, -50 % (or no flow at all) a blockage. */
export const WATER_WARN_PCT = 25;
export const WATER_ALARM_PCT = 50;

export const deviationPct = (actual: number, expected: number): number => ((actual - expected) / expected) * 100;

export const round = (x: number, digits = 3): number => Math.round(x * 10 ** digits) / 10 ** digits;
