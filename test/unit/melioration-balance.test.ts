// The daily root-zone bucket, units, alert rules and station health, each worked by hand.
import { describe, expect, it } from 'vitest';
import { effectiveRain, runBalance, stressCoefficient, totalAvailableWater, totals, daysBetween, type DayInput } from '../../src/modules/melioration/balance.js';
import { mmToM3, m3ToMm, resolveIrrigation } from '../../src/modules/melioration/water.js';
import { decideDeficit, decideOverwatering } from '../../src/modules/melioration/rules.js';
import { judgeDaily, judgeFrame, type Frame } from '../../src/modules/melioration/health.js';

const day = (d: string, over: Partial<DayInput> = {}): DayInput => ({ day: d, et0_mm: 5, weather_source: 'station', rain_mm: 0, irrigation_machine_mm: 0, irrigation_drip_mm: 0, ...over });

describe('root-zone bucket (FAO-56 Eq. 85)', () => {
  // Loam: field capacity 30 %, wilting point 15 %, roots 0.6 m: TAW = 1000 × 0.15 × 0.6 = 90 mm; p = 0.5: RAW = 45 mm.
  const soil = { taw_mm: totalAvailableWater({ field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.6 }), depletion_fraction: 0.5, kc: 1 };

  it('TAW from θFC and θWP, or from the available water per metre', () => {
    expect(soil.taw_mm).toBeCloseTo(90, 10);
    expect(totalAvailableWater({ available_water_mm_per_m: 140, root_depth_m: 0.5 })).toBe(70);
  });

  it('five days by hand: ETc, ineffective small rain, effective rain, irrigation with deep percolation', () => {
    const days = runBalance(soil, 20, [
      day('2026-06-01'), // 20 + 5 = 25
      day('2026-06-02', { rain_mm: 0.8 }), // 0.8 < 0.2 × 5: lost; 25 + 5 = 30
      day('2026-06-03', { rain_mm: 12, et0_mm: 4 }), // 30 - 12 + 4 = 22
      day('2026-06-04', { irrigation_machine_mm: 20, irrigation_drip_mm: 10 }), // 22 - 30 + 5 = -3: 3 mm drain, Dr = 0
      day('2026-06-05', { et0_mm: 6 }), // 0 + 6 = 6
    ]);
    expect(days.map((d) => d.depletion_end_mm)).toEqual([25, 30, 22, 0, 6]);
    expect(days.map((d) => d.effective_rain_mm)).toEqual([0, 0, 12, 0, 0]);
    expect(days.map((d) => d.deep_percolation_mm)).toEqual([0, 0, 0, 3, 0]);
    expect(days[3]!.surplus_mm).toBe(3);
    expect(totals(days)).toEqual({ rain_mm: 12.8, effective_rain_mm: 12, irrigation_machine_mm: 20, irrigation_drip_mm: 10, et0_mm: 25, etc_mm: 25, deep_percolation_mm: 3 });
  });

  it('water stress: beyond RAW, Ks = (TAW - Dr)/(TAW - RAW) (Eq. 84)', () => {
    expect(stressCoefficient(60, 90, 45)).toBeCloseTo(2 / 3, 10);
    expect(stressCoefficient(45, 90, 45)).toBe(1);
    expect(stressCoefficient(90, 90, 45)).toBe(0);
    const [d] = runBalance({ ...soil, kc: 1.2 }, 60, [day('2026-06-01', { et0_mm: 6 })]);
    expect(d!.etc_mm).toBeCloseTo((2 / 3) * 1.2 * 6, 10); // 4.8
    expect(d!.depletion_end_mm).toBeCloseTo(64.8, 10);
  });

  it('depletion never exceeds TAW; a day without weather has no ET', () => {
    const days = runBalance(soil, 89, [day('2026-06-01', { et0_mm: 10 }), day('2026-06-02', { et0_mm: null, weather_source: 'none' })]);
    expect(days[0]!.depletion_end_mm).toBeLessThanOrEqual(90);
    expect(days[1]!.etc_mm).toBe(0);
    expect(days[1]!.depletion_end_mm).toBe(days[0]!.depletion_end_mm);
  });

  it('a measured day ends at the measurement, and the model goes on from there', () => {
    const days = runBalance(soil, 20, [day('2026-06-01', { measured_depletion_mm: 40, measured_surplus_mm: 0 }), day('2026-06-02')]);
    expect(days[0]!.modelled_depletion_mm).toBe(25);
    expect(days[0]!.depletion_end_mm).toBe(40);
    expect(days[1]!.depletion_end_mm).toBe(45);
  });

  it('effective rain and day ranges', () => {
    expect(effectiveRain(0.9, 5)).toBe(0);
    expect(effectiveRain(1, 5)).toBe(1);
    expect(effectiveRain(0.5, null)).toBe(0.5);
    expect(daysBetween('2026-02-27', '2026-03-02')).toEqual(['2026-02-27', '2026-02-28', '2026-03-01', '2026-03-02']);
  });
});

