// The site's calendar: which day a moment belongs to and how much of that day has passed, in
// the site's time zone (setting site_timezone, an IANA name; UTC when it is not set).
import type { Config } from '../config.js';

const formats = new Map<string, Intl.DateTimeFormat>();

export function siteTimeZone(config: Config): string {
  const tz = (config as Config & { site_timezone?: string }).site_timezone;
  return tz || 'UTC';
}

export function siteDay(at: Date, config: Config): { date: string; fraction: number } {
  const tz = siteTimeZone(config);
  let f = formats.get(tz);
  if (!f) formats.set(tz, (f = new Intl.DateTimeFormat('en-CA', { timeZone: tz, year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', second: '2-digit', hourCycle: 'h23' })));
  const p = Object.fromEntries(f.formatToParts(at).map((x) => [x.type, x.value]));
  const seconds = Number(p.hour) * 3600 + Number(p.minute) * 60 + Number(p.second);
  return { date: `${p.year}-${p.month}-${p.day}`, fraction: seconds / 86_400 };
}
