// The alarm view's item: one alarm of any alarm resource (industry alarm events, the site's
// `alarms`, a master's synced farm alarms) in one shape, with the annunciation the box decided.
// The shell renders these fields; it never derives annunciation, urgency or colour again.
// The status stream carries the same item in every `alarm_changed` event (details.item).

/** What a screen shows: the ISA-18.2 state, with suppression (shelved, out of service) and latching told apart. */
export const VIEW_STATES = ['unacknowledged_active', 'acknowledged_active', 'unacknowledged_cleared', 'latched', 'shelved', 'out_of_service', 'normal'] as const;
export type ViewState = (typeof VIEW_STATES)[number];

/** What happened to the alarm in an event: one kind per state change (a flood's grouped raise is `raised` with a higher raise_count). */
export const CHANGE_KINDS = [
  'raised', 'returned', 'cleared', 'reset', 'acknowledged', 'commented', 'shelved', 'unshelved', 'shelve_expired',
  'out_of_service', 'returned_to_service', 'escalated',
] as const;
export type ChangeKind = (typeof CHANGE_KINDS)[number];

/** Commands that apply to the alarm in its state (the caller's permission is checked apart, from the session's policy). */
export const ALARM_ACTIONS = ['ack', 'comment', 'shelve', 'unshelve', 'reset'] as const;
export type AlarmAction = (typeof ALARM_ACTIONS)[number];

export type AlarmTone = 'alarm' | 'warn' | 'muted';

/** The parameters of a text the box wrote: data (a house's number, a value, a unit, a limit, a time as ISO), never worded English. */
export type TextParams = Record<string, string | number | boolean | null>;

export interface AlarmViewItem {
  /** `<resource>:<id>`, unique across resources. */
  key: string;
  /** Where its commands are: industry-alarms, alarms, or sync-alarms (a farm's, read-only on a master). */
  resource: 'industry-alarms' | 'alarms' | 'sync-alarms';
  id: string;
  tenant_id: string | null;
  site_id: string | null;
  industry: string | null;
  unit_id: string | null;
  /** The unit in farm words: "House 2", "Room 4", "Field north"; the farm on a master; null when none. */
  where: string | null;
  /** A farm's alarm on a master: the farm in words. null for the box's own. */
  farm: string | null;
  title: string;
  /** The cause in words: "Temperature 38 °C, above the limit of 31 °C", or the alarm's own message. */
  cause: string | null;
  /**
   * The texts the box wrote itself, as message keys (box.*) with their parameters: a shell renders
   * them in its reader's language (`title` and `cause` are their English). null for a text a
   * person typed (a user-defined alarm) and for alarms stored before keys were kept.
   */
  title_key: string | null;
  /** The key of `cause`. */
  message_key: string | null;
  /** The key of `where` ("House 2"). */
  where_key: string | null;
  /** The parameters of title_key, message_key and where_key (one set for the three). */
  text_params: TextParams | null;
  metric: string | null;
  value: number | null;
  threshold: number | null;
  comparator: string | null;
  priority: 'P1' | 'P2' | null;
  severity: string;
  condition: 'active' | 'cleared';
  alarm_state: 'unacknowledged_active' | 'acknowledged_active' | 'unacknowledged_cleared' | 'normal';
  state: ViewState;
  /** In the annunciator (top bar count): not acknowledged, neither shelved nor out of service; active or back to normal. */
  annunciated: boolean;
  /** Sounds (tone, banner): annunciated, its condition active, and P1 (or critical/high without a priority). */
  urgent: boolean;
  /** Colour means priority: alarm = active P1 or critical; warn = active P2 or lower, or back to normal unacknowledged; muted = suppressed or normal. */
  tone: AlarmTone;
  /** A controller, bus or MQTT feed stopped answering (metric comm_loss). */
  comm_loss: boolean;
  latched: boolean;
  resettable: boolean;
  raise_count: number;
  raised_at: string;
  last_raised_at: string;
  /** Latched: when the readings showed the condition ended. */
  returned_at: string | null;
  cleared_at: string | null;
  reset_at: string | null;
  reset_by: string | null;
  acked_at: string | null;
  acked_by: string | null;
  /** While shelved: when it comes back by itself; null when not shelved. */
  shelved_until: string | null;
  /** The last shelve, kept after it ended (the alarm's history): when, who, why. */
  shelved_at: string | null;
  shelved_by: string | null;
  shelve_reason: string | null;
  sla_deadline_at: string | null;
  comments: { text: string; by: string; at: string }[];
  /** The commands that apply in this state; the shell offers those the person's role allows. */
  applicable: AlarmAction[];
}

