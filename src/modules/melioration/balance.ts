// The daily root-zone water balance of one field (FAO-56 chapter 8, Eq. 85), pure:
//   Dr,end = Dr,start - effective rain - irrigation + ETc          bounded to 0 ≤ Dr ≤ TAW
// Dr is the root-zone depletion below field capacity (mm). Water that would push Dr below 0
// leaves the root zone as deep percolation (DP). ETc = Ks · Kc · ET0, where the water-stress
// coefficient Ks (Eq. 84) is 1 while Dr,start ≤ RAW and falls linearly to 0 at TAW.
// Rain smaller than 0.2 · ET0 on a day is intercepted and evaporates (FAO-56 §8, "effective
// precipitation"): it does not count; larger rain counts whole. Runoff is not modelled (flat,
// irrigated fields). A day with a soil-moisture measurement ends at the measured depletion
// (measurement beats the model), and its surplus is the measured water above field capacity.

export type WeatherSource = 'station' | 'service' | 'none';

export interface SoilWater {
  /** Total available water of the root zone, mm. */
  taw_mm: number;
  /** Fraction of TAW that is readily available (FAO-56 p, Table 22). */
  depletion_fraction: number;
  /** Single crop coefficient. */
  kc: number;
}

export interface DayInput {
  day: string;
  et0_mm: number | null;
  weather_source: WeatherSource;
  rain_mm: number;
  /** Depths over the whole field (a pass over part of it already spread over the field). */
  irrigation_machine_mm: number;
  irrigation_drip_mm: number;
  measured_depletion_mm?: number | null;
  measured_surplus_mm?: number | null;
}

export interface DayBalance extends DayInput {
  depletion_start_mm: number;
  ks: number;
  etc_mm: number;
  effective_rain_mm: number;
  deep_percolation_mm: number;
  modelled_depletion_mm: number;
  depletion_end_mm: number;
  /** Water above field capacity that day: measured, else the day's deep percolation. */
  surplus_mm: number;
}

/** Total available water (mm) from the soil's field capacity and wilting point (% vol) or its available water (mm per m of soil). */
export function totalAvailableWater(soil: { field_capacity_pct?: number | null; wilting_point_pct?: number | null; available_water_mm_per_m?: number | null; root_depth_m: number }): number {
  if (typeof soil.field_capacity_pct === 'number' && typeof soil.wilting_point_pct === 'number') {
    return 10 * (soil.field_capacity_pct - soil.wilting_point_pct) * soil.root_depth_m; // 1000 mm/m × Δθ(%)/100
  }
  return (soil.available_water_mm_per_m ?? 0) * soil.root_depth_m;
}

/** Water-stress coefficient Ks (Eq. 84). */
export function stressCoefficient(depletion: number, taw: number, raw: number): number {
  if (depletion <= raw) return 1;
  if (taw <= raw) return 0;
  return Math.max(0, (taw - depletion) / (taw - raw));
}

export function effectiveRain(rain: number, et0: number | null): number {
  return rain >= 0.2 * (et0 ?? 0) ? rain : 0;
}

/** Runs the bucket over consecutive days from an initial depletion. */
export function runBalance(soil: SoilWater, initialDepletionMm: number, days: readonly DayInput[]): DayBalance[] {
  const taw = soil.taw_mm;
  const raw = soil.depletion_fraction * taw;
  let dr = Math.min(Math.max(initialDepletionMm, 0), taw);
  const out: DayBalance[] = [];
  for (const d of days) {
    const ks = stressCoefficient(dr, taw, raw);
    const etc = d.et0_mm === null ? 0 : ks * soil.kc * d.et0_mm;
    const effective = effectiveRain(d.rain_mm, d.et0_mm);
    const unbounded = dr - effective - d.irrigation_machine_mm - d.irrigation_drip_mm + etc;
    const deep = unbounded < 0 ? -unbounded : 0;
    const modelled = Math.min(Math.max(unbounded, 0), taw);
    const measured = typeof d.measured_depletion_mm === 'number' ? Math.min(Math.max(d.measured_depletion_mm, 0), taw) : null;
    const end = measured ?? modelled;
    out.push({
      ...d,
      depletion_start_mm: dr,
      ks,
      etc_mm: etc,
      effective_rain_mm: effective,
      deep_percolation_mm: deep,
      modelled_depletion_mm: modelled,
      depletion_end_mm: end,
      surplus_mm: measured !== null ? (d.measured_surplus_mm ?? 0) : deep,
    });
    dr = end;
  }
  return out;
}

export interface BalanceTotals {
  rain_mm: number;
  effective_rain_mm: number;
  irrigation_machine_mm: number;
  irrigation_drip_mm: number;
  et0_mm: number;
  etc_mm: number;
  deep_percolation_mm: number;
}

export function totals(days: readonly DayBalance[]): BalanceTotals {
  const t: BalanceTotals = { rain_mm: 0, effective_rain_mm: 0, irrigation_machine_mm: 0, irrigation_drip_mm: 0, et0_mm: 0, etc_mm: 0, deep_percolation_mm: 0 };
  for (const d of days) {
    t.rain_mm += d.rain_mm;
    t.effective_rain_mm += d.effective_rain_mm;
    t.irrigation_machine_mm += d.irrigation_machine_mm;
    t.irrigation_drip_mm += d.irrigation_drip_mm;
    t.et0_mm += d.et0_mm ?? 0;
    t.etc_mm += d.etc_mm;
    t.deep_percolation_mm += d.deep_percolation_mm;
  }
  return t;
}

/** Consecutive YYYY-MM-DD days from `from` to `to`, both included. */
export function daysBetween(from: string, to: string): string[] {
  const out: string[] = [];
  for (let t = Date.parse(`${from}T00:00:00Z`), end = Date.parse(`${to}T00:00:00Z`); t <= end; t += 86_400_000) {
    out.push(new Date(t).toISOString().slice(0, 10));
  }
  return out;
}