describe('mm and m3', () => {
  it('1 mm on 1 ha is 10 m3', () => {
    expect(mmToM3(1, 1)).toBe(10);
    expect(m3ToMm(250, 5)).toBe(5);
  });

  it('a pass over part of a field counts for that part', () => {
    // 30 mm over 12.5 ha of a 50 ha field: 3750 m3, 7.5 mm over the field.
    expect(resolveIrrigation({ depth_mm: 30, covered_area_ha: 12.5 }, 50)).toEqual({ depth_mm: 30, volume_m3: 3750, covered_area_ha: 12.5, covered_fraction: 0.25, field_depth_mm: 7.5, entered_as: 'mm' });
    expect(resolveIrrigation({ volume_m3: 3750, covered_area_ha: 12.5 }, 50)).toMatchObject({ depth_mm: 30, field_depth_mm: 7.5, entered_as: 'm3' });
    expect(resolveIrrigation({ depth_mm: 30, volume_m3: 3760, covered_fraction: 0.25 }, 50)).toMatchObject({ field_depth_mm: 7.5, entered_as: 'mm+m3' });
    expect(resolveIrrigation({ depth_mm: 12 }, null)).toEqual({ depth_mm: 12, volume_m3: null, covered_area_ha: null, covered_fraction: 1, field_depth_mm: 12, entered_as: 'mm' });
  });

  it('refuses what cannot be converted or does not agree', () => {
    const reason = (f: () => unknown) => { try { f(); return 'accepted'; } catch (e) { return (e as { details: { reason: string }[] }).details[0]!.reason; } };
    expect(reason(() => resolveIrrigation({ volume_m3: 100 }, null))).toBe('field_has_no_area');
    expect(reason(() => resolveIrrigation({ depth_mm: 10, covered_area_ha: 2 }, null))).toBe('field_has_no_area');
    expect(reason(() => resolveIrrigation({ depth_mm: 30, volume_m3: 4000, covered_area_ha: 12.5 }, 50))).toBe('inconsistent_with_depth_mm');
    expect(reason(() => resolveIrrigation({ depth_mm: 30, covered_area_ha: 60 }, 50))).toBe('exceeds_field_area');
    expect(reason(() => resolveIrrigation({}, 50))).toBe('required');
  });
});

describe('alert rules with hysteresis', () => {
  it('water_deficit: raised at Dr ≥ p·TAW, cleared at Dr ≤ (p - 0.10)·TAW', () => {
    expect(decideDeficit(false, 44.9, 90, 0.5)).toBe('keep');
    expect(decideDeficit(false, 45, 90, 0.5)).toBe('raise');
    expect(decideDeficit(true, 50, 90, 0.5)).toBe('keep');
    expect(decideDeficit(true, 36.1, 90, 0.5)).toBe('keep');
    expect(decideDeficit(true, 36, 90, 0.5)).toBe('clear');
  });
  it('overwatering: raised at 10 mm above field capacity, cleared at 3 mm', () => {
    expect(decideOverwatering(false, 9.9)).toBe('keep');
    expect(decideOverwatering(false, 10)).toBe('raise');
    expect(decideOverwatering(true, 3.1)).toBe('keep');
    expect(decideOverwatering(true, 3)).toBe('clear');
  });
});

describe('station health', () => {
  const now = new Date('2026-06-10T12:00:00Z');
  const frame = (min: number, over: Partial<Frame> = {}): Frame => ({ observed_at: new Date(now.getTime() - min * 60_000).toISOString(), air_temp_c: 20, rh_pct: 50, wind_ms: 2, solar_w_m2: 600, ...over });

  it('fresh and varying is healthy; older than 15 minutes is stale', () => {
    expect(judgeFrame(frame(0), [frame(10, { air_temp_c: 19.8 })], now, null)).toEqual({ telemetry_healthy: true, healthy: true, reasons: [] });
    expect(judgeFrame(frame(16), [], now, null)).toMatchObject({ telemetry_healthy: false, reasons: ['stale'] });
  });
  it('four identical frames in a row are stuck; three are not', () => {
    expect(judgeFrame(frame(0), [frame(10), frame(20), frame(30)], now, null).reasons).toEqual(['stuck']);
    expect(judgeFrame(frame(0), [frame(10), frame(20)], now, null).reasons).toEqual([]);
  });
  it('a 10+ °C jump within 30 minutes, an empty frame, or the station\'s own flag are unhealthy', () => {
    expect(judgeFrame(frame(0, { air_temp_c: 31 }), [frame(10)], now, null).reasons).toEqual(['temperature_jump']);
    expect(judgeFrame(frame(0, { air_temp_c: null, rh_pct: null, wind_ms: null, solar_w_m2: null }), [], now, null).reasons).toEqual(['no_data']);
    expect(judgeFrame(frame(0), [], now, false)).toEqual({ telemetry_healthy: true, healthy: false, reasons: ['reported_unhealthy'] });
  });
  it('a daily record equal to the previous day is stuck; radiation above 1.1 × Rso is implausible', () => {
    const d = { doy: 187, latitude_deg: 50.8, elevation_m: 100, t_min_c: 12.3, t_max_c: 21.5, rh_min_pct: 63, rh_max_pct: 84, rh_mean_pct: null, wind_2m_ms: 2, solar_mj_m2: 22.07, sunshine_h: null };
    expect(judgeDaily(d, undefined)).toEqual([]);
    expect(judgeDaily(d, { ...d, doy: 186 })).toEqual(['stuck']);
    expect(judgeDaily({ ...d, solar_mj_m2: 34.5 }, undefined)).toEqual(['implausible_radiation']); // Rso = 30.90
  });
});
