// Values for people: dates, times and numbers in the reader's language at the site's region
// (readerLocale(): a Russian reader at an es-AR site reads 1,5 and 24 нояб. 2026 г.), the site's
// clock, booleans and units in words, the week's first day, and a tone for statuses.
import type { SchemeField } from './types';
import { readerLocale, t, type MessageKey } from './i18n';

export type Tone = 'alarm' | 'warn' | 'ok' | 'muted';

// Colour by meaning: red for what needs someone now, amber for what is being dealt with or may
// need it, green for fine, grey for over. "Active" is a state (a profile in force), not a warning.
const TONES: Record<string, Tone> = {
  critical: 'alarm', high: 'alarm', error: 'alarm', alarm: 'alarm', failed: 'alarm', p1: 'alarm', breached: 'alarm',
  medium: 'warn', warn: 'warn', warning: 'warn', blocked: 'warn', p2: 'warn', pending: 'warn', dispatched: 'warn', written: 'warn', draft: 'warn', acknowledged: 'warn', acked: 'warn',
  low: 'ok', info: 'muted', ok: 'ok', done: 'ok', verified: 'ok', published: 'ok', online: 'ok', success: 'ok', live: 'ok', active: 'ok', open: 'warn',
  revoked: 'muted', archived: 'muted', canceled: 'muted', closed: 'muted', cleared: 'muted', inactive: 'muted',
};

export function toneOf(value: unknown): Tone | undefined {
  return typeof value === 'string' ? TONES[value.toLowerCase()] : undefined;
}

/** An alarm record (it has a raise time and a severity or priority) */
export const isAlarmRow = (row: Record<string, unknown> | undefined): boolean => !!row && 'raised_at' in row && ('severity' in row || 'priority' in row);

/**
 * The tone of a field's value in its record: an alarm's state is red while active and urgent (P1,
 * or critical/high without a priority), amber while active otherwise or acknowledged, grey once
 * cleared; anything else by its word.
 */
export function toneIn(field: string, value: unknown, row?: Record<string, unknown>): Tone | undefined {
  if (isAlarmRow(row) && (field === 'status' || field === 'state' || field === 'condition') && typeof value === 'string') {
    const v = value.toLowerCase();
    if (v === 'active' || v === 'open') return row!.priority === 'P1' || (!row!.priority && (row!.severity === 'critical' || row!.severity === 'high')) ? 'alarm' : 'warn';
    if (v === 'acked' || v === 'acknowledged') return 'warn';
    if (v === 'cleared') return 'muted';
  }
  return toneOf(value);
}

/**
 * How this site writes dates and times (app/context display: settings site_locale, site_clock).
 * The locale's region reaches the formats through setSiteLocale (lib/i18n.ts); the language is the reader's.
 */
export interface Display { locale: string; clock: '24h' | '12h' }
let display: Display = { locale: 'en-GB', clock: '24h' };

export function setDisplay(d: Partial<Display> | undefined): void {
  display = { locale: d?.locale || 'en-GB', clock: d?.clock === '12h' ? '12h' : '24h' };
}

const hour12 = () => display.clock === '12h';

// One formatter per locale and shape: building an Intl formatter costs far more than using one.
const formatters = new Map<string, Intl.NumberFormat | Intl.DateTimeFormat>();
function numberFormat(digits: number): Intl.NumberFormat {
  const key = `n|${readerLocale()}|${digits}`;
  let f = formatters.get(key) as Intl.NumberFormat | undefined;
  // No grouping: a year, an id or a count of 2026 must not read "2,026".
  if (!f) formatters.set(key, (f = new Intl.NumberFormat(readerLocale(), { minimumFractionDigits: digits, maximumFractionDigits: digits, useGrouping: false })));
  return f;
}

/** A number as the reader writes it: 1,5 in Russian and Spanish; whole numbers as they are, others to `digits` places (1, or 0 from 100 up). */
export function formatNumber(value: number, digits?: number): string {
  if (!Number.isFinite(value)) return String(value);
  const places = digits ?? (Number.isInteger(value) ? 0 : Math.abs(value) >= 100 ? 0 : 1);
  return numberFormat(places).format(value);
}

/** "24 Nov 2026" in en-GB, "24 нояб. 2026 г." in Russian: day, short month, year (never the US 11/24/26). */
export function formatDate(iso: string | Date): string {
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleDateString(readerLocale(), { day: 'numeric', month: 'short', year: 'numeric' });
}

/**
 * The first day of the week where the reader is (1 Monday ... 7 Sunday), from the locale's week
 * data: Monday in Russian and Spanish, and at a British site; Sunday for English at a US site.
 */
export function weekStart(locale = readerLocale()): number {
  try {
    const l = new Intl.Locale(locale) as Intl.Locale & { getWeekInfo?: () => { firstDay: number }; weekInfo?: { firstDay: number } };
    const info = l.getWeekInfo?.() ?? l.weekInfo;
    if (info && info.firstDay >= 1 && info.firstDay <= 7) return info.firstDay;
  } catch {
    // an engine without week data: Monday, as ISO 8601 and most of the world
  }
  return 1;
}

