// Reference evapotranspiration (ET0) of one day, from FAO Irrigation and Drainage Paper 56
// (Allen, Pereira, Raes, Smith 1998). Pure functions; equation numbers are FAO-56's.
// - Penman-Monteith (Eq. 6) when the day carries radiation (measured Rs or sunshine hours) and wind;
//   humidity from RHmax/RHmin, RHmean or the dew point, else ea = e°(Tmin) (Eq. 48).
// - Hargreaves (Eq. 52) from Tmax and Tmin alone otherwise.
// Units: °C, %, m/s at 2 m, MJ m-2 day-1, kPa, mm/day.

export type Et0Method = 'penman_monteith' | 'hargreaves';

export interface DayWeather {
  /** Day of the year, 1-366. */
  doy: number;
  latitude_deg: number;
  elevation_m: number;
  t_max_c: number;
  t_min_c: number;
  rh_max_pct?: number | null;
  rh_min_pct?: number | null;
  rh_mean_pct?: number | null;
  t_dew_c?: number | null;
  /** Wind speed at 2 m (use windAt2m for another height). */
  wind_2m_ms?: number | null;
  /** Measured incoming solar (shortwave) radiation. */
  solar_mj_m2?: number | null;
  /** Actual sunshine hours n (Rs then comes from the Angstrom formula, Eq. 35). */
  sunshine_h?: number | null;
}

const GSC = 0.082; // solar constant, MJ m-2 min-1
const SIGMA = 4.903e-9; // Stefan-Boltzmann, MJ K-4 m-2 day-1
const present = (x: number | null | undefined): x is number => typeof x === 'number' && Number.isFinite(x);

/** Eq. 7: atmospheric pressure (kPa) at elevation z (m). */
export const pressure = (z: number) => 101.3 * ((293 - 0.0065 * z) / 293) ** 5.26;
/** Eq. 8: psychrometric constant (kPa/°C). */
export const psychrometric = (z: number) => 0.665e-3 * pressure(z);
/** Eq. 11: saturation vapour pressure (kPa) at T (°C). */
export const svp = (t: number) => 0.6108 * Math.exp((17.27 * t) / (t + 237.3));
/** Eq. 13: slope of the saturation vapour pressure curve (kPa/°C) at T. */
export const svpSlope = (t: number) => (4098 * svp(t)) / (t + 237.3) ** 2;
/** Eq. 47: wind speed at 2 m from a reading at height z (m). */
export const windAt2m = (u: number, z: number) => (u * 4.87) / Math.log(67.8 * z - 5.42);

/** Eqs. 21-25: extraterrestrial radiation Ra (MJ m-2 day-1) and Eq. 34 daylight hours N. */
export function solarGeometry(latitudeDeg: number, doy: number): { ra: number; daylight_h: number } {
  const phi = (latitudeDeg * Math.PI) / 180;
  const dr = 1 + 0.033 * Math.cos((2 * Math.PI * doy) / 365);
  const delta = 0.409 * Math.sin((2 * Math.PI * doy) / 365 - 1.39);
  // Clamped for polar day/night, where -tan(phi)tan(delta) leaves [-1, 1].
  const ws = Math.acos(Math.min(1, Math.max(-1, -Math.tan(phi) * Math.tan(delta))));
  const ra = ((24 * 60) / Math.PI) * GSC * dr * (ws * Math.sin(phi) * Math.sin(delta) + Math.cos(phi) * Math.cos(delta) * Math.sin(ws));
  return { ra: Math.max(0, ra), daylight_h: (24 / Math.PI) * ws };
}

/** Actual vapour pressure ea (kPa): Eq. 17, 19, 14 or, lacking humidity, Eq. 48 (Tdew ≈ Tmin). */
export function actualVapourPressure(w: DayWeather): number {
  if (present(w.t_dew_c)) return svp(w.t_dew_c);
  if (present(w.rh_max_pct) && present(w.rh_min_pct)) return (svp(w.t_min_c) * w.rh_max_pct / 100 + svp(w.t_max_c) * w.rh_min_pct / 100) / 2;
  if (present(w.rh_mean_pct)) return (w.rh_mean_pct / 100) * ((svp(w.t_max_c) + svp(w.t_min_c)) / 2);
  return svp(w.t_min_c);
}

