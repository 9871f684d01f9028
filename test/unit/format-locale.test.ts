// The shell's values (src/ui/src/lib/format.ts) in each shipped language at the site's region:
// decimal comma in Russian and Spanish, dates and clock in the reader's words, units counted in
// the reader's language, countdowns, booleans, and the week's first day from the locale's week data.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { setLanguage, setSiteLocale, readerLocale } from '../../src/ui/src/lib/i18n.js';
import { countdown, formatClock, formatDate, formatDay, formatNumber, formatValue, setDisplay, weekDays, weekStart, withUnit } from '../../src/ui/src/lib/format.js';

// The shell's language store reads catalogues from the box and sets <html lang>: here the box is a
// stub answering the shipped catalogues, and the document a bare element.
beforeAll(() => {
  vi.stubGlobal('document', { documentElement: { lang: 'en' } });
  vi.stubGlobal('fetch', async (url: string) => {
    const lang = /\/app\/i18n\/([a-z]{2})\.json$/.exec(url)?.[1] as keyof typeof BUILT_IN | undefined;
    const body = lang ? BUILT_IN[lang] : undefined;
    return body ? new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }) : new Response('{}', { status: 404 });
  });
});
afterAll(() => vi.unstubAllGlobals());

const reading = async (lang: string, site = 'en-GB') => {
  setSiteLocale(site);
  setDisplay({ locale: site, clock: '24h' });
  expect(await setLanguage(lang)).toBe(true);
};

// 24 Nov 2026, a Tuesday, 14:05 in the tablet's zone.
const AT = new Date(2026, 10, 24, 14, 5, 30);

describe('numbers, dates and units in the reader\'s language', () => {
  beforeEach(() => setDisplay({ locale: 'en-GB', clock: '24h' }));

  it('English at a British site: as the shell wrote them before', async () => {
    await reading('en');
    expect(readerLocale()).toBe('en-GB');
    expect(formatValue({ type: 'number', unit: '°C' }, 1.5)).toBe('1.5 °C');
    expect(formatValue({ type: 'number', unit: '°C' }, 21)).toBe('21 °C');
    expect(formatValue({ type: 'number' }, 2026)).toBe('2026');
    expect(formatValue({ type: 'number' }, 123.456)).toBe('123');
    expect(formatValue({ type: 'boolean' }, true)).toBe('Yes');
    expect(formatDate(AT)).toBe('24 Nov 2026');
    expect(formatDay('2026-11-24')).toBe('24 Nov 2026');
    expect(formatClock(AT)).toBe('14:05');
    expect(withUnit(1, 'days')).toBe('1 day');
    expect(withUnit(3, 'days')).toBe('3 days');
    expect(withUnit(12.5, 'kg')).toBe('12.5 kg');
    expect(countdown(new Date(Date.now() + 12.5 * 60_000).toISOString())).toEqual({ text: '12 min left', overdue: false });
    expect(countdown(new Date(Date.now() - 4.5 * 60_000).toISOString())).toEqual({ text: 'overdue by 4 min', overdue: true });
    expect(countdown(new Date(Date.now() + 150.5 * 60_000).toISOString()).text).toBe('2 h 30 min left');
    expect(countdown(new Date(Date.now() + 20_000).toISOString()).text).toBe('under 1 min left');
  });

  it('Russian: 1,5 °C, Russian dates, units counted in Russian', async () => {
    await reading('ru', 'en-GB');
    expect(readerLocale()).toBe('ru-GB');
    expect(formatValue({ type: 'number', unit: '°C' }, 1.5)).toBe('1,5 °C');
    expect(formatNumber(-0.25, 2)).toBe('-0,25');
    expect(formatValue({ type: 'number' }, 2026)).toBe('2026');
    expect(formatValue({ type: 'boolean' }, false)).toBe('Нет');
    expect(formatDate(AT)).toBe('24 нояб. 2026 г.');
    expect(formatClock(AT)).toBe('14:05');
    expect([1, 2, 5, 21, 1.5].map((n) => withUnit(n, 'days'))).toEqual(['1 день', '2 дня', '5 дней', '21 день', '1,5 дня']);
    expect(withUnit(12.5, 'kg')).toBe('12,5 кг');
    expect(withUnit(3, 'birds')).toBe('3 птицы');
    // A unit without words of its own is written as the box gives it.
    expect(withUnit(7.5, 'ppm')).toBe('7,5 ppm');
    expect(countdown(new Date(Date.now() + 12.5 * 60_000).toISOString()).text).toBe('осталось 12 мин');
    expect(countdown(new Date(Date.now() - 4.5 * 60_000).toISOString()).text).toBe('просрочено на 4 мин');
  });

  it('Spanish at an Argentine site: decimal comma, Spanish months and units', async () => {
    await reading('es', 'es-AR');
    expect(readerLocale()).toBe('es-AR');
    expect(formatValue({ type: 'number', unit: '%' }, 61.25)).toBe('61,3 %');
    expect(formatValue({ type: 'boolean' }, true)).toBe('Sí');
    expect(formatDate(AT)).toBe('24 de nov de 2026');
    expect([1, 2].map((n) => withUnit(n, 'days'))).toEqual(['1 día', '2 días']);
    expect(countdown(new Date(Date.now() + 12.5 * 60_000).toISOString()).text).toBe('quedan 12 min');
  });

  it('the site\'s clock: 12-hour where the site says so, in the reader\'s words', async () => {
    await reading('en', 'en-US');
    setDisplay({ locale: 'en-US', clock: '12h' });
    expect(formatClock(AT)).toBe('2:05 PM');
    expect(formatDate(AT)).toBe('Nov 24, 2026');
  });

  it('the week starts where the reader is: Monday in Russian and Spanish, Sunday for English at a US site', async () => {
    await reading('ru', 'en-GB');
    expect(weekStart()).toBe(1);
    expect(weekDays('short').map((d) => d.name)).toEqual(['пн', 'вт', 'ср', 'чт', 'пт', 'сб', 'вс']);
    await reading('es', 'es-ES');
    expect(weekStart()).toBe(1);
    expect(weekDays('short')[0]).toEqual({ day: 1, name: 'lun' });
    await reading('en', 'en-US');
    expect(weekStart()).toBe(7);
    expect(weekDays('short').map((d) => d.day)).toEqual([7, 1, 2, 3, 4, 5, 6]);
    expect(weekDays('short')[0]!.name).toBe('Sun');
    await reading('en', 'en-GB');
    expect(weekStart()).toBe(1);
  });
});
