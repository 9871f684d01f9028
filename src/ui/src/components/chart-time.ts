// Times on the house screen and its charts: 24-hour clock and day-month dates ("24 Nov 14:05"),
// whatever the browser's locale would pick (Chromium's default en-US says "11/24/26, 2:05 PM").
// Kept apart from lib/format so the charts need nothing else; month names are the reader's
// language's ("24 нояб.", "24 nov"), read when written so a change of language reads them again.
// And the span of a climate chart and when its points come from the minute roll-up.
import { readerLocale } from '../lib/i18n';

const pad = (n: number) => String(n).padStart(2, '0');
let months: { locale: string; format: Intl.DateTimeFormat } | undefined;
function monthName(d: Date): string {
  const locale = readerLocale();
  if (months?.locale !== locale) months = { locale, format: new Intl.DateTimeFormat(locale, { month: 'short' }) };
  return months.format.format(d);
}

/** "14:05" */
export function clock(d: Date): string {
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "24 Nov" */
export function dayMonth(d: Date): string {
  return `${d.getDate()} ${monthName(d)}`;
}

/** "14:05" today, "24 Nov 14:05" another day. */
export function when(iso: string, now = new Date()): string {
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  return d.toDateString() === now.toDateString() ? clock(d) : `${dayMonth(d)} ${clock(d)}`;
}

/** Tick labels of a time axis (seconds): the clock within two days, the date beyond. */
export function timeTicks(ticks: number[], spanS: number): string[] {
  return ticks.map((t) => {
    const d = new Date(t * 1000);
    return spanS <= 2 * 86_400 ? clock(d) : dayMonth(d);
  });
}

const HOUR_S = 3_600;
const DAY_S = 86_400;

/**
 * The least room (CSS px) between two ticks of a time axis (uPlot's `space`), so that its labels
 * never run into each other: the widest label of the span's kind in the reader's language (a
 * Russian "28 нояб." is longer than "28 Nov") at the axis's 15 px font, and a gap.
 */
export function tickSpace(spanS: number): number {
  const widest = spanS <= 2 * DAY_S ? clock(new Date(2026, 0, 1, 20, 58)).length : Math.max(...Array.from({ length: 12 }, (_, m) => dayMonth(new Date(2026, m, 28)).length));
  return Math.ceil(widest * 9 + 18);
}

/**
 * The time axis of a climate chart (seconds), whatever the points: "last 24 hours" is exactly the
 * 24 hours before now (a lone point once stretched it to two days); "this batch" runs from the
 * first point to now, and a lone point just placed gets the half hour on each side.
 */
export function climateSpan(range: 'day' | 'batch', x: number[], nowS: number): [number, number] {
  if (range === 'day') return [nowS - DAY_S, nowS];
  const first = x.length ? Math.min(...x) : nowS - HOUR_S;
  const last = Math.max(nowS, ...x);
  return last - first >= 60 ? [first, last] : [first - HOUR_S / 2, first + HOUR_S / 2];
}

/** Hourly points fewer than this: the batch's first hours, drawn from the minute roll-up (one hourly point is a dot, not a line). */
export const MINUTES_BELOW_HOURS = 3;

/**
 * The window of the minute roll-up to ask for (ms): from the first hour with readings to the end of
 * this minute; undefined when the hourly roll-up has points enough, or none (no readings at all).
 */
export function minuteWindow(hourStarts: number[], nowMs: number): { from: number; to: number } | undefined {
  if (hourStarts.length === 0 || hourStarts.length >= MINUTES_BELOW_HOURS) return undefined;
  const to = Math.ceil((nowMs + 1) / 60_000) * 60_000;
  return { from: Math.max(Math.min(...hourStarts), to - 24 * HOUR_S * 1000), to };
}

/** The points of a chart inside its span (the roll-up is loaded for the batch; the 24-hour view keeps its last day). */
export function inSpan<T>(rows: T[], at: (row: T) => number, span: [number, number]): T[] {
  return rows.filter((r) => {
    const t = at(r);
    return t >= span[0] && t <= span[1];
  });
}