/** The days of a week as a calendar shows them, from weekStart(): ISO number (1 Monday) and the reader's short name. */
export function weekDays(style: 'short' | 'narrow' | 'long' = 'short', locale = readerLocale()): { day: number; name: string }[] {
  const first = weekStart(locale);
  const f = new Intl.DateTimeFormat(locale, { weekday: style, timeZone: 'UTC' });
  // 2024-01-01 was a Monday: day d of the ISO week is 2024-01-0d.
  return Array.from({ length: 7 }, (_, i) => {
    const day = ((first - 1 + i) % 7) + 1;
    return { day, name: f.format(new Date(Date.UTC(2024, 0, day, 12))) };
  });
}

/** A calendar day (YYYY-MM-DD, the site's day) as the site writes it; read at local noon so no time zone moves it. */
/** Today's date (YYYY-MM-DD) on the tablet's clock, which a site's tablet keeps on the site's: the day a feed-and-water record's "today" figures must be for. */
export function localDay(now = new Date()): string {
  return `${now.getFullYear()}-${String(now.getMonth() + 1).padStart(2, '0')}-${String(now.getDate()).padStart(2, '0')}`;
}

/** A record's day (YYYY-MM-DD; not a string: a record that does not say) is today on the tablet's clock. */
export function isToday(day: unknown, now = new Date()): boolean {
  return typeof day !== 'string' || day === localDay(now);
}

export function formatDay(day: string): string {
  return /^\d{4}-\d{2}-\d{2}$/.test(day) ? formatDate(new Date(`${day}T12:00:00`)) : day;
}

/** An RFC 3339 instant as the value of a datetime-local input (the tablet's local time, to the minute). */
export function toLocalInput(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** The clock time, 24-hour unless the site says otherwise. */
export function formatClock(iso: string | Date, seconds = false): string {
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleTimeString(readerLocale(), { hour: hour12() ? 'numeric' : '2-digit', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}), hour12: hour12() });
}

/** Today: the clock time; another day: "24 Nov 2026, 14:05". */
export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const sameDay = d.toDateString() === new Date().toDateString();
  return sameDay ? formatClock(d, true) : `${formatDate(d)}, ${formatClock(d)}`;
}

export function formatValue(field: (Pick<SchemeField, 'type' | 'unit'> & { format?: unknown }) | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  const type = field?.type;
  if (type === 'datetime' && typeof value === 'string') return formatTime(value);
  if (field?.format === 'date' && typeof value === 'string') return formatDay(value);
  if (type === 'boolean' || typeof value === 'boolean') return value ? t('common.yes') : t('common.no');
  if (typeof value === 'number') return field?.unit ? withUnit(value, field.unit) : formatNumber(value);
  if (typeof value === 'object') {
    const s = JSON.stringify(value);
    return s.length > 120 ? `${s.slice(0, 117)}...` : s;
  }
  return field?.unit ? `${String(value)} ${field.unit}` : String(value);
}

export function humanise(name: string): string {
  const s = name.replace(/[_-]+/g, ' ').trim();
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/** The field naming a record on its card. */
export function titleField(fields: SchemeField[]): string {
  const primary = fields.find((f) => f.primary === true);
  if (primary) return primary.name;
  const names = fields.map((f) => f.name);
  return ['title', 'name', 'holder', 'event', 'house_id', 'metric', 'action', 'id'].find((n) => names.includes(n)) ?? names[0] ?? 'id';
}

/** Units written in the reader's language (and counted: "1 day", "2 дня"); any other unit is written as the box gives it. */
const UNITS: Record<string, MessageKey> = {
  days: 'locale.unit.days', d: 'locale.unit.d', h: 'locale.unit.h', min: 'locale.unit.min', minutes: 'locale.unit.minutes',
  s: 'locale.unit.s', seconds: 'locale.unit.seconds', ms: 'locale.unit.ms', kg: 'locale.unit.kg', g: 'locale.unit.g',
  L: 'locale.unit.L', l: 'locale.unit.l', litres: 'locale.unit.litres', m: 'locale.unit.m', cm: 'locale.unit.cm', mm: 'locale.unit.mm',
  ha: 'locale.unit.ha', m3: 'locale.unit.m3', bar: 'locale.unit.bar', head: 'locale.unit.head', birds: 'locale.unit.birds',
  times: 'locale.unit.times', 'kg/head/d': 'locale.unit.kg_head_d', 'l/head/d': 'locale.unit.l_head_d', 'L/kg': 'locale.unit.l_kg',
};

/** A number with its unit in the reader's language: "1,5 °C", "3 дня", "12 kg". */
export function withUnit(value: number, unit: string, digits?: number): string {
  const v = formatNumber(value, digits);
  const key = UNITS[unit];
  return key ? t(key, { v, n: value }) : `${v} ${unit}`;
}

/** "12 min left" / "overdue by 4 min" for an SLA deadline (minutes, hours past two hours). */
export function countdown(iso: string, now = Date.now()): { text: string; overdue: boolean } {
  const ms = Date.parse(iso) - now;
  const m = Math.floor(Math.abs(ms) / 60_000);
  const over = ms < 0;
  if (m < 1) return { text: t(over ? 'locale.countdown.over_under' : 'locale.countdown.left_under'), overdue: over };
  if (m < 120) return { text: t(over ? 'locale.countdown.over_min' : 'locale.countdown.left_min', { m }), overdue: over };
  return { text: t(over ? 'locale.countdown.over_hours' : 'locale.countdown.left_hours', { h: Math.floor(m / 60), m: m % 60 }), overdue: over };
}
