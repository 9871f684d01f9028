// An alarm's state and story in the crew's words, from the box's alarm view item. The box decides
// the state and the tone; these only say them, with who (by the card holder's name) and when, in
// the reader's language (src/i18n/messages/<lang>/alarms.json). Words are read at render time (the
// shell re-renders whole when the language changes), never kept in a module-level table of text.
import { formatClock, formatDate } from '../lib/format';
import { boxText, t, type MessageKey, type MessageParams } from '../lib/i18n';
import { nameOf } from '../lib/people';
import type { AlarmViewItem } from '../lib/types';
import { industryName } from './shell-words';

/** "01:31" today, "24 Nov 2026, 01:31" another day: the minute is what a shift hands over. */
export function when(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toDateString() === new Date().toDateString() ? formatClock(d) : `${formatDate(d)}, ${formatClock(d)}`;
}

/** For how long, in words: "12 min", "3 h 5 min", "2 days". */
export function since(iso: string, now = Date.now()): string {
  const m = Math.max(0, Math.floor((now - Date.parse(iso)) / 60_000));
  if (m < 1) return t('alarms.since.underMinute');
  if (m < 120) return t('alarms.since.minutes', { m });
  if (m < 48 * 60) return t('alarms.since.hoursMinutes', { h: Math.floor(m / 60), m: m % 60 });
  return t('alarms.since.days', { d: Math.floor(m / 1440) });
}

// ---- the texts the box wrote: by their key in the reader's language, else the English it stored ----

/**
 * The keys the box keeps beside its English texts (title_key, message_key, where_key, text_params).
 * Read through this accessor so that the shell works with a box that sends them and with one that
 * does not (an older box, a record stored before keys were kept): the English is then shown.
 */
interface BoxKeys { title_key?: string | null; message_key?: string | null; where_key?: string | null; text_params?: MessageParams | null }

const keysOf = (a: object): BoxKeys => a as BoxKeys;
const paramsOf = (a: object): MessageParams | null => {
  const p = keysOf(a).text_params;
  return p && typeof p === 'object' ? p : null;
};

/** The alarm's title in the reader's language. */
export function alarmTitle(a: Pick<AlarmViewItem, 'title'>): string {
  return boxText(keysOf(a).title_key, paramsOf(a), a.title);
}

/** The alarm's cause ("Temperature 38 °C, above the limit of 31 °C") in the reader's language; null when none. */
export function alarmCause(a: Pick<AlarmViewItem, 'cause'>): string | null {
  return a.cause === null || a.cause === undefined ? null : boxText(keysOf(a).message_key, paramsOf(a), a.cause);
}

/** Where the alarm is ("House 2") in the reader's language; null when nowhere in particular. */
export function alarmWhere(a: Pick<AlarmViewItem, 'where'>): string | null {
  return a.where ? boxText(keysOf(a).where_key, paramsOf(a), a.where) : null;
}

/** Where an alarm is, as the inbox's meta line starts: at the farm (a master), its industry, or the site. */
export function placeWords(a: Pick<AlarmViewItem, 'farm' | 'industry'>): string {
  return a.farm ? t('alarms.inbox.farm') : a.industry ? industryName(a.industry) : t('alarms.inbox.site');
}

/** The cause is worth a line of its own: the box's cause says more than the title. */
export const hasOwnCause = (a: Pick<AlarmViewItem, 'cause' | 'title'>): boolean => !!a.cause && a.cause !== a.title;

// ---- the state ----

const BADGE: Record<AlarmViewItem['state'], MessageKey> = {
  unacknowledged_active: 'alarms.badge.unacknowledged_active',
  acknowledged_active: 'alarms.badge.acknowledged_active',
  unacknowledged_cleared: 'alarms.badge.unacknowledged_cleared',
  latched: 'alarms.badge.latched',
  shelved: 'alarms.badge.shelved',
  out_of_service: 'alarms.badge.out_of_service',
  normal: 'alarms.badge.normal',
};

/** The short word on the state badge. */
export function stateBadge(state: AlarmViewItem['state']): string {
  return t(BADGE[state] ?? 'alarms.badge.unacknowledged_active');
}

type Names = Map<string, string>;

const farm = (a: AlarmViewItem) => (a.farm ? 'yes' : 'no');

function acked(a: AlarmViewItem, names: Names): string {
  const who = nameOf(a.acked_by, names);
  return a.acked_at ? t('alarms.acked.byAt', { farm: farm(a), who, at: when(a.acked_at) }) : t('alarms.acked.by', { farm: farm(a), who });
}

/**
 * The state as a sentence: "Acknowledged by Anna Petrova at 01:31, still active", "Back to normal
 * at 01:33 — acknowledge", "Shelved until 03:00 by Anna Petrova (feeder repair)".
 */
