// Feed and water judged against what birds of this age should eat and drink. Pure functions:
// counter arithmetic (resets and rollovers) and the judgement that gives the ingest's status
// and anomaly_flags; tested in test/unit/poultry-feedwater.test.ts.
//
// Model (README "Poultry: feed and water"):
// - Meters report cumulative counters (water in litres, feed in kg). Consumption is the counter
//   difference. A counter that falls is a reset when told so (reset: true) or when it falls to
//   under 5 % of the previous reading (a meter replaced or zeroed); it is a rollover when a
//   counter maximum is set, the previous reading was in the top 10 % and the new one in the
//   bottom 10 % of it. Anything else going backwards is refused: the reading is wrong.
// - Today's consumption is compared with the expected consumption *so far today*: the expected
//   daily amount per bird at this age × birds × the fraction of the site's day elapsed since the
//   counter was measured from (the day's start, or the counter's baseline when it was set today).
//   Before `min_day_fraction` of the day has passed that way the deviation is not judged (too few
//   litres).
// - A counter's first reading sets its baseline and judges nothing: a new meter or a new flock has
//   consumed nothing *measured* yet, which is not a drop. A reset is different: the meter counts
//   again from zero, its reading is what was drunk since, and the day stays measured from its start.
// - Expected daily amounts per bird come from a curve by age (default: an approximate broiler
//   curve, feed from 12 g at placement to 210 g at day 42, water 1.8 ml per g of feed); a site's
//   profile can replace the curve.

export interface CurvePoint {
  day: number;
  feed_g: number;
  water_ml: number;
}

export interface FeedwaterThresholds {
  water_warn_pct: number;
  water_alarm_pct: number;
  feed_warn_pct: number;
  feed_alarm_pct: number;
  pressure_min_bar: number;
  pressure_max_bar: number;
  ratio_min: number;
  ratio_max: number;
  min_day_fraction: number;
}

export const DEFAULT_THRESHOLDS: FeedwaterThresholds = {
  water_warn_pct: 15,
  water_alarm_pct: 30,
  feed_warn_pct: 15,
  feed_alarm_pct: 30,
  pressure_min_bar: 1.5,
  pressure_max_bar: 4,
  ratio_min: 1.5,
  ratio_max: 2.5,
  min_day_fraction: 0.125,
};

const broilerFeed: [number, number][] = [[0, 12], [7, 35], [14, 75], [21, 120], [28, 160], [35, 190], [42, 210], [56, 225]];
/** Approximate broiler consumption per bird per day (water = 1.8 × feed); replace with the breed's own. */
export const DEFAULT_BROILER_CURVE: CurvePoint[] = broilerFeed.map(([day, feed_g]) => ({ day, feed_g, water_ml: Math.round(feed_g * 1.8) }));
/** Laying hens in lay: about 110 g of feed and 200 ml of water per hen per day. */
export const DEFAULT_LAYER_CURVE: CurvePoint[] = [{ day: 0, feed_g: 110, water_ml: 200 }];

export function defaultCurve(subtype: string): CurvePoint[] {
  return subtype === 'layer' || subtype === 'breeder' ? DEFAULT_LAYER_CURVE : DEFAULT_BROILER_CURVE;
}

/** Expected per-bird amounts at an age, linear between the curve's points, flat beyond its ends. */
export function expectedAt(curve: CurvePoint[], age: number): { feed_g: number; water_ml: number } {
  const pts = [...curve].sort((a, b) => a.day - b.day);
  if (!pts.length) throw new Error('empty curve');
  if (age <= pts[0]!.day) return { feed_g: pts[0]!.feed_g, water_ml: pts[0]!.water_ml };
  for (let i = 1; i < pts.length; i++) {
    const a = pts[i - 1]!;
    const b = pts[i]!;
    if (age <= b.day) {
      const f = (age - a.day) / (b.day - a.day);
      return { feed_g: a.feed_g + f * (b.feed_g - a.feed_g), water_ml: a.water_ml + f * (b.water_ml - a.water_ml) };
    }
  }
  const last = pts.at(-1)!;
  return { feed_g: last.feed_g, water_ml: last.water_ml };
}

export type CounterEvent = 'first' | 'normal' | 'reset' | 'rollover';

