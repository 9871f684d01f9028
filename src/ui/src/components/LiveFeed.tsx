// The latest status events, live (WebSocket) or polled.
import { formatTime, humanise, toneOf } from '../lib/format';
import { alarmStore, type AlarmItem } from '../lib/alarms';
import { placeOf } from '../lib/inbox';
import { recentEvents } from '../lib/live';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';
import { boxText, t, type MessageParams } from '../lib/i18n';

/** The contract's status values in the words an operator reads (another value as the box sent it). */
function statusWords(status: string): string {
  return t('shell.feed.status', { status }) || humanise(status);
}

/** An event's name in words ("Alarm raised"); one the catalogue does not know as the box names it. */
function eventWords(event: string): string {
  return t('shell.feed.event', { event }) || humanise(event);
}

/**
 * An event's source in words: a resource of the API (`poultry-alarms`) by its name ("Poultry
 * alarms"); anything else (a device, a house) as it was sent, since ids are what is on the label.
 */
function sourceName(source: string, s: Session | null | undefined): string {
  // The alarm circuits by what they are: "Swine alarm", "Site alarm" (not swine-alarms, alarms:site-north).
  if (source === 'alarms' || source.startsWith('alarms:')) return t('shell.feed.siteAlarm');
  const industry = /^(poultry|swine|melioration|industry)-alarms$/.exec(source)?.[1];
  if (industry) return t('shell.feed.industryAlarm', { industry });
  for (const paths of s?.resources.values() ?? []) if (paths.includes(source)) return humanise(source);
  return source;
}

const str = (v: unknown): string | null => (typeof v === 'string' && v ? v : null);
const obj = (v: unknown): Record<string, unknown> | null => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null);
const paramsOf = (v: unknown): MessageParams | null => obj(v) as MessageParams | null;

/** A title with its place before it ("House 3: …") unless the box's English already names it; both in the reader's words. */
function placed(english: string, titleKey: string | null, where: string | null, whereKey: string | null, params: MessageParams | null): string {
  const title = boxText(titleKey, params, english);
  if (!where || english.toLowerCase().includes(where.toLowerCase())) return title;
  return t('shell.feed.placeTitle', { where: boxText(whereKey, params, where), title });
}

/**
 * What an alarm event is about, in its own words, with the house, room or field ("House 3:
 * temperature far below target"), when it says; in the reader's language by the box's keys
 * (title_key, where_key, text_params): an alarm_changed event carries the alarm's view item; an
 * older event its title, and its keys when the box sends them, else those of the same alarm in the
 * alarm store. Without keys, the English the box wrote.
 */
function titleOf(e: { details?: unknown }, items: AlarmItem[] | null): string | undefined {
  const d = obj(e.details) ?? {};
  const item = obj(d.item);
  if (item && str(item.title)) return placed(str(item.title)!, str(item.title_key), str(item.where), str(item.where_key), paramsOf(item.text_params));
  const english = str(d.title);
  if (!english?.trim()) return undefined;
  const listed = d.title_key ? undefined : items?.find((a) => a.id === d.alarm_id && a.title === english);
  const keys: Record<string, unknown> = listed ? (listed as unknown as Record<string, unknown>) : d;
  return placed(english, str(keys.title_key), placeOf(str(d.industry_code), str(d.unit_id)), str(keys.where_key), paramsOf(keys.text_params));
}

export function LiveFeed({ limit = 12 }: { limit?: number }) {
  const events = useObservable(recentEvents);
  const s = useObservable(session);
  const { items } = useObservable(alarmStore);
  return (
    <section class="panel live-feed" aria-labelledby="live-feed-h">
      <h2 id="live-feed-h">{t('shell.feed.title')}</h2>
      {events.length === 0 ? <p class="empty">{t('shell.feed.empty')}</p> : null}
      <ol class="events" id="events">
        {events.slice(0, limit).map((e) => (
          <li key={e.id} class={`tone-${toneOf(e.status) ?? 'muted'}`} data-status={e.status}>
            <time dateTime={e.timestamp}>{formatTime(e.timestamp)}</time> <strong>{sourceName(e.source, s)}</strong>: {eventWords(e.event)}
            {titleOf(e, items) ? <span class="event-title"> — {titleOf(e, items)}</span> : null} <span class={`badge tone-${toneOf(e.status) ?? 'muted'}`}>{statusWords(e.status)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
