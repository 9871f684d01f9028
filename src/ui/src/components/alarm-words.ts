// An alarm's state and story in the crew's words, from the box's alarm view item. The box decides
// the state and the tone; these only say them, with who (by the card holder's name) and when.
import { formatClock, formatDate } from '../lib/format';
import { nameOf } from '../lib/people';
import type { AlarmViewItem } from '../lib/types';

/** "01:31" today, "24 Nov 2026, 01:31" another day: the minute is what a shift hands over. */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toDateString() === new Date().toDateString() ? formatClock(d) : `${formatDate(d)}, ${formatClock(d)}`;
}

/** For how long, in words: "12 min", "3 h 5 min", "2 days". */
export function since(iso: string, now = Date.now()): string {
  const m = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));
  if (m < 1) return 'under 1 min';
  if (m < 120) return `${m} min`;
  if (m < 48 * 60) return `${Math.floor(m / 60)} h ${m % 60} min`;
  return `${Math.floor(m / 1440)} days`;
}

/** The short word on the state badge. */
export const STATE_BADGE: Record<AlarmViewItem['state'], string> = {
  unacknowledged_active: 'Active',
  acknowledged_active: 'Acknowledged',
  unacknowledged_cleared: 'Back to normal',
  latched: 'Latched',
  shelved: 'Shelved',
  out_of_service: 'Out of service',
  normal: 'Over',
};

type Names = Map<string, string>;

function acked(a: AlarmViewItem, names: Names): string {
  const who = a.farm ? `at the farm by ${nameOf(a.acked_by, names)}` : `by ${nameOf(a.acked_by, names)}`;
  return `Acknowledged ${who}${a.acked_at ? ` at ${when(a.acked_at)}` : ''}`;
}

/**
 * The state as a sentence: "Acknowledged by Anna Petrova at 01:31, still active", "Back to normal
 * at 01:33 — acknowledge", "Shelved until 03:00 by Anna Petrova (feeder repair)".
 */
export function stateWords(a: AlarmViewItem, names: Names): string {
  switch (a.state) {
    case 'unacknowledged_active':
      return 'Active, not acknowledged';
    case 'acknowledged_active':
      return `${acked(a, names)}, still active`;
    case 'unacknowledged_cleared':
      // A farm's alarm is acknowledged at the farm: the master does not ask for it.
      return `Back to normal${a.cleared_at ? ` at ${when(a.cleared_at)}` : ''}${a.farm ? ', not yet acknowledged at the farm' : ' — acknowledge'}`;
    case 'latched':
      return a.returned_at
        ? `Latched: back to normal at ${when(a.returned_at)}, an admin resets it`
        : 'Latched: still active; once back to normal, an admin resets it';
    case 'shelved': {
      const by = a.shelved_by ? ` by ${nameOf(a.shelved_by, names)}` : '';
      return `Shelved until ${a.shelved_until ? when(a.shelved_until) : '—'}${by}${a.shelve_reason ? ` (${a.shelve_reason})` : ''}`;
    }
    case 'out_of_service':
      return 'Out of service';
    default:
      if (a.reset_at) return `Reset by ${nameOf(a.reset_by, names)} at ${when(a.reset_at)}`;
      return a.cleared_at ? `Back to normal at ${when(a.cleared_at)}` : 'Over';
  }
}

/**
 * A second line where the state sentence leaves the acknowledgement out (latched, shelved, out of
 * service), so nobody acknowledges twice or wonders who did.
 */
export function ackLine(a: AlarmViewItem, names: Names): string | null {
  if (!a.acked_at && !a.acked_by) return null;
  if (a.state === 'acknowledged_active') return null;
  return acked(a, names);
}

export interface StoryStep { what: string; at: string; key: string }

/** Every time the alarm's record keeps, oldest first: raised, returned, back to normal, acknowledged, shelved, reset, comments. */
export function story(a: AlarmViewItem, names: Names): StoryStep[] {
  const steps: StoryStep[] = [{ key: 'raised', what: a.raise_count > 1 ? `Raised (${a.raise_count} times, last at ${when(a.last_raised_at)})` : 'Raised', at: a.raised_at }];
  if (a.returned_at) steps.push({ key: 'returned', what: 'Back to normal (latched: waits for a reset)', at: a.returned_at });
  if (a.acked_at) steps.push({ key: 'acknowledged', what: `Acknowledged ${a.farm ? 'at the farm ' : ''}by ${nameOf(a.acked_by, names)}`, at: a.acked_at });
  // The last shelve stays on the alarm after it ended (shelved_at): the history says when, who and why.
  if (a.shelved_at) steps.push({ key: 'shelved', what: `Shelved by ${nameOf(a.shelved_by, names)}${a.shelve_reason ? ` (${a.shelve_reason})` : ''}${a.shelved_until ? `, until ${when(a.shelved_until)}` : ''}`, at: a.shelved_at });
  if (a.reset_at) steps.push({ key: 'reset', what: `Reset by ${nameOf(a.reset_by, names)}`, at: a.reset_at });
  // A reset ends the condition at the same moment: said once, as the reset.
  if (a.cleared_at && a.cleared_at !== a.reset_at) steps.push({ key: 'cleared', what: 'Back to normal', at: a.cleared_at });
  a.comments.forEach((c, i) => steps.push({ key: `comment-${i}`, what: `Comment by ${nameOf(c.by, names)}: ${c.text}`, at: c.at }));
  return steps.sort((x, y) => Date.parse(x.at) - Date.parse(y.at));
}

/**
 * The headline's place and title: a rule's title may already name the unit its own way ("Room
 * room-9: Room temperature above the limit"); the place is then said once, in farm words.
 */
export function headline(a: Pick<AlarmViewItem, 'where' | 'title'>): { where: string | null; title: string } {
  if (!a.where) return { where: null, title: a.title };
  const title = a.title.replace(/^(?:house|room|field|pen|unit)\s+[^:]{1,40}:\s*/i, '') || a.title;
  return { where: title.toLowerCase().includes(a.where.toLowerCase()) ? null : a.where, title };
}
