import { formatTime } from '../lib/format';
import { t } from '../lib/i18n';

/**
 * A sentence of the catalogue whose words in <b>…</b> are to stand out ("<b>The box does not
 * answer</b> (or …)"): one message per sentence, the language deciding which words are bold.
 */
export function Bold({ text }: { text: string }) {
  const parts = text.split(/<b>(.*?)<\/b>/s);
  return <>{parts.map((p, i) => (i % 2 === 1 ? <strong key={i}>{p}</strong> : p))}</>;
}

/**
 * The mark on data the tablet could not refresh: the box's API did not answer, so the box itself
 * or the network between is down (a house controller that stops answering is the box's to tell,
 * by its communication-loss alarm). What is shown is the last known data, with its time.
 */
export function StaleNote({ at }: { at: string }) {
  return (
    <p class="stale-note" role="status" data-stale-since={at}>
      <Bold text={t('shell.stale.note', { at: formatTime(at) })} />
    </p>
  );
}

/** Without the server's stale mark (an older server), what stale_after_s defaults to. */
const DEFAULT_STALE_S = 300;

/** How long ago, in the crew's words: "just now", "2 min ago", "3 h ago", "2 days ago". */
export function agoWords(seconds: number): string {
  if (seconds < 60) return t('shell.ago.now');
  if (seconds < 3600) return t('shell.ago.minutes', { n: Math.floor(seconds / 60) });
  if (seconds < 48 * 3600) return t('shell.ago.hours', { n: Math.floor(seconds / 3600) });
  return t('shell.ago.days', { n: Math.floor(seconds / 86_400) });
}

/** For how long, in the crew's words: "10 s", "2 min", "3 h", "2 days". */
export function sinceWords(seconds: number): string {
  if (seconds < 60) return t('shell.for.seconds', { n: Math.max(0, Math.floor(seconds)) });
  if (seconds < 3600) return t('shell.for.minutes', { n: Math.floor(seconds / 60) });
  if (seconds < 48 * 3600) return t('shell.for.hours', { n: Math.floor(seconds / 3600) });
  return t('shell.for.days', { n: Math.floor(seconds / 86_400) });
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
export function ReadingAge({ ts, ageS, stale, manual = false, offline = false }: { ts: string; ageS: number; stale: boolean; manual?: boolean; offline?: boolean }) {
  const ago = agoWords(ageS);
  // Cut off from the box, the tablet cannot tell a silent controller from its own silence: the
  // values are the last known ones, and nobody is sent to check the controller.
  if (offline) {
    return (
      <div class="reading-at reading-offline" data-reading-ts={ts} data-stale="unknown" data-manual={manual ? 'true' : 'false'}>
        <dt>{manual ? t('shell.reading.lastKnownTyped') : t('shell.reading.lastKnownMeasured')}</dt>
        <dd>
          {formatTime(ts)} <span class="muted reading-age">({ago})</span>
        </dd>
      </div>
    );
  }
  return (
    <div class={`reading-at${stale ? ' reading-stale' : ''}${manual ? ' reading-manual' : ''}`} data-reading-ts={ts} data-stale={stale ? 'true' : 'false'} data-manual={manual ? 'true' : 'false'}>
      <dt>{manual ? t('shell.reading.typed') : t('shell.reading.measured')}</dt>
      <dd>
        {formatTime(ts)}{' '}
        {/* A stale reading's age is in its mark below; "(just now)" beside "No reading for 10 s" would contradict it. */}
        {stale && ageS < 60 ? null : <span class="muted reading-age">({ago})</span>}
        {stale ? <p class="stale-reading" role="status"><Bold text={t('shell.reading.none', { for: sinceWords(ageS) })} /></p> : null}
      </dd>
    </div>
  );
}
