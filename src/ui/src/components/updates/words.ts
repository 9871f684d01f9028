// A box's self-update in the reader's words, for the fleet's screens (from a site's report on the
// master) and the box's own (from GET /api/v1/updates/status): the step ("Downloading 40 %"), its
// colour, the reason (the box's catalogue key updates.reason.<code> with its data, else the English
// the box wrote), what the install waits for. Keys, never English, so the words follow the language.
import type { Tone } from '../../lib/format';
import { boxText, readerLocale, t, type MessageKey, type MessageParams } from '../../lib/i18n';

/** The steps the box reports (src/modules/updates/state.ts UPDATE_STEPS); a newer box's other step is shown as it names it. */
const STEP_KEYS: Record<string, MessageKey> = {
  idle: 'updates.step.idle',
  downloading: 'updates.step.downloading',
  verified: 'updates.step.verified',
  waiting_for_window: 'updates.step.waiting_for_window',
  installing: 'updates.step.installing',
  proving: 'updates.step.proving',
  done: 'updates.step.done',
  rolled_back: 'updates.step.rolled_back',
  failed: 'updates.step.failed',
};

// Red: the box went back or refused the package (someone should look); amber: the box is in the
// delicate part (the new version installed but not yet proven); green: done; grey otherwise.
const TONES: Record<string, Tone> = { installing: 'warn', proving: 'warn', done: 'ok', rolled_back: 'alarm', failed: 'alarm' };

export interface StepReport {
  step: string | null | undefined;
  /** 0..1 while downloading. */
  progress?: number | null;
  /** A reason code is set (idle with a reason: the box does not update, and says why). */
  reason_code?: string | null;
  /** The version offered (idle with a target: not begun yet). */
  target?: string | null;
}

export function stepTone(step: string | null | undefined): Tone {
  return (step && TONES[step]) || 'muted';
}

/** "Downloading 40 %", "Waiting to install", "Rolled back"; "Not reported" for an older box. */
export function stepWords(r: StepReport): string {
  const step = r.step;
  if (!step) return t('updates.view.step.unreported');
  if (step === 'downloading' && typeof r.progress === 'number') return t('updates.view.step.downloading', { p: Math.min(Math.max(r.progress, 0), 0.999) });
  if (step === 'idle' && r.reason_code) return t('updates.view.step.not_updating');
  if (step === 'idle' && r.target) return t('updates.view.step.offered', { version: r.target });
  const key = STEP_KEYS[step];
  return key ? t(key) : step.replace(/_/g, ' ');
}

/**
 * What the install waits for, by the reason code the box gave for waiting_for_window: a sentence
 * without data, for a reader who has the code but not its parameters (the master keeps none).
 */
const WAIT_OF_REASON: Record<string, MessageKey> = {
  outside_window: 'updates.view.wait.window',
  p1_unacknowledged: 'updates.view.wait.p1_alarm',
  setpoint_write: 'updates.view.wait.setpoint_write',
  no_previous_package: 'updates.view.wait.previous_package',
};

/** The wait codes of GET /api/v1/updates/status waiting_for (src/modules/updates/gates.ts WAITS). */
const WAIT_WORDS: Record<string, MessageKey> = {
  window: 'updates.waiting.window',
  p1_alarm: 'updates.waiting.p1_alarm',
  setpoint_write: 'updates.waiting.setpoint_write',
  previous_package: 'updates.waiting.previous_package',
};

export function waitWords(code: string): string {
  const key = WAIT_WORDS[code];
  return key ? t(key) : code.replace(/_/g, ' ');
}

/**
 * The box's reason in the reader's language: its key with its data; without the data (the master's
 * copy of a report) a wait's own sentence, else the key when it needs none, else the box's English.
 */
export function reasonWords(code: string | null | undefined, params: MessageParams | null | undefined, english: string | null | undefined): string {
  if (!code) return english ?? '';
  const text = boxText(`updates.reason.${code}`, params ?? null, english ?? '');
  if (params || text !== (english ?? '') || !WAIT_OF_REASON[code]) return text;
  return t(WAIT_OF_REASON[code]);
}

/** "12.3 MB" in the reader's digits and unit (Intl's unit names, so no catalogue words). */
export function sizeWords(bytes: number): string {
  const mb = bytes / 1_000_000;
  const [value, unit] = mb >= 1 ? [mb, 'megabyte'] : bytes >= 1000 ? [bytes / 1000, 'kilobyte'] : [bytes, 'byte'];
  return new Intl.NumberFormat(readerLocale(), { style: 'unit', unit, unitDisplay: 'short', maximumFractionDigits: 1 }).format(value);
}

/** "10 min", "1 h 30 min", "45 s": a duration given in seconds, in the reader's words. */
export function secondsWords(s: number): string {
  if (s < 120) return t('updates.view.seconds', { n: Math.round(s) });
  const m = Math.round(s / 60);
  return m < 120 ? t('updates.view.minutes', { n: m }) : t('updates.view.hours', { h: Math.floor(m / 60), m: m % 60 });
}