export interface AlarmCounts { listed: number; annunciated: number; urgent: number }

export interface AlarmSummary extends AlarmCounts {
  by_state: Record<Exclude<ViewState, 'normal'>, number>;
  by_priority: { P1: AlarmCounts; P2: AlarmCounts; other: AlarmCounts };
  /** Changes whenever any listed alarm changes: equal revisions, equal lists. */
  revision: string;
  at: string;
}

/** The screen state: suppression first (shelved, out of service), then a latched alarm awaiting its reset, then the ISA state. */
export function viewStateOf(a: { alarm_state: AlarmViewItem['alarm_state']; shelved: boolean; out_of_service: boolean; latched: boolean; returned_at: string | null; condition: string }): ViewState {
  if (a.alarm_state === 'normal') return 'normal';
  if (a.out_of_service) return 'out_of_service';
  if (a.shelved) return 'shelved';
  if (a.latched && a.returned_at && a.condition === 'active') return 'latched';
  return a.alarm_state;
}

/**
 * Colour means priority (issue 32): red only for an active P1 (or critical/high without a
 * priority), acknowledged or not; amber for any other active alarm and for one back to normal and
 * not yet acknowledged (`condition` 'returned' for a latched alarm whose readings returned); grey
 * for the suppressed and the past.
 */
export function toneOf(a: { state: ViewState; condition: string; priority: string | null; severity: string }): AlarmTone {
  if (a.state === 'normal' || a.state === 'shelved' || a.state === 'out_of_service') return 'muted';
  if (a.condition !== 'active') return 'warn';
  const p1 = a.priority ? a.priority === 'P1' : a.severity === 'critical' || a.severity === 'high';
  return p1 ? 'alarm' : 'warn';
}

/** The commands of industry-alarms that apply to an alarm in this state (roles are checked apart). */
export function industryActions(a: { acked_at: string | null; condition: string; shelved: boolean; latched: boolean; returned_at: string | null; resettable: boolean }): AlarmAction[] {
  const out: AlarmAction[] = [];
  if (a.acked_at === null) out.push('ack');
  out.push('comment');
  if (a.condition === 'active' && !a.shelved) out.push('shelve');
  if (a.shelved) out.push('unshelve');
  if (a.condition === 'active' && a.resettable && (!a.latched || a.returned_at)) out.push('reset');
  return out;
}

const STATE_RANK = new Map(VIEW_STATES.map((s, i) => [s, i]));
const priorityRank = (a: AlarmViewItem) => (a.priority === 'P1' ? 0 : a.priority === 'P2' ? 1 : 2);
const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };

/** The view's order, on the box and in the shell (an event's alarm placed between two reads): urgent first, then annunciated, then the state (unacknowledged active first), priority, severity, newest. */
export function viewOrder(a: AlarmViewItem, b: AlarmViewItem): number {
  return Number(b.urgent) - Number(a.urgent) || Number(b.annunciated) - Number(a.annunciated)
    || (STATE_RANK.get(a.state) ?? 9) - (STATE_RANK.get(b.state) ?? 9) || priorityRank(a) - priorityRank(b)
    || (SEVERITY_RANK[a.severity] ?? 5) - (SEVERITY_RANK[b.severity] ?? 5) || b.last_raised_at.localeCompare(a.last_raised_at);
}