export function counterDelta(previous: number | null, next: number, opts: { reset?: boolean; max?: number | null } = {}): { delta: number; event: CounterEvent } | { refused: 'counter_backwards' } {
  if (previous === null) return { delta: 0, event: 'first' };
  if (opts.reset) return { delta: next, event: 'reset' };
  if (next >= previous) return { delta: next - previous, event: 'normal' };
  if (opts.max && previous >= 0.9 * opts.max && next <= 0.1 * opts.max) return { delta: opts.max - previous + next, event: 'rollover' };
  if (next < 0.05 * previous) return { delta: next, event: 'reset' };
  return { refused: 'counter_backwards' };
}

export const ALARM_FLAGS = ['water_spike', 'water_drop', 'feed_drop', 'feed_spike', 'low_pressure'] as const;
export const WARN_FLAGS = ['water_high', 'water_low', 'feed_high', 'feed_low', 'high_pressure', 'water_feed_ratio'] as const;
export type AnomalyFlag = (typeof ALARM_FLAGS)[number] | (typeof WARN_FLAGS)[number];

export interface Judgement {
  expected_water_today_l: number | null;
  expected_feed_today_kg: number | null;
  water_deviation_pct: number | null;
  feed_deviation_pct: number | null;
  water_feed_ratio: number | null;
  status: 'ok' | 'warn' | 'alarm';
  anomaly_flags: AnomalyFlag[];
}

const r = (n: number, d: number) => Number(n.toFixed(d));

function deviationFlags(pct: number | null, warn: number, alarm: number, names: [AnomalyFlag, AnomalyFlag, AnomalyFlag, AnomalyFlag]): AnomalyFlag[] {
  if (pct === null) return [];
  const [spike, high, low, drop] = names;
  if (pct >= alarm) return [spike];
  if (pct >= warn) return [high];
  if (pct <= -alarm) return [drop];
  if (pct <= -warn) return [low];
  return [];
}

export function judge(input: {
  water_today_l: number | null;
  feed_today_kg: number | null;
  birds: number | null;
  age_days: number | null;
  day_fraction: number;
  /** Where today's measurement of each counter starts: 0, or the day fraction of a baseline set today. */
  water_from_fraction?: number;
  feed_from_fraction?: number;
  pressure_bar: number | null;
  thresholds: FeedwaterThresholds;
  curve: CurvePoint[];
}): Judgement {
  const t = input.thresholds;
  const known = input.birds !== null && input.birds > 0 && input.age_days !== null;
  const exp = known ? expectedAt(input.curve, input.age_days!) : null;
  const span = (from: number | undefined) => input.day_fraction - (from ?? 0);
  const judgedSpan = (from: number | undefined) => (exp && span(from) >= t.min_day_fraction ? span(from) : null);
  const waterSpan = judgedSpan(input.water_from_fraction);
  const feedSpan = judgedSpan(input.feed_from_fraction);
  const expWater = exp && waterSpan !== null ? (exp.water_ml / 1000) * input.birds! * waterSpan : null;
  const expFeed = exp && feedSpan !== null ? (exp.feed_g / 1000) * input.birds! * feedSpan : null;
  const judged = expWater !== null && expFeed !== null;
  const dev = (actual: number | null, expected: number | null) => (actual === null || !expected ? null : r(((actual - expected) / expected) * 100, 1));
  const waterDev = dev(input.water_today_l, expWater);
  const feedDev = dev(input.feed_today_kg, expFeed);
  const ratio = input.water_today_l !== null && input.feed_today_kg ? r(input.water_today_l / input.feed_today_kg, 2) : null;
  const flags: AnomalyFlag[] = [
    ...deviationFlags(waterDev, t.water_warn_pct, t.water_alarm_pct, ['water_spike', 'water_high', 'water_low', 'water_drop']),
    ...deviationFlags(feedDev, t.feed_warn_pct, t.feed_alarm_pct, ['feed_spike', 'feed_high', 'feed_low', 'feed_drop']),
  ];
  if (input.pressure_bar !== null && input.pressure_bar < t.pressure_min_bar) flags.push('low_pressure');
  if (input.pressure_bar !== null && input.pressure_bar > t.pressure_max_bar) flags.push('high_pressure');
  if (judged && ratio !== null && (ratio < t.ratio_min || ratio > t.ratio_max)) flags.push('water_feed_ratio');
  const status = flags.some((f) => (ALARM_FLAGS as readonly string[]).includes(f)) ? 'alarm' : flags.length ? 'warn' : 'ok';
  return {
    expected_water_today_l: expWater === null ? null : r(expWater, 1),
    expected_feed_today_kg: expFeed === null ? null : r(expFeed, 1),
    water_deviation_pct: waterDev,
    feed_deviation_pct: feedDev,
    water_feed_ratio: ratio,
    status,
    anomaly_flags: flags,
  };
}
