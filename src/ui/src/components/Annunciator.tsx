// The annunciator on every screen, read from the one alarm store (lib/alarms.ts): the top bar's
// count of the annunciated alarms by priority ("unknown since …" when the box cannot be reached,
// never "none"), a banner for the urgent alarms naming the house and the cause in words, and a tone
// generated with Web Audio (nothing downloaded). The tone sounds while an urgent alarm is neither
// acknowledged nor silenced at its current raise on this tablet: silencing quiets the alarms
// sounding at that moment, so a new P1, or one raised again, sounds. An urgent alarm whose
// condition returned stays in the banner as "back to normal, acknowledge", without a sound.
// Browsers hold Web Audio back until a touch: the top bar then asks for one, first of all.
import { useEffect, useState } from 'preact/hooks';
import type { AlarmSummary } from '../lib/types';
import { alarmCommand, alarmStore, isSilenced, LIST_LIMIT, mayDo, silence, silenceTone, soundingAlarms, type AlarmItem } from '../lib/alarms';
import { describeError } from '../lib/api';
import { formatTime } from '../lib/format';
import { t } from '../lib/i18n';
import { href } from '../lib/router';
import { session } from '../lib/session';
import { observable, useObservable } from '../lib/store';
import { alarmCause, alarmTitle, alarmWhere, hasOwnCause } from './alarm-words';

const SILENCE_MINUTES = 5;
const BEEP_EVERY_MS = 1500;
/** How long a resume() may take before the context counts as held back (Chrome leaves the promise pending). */
const RESUME_WAIT_MS = 400;

/** P1, or critical/high without a priority: the alarms that sound while active. */
const urgentKind = (a: AlarmItem) => a.priority === 'P1' || (a.priority === null && (a.severity === 'critical' || a.severity === 'high'));

/** In the banner: sounding-class alarms that are urgent, or back to normal and waiting for an acknowledgement. */
export function bannerAlarms(items: AlarmItem[] | null): AlarmItem[] {
  return (items ?? []).filter((a) => a.urgent || (a.annunciated && a.condition === 'cleared' && urgentKind(a)));
}

/** Acknowledged, but its condition is still there (or latched): not announced, still a house's trouble. */
const stillActive = (a: AlarmItem) => !a.annunciated && a.condition === 'active' && (a.state === 'acknowledged_active' || a.state === 'latched');

/**
 * "Alarms 2 P1 · 1 P2" from the store's annunciated alarms, and how many acknowledged ones are
 * still active; the summary's counts when the list was cut short (past its 500).
 */
function counts(items: AlarmItem[], summary: AlarmSummary | null) {
  // Only a full page of alarms was cut short; below that the events keep the list more current than the summary.
  if (summary && items.length >= LIST_LIMIT && summary.listed > items.length) {
    const { P1, P2, other } = summary.by_priority;
    return { p1: P1.annunciated, p2: P2.annunciated, other: other.annunciated, active: summary.by_state.acknowledged_active + summary.by_state.latched };
  }
  const shown = items.filter((a) => a.annunciated);
  const p1 = shown.filter((a) => a.priority === 'P1').length;
  const p2 = shown.filter((a) => a.priority === 'P2').length;
  return { p1, p2, other: shown.length - p1 - p2, active: items.filter(stillActive).length };
}

