// The simulated broiler house: pure state and arithmetic, no I/O and no clock of its own (the
// caller says how far simulated time moved), so a test can step it by exactly one time constant.
//
// Physics, simplified but with the right signs and magnitudes for a ~20,000-bird house:
//   airflow       a(v) = 0.01 + (v/100)^2: fans are staged, so 100 % moves ~50x the air of 10 %
//   bird heat     ~ metabolic live weight M = birds x weight^0.75 / 1000
//   temperature   T -> T_eq with a first-order lag (TAU_TEMP_S); the heater holds T_eq at the
//                 target while the passive house (outside + bird heat / ventilation) is colder,
//                 otherwise T_eq is the passive temperature and the fans must bring it down
//   ventilation   a P controller on the temperature above target (and on humidity, CO2 and NH3
//                 above their maxima), bounded by min_ventilation_pct and 100 %
//   CO2, NH3, RH  rise with the birds (NH3 also with the litter's age) and fall with airflow
//   feed, water   counters: feed per bird per day 15 g at day 1 to 200 g at day 42; water 1.8x
import type { ClimatePhase } from '../modules/poultry/default-curve.js';

/** What a house controller holds: the setpoints of a poultry climate phase. */
export type Setpoints = Omit<ClimatePhase, 'age_phase_id' | 'day_from' | 'day_to'>;
export type SetpointKey = keyof Setpoints;

export interface HouseState {
  /** Simulated time of this state (ms since the epoch). */
  at_ms: number;
  age_days: number;
  birds: number;
  setpoints: Setpoints;
  temp_c: number;
  humidity_pct: number;
  co2_ppm: number;
  nh3_ppm: number;
  ventilation_pct: number;
  heating_on: boolean;
  water_l: number;
  feed_kg: number;
  /** Sensor noise now (AR(1) per sensor): added to what the sensors report, never to the physics. */
  noise: { temp: number; humidity: number; co2: number; nh3: number };
}

/** What the controller's sensors report (physics + noise), as the register map publishes it. */
export interface Readings {
  temp: number;
  humidity: number;
  co2: number;
  nh3: number;
  ventilation: number;
  outside_temp: number;
  water_l: number;
  feed_kg: number;
  age_days: number;
  birds: number;
  heating_on: boolean;
  alarm: boolean;
}

export const TAU_TEMP_S = 15 * 60;
export const TAU_AIR_S = 10 * 60;
const DAY_MS = 86_400_000;
const MAX_STEP_S = 10;
const KP_TEMP = 25; // % ventilation per °C above target
// The air-quality terms start a band below their maximum, as real controllers do, so the
// P controller's steady offset lands under the alarm limit instead of on it.
const KP_HUMIDITY = 4; // % ventilation per % RH above (humidity_max_pct - 5)
const KP_CO2 = 0.05; // % per ppm above (co2_max_ppm - 500)
const KP_NH3 = 4; // % per ppm above (nh3_max_ppm - 5)

/** Ross-308-like live weight (kg) at an age: 0.04 kg at hatch, ~1 kg at day 21, ~2.9 kg at day 42. */
export function birdWeightKg(ageDays: number): number {
  const d = Math.max(0, ageDays);
  return 0.042 + 0.02167 * d + 0.001077 * d * d;
}

/** Feed per bird per day (g): 15 g at day 1 rising linearly to 200 g at day 42 (flat after). */
export function feedPerBirdG(ageDays: number): number {
  const d = Math.min(42, Math.max(1, ageDays));
  return 15 + ((200 - 15) * (d - 1)) / 41;
}

export const WATER_PER_FEED = 1.8;

/** Outside temperature (°C): a daily sine between 8 (at 03:00 UTC) and 18 (at 15:00 UTC). */
export function outsideTempC(atMs: number): number {
  const hour = (((atMs % DAY_MS) + DAY_MS) % DAY_MS) / 3_600_000;
  return 13 + 5 * Math.sin((2 * Math.PI * (hour - 9)) / 24);
}

