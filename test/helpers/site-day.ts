// Instants that are "today" at the site whatever the time of day a test runs at: `minutesAgo(15)`
// is yesterday before 00:15, which puts a reading meant for today on the day before.
import type { Config } from '../../src/config.js';
import { siteDay } from '../../src/industry/site-day.js';

/**
 * Instant k of n (0 < k < n) between the start of the site's day (site_timezone, as the server
 * counts its days: src/industry/site-day.ts) and now, as an ISO string. Readings made with it are
 * today and in the order of their k; a later call with a larger k is later still. (A day that
 * turns over between two calls is the one case it cannot help.)
 */
export function todayAt(config: Config, k: number, n: number): string {
  const now = Date.now();
  const start = now - (now % 1000) - Math.round(siteDay(new Date(now), config).fraction * 86_400_000);
  return new Date(start + Math.floor(((now - start) * k) / n)).toISOString();
}

/**
 * The instant `ms` ago, or, when that is still yesterday at the site (just after midnight), the
 * instant halfway between the start of today and now: "a minute ago" that is today at any time.
 */
export function agoToday(config: Config, ms: number): number {
  const now = Date.now();
  const start = now - (now % 1000) - Math.round(siteDay(new Date(now), config).fraction * 86_400_000);
  return now - ms >= start ? now - ms : start + Math.floor((now - start) / 2);
}