export function stateWords(a: AlarmViewItem, names: Names): string {
  switch (a.state) {
    case 'unacknowledged_active':
      return t('alarms.words.active');
    case 'acknowledged_active': {
      const who = nameOf(a.acked_by, names);
      return a.acked_at ? t('alarms.words.ackedActiveAt', { farm: farm(a), who, at: when(a.acked_at) }) : t('alarms.words.ackedActive', { farm: farm(a), who });
    }
    case 'unacknowledged_cleared':
      // A farm's alarm is acknowledged at the farm: the master does not ask for it.
      return a.cleared_at ? t('alarms.words.backAt', { farm: farm(a), at: when(a.cleared_at) }) : t('alarms.words.back', { farm: farm(a) });
    case 'latched':
      return a.returned_at ? t('alarms.words.latchedReturned', { at: when(a.returned_at) }) : t('alarms.words.latchedActive');
    case 'shelved': {
      const until = a.shelved_until ? when(a.shelved_until) : '—';
      const who = a.shelved_by ? nameOf(a.shelved_by, names) : null;
      const reason = a.shelve_reason || null;
      if (who && reason) return t('alarms.words.shelvedByReason', { until, who, reason });
      if (who) return t('alarms.words.shelvedBy', { until, who });
      if (reason) return t('alarms.words.shelvedReason', { until, reason });
      return t('alarms.words.shelved', { until });
    }
    case 'out_of_service':
      return t('alarms.words.outOfService');
    default:
      if (a.reset_at) return t('alarms.words.resetBy', { who: nameOf(a.reset_by, names), at: when(a.reset_at) });
      return a.cleared_at ? t('alarms.words.overAt', { at: when(a.cleared_at) }) : t('alarms.words.over');
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
  const steps: StoryStep[] = [
    { key: 'raised', what: a.raise_count > 1 ? t('alarms.story.raisedTimes', { n: a.raise_count, at: when(a.last_raised_at) }) : t('alarms.story.raised'), at: a.raised_at },
  ];
  if (a.returned_at) steps.push({ key: 'returned', what: t('alarms.story.returned'), at: a.returned_at });
  if (a.acked_at) steps.push({ key: 'acknowledged', what: t('alarms.acked.by', { farm: farm(a), who: nameOf(a.acked_by, names) }), at: a.acked_at });
  // The last shelve stays on the alarm after it ended (shelved_at): the history says when, who and why.
  if (a.shelved_at) {
    const who = nameOf(a.shelved_by, names);
    const reason = a.shelve_reason || null;
    const until = a.shelved_until ? when(a.shelved_until) : null;
    const what =
      reason && until ? t('alarms.story.shelvedReasonUntil', { who, reason, until })
      : reason ? t('alarms.story.shelvedReason', { who, reason })
      : until ? t('alarms.story.shelvedUntil', { who, until })
      : t('alarms.story.shelved', { who });
    steps.push({ key: 'shelved', what, at: a.shelved_at });
  }
  if (a.reset_at) steps.push({ key: 'reset', what: t('alarms.story.reset', { who: nameOf(a.reset_by, names) }), at: a.reset_at });
  // A reset ends the condition at the same moment: said once, as the reset.
  if (a.cleared_at && a.cleared_at !== a.reset_at) steps.push({ key: 'cleared', what: t('alarms.story.cleared'), at: a.cleared_at });
  a.comments.forEach((c, i) => steps.push({ key: `comment-${i}`, what: t('alarms.story.comment', { who: nameOf(c.by, names), text: c.text }), at: c.at }));
  return steps.sort((x, y) => Date.parse(x.at) - Date.parse(y.at));
}

/**
 * The headline's place and title: a rule's title may already name the unit its own way ("Room
 * room-9: Room temperature above the limit"); the place is then said once, in farm words. The
 * decision is taken on the box's English (the same for every reader); the words shown are the
 * reader's. A title the box keyed is shown whole (its own words may name the place): the place
 * is then left out rather than said twice.
 */
export function headline(a: Pick<AlarmViewItem, 'where' | 'title'>): { where: string | null; title: string } {
  const title = alarmTitle(a);
  if (!a.where) return { where: null, title };
  const keyed = title !== a.title;
  const stripped = a.title.replace(/^(?:house|room|field|pen|unit)\s+[^:]{1,40}:\s*/i, '') || a.title;
  const named = stripped.toLowerCase().includes(a.where.toLowerCase());
  if (keyed) return { where: named || stripped !== a.title ? null : alarmWhere(a), title };
  return { where: named ? null : alarmWhere(a), title: stripped };
}