/** A common broiler temperature curve: 33 °C at placement, down ~0.33 °C a day, 20 °C from day 39. */
export function targetTempForAge(ageDays: number): number {
  return Math.max(20, Math.round((33 - ageDays / 3) * 10) / 10);
}

export function defaultSetpoints(ageDays: number): Setpoints {
  return {
    target_temp_c: targetTempForAge(ageDays),
    temp_tolerance_c: 2,
    humidity_min_pct: 50,
    humidity_max_pct: 70,
    co2_max_ppm: 3000,
    nh3_max_ppm: 20,
    min_ventilation_pct: ageDays < 14 ? 10 : ageDays < 28 ? 15 : 20,
  };
}

const airflow = (ventPct: number): number => 0.01 + (ventPct / 100) ** 2;
const metabolicLoad = (s: HouseState): number => (s.birds * birdWeightKg(s.age_days) ** 0.75) / 1000;

/** Where the house settles with this ventilation: passive temperature and the air's equilibria. */
function equilibria(s: HouseState, outside: number, ventPct: number) {
  const a = airflow(ventPct);
  const m = metabolicLoad(s);
  const passive = outside + (0.6 * m) / (0.5 + 10 * a);
  const waterPerDay = (s.birds * feedPerBirdG(s.age_days) * WATER_PER_FEED) / 1000;
  const litter = (s.birds / 1000) * (1 + s.age_days / 7);
  return {
    passive,
    co2: 420 + (10 * m) / a,
    humidity: Math.min(95, Math.max(30, 45 + (0.0005 * waterPerDay) / a)),
    nh3: 1 + (0.0185 * litter) / Math.sqrt(a),
  };
}

/** The controller's ventilation demand: the largest P term, inside [min_ventilation_pct, 100]. */
export function ventilationDemand(s: HouseState): number {
  const sp = s.setpoints;
  const extra = Math.max(
    0,
    KP_TEMP * (s.temp_c - sp.target_temp_c),
    KP_HUMIDITY * (s.humidity_pct - (sp.humidity_max_pct - 5)),
    KP_CO2 * (s.co2_ppm - (sp.co2_max_ppm - 500)),
    KP_NH3 * (s.nh3_ppm - (sp.nh3_max_ppm - 5)),
  );
  return Math.min(100, Math.max(sp.min_ventilation_pct, sp.min_ventilation_pct + extra));
}

/** Seeded uniform random numbers in [0, 1) (mulberry32): the same seed gives the same house. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NOISE_SD = { temp: 0.1, humidity: 0.5, co2: 10, nh3: 0.2 } as const;

export interface HouseOptions {
  at_ms: number;
  age_days: number;
  birds: number;
  /** Sensor noise scale: 1 = realistic (±0.1 °C, ±0.5 % RH, ±10 ppm CO2), 0 = none. */
  noise?: number;
  /** Draws the sensors' first noise, so that houses differ from the first read (default: none). */
  random?: () => number;
}

/** A house at the start: pre-heated to the target, then settled for six hours (no noise) so that
 *  the air and the fans start where the controller would hold them; the counters start at 0. */
export function createHouse(o: HouseOptions): HouseState {
  const setpoints = defaultSetpoints(o.age_days);
  const settleMs = 6 * 3_600_000;
  const initial: HouseState = {
    at_ms: o.at_ms - settleMs, age_days: o.age_days, birds: o.birds, setpoints,
    temp_c: setpoints.target_temp_c, humidity_pct: 60, co2_ppm: 1000, nh3_ppm: 5,
    ventilation_pct: setpoints.min_ventilation_pct, heating_on: false, water_l: 0, feed_kg: 0,
    noise: { temp: 0, humidity: 0, co2: 0, nh3: 0 },
  };
  const settled = advance(initial, o.at_ms, () => 0.5, 0);
  const draw = (sd: number) => (o.random ? sd * (o.noise ?? 1) * gaussian(o.random) : 0);
  const noise = { temp: draw(NOISE_SD.temp), humidity: draw(NOISE_SD.humidity), co2: draw(NOISE_SD.co2), nh3: draw(NOISE_SD.nh3) };
  return { ...settled, age_days: o.age_days, water_l: 0, feed_kg: 0, noise };
}

