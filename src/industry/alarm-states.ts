// The four alarm states of ISA-18.2 / IEC 62682 (OPC UA Part 9: ActiveState apart from
// AckedState), derived in one place for both alarm resources (industry alarm events and the
// site `alarms`), so every view, filter and count agrees:
//
//   condition active,  not acknowledged  -> unacknowledged_active   (listed, annunciated)
//   condition active,  acknowledged      -> acknowledged_active     (listed)
//   condition cleared, not acknowledged  -> unacknowledged_cleared  (listed until acknowledged)
//   condition cleared, acknowledged      -> normal                  (off the operator's list)
//
// Per priority (decision, docs/alarms.md): a cleared unacknowledged alarm with a priority (P1,
// P2) or of severity critical, high or medium stays listed until acknowledged; one without a
// priority and of severity low or info needs no acknowledgement once cleared: it goes to normal
// by itself (acked_at stays empty: nobody acknowledged it).
import type { AlarmCondition, AlarmState } from './alarm-schema.js';

export interface StateInput {
  condition: AlarmCondition;
  acked: boolean;
  severity: string;
  priority?: string | null;
}

/** Cleared, unacknowledged and needing no acknowledgement (no priority, low or info). */
export const autoNormal = (a: Pick<StateInput, 'severity' | 'priority'>): boolean =>
  !a.priority && (a.severity === 'low' || a.severity === 'info');

export function alarmStateOf(a: StateInput): AlarmState {
  if (a.condition === 'active') return a.acked ? 'acknowledged_active' : 'unacknowledged_active';
  if (a.acked || autoNormal(a)) return 'normal';
  return 'unacknowledged_cleared';
}

/** On the operator's default list: every state but normal. */
export const listedIn = (state: AlarmState): boolean => state !== 'normal';

/** What annunciation needs besides the state: suppression and importance. */
export interface AnnunciationInput extends StateInput {
  shelved?: boolean;
  out_of_service?: boolean;
  /** A latched alarm whose readings returned: still active (it waits for a reset), but the process is back. */
  returned?: boolean;
}

/** P1, or critical/high where the alarm has no priority (a site alarm): what sounds. */
export const urgentPriority = (a: Pick<StateInput, 'severity' | 'priority'>): boolean =>
  a.priority ? a.priority === 'P1' : a.severity === 'critical' || a.severity === 'high';

/**
 * Annunciated: it needs a person now, so the top bar counts it (ISA-18.2: unacknowledged, active
 * or returned, and not suppressed). Urgent: it sounds (tone, banner, siren of P1): annunciated
 * with its condition present and of urgent priority. A returned unacknowledged alarm is
 * annunciated (shown "back to normal, acknowledge") but never sounds; so is a latched one whose
 * readings returned (it stays until an admin resets it, but the process is back).
 */
export function annunciationOf(a: AnnunciationInput): { annunciated: boolean; urgent: boolean } {
  const state = alarmStateOf(a);
  const suppressed = a.shelved === true || a.out_of_service === true;
  const annunciated = !suppressed && (state === 'unacknowledged_active' || state === 'unacknowledged_cleared');
  return { annunciated, urgent: annunciated && a.condition === 'active' && a.returned !== true && urgentPriority(a) };
}
