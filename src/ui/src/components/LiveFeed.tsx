// The latest status events, live (WebSocket) or polled.
import { formatTime, humanise, toneOf } from '../lib/format';
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

/**
 * What an alarm event is about, in its own words, with the house, room or field ("House 3:
 * temperature far below target"), when it says: the box's keys (title_key, where_key,
 * text_params) in the reader's language where the event carries them, else its English.
 */
function titleOf(e: { details?: unknown }): string | undefined {
  const d = e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : {};
  const english = d.title;
  if (typeof english !== 'string' || !english.trim()) return undefined;
  const params = d.text_params && typeof d.text_params === 'object' ? (d.text_params as MessageParams) : null;
  const title = boxText(str(d.title_key), params, english);
  const place = placeOf(str(d.industry_code), str(d.unit_id));
  if (!place || english.toLowerCase().includes(place.toLowerCase())) return title;
  return t('shell.feed.placeTitle', { where: boxText(str(d.where_key), params, place), title });
}

export function LiveFeed({ limit = 12 }: { limit?: number }) {
  const events = useObservable(recentEvents);
  const s = useObservable(session);
  return (
    <section class="panel live-feed" aria-labelledby="live-feed-h">
      <h2 id="live-feed-h">{t('shell.feed.title')}</h2>
      {events.length === 0 ? <p class="empty">{t('shell.feed.empty')}</p> : null}
      <ol class="events" id="events">
        {events.slice(0, limit).map((e) => (
          <li key={e.id} class={`tone-${toneOf(e.status) ?? 'muted'}`} data-status={e.status}>
            <time dateTime={e.timestamp}>{formatTime(e.timestamp)}</time> <strong>{sourceName(e.source, s)}</strong>: {eventWords(e.event)}
            {titleOf(e) ? <span class="event-title"> — {titleOf(e)}</span> : null} <span class={`badge tone-${toneOf(e.status) ?? 'muted'}`}>{statusWords(e.status)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