export function AlarmCount() {
  const { items, summary, reachable, unknownSince } = useObservable(alarmStore);
  if (!items) {
    // Nothing read yet and the box out of reach: unknown, not "none".
    if (reachable || unknownSince === null) return null;
  }
  if (!reachable) {
    const at = formatTime(new Date(unknownSince ?? Date.now()).toISOString());
    return (
      <a class="btn alarm-count tone-unknown" id="alarm-count" href={href('alarms')} data-state="unknown" aria-live="polite">
        <span class="sr-only">{t('alarms.count.unknownLabel')} </span>
        {t('alarms.count.unknownSince', { at })}
      </a>
    );
  }
  const { p1, p2, other, active } = counts(items ?? [], summary);
  const total = p1 + p2 + other;
  const tone = p1 ? 'alarm' : total || active ? 'warn' : 'ok';
  // A list of counts, not a sentence: each count its own words, set apart by the middle dot.
  const words = [p1 ? t('alarms.count.p1', { n: p1 }) : '', p2 ? t('alarms.count.p2', { n: p2 }) : '', other ? t('alarms.count.other', { n: other }) : ''].filter(Boolean).join(' · ');
  // An acknowledged alarm whose condition is still there is not "none": it is said apart.
  const acked = active > 0;
  const none = !words && !acked;
  return (
    <a class={`btn alarm-count tone-${tone}`} id="alarm-count" href={href('alarms')} data-state="known" data-p1={p1} data-p2={p2} data-total={total} data-active={active} aria-live="polite">
      <span class="sr-only">{t('alarms.count.knownLabel')} {none ? `${t('alarms.count.none')} ` : ''}</span>
      {/* Nothing to count: one phrase of its own in each language ("Alarms none", "Тревог нет", "Sin alarmas"). */}
      {none ? (
        <span aria-hidden="true">{t('alarms.count.noneShown')}</span>
      ) : (
        <>
          <span aria-hidden="true">{t('alarms.count.word')} </span>
          {words}
          {words && acked ? ' · ' : ''}
          {/* On a phone the long words would push the top bar past the screen: "1 still active" there (one sentence each, the other hidden). */}
          {acked ? (
            <span class="alarm-count-active">
              <span class="alarm-count-long">{t('alarms.count.stillActiveLong', { n: active })}</span>
              <span class="alarm-count-short">{t('alarms.count.stillActiveShort', { n: active })}</span>
            </span>
          ) : null}
        </>
      )}
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

/** Whether the tablet can sound: `held` while the browser waits for a touch before it plays audio. */
export const audioState = observable<'unknown' | 'running' | 'held' | 'none'>('unknown');

let audio: AudioContext | undefined;
function audioContext(): AudioContext | undefined {
  if (!audio && typeof AudioContext !== 'undefined') {
    audio = new AudioContext();
    const ctx = audio;
    ctx.onstatechange = () => {
      // Held back until now: the tap that let it start gets one short test tone, wherever it was.
      if (ctx.state === 'running' && audioState.get() === 'held') beep(ctx);
      audioState.set(ctx.state === 'running' ? 'running' : 'held');
    };
    // Any touch or key wakes it too, not only the prompt's button.
    const wake = () => void ctx.resume().catch(() => undefined);
    addEventListener('pointerdown', wake);
    addEventListener('keydown', wake);
  }
  if (!audio) audioState.set('none');
  return audio;
}

/** Tries to start audio; a browser that holds it back leaves the context suspended (its resume() never settles). */
async function checkAudio(): Promise<void> {
  const ctx = audioContext();
  if (!ctx) return;
  if (ctx.state !== 'running') {
    await Promise.race([ctx.resume().catch(() => undefined), new Promise((r) => setTimeout(r, RESUME_WAIT_MS))]);
  }
  audioState.set(ctx.state === 'running' ? 'running' : 'held');
}

/** The tap the browser waits for: audio on (the state change plays the test tone, so the person hears it works). */
async function enableAudio(): Promise<void> {
  await audioContext()?.resume();
}

/** The top bar's first control after a reload while audio is held back. */
export function AudioPrompt() {
  const st = useObservable(audioState);
  const { items } = useObservable(alarmStore);
  const [error, setError] = useState('');
  useEffect(() => {
    if (audioState.get() === 'unknown') void checkAudio();
  }, []);
  // Only for a person the alarms sound for.
  if (st !== 'held' || !items) return null;
  return (
    <button
      type="button"
      class="btn audio-prompt"
      id="audio-prompt"
      title={error || undefined}
      onClick={() => void enableAudio().catch((err: unknown) => setError(describeError(err)))}
    >
      {t('alarms.audio.prompt')}
    </button>
  );
}

function useTone(sounding: boolean): void {
  useEffect(() => {
    if (!sounding) return;
    const ctx = audioContext();
    if (!ctx) return;
    void ctx.resume().catch(() => undefined);
    beep(ctx);
    const t = setInterval(() => beep(ctx), BEEP_EVERY_MS);
    return () => clearInterval(t);
  }, [sounding]);
}

/** "House 2: " unless the title already names it (decided on the box's English; said in the reader's words). */
function whereOf(a: AlarmItem): string | null {
  const where = a.farm ?? a.where;
  if (!where || a.title.toLowerCase().includes(where.toLowerCase())) return null;
  return a.farm ?? alarmWhere(a);
}

export function AlarmBanner() {
  const { items } = useObservable(alarmStore);
  const s = useObservable(session);
  const quiet = useObservable(silence);
  const [now, setNow] = useState(Date.now());
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const shown = bannerAlarms(items);
  const sounding = soundingAlarms(items, quiet, now);
  // Wake up when the silence ends, so the tone comes back by itself.
  useEffect(() => {
    if (quiet.until <= now) return;
    const t = setTimeout(() => setNow(Date.now()), quiet.until - now + 50);
    return () => clearTimeout(t);
  }, [quiet.until, now]);
  useTone(sounding.length > 0);
  if (!shown.length) return null;
  // The one that sounds first (the store's order: urgent first), else the newest back to normal.
  const top = sounding[0] ?? shown[0]!;
  const back = top.condition === 'cleared';
  const silenced = isSilenced(top, quiet, now);
  const others = shown.length - 1;
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
  const where = whereOf(top);
  return (
    <section
      class={`alarm-banner${back ? ' alarm-banner-back' : ''}`}
      id="alarm-banner"
      role="alert"
      data-sounding={sounding.length > 0 ? 'true' : 'false'}
      data-alarm={top.id}
      data-state={top.state}
    >
      <p class="alarm-banner-what">
        {where ? <span class="alarm-banner-where">{where}: </span> : null}
        <strong class="alarm-banner-title">{alarmTitle(top)}</strong>
        {hasOwnCause(top) ? <span class="alarm-banner-why"> — {alarmCause(top)}</span> : null}
      </p>
      <p class="alarm-banner-when">
        {back ? (
          <span class="alarm-banner-back-words">{t('alarms.banner.backAt', { at: formatTime(top.cleared_at ?? top.returned_at ?? top.last_raised_at) })}</span>
        ) : (
          <>
            {top.farm ? t('alarms.banner.sinceFarm', { at: formatTime(top.raised_at) }) : t('alarms.banner.since', { at: formatTime(top.raised_at) })}
            {top.raise_count > 1 ? ` · ${t('alarms.banner.raisedTimes', { n: top.raise_count, at: formatTime(top.last_raised_at) })}` : ''}
          </>
        )}
        {/* Facts side by side, each its own sentence, set apart by the middle dot. */}
        {others > 0 ? ` · ${t('alarms.banner.more', { n: others })}` : ''}
        {silenced ? ` · ${t('alarms.banner.silenced', { at: formatTime(new Date(quiet.until).toISOString()) })}` : ''}
      </p>
      <div class="alarm-banner-actions">
        {s && mayDo(s, top, 'ack') ? (
          <button type="button" class="btn primary" id="alarm-ack" disabled={busy} onClick={() => void act(() => alarmCommand(top, 'ack'))}>
            {t('common.action.acknowledge')}
          </button>
        ) : null}
        {sounding.length > 0 ? (
          <button type="button" class="btn" id="alarm-silence" disabled={busy} onClick={() => void act(() => silenceTone(SILENCE_MINUTES))}>
            {t('alarms.banner.silence', { n: SILENCE_MINUTES })}
          </button>
        ) : null}
        <a class="btn" href={href('alarms')}>{t('alarms.banner.all')}</a>
      </div>
      {error ? <p class="field-error">{error}</p> : null}
    </section>
  );
}
