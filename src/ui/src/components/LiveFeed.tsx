// The latest status events, live (WebSocket) or polled.
import { formatTime, humanise, toneOf } from '../lib/format';
import { placeOf } from '../lib/inbox';
import { recentEvents } from '../lib/live';
import { session, type Session } from '../lib/session';
import { useObservable } from '../lib/store';

/** The contract's status values in the words an operator reads. */
const STATUS_WORDS: Record<string, string> = { ok: 'OK', warn: 'Warning', error: 'Alarm' };

/**
 * An event's source in words: a resource of the API (`poultry-alarms`) by its name ("Poultry
 * alarms"); anything else (a device, a house) as it was sent, since ids are what is on the label.
 */
function sourceName(source: string, s: Session | null | undefined): string {
  // The alarm circuits by what they are: "Swine alarm", "Site alarm" (not swine-alarms, alarms:site-north).
  if (source === 'alarms' || source.startsWith('alarms:')) return 'Site alarm';
  const industry = /^(poultry|swine|melioration|industry)-alarms$/.exec(source)?.[1];
  if (industry) return industry === 'industry' ? 'Alarm' : `${humanise(industry)} alarm`;
  for (const paths of s?.resources.values() ?? []) if (paths.includes(source)) return humanise(source);
  return source;
}

/** What an alarm event is about, in its own words, with the house, room or field ("House 3: temperature far below target"), when it says. */
function titleOf(e: { details?: unknown }): string | undefined {
  const d = e.details && typeof e.details === 'object' ? (e.details as Record<string, unknown>) : {};
  const t = d.title;
  if (typeof t !== 'string' || !t.trim()) return undefined;
  const where = placeOf(typeof d.industry_code === 'string' ? d.industry_code : null, typeof d.unit_id === 'string' ? d.unit_id : null);
  return where && !t.toLowerCase().includes(where.toLowerCase()) ? `${where}: ${t}` : t;
}

export function LiveFeed({ limit = 12 }: { limit?: number }) {
  const events = useObservable(recentEvents);
  const s = useObservable(session);
  return (
    <section class="panel live-feed" aria-labelledby="live-feed-h">
      <h2 id="live-feed-h">Live status</h2>
      {events.length === 0 ? <p class="empty">No status events yet.</p> : null}
      <ol class="events" id="events">
        {events.slice(0, limit).map((e) => (
          <li key={e.id} class={`tone-${toneOf(e.status) ?? 'muted'}`} data-status={e.status}>
            <time dateTime={e.timestamp}>{formatTime(e.timestamp)}</time> <strong>{sourceName(e.source, s)}</strong>: {humanise(e.event)}
            {titleOf(e) ? <span class="event-title"> — {titleOf(e)}</span> : null} <span class={`badge tone-${toneOf(e.status) ?? 'muted'}`}>{STATUS_WORDS[e.status] ?? humanise(e.status)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
