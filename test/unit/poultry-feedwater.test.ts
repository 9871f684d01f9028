// Feed and water: counter arithmetic and the judgement against the age curve, worked by hand.
import { describe, expect, it } from 'vitest';
import { counterDelta, DEFAULT_BROILER_CURVE, DEFAULT_THRESHOLDS, expectedAt, judge } from '../../src/modules/poultry/feedwater-eval.js';

describe('counters', () => {
  it('takes differences, and tells resets and rollovers from readings going backwards', () => {
    expect(counterDelta(null, 100)).toEqual({ delta: 0, event: 'first' });
    expect(counterDelta(100, 150)).toEqual({ delta: 50, event: 'normal' });
    expect(counterDelta(100, 90)).toEqual({ refused: 'counter_backwards' });
    expect(counterDelta(100, 90, { reset: true })).toEqual({ delta: 90, event: 'reset' });
    expect(counterDelta(100, 2)).toEqual({ delta: 2, event: 'reset' });
    // 100,000 L meter: 99,990 -> 15 is 10 L to the top and 15 L after it
    expect(counterDelta(99_990, 15, { max: 100_000 })).toEqual({ delta: 25, event: 'rollover' });
    // the same fall without a maximum is a reset (under 5 % of the previous reading)
    expect(counterDelta(99_990, 15)).toEqual({ delta: 15, event: 'reset' });
    expect(counterDelta(50_000, 45_000, { max: 100_000 })).toEqual({ refused: 'counter_backwards' });
  });
});

describe('expected consumption', () => {
  it('interpolates the curve by age and stays flat past its ends', () => {
    // day 10 lies 3/7 of the way from day 7 (35 g, 63 ml) to day 14 (75 g, 135 ml)
    const d10 = expectedAt(DEFAULT_BROILER_CURVE, 10);
    expect(d10.feed_g).toBeCloseTo(35 + (3 / 7) * 40, 6);
    expect(d10.water_ml).toBeCloseTo(63 + (3 / 7) * 72, 6);
    expect(expectedAt(DEFAULT_BROILER_CURVE, -1)).toEqual({ feed_g: 12, water_ml: 22 });
    expect(expectedAt(DEFAULT_BROILER_CURVE, 80)).toEqual({ feed_g: 225, water_ml: 405 });
  });
});

describe('judgement', () => {
  const base = { birds: 10_000, age_days: 14, day_fraction: 0.5, thresholds: DEFAULT_THRESHOLDS, curve: DEFAULT_BROILER_CURVE };
  it('measures a counter from its baseline when that was set today, and judges nothing on the baseline itself', () => {
    // The meter's first reading at 14:24 (fraction 0.6): nothing measured yet, nothing judged.
    expect(judge({ ...base, day_fraction: 0.6, water_from_fraction: 0.6, feed_from_fraction: 0.6, water_today_l: 0, feed_today_kg: 0, pressure_bar: 2.5 }))
      .toMatchObject({ status: 'ok', anomaly_flags: [], expected_water_today_l: null, water_deviation_pct: null });
    // 6 h later (fraction 0.85): 0.25 of a day since the baseline, 0.135 L × 10,000 × 0.25 = 337.5 L expected.
    const later = judge({ ...base, day_fraction: 0.85, water_from_fraction: 0.6, feed_from_fraction: 0.6, water_today_l: 337.5, feed_today_kg: 187.5, pressure_bar: 2.5 });
    expect(later).toMatchObject({ status: 'ok', expected_water_today_l: 337.5, expected_feed_today_kg: 187.5, water_deviation_pct: 0, feed_deviation_pct: 0 });
    // The same litres judged from the day's start would have been a drop: the baseline is what spares it.
    expect(judge({ ...base, day_fraction: 0.85, water_today_l: 337.5, feed_today_kg: 187.5, pressure_bar: 2.5 }).anomaly_flags).toContain('water_drop');
  });

  it('flags a water spike (a leak) and low line pressure as alarms', () => {
    // expected so far: 0.135 L × 10,000 × 0.5 = 675 L water, 0.075 kg × 10,000 × 0.5 = 375 kg feed
    const j = judge({ ...base, water_today_l: 900, feed_today_kg: 370, pressure_bar: 1.2 });
    expect(j).toMatchObject({ expected_water_today_l: 675, expected_feed_today_kg: 375, water_deviation_pct: 33.3, feed_deviation_pct: -1.3, water_feed_ratio: 2.43, status: 'alarm' });
    expect(j.anomaly_flags).toEqual(['water_spike', 'low_pressure']);
  });

  it('warns on water somewhat low and a water-to-feed ratio out of range', () => {
    // 560 / 675 = -17.0 %; ratio 560 / 375 = 1.49 < 1.5
    const j = judge({ ...base, water_today_l: 560, feed_today_kg: 375, pressure_bar: 2.5 });
    expect(j).toMatchObject({ water_deviation_pct: -17, feed_deviation_pct: 0, status: 'warn' });
    expect(j.anomaly_flags).toEqual(['water_low', 'water_feed_ratio']);
  });

  it('flags a blocked line (water far below) as an alarm', () => {
    expect(judge({ ...base, water_today_l: 300, feed_today_kg: 375, pressure_bar: 2.5 }).anomaly_flags).toEqual(['water_drop', 'water_feed_ratio']);
  });

  it('does not judge consumption early in the day or without a head count, but still the pressure', () => {
    const early = judge({ ...base, day_fraction: 0.1, water_today_l: 10, feed_today_kg: 2, pressure_bar: 5 });
    expect(early).toMatchObject({ water_deviation_pct: null, feed_deviation_pct: null, expected_water_today_l: null, status: 'warn', anomaly_flags: ['high_pressure'] });
    expect(judge({ ...base, birds: null, water_today_l: 10, feed_today_kg: 2, pressure_bar: 2 })).toMatchObject({ status: 'ok', anomaly_flags: [] });
  });
});
