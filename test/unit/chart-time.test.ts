// The span of a climate chart and when its points come from the minute roll-up
// (src/ui/src/components/chart-time.ts): "last 24 hours" is exactly 24 hours whatever its points
// (a lone hourly point once stretched it to 48), and a batch's first hours ask for minutes.
import { describe, expect, it } from 'vitest';
import { climateSpan, inSpan, minuteWindow, MINUTES_BELOW_HOURS, timeTicks } from '../../src/ui/src/components/chart-time.js';

const H = 3_600;
const NOW = Date.parse('2026-11-24T14:05:30Z') / 1000;

describe('the span of a climate chart', () => {
  it('"last 24 hours" is the 24 hours before now, with one point, many or none', () => {
    for (const x of [[], [NOW - 600], [NOW - 30 * H, NOW - 20 * H, NOW - H]]) {
      const [from, to] = climateSpan('day', x, NOW);
      expect(to).toBe(NOW);
      expect(to - from).toBe(24 * H);
    }
  });
  it('"this batch" runs from the first point to now', () => {
    expect(climateSpan('batch', [NOW - 10 * 24 * H, NOW - 5 * H], NOW)).toEqual([NOW - 10 * 24 * H, NOW]);
    // the first minutes of a batch: from its first minute, not a day around it
    expect(climateSpan('batch', [NOW - 40 * 60, NOW - 39 * 60], NOW)).toEqual([NOW - 40 * 60, NOW]);
  });
  it('a lone point just now gets the half hour on each side', () => {
    expect(climateSpan('batch', [NOW], NOW)).toEqual([NOW - H / 2, NOW + H / 2]);
  });
  it('keeps only the points inside the span, its ends included', () => {
    const span = climateSpan('day', [], NOW);
    const x = [NOW - 25 * H, NOW - 24 * H, NOW - 23 * H, NOW];
    expect(inSpan(x, (t) => t, span)).toEqual([NOW - 24 * H, NOW - 23 * H, NOW]);
  });
  it('its ticks are clock times within the day', () => {
    expect(timeTicks([NOW], 24 * H)[0]).toMatch(/^\d{2}:\d{2}$/);
  });
});

describe('the minute roll-up for a batch\'s first hours', () => {
  const nowMs = NOW * 1000;
  it('is asked for while the hourly roll-up has one or two points: from the first hour to the end of this minute', () => {
    const firstHour = Date.parse('2026-11-24T14:00:00Z');
    expect(minuteWindow([firstHour], nowMs)).toEqual({ from: firstHour, to: Date.parse('2026-11-24T14:06:00Z') });
    expect(minuteWindow([firstHour - 3_600_000, firstHour], nowMs)?.from).toBe(firstHour - 3_600_000);
  });
  it('is not asked for with hours enough, or with no readings at all', () => {
    const hours = Array.from({ length: MINUTES_BELOW_HOURS }, (_, i) => nowMs - (i + 1) * 3_600_000);
    expect(minuteWindow(hours, nowMs)).toBeUndefined();
    expect(minuteWindow([], nowMs)).toBeUndefined();
  });
  it('never asks for more than the 24 hours the minute roll-up answers', () => {
    const w = minuteWindow([nowMs - 30 * 3_600_000], nowMs)!;
    expect(w.to - w.from).toBeLessThanOrEqual(24 * 3_600_000);
  });
});