/** Incoming solar radiation Rs: measured, or from sunshine hours (Eq. 35, as = 0.25, bs = 0.50). */
export function solarRadiation(w: DayWeather): number | undefined {
  if (present(w.solar_mj_m2)) return w.solar_mj_m2;
  if (present(w.sunshine_h)) {
    const { ra, daylight_h } = solarGeometry(w.latitude_deg, w.doy);
    return (0.25 + (0.5 * Math.min(w.sunshine_h, daylight_h)) / daylight_h) * ra;
  }
  return undefined;
}

export interface PenmanMonteithTerms {
  et0: number;
  delta: number;
  gamma: number;
  es: number;
  ea: number;
  ra: number;
  rs: number;
  rso: number;
  rns: number;
  rnl: number;
  rn: number;
}

/** Eq. 6 with every intermediate term (daily step, soil heat flux G = 0, Eq. 42). */
export function penmanMonteith(w: DayWeather & { wind_2m_ms: number }, rsIn?: number): PenmanMonteithTerms {
  const tmean = (w.t_max_c + w.t_min_c) / 2;
  const delta = svpSlope(tmean);
  const gamma = psychrometric(w.elevation_m);
  const es = (svp(w.t_max_c) + svp(w.t_min_c)) / 2;
  const ea = actualVapourPressure(w);
  const { ra } = solarGeometry(w.latitude_deg, w.doy);
  const rs = rsIn ?? solarRadiation(w) ?? 0;
  const rso = (0.75 + 2e-5 * w.elevation_m) * ra; // Eq. 37
  const rns = (1 - 0.23) * rs; // Eq. 38, albedo 0.23
  const ratio = rso > 0 ? Math.min(1, rs / rso) : 0;
  const tk4 = ((w.t_max_c + 273.16) ** 4 + (w.t_min_c + 273.16) ** 4) / 2;
  const rnl = SIGMA * tk4 * (0.34 - 0.14 * Math.sqrt(ea)) * (1.35 * ratio - 0.35); // Eq. 39
  const rn = rns - rnl; // Eq. 40
  const u2 = w.wind_2m_ms;
  const et0 = (0.408 * delta * rn + gamma * (900 / (tmean + 273)) * u2 * (es - ea)) / (delta + gamma * (1 + 0.34 * u2));
  return { et0: Math.max(0, et0), delta, gamma, es, ea, ra, rs, rso, rns, rnl, rn };
}

/** Eq. 52: Hargreaves from temperatures and Ra (converted to mm/day by 0.408). */
export function hargreaves(w: Pick<DayWeather, 'doy' | 'latitude_deg' | 't_max_c' | 't_min_c'>): number {
  const { ra } = solarGeometry(w.latitude_deg, w.doy);
  const tmean = (w.t_max_c + w.t_min_c) / 2;
  return Math.max(0, 0.0023 * (tmean + 17.8) * Math.sqrt(Math.max(0, w.t_max_c - w.t_min_c)) * 0.408 * ra);
}

/** ET0 of a day by the best method its data allows. */
export function referenceEt(w: DayWeather): { et0_mm: number; method: Et0Method } {
  const rs = solarRadiation(w);
  if (rs !== undefined && present(w.wind_2m_ms)) return { et0_mm: penmanMonteith({ ...w, wind_2m_ms: w.wind_2m_ms }, rs).et0, method: 'penman_monteith' };
  return { et0_mm: hargreaves(w), method: 'hargreaves' };
}

/** Day of the year (1-366) of a YYYY-MM-DD date. */
export function dayOfYear(day: string): number {
  const t = Date.parse(`${day}T00:00:00Z`);
  const start = Date.parse(`${day.slice(0, 4)}-01-01T00:00:00Z`);
  return Math.round((t - start) / 86_400_000) + 1;
}
