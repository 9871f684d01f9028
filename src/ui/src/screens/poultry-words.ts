// The words of the poultry screens (the overview's house cards, the house screen, its charts and
// the setpoint flow) that are built from data: values with their units, the alarm counts of a
// card, deadlines, and the outcome of a setpoint write. Every one is read from the catalogue
// (src/i18n/messages/<lang>/overview.json, setpoints.json, charts.json) at the moment it is
// shown, so a change of language reads them again. Numbers go through ICU ({v, number}): 1,5 in
// Russian and Spanish, the unit after the number.
import { boxText, readerLocale, t, type MessageKey, type MessageParams } from '../lib/i18n';
import { humanise } from '../lib/format';
import type { AlarmItem } from '../lib/alarms';

/** The units of the poultry screens, by id (their words are the catalogue's: "л" for L in Russian). */
export type Unit = 'c' | 'pct' | 'ppm' | 'l' | 'kg' | 'ml' | 'g';

const UNITS: Record<Unit, MessageKey> = {
  c: 'overview.unit.c',
  pct: 'overview.unit.pct',
  ppm: 'overview.unit.ppm',
  l: 'overview.unit.l',
  kg: 'overview.unit.kg',
  ml: 'overview.unit.ml',
  g: 'overview.unit.g',
};

export const unitWord = (u: Unit): string => t(UNITS[u]);

/** A value as the screens show it: whole numbers as they are, others to `digits` decimals (none from 100 up). */
export function rounded(v: number, digits = 1): number {
  if (Number.isInteger(v)) return v;
  const d = Math.abs(v) >= 100 ? 0 : digits;
  const f = 10 ** d;
  return Math.round(v * f) / f;
}

/** "25.5 °C", "25,5 °C"; "—" for no value. `unit` is a unit id or words already read ("mL"). */
export function valueWords(v: number | null | undefined, unit: Unit | string, digits = 1): string {
  if (v === null || v === undefined || !Number.isFinite(v)) return '—';
  return t('overview.value', { v: rounded(v, digits), unit: unit in UNITS ? unitWord(unit as Unit) : unit });
}

/** A number alone in the reader's language ("1 400", "25,5"). */
export function numberWords(v: number, digits = 1): string {
  return new Intl.NumberFormat(readerLocale()).format(rounded(v, digits));
}

/** The climate metrics of a house card and its charts, by key. */
export type MetricKey = 'temp' | 'humidity' | 'co2' | 'nh3' | 'ventilation';

const METRIC_WORDS: Record<MetricKey, MessageKey> = {
  temp: 'overview.metric.temp',
  humidity: 'overview.metric.humidity',
  co2: 'overview.metric.co2',
  nh3: 'overview.metric.nh3',
  ventilation: 'overview.metric.ventilation',
};

export const metricWord = (k: MetricKey): string => t(METRIC_WORDS[k]);

/** A band as the card writes it: "target 25.5 (24–27) °C", "target ≤ 3000 ppm"; undefined without one. */
export function targetWords(band: { min?: number; max?: number; target?: number }, unit: Unit): string | undefined {
  const u = unitWord(unit);
  const min = band.min === undefined ? undefined : rounded(band.min);
  const max = band.max === undefined ? undefined : rounded(band.max);
  if (band.target !== undefined) {
    const target = rounded(band.target);
    return min !== undefined && max !== undefined ? t('overview.target.band', { target, min, max, unit: u }) : t('overview.target.only', { target, unit: u });
  }
  if (min !== undefined && max !== undefined) return t('overview.target.range', { min, max, unit: u });
  if (max !== undefined) return t('overview.target.atMost', { max, unit: u });
  if (min !== undefined) return t('overview.target.atLeast', { min, unit: u });
  return undefined;
}

const KINDS: Record<string, MessageKey> = { broiler: 'overview.kind.broiler', layer: 'overview.kind.layer', breeder: 'overview.kind.breeder' };
/** The kind of flock in words; one the shell does not know, as the box named it. */
export const kindWord = (subtype: string): string => (KINDS[subtype] ? t(KINDS[subtype]) : humanise(subtype));

const LINE_STATES: Record<string, MessageKey> = { unknown: 'overview.fw.unknown', ok: 'overview.fw.ok', warn: 'overview.fw.warn', alarm: 'overview.fw.alarm' };
/** The feed and water line's state in words. */
export const lineStateWord = (s: string): string => (LINE_STATES[s] ? t(LINE_STATES[s]) : humanise(s));

