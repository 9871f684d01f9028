// One vocabulary for what the industries measure. The contract fixes the names a reading has in
// each API (poultry `temp`, swine `temp_c`, ...); inside, the reading pipeline (pipeline.ts) works
// on one canonical name per quantity and unit, so a judgement, a rule or a roll-up reads the
// same whatever industry the reading came from. docs/readings-and-setpoints.md carries the table.
//
// A canonical name is `<quantity>_<unit>` as the swine API already spells it. An industry
// declares how its API names map onto them (READING_NAMES); a name that is already canonical
// needs no entry. Values are never converted here: an API name maps to a canonical name of the
// SAME unit (unit conversion of raw sensor readings happens before, in the sensors ingests).

export interface Quantity {
  quantity: string;
  unit: string;
  label: string;
}

export const VOCABULARY = {
  temp_c: { quantity: 'air temperature', unit: '°C', label: 'Temperature' },
  humidity_pct: { quantity: 'relative humidity', unit: '%RH', label: 'Relative humidity' },
  co2_ppm: { quantity: 'carbon dioxide', unit: 'ppm', label: 'CO2' },
  nh3_ppm: { quantity: 'ammonia', unit: 'ppm', label: 'NH3' },
  ventilation_pct: { quantity: 'ventilation', unit: '% of fan capacity', label: 'Ventilation' },
  soil_moisture_pct: { quantity: 'volumetric soil water content', unit: '% vol', label: 'Soil moisture' },
  rain_mm: { quantity: 'rainfall', unit: 'mm', label: 'Rain' },
  et0_mm: { quantity: 'reference evapotranspiration (FAO-56)', unit: 'mm', label: 'ET0' },
  irrigation_mm: { quantity: 'applied irrigation depth', unit: 'mm', label: 'Irrigation' },
} as const satisfies Record<string, Quantity>;
export type Canonical = keyof typeof VOCABULARY;

export type Industry = 'poultry' | 'swine' | 'melioration';

/** API name -> canonical name, per industry (only names that differ). */
export const READING_NAMES: Record<Industry, Readonly<Record<string, Canonical>>> = {
  poultry: { temp: 'temp_c', humidity: 'humidity_pct', co2: 'co2_ppm', nh3: 'nh3_ppm', ventilation: 'ventilation_pct' },
  swine: {},
  melioration: { vwc_pct: 'soil_moisture_pct', depth_mm: 'irrigation_mm' },
};

const isCanonical = (name: string): name is Canonical => Object.hasOwn(VOCABULARY, name);

/** The canonical name of an industry's API name (or of a canonical name); undefined when unknown. */
export function canonicalName(industry: Industry, name: string): Canonical | undefined {
  return READING_NAMES[industry][name] ?? (isCanonical(name) ? name : undefined);
}

/** The API name an industry answers for a canonical name. */
export function apiName(industry: Industry, canonical: Canonical): string {
  for (const [api, c] of Object.entries(READING_NAMES[industry])) if (c === canonical) return api;
  return canonical;
}

export type Values = Record<string, number | null | undefined>;

/** An industry's reading in API names -> the same values under canonical names (unknown names dropped). */
export function toCanonical(industry: Industry, values: Values): Partial<Record<Canonical, number | null>> {
  const out: Partial<Record<Canonical, number | null>> = {};
  for (const [name, value] of Object.entries(values)) {
    const c = canonicalName(industry, name);
    if (c && value !== undefined) out[c] = value;
  }
  return out;
}
