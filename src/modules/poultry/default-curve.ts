// The built-in broiler climate curve: the climate phases a flock gets at placement when no
// poultry profile with `climate_phases` is published for its tenant and site. A site replaces it
// by publishing a poultry profile (poultry-profiles/commands/import-yaml) whose content holds
// `climate_phases` (same shape as below) and optionally `alarm_rules` (src/industry/rules.ts).
//
// Targets follow the usual broiler practice of the breeders' management guides: about 32 °C at
// placement, falling by roughly 0.5 °C a day in the first weeks to about 20-21 °C by day 35-42;
// relative humidity 60-70 % for chicks, 50-70 % later; CO2 at most 3,000 ppm and NH3 at most
// 20 ppm at the birds' head height, as required by Council Directive 2007/43/EC, Annex II
// (3.(b)) for houses stocked above 33 kg/m2. Minimum ventilation is a share of the house's fan
// capacity (%), rising with the birds' weight. Temperature tolerance: readings within
// ±temp_tolerance_c of the target are in norm.
export interface ClimatePhase {
  age_phase_id: string;
  day_from: number;
  day_to: number;
  target_temp_c: number;
  temp_tolerance_c: number;
  humidity_min_pct: number;
  humidity_max_pct: number;
  co2_max_ppm: number;
  nh3_max_ppm: number;
  min_ventilation_pct: number;
}

const phase = (age_phase_id: string, day_from: number, day_to: number, target_temp_c: number, humidity_min_pct: number, humidity_max_pct: number, min_ventilation_pct: number): ClimatePhase => ({
  age_phase_id, day_from, day_to, target_temp_c, temp_tolerance_c: 1.5, humidity_min_pct, humidity_max_pct, co2_max_ppm: 3000, nh3_max_ppm: 20, min_ventilation_pct,
});

export const DEFAULT_BROILER_CURVE: readonly ClimatePhase[] = Object.freeze([
  phase('d00-03', 0, 3, 32.5, 60, 70, 10),
  phase('d04-07', 4, 7, 30.5, 60, 70, 10),
  phase('d08-14', 8, 14, 28, 55, 70, 15),
  phase('d15-21', 15, 21, 25.5, 50, 70, 20),
  phase('d22-28', 22, 28, 23, 50, 70, 25),
  phase('d29-35', 29, 35, 21, 50, 70, 30),
  phase('d36-56', 36, 56, 20, 50, 70, 35),
]);

/** The default poultry profile document (industry profile content) built from the curve. */
export const DEFAULT_POULTRY_PROFILE_CONTENT = { climate_phases: DEFAULT_BROILER_CURVE.map((p) => ({ ...p })) };

/** Phases overlap when a day belongs to two of them; returns the first overlapping pair. */
export function overlapping(phases: readonly Pick<ClimatePhase, 'age_phase_id' | 'day_from' | 'day_to'>[]): [string, string] | undefined {
  const sorted = [...phases].sort((a, b) => a.day_from - b.day_from);
  for (let i = 1; i < sorted.length; i++) {
    if (sorted[i]!.day_from <= sorted[i - 1]!.day_to) return [sorted[i - 1]!.age_phase_id, sorted[i]!.age_phase_id];
  }
  return undefined;
}