const ANOMALIES: Record<string, MessageKey> = {
  water_spike: 'overview.anomaly.water_spike',
  water_drop: 'overview.anomaly.water_drop',
  feed_drop: 'overview.anomaly.feed_drop',
  feed_spike: 'overview.anomaly.feed_spike',
  low_pressure: 'overview.anomaly.low_pressure',
  water_high: 'overview.anomaly.water_high',
  water_low: 'overview.anomaly.water_low',
  feed_high: 'overview.anomaly.feed_high',
  feed_low: 'overview.anomaly.feed_low',
  high_pressure: 'overview.anomaly.high_pressure',
  water_feed_ratio: 'overview.anomaly.water_feed_ratio',
};
/** A feed and water anomaly flag in words. */
export const anomalyWord = (flag: string): string => (ANOMALIES[flag] ? t(ANOMALIES[flag]) : humanise(flag));

const SEVERITIES: Record<string, MessageKey> = {
  critical: 'overview.severity.critical',
  high: 'overview.severity.high',
  medium: 'overview.severity.medium',
  low: 'overview.severity.low',
  warning: 'overview.severity.warning',
  info: 'overview.severity.info',
};
/** An alarm's severity in words (lower case: it stands inside a line); one the shell does not know, as the box named it. */
export const severityWord = (s: string): string => (SEVERITIES[s.toLowerCase()] ? t(SEVERITIES[s.toLowerCase()]!) : humanise(s).toLowerCase());

const GROUPS: Record<AlarmItem['state'], MessageKey> = {
  unacknowledged_active: 'overview.group.unacknowledged_active',
  acknowledged_active: 'overview.group.acknowledged_active',
  unacknowledged_cleared: 'overview.group.unacknowledged_cleared',
  latched: 'overview.group.latched',
  shelved: 'overview.group.shelved',
  out_of_service: 'overview.group.out_of_service',
  normal: 'overview.group.normal',
};

/** "1 P1 acknowledged, still active · 1 P2 active, not acknowledged", in the store's order. */
export function alarmWords(alarms: AlarmItem[]): string {
  const groups = new Map<string, { what: string; state: AlarmItem['state']; n: number }>();
  for (const a of alarms) {
    const what = a.priority ?? severityWord(a.severity);
    const g = groups.get(`${what}\u0000${a.state}`);
    if (g) g.n++;
    else groups.set(`${what}\u0000${a.state}`, { what, state: a.state, n: 1 });
  }
  return [...groups.values()].map((g) => t(GROUPS[g.state], { n: g.n, what: g.what })).join(' · ');
}

/**
 * The keys of the texts the box wrote for an alarm (title_key, message_key, text_params), read
 * whether or not this shell's AlarmItem type names them yet: older boxes send none.
 */
interface AlarmTextKeys { title_key?: string | null; message_key?: string | null; text_params?: MessageParams | null }
const keysOf = (a: AlarmItem): AlarmTextKeys => a as AlarmItem & AlarmTextKeys;

/** An alarm's title in the reader's language when the box sent its key, else the English it stored. */
export function alarmTitle(a: AlarmItem): string {
  const k = keysOf(a);
  return boxText(k.title_key, k.text_params, a.title);
}

/** An alarm's cause in the reader's language when the box sent its key; null when it has none. */
export function alarmCause(a: AlarmItem): string | null {
  if (a.cause === null) return null;
  const k = keysOf(a);
  return boxText(k.message_key, k.text_params, a.cause);
}

/** "12 min left" / "overdue by 2 h 4 min" for an alarm's deadline; null without one. */
export function deadlineWords(deadline: unknown, now: number): { text: string; overdue: boolean } | null {
  if (typeof deadline !== 'string') return null;
  const ms = Date.parse(deadline) - now;
  if (Number.isNaN(ms)) return null;
  const m = Math.max(1, Math.round(Math.abs(ms) / 60_000));
  const overdue = ms < 0;
  const text =
    m >= 120
      ? t(overdue ? 'overview.sla.overdueHours' : 'overview.sla.leftHours', { h: Math.floor(m / 60), m: m % 60 })
      : t(overdue ? 'overview.sla.overdueMin' : 'overview.sla.leftMin', { m });
  return { text, overdue };
}

/**
 * Why a setpoint write failed, for the person at the house: the field service's message
 * ("Connection refused 10.0.0.5:502 addr:100", "Timed out ...", "Modbus exception 2 ...") in farm
 * words. `anyWritten`: some values of the change reached the controller.
 */
export function failureWords(message: string | null | undefined, anyWritten: boolean): string {
  const m = (message ?? '').toLowerCase();
  const some = anyWritten ? 'yes' : 'no';
  if (/refused|timed? ?out|timeout|unreachable|no route|econn|ehost|closed|not open|port/.test(m)) return t('setpoints.failure.noAnswer', { some });
  if (/exception|illegal|rejected|refus/.test(m)) return t('setpoints.failure.refused', { some });
  if (/read.?back|verify|mismatch/.test(m)) return t('setpoints.failure.readBack');
  return t('setpoints.failure.other', { some });
}
