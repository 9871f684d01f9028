// Is the weather station healthy? Pure judgements of data age and plausibility, with the
// thresholds the README documents (section "Melioration"). A station is unhealthy when its
// telemetry is stale (older than max_age_sec when judged, or missing altogether), stuck (the
// same values frame after frame), physically implausible (a temperature jump, radiation above
// the clear-sky limit), or when it reports itself unhealthy.
import { solarGeometry } from './et0.js';

export const STATION_HEALTH = {
  /** Telemetry older than this is stale; a station silent for longer is missing. */
  max_age_sec: 900,
  /** This many consecutive frames with identical readings means the station is stuck. */
  stuck_frames: 4,
  /** Air temperature change between frames less than 30 minutes apart that no weather makes. */
  max_temp_step_c: 10,
  /** Daily radiation above this multiple of the clear-sky radiation Rso is implausible (FAO-56 QC). */
  max_rs_over_rso: 1.1,
  /** Clock skew allowed before a reading counts as being from the future. */
  future_skew_sec: 60,
} as const;

export type HealthReason = 'stale' | 'missing' | 'stuck' | 'no_data' | 'temperature_jump' | 'implausible_radiation' | 'reported_unhealthy' | 'station_unhealthy';

export interface Frame {
  observed_at: string;
  air_temp_c: number | null;
  rh_pct: number | null;
  wind_ms: number | null;
  solar_w_m2: number | null;
}

export interface Judgement {
  telemetry_healthy: boolean;
  healthy: boolean;
  reasons: HealthReason[];
}

const METRICS = ['air_temp_c', 'rh_pct', 'wind_ms', 'solar_w_m2'] as const;
const same = (a: Frame, b: Frame) => METRICS.every((m) => a[m] === b[m]);

/** Judges one telemetry frame against the station's previous frames (newest first). */
export function judgeFrame(frame: Frame, previous: readonly Frame[], now: Date, reportedHealthy: boolean | null): Judgement {
  const reasons: HealthReason[] = [];
  if (now.getTime() - Date.parse(frame.observed_at) > STATION_HEALTH.max_age_sec * 1000) reasons.push('stale');
  if (METRICS.every((m) => frame[m] === null)) reasons.push('no_data');
  else {
    const run = previous.slice(0, STATION_HEALTH.stuck_frames - 1);
    if (run.length === STATION_HEALTH.stuck_frames - 1 && run.every((p) => same(p, frame))) reasons.push('stuck');
    const last = previous[0];
    if (last && frame.air_temp_c !== null && last.air_temp_c !== null
      && Math.abs(Date.parse(frame.observed_at) - Date.parse(last.observed_at)) <= 30 * 60_000
      && Math.abs(frame.air_temp_c - last.air_temp_c) > STATION_HEALTH.max_temp_step_c) reasons.push('temperature_jump');
  }
  const telemetryHealthy = reasons.length === 0;
  if (reportedHealthy === false) reasons.push('reported_unhealthy');
  return { telemetry_healthy: telemetryHealthy, healthy: telemetryHealthy && reportedHealthy !== false, reasons };
}

export interface DailyReadings {
  doy: number;
  latitude_deg: number | null;
  elevation_m: number | null;
  t_min_c: number;
  t_max_c: number;
  rh_min_pct: number | null;
  rh_max_pct: number | null;
  rh_mean_pct: number | null;
  wind_2m_ms: number | null;
  solar_mj_m2: number | null;
  sunshine_h: number | null;
}

const DAILY_METRICS = ['t_min_c', 't_max_c', 'rh_min_pct', 'rh_max_pct', 'rh_mean_pct', 'wind_2m_ms', 'solar_mj_m2', 'sunshine_h'] as const;

/** Plausibility of a daily record: not a copy of the station's previous day, radiation under the clear-sky limit. */
export function judgeDaily(d: DailyReadings, previousDay: DailyReadings | undefined): HealthReason[] {
  const reasons: HealthReason[] = [];
  if (previousDay && DAILY_METRICS.every((m) => d[m] === previousDay[m])) reasons.push('stuck');
  if (d.solar_mj_m2 !== null && d.latitude_deg !== null) {
    const rso = (0.75 + 2e-5 * (d.elevation_m ?? 0)) * solarGeometry(d.latitude_deg, d.doy).ra;
    if (d.solar_mj_m2 > STATION_HEALTH.max_rs_over_rso * rso) reasons.push('implausible_radiation');
  }
  return reasons;
}
