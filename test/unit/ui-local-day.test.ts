// The tablet's day, which decides whether a feed-and-water record's "today" figures are shown as
// today's (src/ui/src/screens/Poultry.tsx): after midnight, until the new day's first meter
// reading, the record still holds yesterday's totals.
import { describe, expect, it } from 'vitest';
import { isToday, localDay } from '../../src/ui/src/lib/format.js';

describe("the tablet's day", () => {
  it('is the local calendar date, zero-padded', () => {
    expect(localDay(new Date(2026, 0, 5, 0, 0, 1))).toBe('2026-01-05');
    expect(localDay(new Date(2026, 10, 30, 23, 59, 59))).toBe('2026-11-30');
  });

  it("a record of yesterday is not today's just after midnight; one that names no day is taken as today's", () => {
    const justAfterMidnight = new Date(2026, 11, 1, 0, 0, 30);
    expect(isToday('2026-11-30', justAfterMidnight)).toBe(false);
    expect(isToday('2026-12-01', justAfterMidnight)).toBe(true);
    expect(isToday(null, justAfterMidnight)).toBe(true);
    expect(isToday(undefined, justAfterMidnight)).toBe(true);
  });
});
