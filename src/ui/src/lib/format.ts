// Values for people: times in local time, booleans in words, units, and a tone for statuses.
import type { SchemeField } from './types';

const TONES: Record<string, 'alarm' | 'warn' | 'ok' | 'muted'> = {
  critical: 'alarm', high: 'alarm', error: 'alarm', alarm: 'alarm', failed: 'alarm', p1: 'alarm', open: 'alarm', active: 'warn', breached: 'alarm',
  medium: 'warn', warn: 'warn', warning: 'warn', blocked: 'warn', p2: 'warn', pending: 'warn', dispatched: 'warn', written: 'warn', draft: 'warn',
  low: 'ok', info: 'muted', ok: 'ok', done: 'ok', verified: 'ok', acknowledged: 'ok', acked: 'ok', published: 'ok', online: 'ok', success: 'ok', live: 'ok',
  revoked: 'muted', archived: 'muted', canceled: 'muted', closed: 'muted',
};

export function toneOf(value: unknown): 'alarm' | 'warn' | 'ok' | 'muted' | undefined {
  return typeof value === 'string' ? TONES[value.toLowerCase()] : undefined;
}

export function formatTime(iso: string): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const today = new Date();
  const sameDay = d.toDateString() === today.toDateString();
  return sameDay ? d.toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit' }) : d.toLocaleString([], { dateStyle: 'medium', timeStyle: 'short' });
}

export function formatValue(field: Pick<SchemeField, 'type' | 'unit'> | undefined, value: unknown): string {
  if (value === null || value === undefined || value === '') return '—';
  const type = field?.type;
  if (type === 'datetime' && typeof value === 'string') return formatTime(value);
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

/** "12 min left" / "overdue by 3 min" for an SLA deadline. */
export function countdown(iso: string, now = Date.now()): { text: string; overdue: boolean } {
  const ms = Date.parse(iso) - now;
  const abs = Math.abs(ms);
  const m = Math.floor(abs / 60_000);
  const s = Math.floor((abs % 60_000) / 1000);
  const span = m >= 120 ? `${Math.floor(m / 60)} h ${m % 60} min` : `${m}:${String(s).padStart(2, '0')} min`;
  return ms >= 0 ? { text: `${span} left`, overdue: false } : { text: `overdue by ${span}`, overdue: true };
}
