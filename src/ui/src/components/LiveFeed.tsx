// The latest status events, live (WebSocket) or polled.
import { formatTime, humanise, toneOf } from '../lib/format';
import { recentEvents } from '../lib/live';
import { useObservable } from '../lib/store';

/** The contract's status values in the words an operator reads. */
const STATUS_WORDS: Record<string, string> = { ok: 'OK', warn: 'Warning', error: 'Alarm' };

export function LiveFeed({ limit = 12 }: { limit?: number }) {
  const events = useObservable(recentEvents);
  return (
    <section class="panel live-feed" aria-labelledby="live-feed-h">
      <h2 id="live-feed-h">Live status</h2>
      {events.length === 0 ? <p class="empty">No status events yet.</p> : null}
      <ol class="events" id="events">
        {events.slice(0, limit).map((e) => (
          <li key={e.id} class={`tone-${toneOf(e.status) ?? 'muted'}`} data-status={e.status}>
            <time dateTime={e.timestamp}>{formatTime(e.timestamp)}</time> <strong>{e.source}</strong>: {humanise(e.event)} <span class={`badge tone-${toneOf(e.status) ?? 'muted'}`}>{STATUS_WORDS[e.status] ?? humanise(e.status)}</span>
          </li>
        ))}
      </ol>
    </section>
  );
}
