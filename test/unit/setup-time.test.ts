// The set-up screen's times read as the site's clocks do (site_timezone), not in UTC.
import { describe, expect, it } from 'vitest';
import { count, siteTime } from '../../src/kernel/setup.js';

describe('set-up words', () => {
  it('writes a time in the site\'s time zone, with the day when asked', () => {
    expect(siteTime({ site_timezone: 'Europe/Moscow' }, '2026-11-29T06:14:59Z')).toBe('09:14');
    expect(siteTime({ site_timezone: 'America/Sao_Paulo' }, '2026-11-29T01:05:00Z', true)).toBe('28 Nov, 22:05');
    expect(siteTime({ site_timezone: 'UTC' }, '2026-11-29T23:59:00Z')).toBe('23:59');
  });
  it('counts in words', () => {
    expect(count(1, 'controller')).toBe('1 controller');
    expect(count(0, 'admin card')).toBe('0 admin cards');
  });
});
