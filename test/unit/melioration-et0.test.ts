// ET0 against FAO-56's own worked examples (Allen et al. 1998): Example 8 (Ra at 20°S on
// 3 September), Example 9 (daylight hours), Example 18 (Penman-Monteith, daily, Brussels on
// 6 July: ET0 = 3.9 mm/day, with every intermediate value printed in the example), Example 2
// (pressure and γ at 1800 m) and Example 14 (u2 from a 10 m reading). Hargreaves (Eq. 52) has
// no printed example in FAO-56: it is checked against the equation worked by hand on Example
// 8's Ra and on Brussels' data.
import { describe, expect, it } from 'vitest';
import { actualVapourPressure, dayOfYear, hargreaves, penmanMonteith, pressure, psychrometric, referenceEt, solarGeometry, solarRadiation, svp, svpSlope, windAt2m } from '../../src/modules/melioration/et0.js';

const brussels = {
  doy: dayOfYear('2026-07-06'), // 187 (FAO-56: J = 187)
  latitude_deg: 50 + 48 / 60,
  elevation_m: 100,
  t_max_c: 21.5,
  t_min_c: 12.3,
  rh_max_pct: 84,
  rh_min_pct: 63,
  wind_2m_ms: windAt2m(10 / 3.6, 10), // 10 km/h at 10 m
  sunshine_h: 9.25,
};

describe('FAO-56 building blocks', () => {
  it('Example 2: P = 81.8 kPa and γ = 0.054 kPa/°C at 1800 m', () => {
    expect(pressure(1800)).toBeCloseTo(81.8, 1);
    expect(psychrometric(1800)).toBeCloseTo(0.054, 3);
  });

  it('Example 14: u2 = 2.4 m/s from 3.2 m/s at 10 m', () => {
    expect(windAt2m(3.2, 10)).toBeCloseTo(2.4, 1);
    expect(windAt2m(2.78, 10)).toBeCloseTo(2.078, 2);
  });

  it('Example 8: Ra = 32.2 MJ m-2 day-1 at 20°S on 3 September (J = 246); Example 9: N = 11.7 h', () => {
    expect(dayOfYear('2026-09-03')).toBe(246);
    const { ra, daylight_h } = solarGeometry(-20, 246);
    expect(ra).toBeCloseTo(32.2, 1);
    expect(daylight_h).toBeCloseTo(11.7, 1);
  });

  it('Table 2.3 values of e°(T) and Δ', () => {
    expect(svp(21.5)).toBeCloseTo(2.564, 3);
    expect(svp(12.3)).toBeCloseTo(1.431, 3);
    expect(svpSlope(16.9)).toBeCloseTo(0.122, 3);
  });
});

describe('Example 18: Penman-Monteith, Brussels, 6 July', () => {
  const pm = penmanMonteith(brussels);
  it('intermediate values as printed', () => {
    expect(brussels.doy).toBe(187);
    expect(brussels.wind_2m_ms).toBeCloseTo(2.078, 2);
    expect(pm.delta).toBeCloseTo(0.122, 3);
    expect(pm.gamma).toBeCloseTo(0.0666, 4);
    expect(pm.es).toBeCloseTo(1.997, 3);
    expect(pm.ea).toBeCloseTo(1.409, 3);
    expect(pm.ra).toBeCloseTo(41.09, 1);
    expect(solarGeometry(brussels.latitude_deg, 187).daylight_h).toBeCloseTo(16.1, 1);
    expect(pm.rs).toBeCloseTo(22.07, 1);
    expect(pm.rso).toBeCloseTo(30.90, 1);
    expect(pm.rns).toBeCloseTo(16.99, 1);
    expect(pm.rnl).toBeCloseTo(3.71, 1);
    expect(pm.rn).toBeCloseTo(13.28, 1);
  });

  it('ET0 = 3.9 mm/day', () => {
    expect(pm.et0).toBeCloseTo(3.9, 1);
    expect(Math.abs(pm.et0 - 3.88)).toBeLessThan(0.03);
    expect(referenceEt(brussels)).toMatchObject({ method: 'penman_monteith' });
    expect(referenceEt(brussels).et0_mm).toBeCloseTo(pm.et0, 10);
  });

  it('measured Rs gives the same ET0 as the sunshine hours it equals', () => {
    const measured = referenceEt({ ...brussels, sunshine_h: null, solar_mj_m2: solarRadiation(brussels) });
    expect(measured.et0_mm).toBeCloseTo(pm.et0, 10);
  });

  it('without humidity, ea = e°(Tmin) (Eq. 48); with RHmean, Eq. 19', () => {
    expect(actualVapourPressure({ ...brussels, rh_max_pct: null, rh_min_pct: null })).toBeCloseTo(1.431, 3);
    expect(actualVapourPressure({ ...brussels, rh_max_pct: null, rh_min_pct: null, rh_mean_pct: 73.5 })).toBeCloseTo(0.735 * 1.997, 3);
  });
});

describe('Hargreaves (Eq. 52)', () => {
  it('worked by hand on Example 8\'s Ra: 0.0023 × (25 + 17.8) × √10 × 0.408 × 32.2 = 4.09 mm/day', () => {
    expect(hargreaves({ doy: 246, latitude_deg: -20, t_max_c: 30, t_min_c: 20 })).toBeCloseTo(0.0023 * 42.8 * Math.sqrt(10) * 0.408 * 32.2, 1);
    expect(hargreaves({ doy: 246, latitude_deg: -20, t_max_c: 30, t_min_c: 20 })).toBeCloseTo(4.09, 1);
  });

  it('on Brussels\' temperatures: 0.0023 × 34.7 × √9.2 × 0.408 × 41.09 = 4.06 mm/day, near Penman-Monteith\'s 3.9', () => {
    const h = hargreaves(brussels);
    expect(h).toBeCloseTo(4.06, 1);
    expect(Math.abs(h - penmanMonteith(brussels).et0)).toBeLessThan(0.3);
  });

  it('is the method when radiation or wind is missing', () => {
    expect(referenceEt({ ...brussels, wind_2m_ms: null }).method).toBe('hargreaves');
    expect(referenceEt({ ...brussels, sunshine_h: null }).method).toBe('hargreaves');
    expect(referenceEt({ ...brussels, sunshine_h: null }).et0_mm).toBeCloseTo(hargreaves(brussels), 10);
  });

  it('never negative, also with Tmax = Tmin or in polar night', () => {
    expect(hargreaves({ doy: 355, latitude_deg: 80, t_max_c: -20, t_min_c: -25 })).toBe(0);
    expect(hargreaves({ doy: 187, latitude_deg: 50, t_max_c: 15, t_min_c: 15 })).toBe(0);
  });
});
