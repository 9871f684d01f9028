// The columns of a synced alarm that sync-alarms reads but the box does not send: its id
// (alarm@tenant), whether it is open, whether the fleet counts it as a P1, and the key of the
// default order. Stored when the master applies an alarm event so that the resource kit reads by
// id, filters and sorts on indexes; the rules are the fleet view's (engine/sites.ts counts the same
// open P1s), and the migration that added the columns fills them with the same rules in SQL.
import { OPEN_ALARM_STATES } from '../schema.js';

export interface AlarmDerived {
  id: string;
  open: boolean;
  p1: boolean;
  sort_key: string;
}

export const alarmIdOf = (a: { alarm_id: string; tenant_id: string }) => `${a.alarm_id}@${a.tenant_id}`;

/** Neither acknowledged nor cleared at the farm. */
export const isOpenState = (state: string) => (OPEN_ALARM_STATES as readonly string[]).includes(state);

/** The fleet's P1: priority P1, or severity critical where the alarm has no priority (a site alarm). */
export const isFleetP1 = (a: { priority: string | null; severity: string }) => a.priority === 'P1' || (a.priority === null && a.severity === 'critical');

const flag = (b: boolean) => (b ? '1' : '0');

/**
 * Open first, then P1, then newest first, as one text sorted descending: '1' '1' raised_at.
 * raised_at is RFC 3339 UTC text, so text order is time order.
 */
export const sortKeyOf = (open: boolean, p1: boolean, raisedAt: string) => `${flag(open)}${flag(p1)}${raisedAt}`;

export function derivedOf(a: { tenant_id: string; alarm_id: string; state: string; priority: string | null; severity: string; raised_at: string }): AlarmDerived {
  const open = isOpenState(a.state);
  const p1 = isFleetP1(a);
  return { id: alarmIdOf(a), open, p1, sort_key: sortKeyOf(open, p1, a.raised_at) };
}

/**
 * What storing an alarm the master already holds changes (the upsert's conflict rule, the same SQL
 * on both engines): what a state change changes, the state, who acknowledged it, when, open, and
 * the sort key from the incoming open flag and the stored row's own p1 and raised_at (a state
 * change changes neither).
 */
export const ALARM_CHANGE_SET = {
  state: 'excluded."state"',
  acknowledged_by: 'excluded."acknowledged_by"',
  updated_at: 'excluded."updated_at"',
  open: 'excluded."open"',
  sort_key: `(case when excluded."open" then '1' else '0' end) || (case when "sync_alarms"."p1" then '1' else '0' end) || "sync_alarms"."raised_at"`,
} as const;
