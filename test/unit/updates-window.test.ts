// The maintenance window (setting update_window) read in the site's time zone: plain windows,
// windows crossing midnight, the zone's own offset and a daylight-saving night, when it next opens;
// and the settings' check refusing what is not HH:MM-HH:MM.
import { describe, expect, it } from 'vitest';
import { inWindow, localMinutes, nextOpening, parseWindow } from '../../src/modules/updates/window.js';
import { loadConfig } from '../../src/config.js';

const at = (iso: string) => Date.parse(iso);

describe('update window', () => {
  it('parses HH:MM-HH:MM, empty is any time, and refuses the rest', () => {
    expect(parseWindow('')).toBeNull();
    expect(parseWindow(' 02:00-05:30 ')).toEqual({ start: 120, end: 330, text: '02:00-05:30' });
    for (const bad of ['2:00-05:00', '02:00', '02:00-24:00', '02:60-03:00', '03:00-03:00', 'x', '02:00-03:00-04:00']) expect(() => parseWindow(bad), bad).toThrow(/update_window/);
  });

  it('a plain window: start included, end excluded (UTC)', () => {
    const w = parseWindow('02:00-05:00');
    expect(inWindow(at('2026-03-10T01:59:00Z'), w, 'UTC')).toBe(false);
    expect(inWindow(at('2026-03-10T02:00:00Z'), w, 'UTC')).toBe(true);
    expect(inWindow(at('2026-03-10T04:59:59Z'), w, 'UTC')).toBe(true);
    expect(inWindow(at('2026-03-10T05:00:00Z'), w, 'UTC')).toBe(false);
    expect(inWindow(at('2026-03-10T12:00:00Z'), null, 'UTC')).toBe(true);
  });

  it('a window crossing midnight holds on both sides of it', () => {
    const w = parseWindow('22:00-04:00');
    expect(inWindow(at('2026-03-10T21:59:00Z'), w, 'UTC')).toBe(false);
    expect(inWindow(at('2026-03-10T22:00:00Z'), w, 'UTC')).toBe(true);
    expect(inWindow(at('2026-03-10T23:59:00Z'), w, 'UTC')).toBe(true);
    expect(inWindow(at('2026-03-11T00:00:00Z'), w, 'UTC')).toBe(true);
    expect(inWindow(at('2026-03-11T03:59:00Z'), w, 'UTC')).toBe(true);
    expect(inWindow(at('2026-03-11T04:00:00Z'), w, 'UTC')).toBe(false);
    expect(inWindow(at('2026-03-11T12:00:00Z'), w, 'UTC')).toBe(false);
  });

  it('is read in site_timezone, not UTC', () => {
    const w = parseWindow('02:00-05:00');
    // 02:30 in Chicago (CST, UTC-6) is 08:30 UTC; 02:30 UTC is 20:30 the day before there.
    expect(localMinutes(at('2026-01-15T08:30:00Z'), 'America/Chicago')).toBe(150);
    expect(inWindow(at('2026-01-15T08:30:00Z'), w, 'America/Chicago')).toBe(true);
    expect(inWindow(at('2026-01-15T02:30:00Z'), w, 'America/Chicago')).toBe(false);
    // Across midnight in Novosibirsk (UTC+7): 23:30 local is 16:30 UTC.
    expect(inWindow(at('2026-01-15T16:30:00Z'), parseWindow('23:00-01:00'), 'Asia/Novosibirsk')).toBe(true);
    expect(inWindow(at('2026-01-15T16:30:00Z'), parseWindow('23:00-01:00'), 'UTC')).toBe(false);
  });

  it('says when it next opens, across midnight and across a daylight-saving change', () => {
    const w = parseWindow('02:00-05:00');
    expect(nextOpening(at('2026-03-10T03:00:00Z'), w, 'UTC')).toBe(at('2026-03-10T03:00:00Z'));
    expect(nextOpening(at('2026-03-10T12:34:56Z'), w, 'UTC')).toBe(at('2026-03-11T02:00:00Z'));
    expect(nextOpening(at('2026-03-10T12:00:00Z'), null, 'UTC')).toBeNull();
    // Berlin: on 29 March 2026 the clocks go from 02:00 to 03:00 (CET -> CEST); 02:00 local does
    // not exist, so the window opens at 03:00 local = 01:00 UTC, inside it.
    expect(nextOpening(at('2026-03-28T12:00:00Z'), w, 'Europe/Berlin')).toBe(at('2026-03-29T01:00:00Z'));
    // The day after, 02:00 CEST = 00:00 UTC.
    expect(nextOpening(at('2026-03-29T12:00:00Z'), w, 'Europe/Berlin')).toBe(at('2026-03-30T00:00:00Z'));
    // A window crossing midnight, asked in the afternoon: tonight at 22:00 local (Chicago, CST).
    expect(nextOpening(at('2026-01-15T20:00:00Z'), parseWindow('22:00-04:00'), 'America/Chicago')).toBe(at('2026-01-16T04:00:00Z'));
  });

  it('the setting refuses what is not a window, and takes empty', () => {
    expect(loadConfig({ update_window: '' }, {}).update_window).toBe('');
    expect(loadConfig({ update_window: '22:00-04:00' }, {}).update_window).toBe('22:00-04:00');
    for (const bad of ['22:00', '25:00-01:00', '01:00-01:00', 'nightly']) expect(() => loadConfig({ update_window: bad }, {}), bad).toThrow(/update_window/);
  });
});
