// Values for people: dates and times in the site's locale and clock, booleans in words, units, and a tone for statuses.
import type { SchemeField } from './types';

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

/** How this site writes dates and times (app/context display: settings site_locale, site_clock). */
export interface Display { locale: string; clock: '24h' | '12h' }
let display: Display = { locale: 'en-GB', clock: '24h' };

export function setDisplay(d: Partial<Display> | undefined): void {
  display = { locale: d?.locale || 'en-GB', clock: d?.clock === '12h' ? '12h' : '24h' };
}

const hour12 = () => display.clock === '12h';

/** "24 Nov 2026" in en-GB: day, short month, year (never the US 11/24/26). */
export function formatDate(iso: string | Date): string {
  const d = iso instanceof Date ? iso : new Date(iso);
  if (Number.isNaN(d.getTime())) return String(iso);
  return d.toLocaleDateString(display.locale, { day: 'numeric', month: 'short', year: 'numeric' });
}

/** A calendar day (YYYY-MM-DD, the site's day) as the site writes it; read at local noon so no time zone moves it. */
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
  return d.toLocaleTimeString(display.locale, { hour: hour12() ? 'numeric' : '2-digit', minute: '2-digit', ...(seconds ? { second: '2-digit' } : {}), hour12: hour12() });
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
  if (type === 'boolean' || typeof value === 'boolean') return value ? 'Yes' : 'No';
  if (typeof value === 'number') {
    const n = Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) >= 100 ? 0 : 1);
    return field?.unit ? `${n} ${field.unit}` : n;
  }
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

/** "12 min left" / "overdue by 4 min" for an SLA deadline (minutes, hours past two hours). */
export function countdown(iso: string, now = Date.now()): { text: string; overdue: boolean } {
  const ms = Date.parse(iso) - now;
  const m = Math.floor(Math.abs(ms) / 60_000);
  const span = m >= 120 ? `${Math.floor(m / 60)} h ${m % 60} min` : m < 1 ? 'under 1 min' : `${m} min`;
  return ms >= 0 ? { text: `${span} left`, overdue: false } : { text: `overdue by ${span}`, overdue: true };
}