/** Advances the house to simulated time `toMs` in steps of at most 10 s; `random` drives the noise. */
export function advance(s: HouseState, toMs: number, random: () => number, noise = 1): HouseState {
  let next = s;
  while (next.at_ms < toMs) {
    const dt = Math.min(MAX_STEP_S, (toMs - next.at_ms) / 1000);
    next = step(next, dt, random, noise);
  }
  return next;
}

function step(s: HouseState, dt: number, random: () => number, noise: number): HouseState {
  const at = s.at_ms + dt * 1000;
  const ventilation = ventilationDemand(s);
  const eq = equilibria(s, outsideTempC(at), ventilation);
  const heating = eq.passive < s.setpoints.target_temp_c;
  const tempEq = heating ? s.setpoints.target_temp_c : eq.passive;
  // Exact for a constant equilibrium over the step, so the lag does not depend on the step size.
  const kT = 1 - Math.exp(-dt / TAU_TEMP_S);
  const kA = 1 - Math.exp(-dt / TAU_AIR_S);
  const feedKg = (s.birds * feedPerBirdG(s.age_days) * dt) / 86_400_000;
  // AR(1) sensor noise with a ~1 min memory: smooth enough to look like a sensor, not a dice roll.
  const r = Math.exp(-dt / 60);
  const wiggle = (prev: number, sd: number) => prev * r + sd * noise * Math.sqrt(1 - r * r) * gaussian(random);
  return {
    ...s,
    at_ms: at,
    age_days: s.age_days + dt / 86_400,
    temp_c: s.temp_c + (tempEq - s.temp_c) * kT,
    humidity_pct: s.humidity_pct + (eq.humidity - s.humidity_pct) * kA,
    co2_ppm: s.co2_ppm + (eq.co2 - s.co2_ppm) * kA,
    nh3_ppm: s.nh3_ppm + (eq.nh3 - s.nh3_ppm) * kA,
    ventilation_pct: ventilation,
    heating_on: heating,
    feed_kg: s.feed_kg + feedKg,
    water_l: s.water_l + feedKg * WATER_PER_FEED,
    noise: {
      temp: wiggle(s.noise.temp, NOISE_SD.temp),
      humidity: wiggle(s.noise.humidity, NOISE_SD.humidity),
      co2: wiggle(s.noise.co2, NOISE_SD.co2),
      nh3: wiggle(s.noise.nh3, NOISE_SD.nh3),
    },
  };
}

function gaussian(random: () => number): number {
  const u = 1 - random();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
}

/** The sensors' view of the house (physics plus noise) and the alarm the controller raises. */
export function readings(s: HouseState): Readings {
  const sp = s.setpoints;
  const temp = s.temp_c + s.noise.temp;
  const humidity = Math.min(100, Math.max(0, s.humidity_pct + s.noise.humidity));
  const co2 = Math.max(0, s.co2_ppm + s.noise.co2);
  const nh3 = Math.max(0, s.nh3_ppm + s.noise.nh3);
  const alarm =
    Math.abs(temp - sp.target_temp_c) > sp.temp_tolerance_c ||
    humidity < sp.humidity_min_pct || humidity > sp.humidity_max_pct ||
    co2 > sp.co2_max_ppm || nh3 > sp.nh3_max_ppm;
  return {
    temp, humidity, co2, nh3,
    ventilation: s.ventilation_pct,
    outside_temp: outsideTempC(s.at_ms),
    water_l: s.water_l,
    feed_kg: s.feed_kg,
    age_days: s.age_days,
    birds: s.birds,
    heating_on: s.heating_on,
    alarm,
  };
}

/** The house with one setpoint changed (the controller takes it at once). */
export function withSetpoint(s: HouseState, key: SetpointKey, value: number): HouseState {
  return { ...s, setpoints: { ...s.setpoints, [key]: value } };
}
