// Times on the house screen and its charts: 24-hour clock and day-month dates ("24 Nov 14:05"),
// whatever the browser's locale would pick (Chromium's default en-US says "11/24/26, 2:05 PM").
// Kept apart from lib/format so the charts need nothing else; month names come from the locale.

const pad = (n: number) => String(n).padStart(2, '0');
const monthName = new Intl.DateTimeFormat(undefined, { month: 'short' });

/** "14:05" */
export function clock(d: Date): string {
  return `${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** "24 Nov" */
export function dayMonth(d: Date): string {
  return `${d.getDate()} ${monthName.format(d)}`;
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
