// Sensor readings in their own units -> the canonical climate units (C, %, ppm). Gas
// concentrations by mass are converted at 20 C and 1 atm (molar volume 24.04 l):
// ppm = mg/m3 x 24.04 / M, with M(NH3) = 17.031 g/mol and M(CO2) = 44.01 g/mol.
import { invalid } from '../../kernel/errors.js';

export const SENSOR_KINDS = ['temperature', 'humidity', 'nh3', 'co2'] as const;
export type SensorKind = (typeof SENSOR_KINDS)[number];

const MOLAR_VOLUME_L = 24.04;
const UNITS: Record<SensorKind, Record<string, (x: number) => number>> = {
  temperature: { c: (x) => x, '°c': (x) => x, degc: (x) => x, f: (x) => ((x - 32) * 5) / 9, '°f': (x) => ((x - 32) * 5) / 9, degf: (x) => ((x - 32) * 5) / 9, k: (x) => x - 273.15 },
  humidity: { '%': (x) => x, pct: (x) => x, '%rh': (x) => x, ratio: (x) => x * 100 },
  nh3: { ppm: (x) => x, 'mg/m3': (x) => (x * MOLAR_VOLUME_L) / 17.031 },
  co2: { ppm: (x) => x, '%': (x) => x * 10_000, 'mg/m3': (x) => (x * MOLAR_VOLUME_L) / 44.01 },
};
const FIELD: Record<SensorKind, 'temp_c' | 'humidity_pct' | 'nh3_ppm' | 'co2_ppm'> = { temperature: 'temp_c', humidity: 'humidity_pct', nh3: 'nh3_ppm', co2: 'co2_ppm' };

export const SENSOR_UNITS: Record<SensorKind, string[]> = Object.fromEntries(Object.entries(UNITS).map(([k, u]) => [k, Object.keys(u)])) as Record<SensorKind, string[]>;

const round = (x: number) => Math.round(x * 1000) / 1000;

export function normaliseReadings(readings: readonly { kind: SensorKind; value: number; unit: string }[]): Partial<Record<'temp_c' | 'humidity_pct' | 'nh3_ppm' | 'co2_ppm', number>> {
  const out: Partial<Record<'temp_c' | 'humidity_pct' | 'nh3_ppm' | 'co2_ppm', number>> = {};
  readings.forEach((r, i) => {
    const convert = UNITS[r.kind][r.unit.trim().toLowerCase()];
    if (!convert) throw invalid(`readings.${i}.unit`, 'unsupported_value', `unit ${r.unit} is not known for ${r.kind}; use one of ${SENSOR_UNITS[r.kind].join(', ')}`);
    const field = FIELD[r.kind];
    if (out[field] !== undefined) throw invalid(`readings.${i}.kind`, 'duplicate', `two ${r.kind} readings in one ingest`);
    const value = round(convert(r.value));
    const [lo, hi] = field === 'temp_c' ? [-40, 60] : field === 'humidity_pct' ? [0, 100] : field === 'nh3_ppm' ? [0, 1000] : [0, 100000];
    if (value < lo || value > hi) throw invalid(`readings.${i}.value`, 'out_of_range', `${r.kind} ${r.value} ${r.unit} is ${value} after conversion, outside ${lo}..${hi}`);
    out[field] = value;
  });
  return out;
}
