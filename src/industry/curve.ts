// Climate curves as house controllers (Fancom, Munters/Rotem, SKOV) follow them: a curve is a list
// of points (age in days -> setpoint values); between two points every value is linear in the age,
// before the first point the first values hold, after the last point the last values. Ages are
// fractional (day + hour / 24), so a target moves through the day instead of stepping at midnight
// or at a phase boundary. Pure: no clock, no database.

/** One point of a curve: the values in force at `day`. */
export interface CurvePoint {
  day: number;
  values: Readonly<Record<string, number>>;
}

/** A curve point per phase: each phase's values are the curve at its day_from (the phases of a batch are the curve). */
export function curveOfPhases<P extends { day_from: number }>(phases: readonly P[], keys: readonly (keyof P & string)[]): CurvePoint[] {
  return [...phases]
    .sort((a, b) => a.day_from - b.day_from)
    .map((p) => {
      const values: Record<string, number> = {};
      for (const k of keys) {
        const x = p[k];
        if (typeof x === 'number' && Number.isFinite(x)) values[k] = x;
      }
      return { day: p.day_from, values };
    });
}

// Interpolated targets are written to controllers that hold tenths or hundredths at best; more
// digits only make two equal targets compare unequal.
const round = (x: number) => Math.round(x * 1000) / 1000;

/**
 * The curve's values at `age` (days, fractional). A key missing from one of the two surrounding
 * points takes the other point's value (no line can be drawn); empty for an empty curve.
 */
export function valuesAt(curve: readonly CurvePoint[], age: number): Record<string, number> {
  if (!curve.length) return {};
  const points = [...curve].sort((a, b) => a.day - b.day);
  const first = points[0]!;
  const last = points[points.length - 1]!;
  if (age <= first.day) return { ...first.values };
  if (age >= last.day) return { ...last.values };
  let i = 1;
  while (points[i]!.day <= age) i++;
  const a = points[i - 1]!;
  const b = points[i]!;
  const t = (age - a.day) / (b.day - a.day);
  const out: Record<string, number> = {};
  for (const k of new Set([...Object.keys(a.values), ...Object.keys(b.values)])) {
    const x = a.values[k];
    const y = b.values[k];
    out[k] = x === undefined ? y! : y === undefined ? x : round(x + (y - x) * t);
  }
  return out;
}

/** The curve sampled from `fromAge` every `stepDays` for `days` (both ends included): what a tablet draws. */
export function sampleCurve(curve: readonly CurvePoint[], fromAge: number, days: number, stepDays: number): { age_days: number; values: Record<string, number> }[] {
  const out: { age_days: number; values: Record<string, number> }[] = [];
  const steps = Math.floor(days / stepDays + 1e-9);
  for (let i = 0; i <= steps; i++) {
    const age = round(fromAge + i * stepDays);
    out.push({ age_days: age, values: valuesAt(curve, age) });
  }
  return out;
}

/**
 * The keys whose target moved away from what the controller holds by more than its deadband; a key
 * the controller's value is unknown for drifts (it has to be written once to be known).
 */
export function drifting(target: Readonly<Record<string, number>>, held: Readonly<Record<string, number | undefined>>, deadband: Readonly<Record<string, number>>): string[] {
  return Object.keys(target).filter((k) => {
    const h = held[k];
    return h === undefined || Math.abs(target[k]! - h) > (deadband[k] ?? 0) + 1e-9;
  });
}
