// Curve interpolation on the built-in broiler curve: values are linear between the phases' first
// days, hours count, the first values hold before the curve and the last after it; drift is judged
// per key against its deadband.
import { describe, expect, it } from 'vitest';
import { curveOfPhases, drifting, sampleCurve, valuesAt, type CurvePoint } from '../../src/industry/curve.js';
import { DEFAULT_BROILER_CURVE } from '../../src/modules/poultry/default-curve.js';
import { SETPOINT_KEYS } from '../../src/modules/poultry/climate.js';

const broiler = curveOfPhases(DEFAULT_BROILER_CURVE, SETPOINT_KEYS);

describe('curve interpolation', () => {
  it('puts one point per phase at its first day, in day order, with every setpoint key', () => {
    expect(broiler.map((p) => p.day)).toEqual([0, 4, 8, 15, 22, 29, 36]);
    expect(Object.keys(broiler[0]!.values).sort()).toEqual([...SETPOINT_KEYS].sort());
    const shuffled = curveOfPhases([...DEFAULT_BROILER_CURVE].reverse(), SETPOINT_KEYS);
    expect(shuffled).toEqual(broiler);
  });

  it('is linear between points: day 0 32.5, day 2 31.5, day 4 30.5, and hours count', () => {
    expect(valuesAt(broiler, 0).target_temp_c).toBe(32.5);
    expect(valuesAt(broiler, 2).target_temp_c).toBe(31.5);
    expect(valuesAt(broiler, 4).target_temp_c).toBe(30.5);
    // Day 1, 12:00: 32.5 - 1.5 * 0.25
    expect(valuesAt(broiler, 1 + 12 / 24).target_temp_c).toBe(31.75);
    // Day 2, 06:00
    expect(valuesAt(broiler, 2.25).target_temp_c).toBeCloseTo(31.375, 3);
    // Between day 4 (30.5) and day 8 (28): day 6 is the middle.
    expect(valuesAt(broiler, 6).target_temp_c).toBe(29.25);
    // Every numeric key interpolates: humidity min 60 (day 4) -> 55 (day 8), ventilation 10 -> 15.
    expect(valuesAt(broiler, 6)).toMatchObject({ humidity_min_pct: 57.5, min_ventilation_pct: 12.5, humidity_max_pct: 70, co2_max_ppm: 3000, nh3_max_ppm: 20, temp_tolerance_c: 1.5 });
  });

  it('holds the first values before the curve and the last values from day 36 on', () => {
    expect(valuesAt(broiler, -3).target_temp_c).toBe(32.5);
    expect(valuesAt(broiler, 36).target_temp_c).toBe(20);
    expect(valuesAt(broiler, 50).target_temp_c).toBe(20);
    expect(valuesAt(broiler, 400)).toEqual(broiler[broiler.length - 1]!.values);
    // Day 35.5: half-way from day 29 (21) to day 36 (20) is not 20 yet.
    expect(valuesAt(broiler, 35.5).target_temp_c).toBeCloseTo(20 + 1 / 14, 3);
    expect(valuesAt([], 3)).toEqual({});
  });

  it('a key missing at one end takes the other end\'s value; a lone point is flat', () => {
    const curve: CurvePoint[] = [{ day: 0, values: { a: 10, b: 1 } }, { day: 10, values: { a: 20 } }];
    expect(valuesAt(curve, 5)).toEqual({ a: 15, b: 1 });
    expect(valuesAt([{ day: 5, values: { a: 3 } }], 0)).toEqual({ a: 3 });
    expect(valuesAt([{ day: 5, values: { a: 3 } }], 9)).toEqual({ a: 3 });
  });

  it('samples the days ahead for drawing', () => {
    const s = sampleCurve(broiler, 1.5, 3, 0.5);
    expect(s.map((p) => p.age_days)).toEqual([1.5, 2, 2.5, 3, 3.5, 4, 4.5]);
    expect(s.map((p) => p.values.target_temp_c)).toEqual([31.75, 31.5, 31.25, 31, 30.75, 30.5, 30.188]); // day 4.5: 30.5 - 2.5 × 0.5 / 4
  });

  it('finds the keys that drift beyond their deadband, and the unknown ones', () => {
    const target = { target_temp_c: 31.5, humidity_min_pct: 60, min_ventilation_pct: 12 };
    expect(drifting(target, { target_temp_c: 31.4, humidity_min_pct: 60, min_ventilation_pct: 12 }, { target_temp_c: 0.2 })).toEqual([]);
    expect(drifting(target, { target_temp_c: 31.2, humidity_min_pct: 60, min_ventilation_pct: 12 }, { target_temp_c: 0.2 })).toEqual(['target_temp_c']);
    // Exactly on the deadband is not a drift (binary noise of 31.7 - 31.5 included).
    expect(drifting(target, { target_temp_c: 31.7, humidity_min_pct: 60, min_ventilation_pct: 12 }, { target_temp_c: 0.2 })).toEqual([]);
    expect(drifting(target, { target_temp_c: 31.5 }, { target_temp_c: 0.2, humidity_min_pct: 1 })).toEqual(['humidity_min_pct', 'min_ventilation_pct']);
    expect(drifting(target, { target_temp_c: 31.5, humidity_min_pct: 58.5, min_ventilation_pct: 12.5 }, { humidity_min_pct: 1, min_ventilation_pct: 1 })).toEqual(['humidity_min_pct']);
  });
});
