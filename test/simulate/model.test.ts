import { describe, expect, it } from 'vitest';
import {
  advance, birdWeightKg, createHouse, feedPerBirdG, outsideTempC, readings, seededRandom, TAU_TEMP_S,
  targetTempForAge, ventilationDemand, withSetpoint, type HouseState,
} from '../../src/simulate/model.js';

const T0 = Date.UTC(2026, 5, 1, 0, 0, 0);
const HOUR = 3_600_000;
const quiet = (o: Partial<Parameters<typeof createHouse>[0]> = {}) => createHouse({ at_ms: T0, age_days: 1, birds: 20_000, ...o });
const run = (s: HouseState, ms: number, seed = 1, noise = 0) => advance(s, s.at_ms + ms, seededRandom(seed), noise);

describe('house model', () => {
  it('temperature follows a heating setpoint step with a first-order lag (63 % after one time constant)', () => {
    const start = quiet();
    const from = start.temp_c;
    const stepped = withSetpoint(start, 'target_temp_c', from + 4);
    const after = run(stepped, TAU_TEMP_S * 1000);
    expect((after.temp_c - from) / 4).toBeCloseTo(1 - Math.exp(-1), 2);
    expect(after.heating_on).toBe(true);
    // Three time constants: 95 %; the heater holds the target, the lag does not depend on the step size.
    expect((run(stepped, 3 * TAU_TEMP_S * 1000).temp_c - from) / 4).toBeCloseTo(1 - Math.exp(-3), 2);
  });

  it('a lower target cools the house through the fans, which run above minimum while it is too warm', () => {
    const start = quiet({ age_days: 21 });
    const cooler = withSetpoint(start, 'target_temp_c', start.setpoints.target_temp_c - 3);
    const soon = run(cooler, 60_000);
    expect(soon.ventilation_pct).toBeGreaterThan(start.setpoints.min_ventilation_pct + 20);
    const later = run(cooler, 2 * HOUR);
    expect(later.temp_c).toBeLessThan(start.temp_c - 2);
    expect(later.heating_on).toBe(true); // at target again, the heater holds it
  });

  it('more ventilation lowers CO2, NH3 and humidity; more birds raise them', () => {
    const base = quiet({ age_days: 21 });
    const ventilated = run(withSetpoint(base, 'min_ventilation_pct', 70), 2 * HOUR);
    const plain = run(base, 2 * HOUR);
    expect(ventilated.ventilation_pct).toBeGreaterThanOrEqual(70);
    expect(ventilated.co2_ppm).toBeLessThan(plain.co2_ppm - 500);
    expect(ventilated.nh3_ppm).toBeLessThan(plain.nh3_ppm);
    expect(ventilated.humidity_pct).toBeLessThan(plain.humidity_pct);
    // Same ventilation, twice the birds (minimum ventilation pinned high so the fans cannot compensate).
    const pinned = (birds: number) => run(withSetpoint(quiet({ age_days: 21, birds }), 'min_ventilation_pct', 100), 2 * HOUR);
    expect(pinned(40_000).co2_ppm).toBeGreaterThan(pinned(20_000).co2_ppm);
    expect(pinned(40_000).nh3_ppm).toBeGreaterThan(pinned(20_000).nh3_ppm);
  });

  it('the fans answer a CO2 maximum: lowering co2_max_ppm raises ventilation and brings CO2 under it', () => {
    const base = quiet({ age_days: 14 });
    expect(readings(base).co2).toBeGreaterThan(2000);
    const strict = run(withSetpoint(base, 'co2_max_ppm', 2000), 3 * HOUR);
    expect(strict.ventilation_pct).toBeGreaterThan(base.ventilation_pct + 5);
    expect(strict.co2_ppm).toBeLessThan(2000);
  });

  it('ventilation is a P controller bounded by the minimum ventilation and 100 %', () => {
    const s = quiet();
    const at = (dt: number) => ventilationDemand({ ...s, temp_c: s.setpoints.target_temp_c + dt });
    expect(at(-5)).toBe(s.setpoints.min_ventilation_pct);
    expect(at(1)).toBeGreaterThan(at(0.5));
    expect(at(20)).toBe(100);
  });

  it('water and feed counters rise with the flock: 15 g/bird/day at day 1, 200 g at day 42, water 1.8x feed', () => {
    expect(feedPerBirdG(1)).toBe(15);
    expect(feedPerBirdG(42)).toBe(200);
    const young = run(quiet({ age_days: 1 }), 24 * HOUR);
    const old = run(quiet({ age_days: 41 }), 24 * HOUR);
    // 20,000 birds: ~300 kg of feed on the second day, ~4 t on the 42nd.
    expect(young.feed_kg).toBeGreaterThan(300);
    expect(young.feed_kg).toBeLessThan(450);
    expect(old.feed_kg).toBeGreaterThan(3800);
    expect(old.feed_kg).toBeLessThan(4100);
    expect(old.water_l / old.feed_kg).toBeCloseTo(1.8, 6);
    expect(old.age_days).toBeCloseTo(42, 6);
  });

  it('outside temperature is a daily sine between 8 and 18 °C; bird weight is a broiler curve', () => {
    expect(outsideTempC(Date.UTC(2026, 0, 1, 3))).toBeCloseTo(8, 6);
    expect(outsideTempC(Date.UTC(2026, 0, 1, 15))).toBeCloseTo(18, 6);
    expect(birdWeightKg(0)).toBeCloseTo(0.042, 3);
    expect(birdWeightKg(21)).toBeGreaterThan(0.85);
    expect(birdWeightKg(42)).toBeGreaterThan(2.6);
  });

  it('a whole 42-day flock stays plausible when the target follows the age curve', () => {
    const random = seededRandom(42);
    let s = createHouse({ at_ms: T0, age_days: 0, birds: 20_000 });
    const seen = { temp: [99, -99], humidity: [999, 0], co2: [1e9, 0], nh3: [1e9, 0] } as Record<string, [number, number]>;
    for (let hour = 1; hour <= 42 * 24; hour++) {
      s = advance(s, T0 + hour * HOUR, random, 1);
      if (hour % 24 === 0) s = withSetpoint(s, 'target_temp_c', targetTempForAge(s.age_days));
      const r = readings(s);
      expect(Math.abs(r.temp - s.setpoints.target_temp_c)).toBeLessThan(3);
      for (const k of ['temp', 'humidity', 'co2', 'nh3'] as const) {
        seen[k]![0] = Math.min(seen[k]![0], r[k]);
        seen[k]![1] = Math.max(seen[k]![1], r[k]);
      }
    }
    expect(seen.temp![0]).toBeGreaterThan(18);
    expect(seen.temp![1]).toBeLessThan(36);
    expect(seen.humidity![0]).toBeGreaterThan(40);
    expect(seen.humidity![1]).toBeLessThan(80);
    expect(seen.co2![0]).toBeGreaterThan(500);
    expect(seen.co2![1]).toBeLessThan(3500);
    expect(seen.nh3![1]).toBeLessThan(20);
    expect(s.feed_kg / 20_000).toBeGreaterThan(3.5); // ~4.3 kg of feed per bird over a flock
    expect(s.feed_kg / 20_000).toBeLessThan(5);
  });

  it('the same seed gives the same noisy house; another seed another one', () => {
    const a = run(quiet(), HOUR, 5, 1);
    const b = run(quiet(), HOUR, 5, 1);
    const c = run(quiet(), HOUR, 6, 1);
    expect(readings(a)).toEqual(readings(b));
    expect(readings(a).temp).not.toBe(readings(c).temp);
    expect(Math.abs(readings(a).temp - a.temp_c)).toBeLessThan(0.5);
  });
});
