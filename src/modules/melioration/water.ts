// Units of water on a field, pure. Millimetres are primary: a depth of water over an area.
// 1 mm over 1 ha is 10 m³ (1 ha = 10 000 m², 1 mm = 0.001 m). An irrigation event is entered
// in mm (depth over the area it covered) or m³ (a flow meter), or both when they agree; a
// machine's pass over part of a field spreads its volume over the whole field for the balance
// (the field is one bucket): field depth = depth × covered area / field area.
import { ApiError } from '../../kernel/errors.js';

export const M3_PER_MM_HA = 10;

export const mmToM3 = (mm: number, areaHa: number) => mm * areaHa * M3_PER_MM_HA;
export const m3ToMm = (m3: number, areaHa: number) => m3 / (areaHa * M3_PER_MM_HA);

/** How closely given mm and m³ must agree (relative) to be one event. */
const AGREEMENT = 0.01;

export interface IrrigationAmount {
  depth_mm?: number | null;
  volume_m3?: number | null;
  covered_area_ha?: number | null;
  covered_fraction?: number | null;
}

export interface ResolvedIrrigation {
  depth_mm: number;
  volume_m3: number | null;
  covered_area_ha: number | null;
  covered_fraction: number;
  field_depth_mm: number;
  entered_as: 'mm' | 'm3' | 'mm+m3';
}

const bad = (field: string, reason: string, message: string) => new ApiError('validation_error', message, [{ field: `item.${field}`, reason }]);

/** Converts an irrigation amount consistently for a field of the given area (null: unknown). */
export function resolveIrrigation(a: IrrigationAmount, fieldAreaHa: number | null): ResolvedIrrigation {
  const hasMm = typeof a.depth_mm === 'number';
  const hasM3 = typeof a.volume_m3 === 'number';
  if (!hasMm && !hasM3) throw bad('depth_mm', 'required', 'an irrigation event needs depth_mm or volume_m3');
  if (typeof a.covered_area_ha === 'number' && typeof a.covered_fraction === 'number') {
    throw bad('covered_fraction', 'conflicts_with_covered_area_ha', 'give covered_area_ha or covered_fraction, not both');
  }
  if (fieldAreaHa === null) {
    if (hasM3) throw bad('volume_m3', 'field_has_no_area', 'this field has no area: an amount in m3 cannot be converted to mm; give depth_mm, or set the field area');
    if (typeof a.covered_area_ha === 'number') throw bad('covered_area_ha', 'field_has_no_area', 'this field has no area: give covered_fraction instead of covered_area_ha');
  }
  let coveredArea: number | null;
  let fraction: number;
  if (typeof a.covered_area_ha === 'number') {
    if (fieldAreaHa !== null && a.covered_area_ha > fieldAreaHa * (1 + 1e-9)) throw bad('covered_area_ha', 'exceeds_field_area', `covered_area_ha ${a.covered_area_ha} is larger than the field (${fieldAreaHa} ha)`);
    coveredArea = a.covered_area_ha;
    fraction = coveredArea / (fieldAreaHa as number);
  } else {
    fraction = a.covered_fraction ?? 1;
    coveredArea = fieldAreaHa === null ? null : fieldAreaHa * fraction;
  }
  let depth: number;
  let volume: number | null;
  if (hasMm && hasM3) {
    depth = a.depth_mm as number;
    volume = a.volume_m3 as number;
    const expected = mmToM3(depth, coveredArea as number);
    if (Math.abs(expected - volume) > AGREEMENT * Math.max(expected, volume)) {
      throw bad('volume_m3', 'inconsistent_with_depth_mm', `${depth} mm over ${coveredArea} ha is ${expected} m3, not ${volume} m3`);
    }
  } else if (hasMm) {
    depth = a.depth_mm as number;
    volume = coveredArea === null ? null : mmToM3(depth, coveredArea);
  } else {
    volume = a.volume_m3 as number;
    if (!coveredArea) throw bad('covered_area_ha', 'zero_area', 'the covered area is zero');
    depth = m3ToMm(volume, coveredArea);
  }
  return {
    depth_mm: depth,
    volume_m3: volume,
    covered_area_ha: coveredArea,
    covered_fraction: fraction,
    field_depth_mm: depth * fraction,
    entered_as: hasMm && hasM3 ? 'mm+m3' : hasMm ? 'mm' : 'm3',
  };
}
