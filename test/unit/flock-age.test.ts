// A flock's age is counted in the site's calendar days; the site's date is worked out once per
// UTC quarter hour (flock.ts). These cases cross a site's midnight at a quarter-hour offset
// (Kathmandu, UTC+05:45) and a daylight saving change, and change the zone within one quarter.
import { describe, expect, it } from 'vitest';
import { ageOf } from '../../src/modules/poultry/flock.js';
import type { Services } from '../../src/kernel/context.js';

const site = (site_timezone: string) => ({ config: { site_timezone } }) as unknown as Services;
const flock = { start_date: '2026-03-20', closed_date: null };

describe('ageOf', () => {
  it('turns a day older at the site\'s midnight, also at a quarter-hour offset', () => {
    const kathmandu = site('Asia/Kathmandu');
    // 18:15 UTC is midnight in Kathmandu.
    expect(ageOf(flock, kathmandu, new Date('2026-03-25T18:00:00Z'))).toBe(5);
    expect(ageOf(flock, kathmandu, new Date('2026-03-25T18:14:59.999Z'))).toBe(5);
    expect(ageOf(flock, kathmandu, new Date('2026-03-25T18:15:00Z'))).toBe(6);
    expect(ageOf(flock, kathmandu, new Date('2026-03-25T18:14:59.999Z'))).toBe(5);
  });

  it('follows a daylight saving change: midnight is 23:00 UTC before it and 22:00 UTC after it', () => {
    const berlin = site('Europe/Berlin');
    expect(ageOf(flock, berlin, new Date('2026-03-28T22:59:59Z'))).toBe(8);
    expect(ageOf(flock, berlin, new Date('2026-03-28T23:00:00Z'))).toBe(9);
    expect(ageOf(flock, berlin, new Date('2026-03-29T21:59:59Z'))).toBe(9);
    expect(ageOf(flock, berlin, new Date('2026-03-29T22:00:00Z'))).toBe(10);
  });

  it('answers by the zone in force when the setting changes within a quarter hour', () => {
    const config = { site_timezone: 'UTC' };
    const services = { config } as unknown as Services;
    const at = new Date('2026-03-25T23:30:00Z');
    expect(ageOf(flock, services, at)).toBe(5);
    config.site_timezone = 'Asia/Tokyo';
    expect(ageOf(flock, services, at)).toBe(6);
    expect(ageOf(flock, site('America/Chicago'), at)).toBe(5);
  });

  it('stays at the closing day of a closed flock', () => {
    expect(ageOf({ start_date: '2026-03-20', closed_date: '2026-03-22' }, site('UTC'), new Date('2026-03-25T12:00:00Z'))).toBe(2);
  });
});
