// The maintenance window of setting `update_window`: "HH:MM-HH:MM" in the site's time zone
// (site_timezone), which may cross midnight ("22:00-04:00"); empty means any time. Pure functions of
// an instant (epoch ms), so a test passes the time it wants; the runtime passes services.clock.now().
// Local wall time is read with Intl (the zone's own rules, daylight saving included): on a day the
// clocks go forward, a window starting in the skipped hour opens at the first minute after it.

export interface UpdateWindow {
  /** Minutes after local midnight, 0..1439. */
  start: number;
  end: number;
  /** The setting as written. */
  text: string;
}

const HHMM = /^([01]\d|2[0-3]):([0-5]\d)$/;

/** Parses "HH:MM-HH:MM"; null for an empty setting (any time); throws on anything else. */
export function parseWindow(text: string): UpdateWindow | null {
  const t = text.trim();
  if (t === '') return null;
  const parts = t.split('-');
  const a = HHMM.exec(parts[0]?.trim() ?? '');
  const b = HHMM.exec(parts[1]?.trim() ?? '');
  if (parts.length !== 2 || !a || !b) throw new Error(`update_window "${text}" is not HH:MM-HH:MM`);
  const start = Number(a[1]) * 60 + Number(a[2]);
  const end = Number(b[1]) * 60 + Number(b[2]);
  if (start === end) throw new Error(`update_window "${text}" starts where it ends; leave it empty for any time`);
  return { start, end, text: t };
}

/** Whether the setting is a window (or empty): the config's check. */
export function validWindow(text: string): boolean {
  try {
    parseWindow(text);
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** Minutes after local midnight of an instant in a time zone. */
export function localMinutes(at: number, timeZone: string): number {
  let f = formatters.get(timeZone);
  if (!f) formatters.set(timeZone, (f = new Intl.DateTimeFormat('en-GB', { timeZone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })));
  const parts = f.formatToParts(new Date(at));
  const hour = Number(parts.find((p) => p.type === 'hour')?.value ?? 0);
  const minute = Number(parts.find((p) => p.type === 'minute')?.value ?? 0);
  return (hour % 24) * 60 + minute;
}

/** Whether local minute `m` is inside the window (start included, end excluded; across midnight when end < start). */
export function minuteInWindow(m: number, w: UpdateWindow): boolean {
  return w.start < w.end ? m >= w.start && m < w.end : m >= w.start || m < w.end;
}

/** Whether the instant is inside the window (always, with no window). */
export function inWindow(at: number, w: UpdateWindow | null, timeZone: string): boolean {
  return w === null || minuteInWindow(localMinutes(at, timeZone), w);
}

/**
 * When the window next opens after `at` (epoch ms; `at` itself when it is open now, null with no
 * window): the local minutes to the start, then minute by minute from an hour before that guess,
 * so a daylight-saving change on the way moves it to the right instant.
 */
export function nextOpening(at: number, w: UpdateWindow | null, timeZone: string): number | null {
  if (w === null) return null;
  if (inWindow(at, w, timeZone)) return at;
  const minute = Math.floor(at / 60_000) * 60_000;
  const ahead = (w.start - localMinutes(at, timeZone) + 1440) % 1440;
  let t = Math.max(minute + 60_000, minute + (ahead - 60) * 60_000);
  for (let i = 0; i < 24 * 60; i++, t += 60_000) if (inWindow(t, w, timeZone)) return t;
  return null;
}
