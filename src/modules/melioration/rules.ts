// The two melioration alert rules, their thresholds and hysteresis (documented in the README,
// section "Melioration"), as pure decisions. Hysteresis: an alert is raised at one level and
// cleared only at a safer one, so a field hovering at the threshold does not flap.
// - water_deficit: root-zone depletion reached the readily available water (Dr ≥ p·TAW, the
//   point where the crop starts to suffer, FAO-56 Ks < 1); cleared when Dr ≤ (p - 0.10)·TAW.
// - overwatering: water above field capacity (measured by the probes, else the day's deep
//   percolation of the balance) ≥ 10 mm; cleared when it is ≤ 3 mm.
import type { IndustrySeverity, Priority } from '../../industry/alarm-schema.js';

export const ALERT_KINDS = ['water_deficit', 'overwatering'] as const;
export type AlertKind = (typeof ALERT_KINDS)[number];

export const ALERT_RULES: Record<AlertKind, { severity: IndustrySeverity; priority: Priority; sla_target_sec: number; title: string }> = {
  water_deficit: { severity: 'high', priority: 'P2', sla_target_sec: 6 * 3600, title: 'Water deficit' },
  overwatering: { severity: 'medium', priority: 'P2', sla_target_sec: 12 * 3600, title: 'Overwatering' },
};

export const DEFICIT_CLEAR_MARGIN = 0.1;
export const SURPLUS_RAISE_MM = 10;
export const SURPLUS_CLEAR_MM = 3;

export type Decision = 'raise' | 'clear' | 'keep';

export function decideDeficit(active: boolean, depletionMm: number, tawMm: number, p: number): Decision {
  if (tawMm <= 0) return active ? 'clear' : 'keep';
  const fraction = depletionMm / tawMm;
  if (!active && fraction >= p) return 'raise';
  if (active && fraction <= p - DEFICIT_CLEAR_MARGIN) return 'clear';
  return 'keep';
}

export function decideOverwatering(active: boolean, surplusMm: number): Decision {
  if (!active && surplusMm >= SURPLUS_RAISE_MM) return 'raise';
  if (active && surplusMm <= SURPLUS_CLEAR_MM) return 'clear';
  return 'keep';
}
