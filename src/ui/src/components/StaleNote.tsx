import { formatTime } from '../lib/format';

/** The mark on data that is not live: the controller did not answer, this is what it said last. */
export function StaleNote({ at }: { at: string }) {
  return (
    <p class="stale-note" role="status">
      <strong>Stale:</strong> the controller does not answer; last known data from {formatTime(at)}.
    </p>
  );
}

/** Without the server's stale mark (an older server), what stale_after_s defaults to. */
const DEFAULT_STALE_S = 300;

/** How long ago, in the crew's words: "just now", "2 min ago", "3 h ago", "2 days ago". */
export function sinceWords(seconds: number): string {
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min`;
  if (seconds < 48 * 3600) return `${Math.floor(seconds / 3600)} h`;
  return `${Math.floor(seconds / 86_400)} days`;
}

/**
 * A reading's age now (from its ts, so a page left open keeps counting) and whether it is stale:
 * the server's mark (age above stale_after_s when it answered), or the age passing the limit
 * the server's age_s and stale imply since.
 */
export function readingAge(reading: Record<string, unknown> | undefined, now = Date.now()): { ageS: number; stale: boolean } | undefined {
  const ts = reading?.ts;
  if (typeof ts !== 'string' || Number.isNaN(Date.parse(ts))) return undefined;
  const ageS = Math.max(0, Math.floor((now - Date.parse(ts)) / 1000));
  return { ageS, stale: reading!.stale === true || (reading!.stale === undefined && ageS > DEFAULT_STALE_S) };
}

/**
 * The age line of a reading, with the stale mark in farm words when it is old. `manual`: a person
 * typed the values in (the reading's source is `manual`): the crew must not take them for the
 * controller's, so the line says so.
 */
export function ReadingAge({ ts, ageS, stale, manual = false }: { ts: string; ageS: number; stale: boolean; manual?: boolean }) {
  const words = sinceWords(ageS);
  return (
    <div class={`reading-at${stale ? ' reading-stale' : ''}${manual ? ' reading-manual' : ''}`} data-reading-ts={ts} data-stale={stale ? 'true' : 'false'} data-manual={manual ? 'true' : 'false'}>
      <dt>{manual ? 'Typed in by hand' : 'Measured'}</dt>
      <dd>
        {formatTime(ts)}{' '}
        {/* A stale reading's age is in its mark below; "(just now)" beside "No reading for 10 s" would contradict it. */}
        {stale && ageS < 60 ? null : <span class="muted reading-age">({words === 'just now' ? words : `${words} ago`})</span>}
        {stale ? <p class="stale-reading" role="status"><strong>No reading for {ageS < 60 ? `${ageS} s` : words}</strong> — check the controller</p> : null}
      </dd>
    </div>
  );
}
