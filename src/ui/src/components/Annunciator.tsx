// The annunciator on every screen: the count of unacknowledged alarms by priority in the top bar,
// a banner for an unacknowledged P1 naming the house (or room, or field) and the cause, and a tone
// generated with Web Audio (nothing downloaded) that repeats until the alarm is acknowledged or the
// tablet is silenced for a while (the silence is audited by the box). On a master, the farms' open
// P1 alarms are counted and announced the same way, naming the farm; they have no Acknowledge
// button here, since they are acknowledged at the farm.
import { useEffect, useState } from 'preact/hooks';
import { acknowledge, annunciation, silence, type ActiveAlarm } from '../lib/alarms';
import { describeError } from '../lib/api';
import { formatTime } from '../lib/format';
import { href } from '../lib/router';
import { useObservable } from '../lib/store';

const SILENCE_MINUTES = 5;
const BEEP_EVERY_MS = 1500;

const byPriority = (alarms: ActiveAlarm[], p: string) => alarms.filter((a) => a.priority === p).length;

export function AlarmCount() {
  const { alarms, moreP1 } = useObservable(annunciation);
  if (!alarms) return null;
  // moreP1: the farms' open P1s past the page the inbox loaded, counted all the same.
  const p1 = byPriority(alarms, 'P1') + moreP1;
  const p2 = byPriority(alarms, 'P2');
  const total = alarms.length + moreP1;
  const other = total - p1 - p2;
  const tone = p1 ? 'alarm' : total ? 'warn' : 'ok';
  const words = total ? [p1 ? `${p1} P1` : '', p2 ? `${p2} P2` : '', other ? `${other} other` : ''].filter(Boolean).join(' · ') : 'none';
  return (
    <a class={`btn alarm-count tone-${tone}`} id="alarm-count" href={href('alarms')} data-p1={p1} data-p2={p2} data-total={total} aria-live="polite">
      <span class="sr-only">Unacknowledged alarms: </span>
      <span aria-hidden="true">Alarms </span>
      {words}
    </a>
  );
}

/** A short beep, synthesised: an 880 Hz tone shaped so it does not click. */
function beep(ctx: AudioContext): void {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = 'square';
  osc.frequency.value = 880;
  const t = ctx.currentTime;
  gain.gain.setValueAtTime(0.0001, t);
  gain.gain.exponentialRampToValueAtTime(0.3, t + 0.02);
  gain.gain.exponentialRampToValueAtTime(0.0001, t + 0.35);
  osc.connect(gain).connect(ctx.destination);
  osc.start(t);
  osc.stop(t + 0.4);
}

let audio: AudioContext | undefined;
/** Browsers start audio only after a touch or a key: the context is resumed at the first one. */
function audioContext(): AudioContext | undefined {
  if (!audio && typeof AudioContext !== 'undefined') {
    audio = new AudioContext();
    const wake = () => void audio?.resume();
    addEventListener('pointerdown', wake, { once: true });
    addEventListener('keydown', wake, { once: true });
  }
  return audio;
}

function useTone(sounding: boolean): void {
  useEffect(() => {
    if (!sounding) return;
    const ctx = audioContext();
    if (!ctx) return;
    void ctx.resume().catch(() => {});
    beep(ctx);
    const t = setInterval(() => beep(ctx), BEEP_EVERY_MS);
    return () => clearInterval(t);
  }, [sounding]);
}

export function AlarmBanner() {
  const { alarms, moreP1, silencedUntil } = useObservable(annunciation);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const urgent = (alarms ?? []).filter((a) => a.priority === 'P1');
  const silenced = silencedUntil > now;
  // Wake up when the silence ends, so the tone comes back by itself.
  useEffect(() => {
    if (!silenced) return;
    const t = setTimeout(() => setNow(Date.now()), silencedUntil - now + 50);
    return () => clearTimeout(t);
  }, [silenced, silencedUntil, now]);
  const sounding = urgent.length > 0 && !silenced;
  useTone(sounding);
  if (!urgent.length) return null;
  const newest = urgent[0]!;
  const act = async (what: () => Promise<void>) => {
    setBusy(true);
    setError(null);
    try {
      await what();
      setNow(Date.now());
    } catch (err) {
      setError(describeError(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <section class="alarm-banner" id="alarm-banner" role="alert" data-sounding={sounding ? 'true' : 'false'} data-alarm={newest.id}>
      <p class="alarm-banner-what">
        {newest.where && !newest.title.toLowerCase().includes(newest.where.toLowerCase()) ? <span class="alarm-banner-where">{newest.where}: </span> : null}
        <strong>{newest.title}</strong>
        {newest.message ? <span class="alarm-banner-why"> {newest.message}</span> : null}
      </p>
      <p class="alarm-banner-when">
        {newest.farm ? 'At the farm, to be acknowledged there · since ' : 'Since '}
        {formatTime(newest.raised_at)}
        {urgent.length + moreP1 > 1 ? ` · ${urgent.length + moreP1 - 1} more urgent` : ''}
        {silenced ? ` · tone silenced until ${formatTime(new Date(silencedUntil).toISOString())}` : ''}
      </p>
      <div class="alarm-banner-actions">
        {newest.farm === null ? (
          <button type="button" class="btn primary" id="alarm-ack" disabled={busy} onClick={() => void act(() => acknowledge(newest))}>
            Acknowledge
          </button>
        ) : null}
        {!silenced ? (
          <button type="button" class="btn" id="alarm-silence" disabled={busy} onClick={() => void act(() => silence(SILENCE_MINUTES))}>
            Silence {SILENCE_MINUTES} min
          </button>
        ) : null}
        <a class="btn" href={href('alarms')}>All alarms</a>
      </div>
      {error ? <p class="field-error">{error}</p> : null}
    </section>
  );
}
