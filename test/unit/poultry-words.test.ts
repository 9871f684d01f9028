// The number and plural words of the poultry screens in each shipped language (issue 34): birds
// and changes counted with each language's plural forms (1, 2, 5, 21), values with the language's
// decimal comma and the unit after the number (1,5 °C in Russian and Spanish), the alarm counts of
// a house card, deadlines, a band, and why a setpoint write failed. The shell's own functions
// (src/ui/src/screens/poultry-words.ts) are run in each language through the shell's translator,
// its catalogue fetched as the tablet would (a stubbed fetch answering the built-in catalogue).
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale, type ShippedLanguage } from '../../src/i18n/languages.js';
import { makeTranslator } from '../../src/i18n/translate.js';
import { setLanguage } from '../../src/ui/src/lib/i18n.js';
import type { AlarmItem } from '../../src/ui/src/lib/alarms.js';
import { alarmTitle, alarmWords, deadlineWords, failureWords, numberWords, targetWords, valueWords } from '../../src/ui/src/screens/poultry-words.js';

const LANGS: ShippedLanguage[] = ['en', 'ru', 'es'];
const tr = (lang: ShippedLanguage) => makeTranslator(lang, formatLocale(lang, 'en-GB'), BUILT_IN[lang], BUILT_IN.en);
/**
 * The text as a reader sees it: the catalogues keep a number and its unit together with a no-break
 * space, and a range's ends together with a word joiner after its dash.
 */
const seen = (s: string) => s.replace(/\u00a0|\u202f/g, ' ').replace(/\u2060/g, '');

describe('the catalogue\'s plural and number forms of the poultry screens', () => {
  it('birds on a house card: 1, 2, 5, 21 and a flock of 19,800', () => {
    const birds = (lang: ShippedLanguage) => [1, 2, 5, 21, 19_800].map((n) => seen(tr(lang).t('overview.birds', { n })));
    expect(birds('en')).toEqual(['1 bird', '2 birds', '5 birds', '21 birds', '19,800 birds']);
    expect(birds('ru')).toEqual(['1 голова', '2 головы', '5 голов', '21 голова', '19 800 голов']);
    expect(birds('es')).toEqual(['1 ave', '2 aves', '5 aves', '21 aves', '19.800 aves']);
  });

  it('the day of the flock', () => {
    expect(LANGS.map((l) => tr(l).t('overview.day', { n: 21 }))).toEqual(['Day 21', 'День 21', 'Día 21']);
  });

  it('1.5 °C in English, 1,5 °C in Russian and Spanish; the unit after the number', () => {
    expect(LANGS.map((l) => seen(tr(l).t('overview.value', { v: 1.5, unit: '°C' })))).toEqual(['1.5 °C', '1,5 °C', '1,5 °C']);
    expect(seen(tr('ru').t('overview.target.band', { target: 25.5, min: 24, max: 27, unit: '°C' }))).toBe('уставка 25,5 (24–27) °C');
    expect(seen(tr('es').t('overview.target.band', { target: 25.5, min: 24, max: 27, unit: '°C' }))).toBe('consigna 25,5 (24–27) °C');
  });

  it('the deviation of water or feed from the expected amount carries its sign', () => {
    expect(LANGS.map((l) => seen(tr(l).t('overview.amount.deviation', { d: 12 })))).toEqual(['(+12%)', '(+12%)', '(+12 %)']);
    expect(seen(tr('ru').t('overview.amount.deviation', { d: -7 }))).toMatch(/^\([-−]7%\)$/);
  });

  it('the confirmation counts the changes: one, two, five', () => {
    const lead = (lang: ShippedLanguage) => [1, 2, 5].map((n) => tr(lang).t('setpoints.confirmLead', { n, house: '3' }));
    expect(lead('en')).toEqual([
      'Send this change to the house controller of house 3?',
      'Send these 2 changes to the house controller of house 3?',
      'Send these 5 changes to the house controller of house 3?',
    ]);
    expect(lead('ru')).toEqual([
      'Отправить это изменение на контроллер корпуса 3?',
      'Отправить эти 2 изменения на контроллер корпуса 3?',
      'Отправить эти 5 изменений на контроллер корпуса 3?',
    ]);
    expect(lead('es')).toEqual([
      '¿Enviar este cambio al controlador de la nave 3?',
      '¿Enviar estos 2 cambios al controlador de la nave 3?',
      '¿Enviar estos 5 cambios al controlador de la nave 3?',
    ]);
    expect(LANGS.map((l) => [1, 2].map((n) => tr(l).t('setpoints.yes', { n })))).toEqual([
      ['Yes, send it', 'Yes, send them'],
      ['Да, отправить', 'Да, отправить все 2'],
      ['Sí, enviarlo', 'Sí, enviarlos'],
    ]);
  });

  it('a value out of its range names the range in the language\'s numbers', () => {
    expect(seen(tr('ru').t('setpoints.outOfRange', { label: 'Температура (уставка)', min: -10, max: 45.5, unit: '°C' }))).toMatch(/^Температура \(уставка\): введите число от [-−]10 до 45,5 °C\.$/);
    expect(seen(tr('es').t('setpoints.outOfRange', { label: 'CO₂ máximo', min: 0, max: 20_000, unit: 'ppm' }))).toBe('CO₂ máximo: introduzca un número de 0 a 20.000 ppm.');
  });
});

/** A listed alarm with only what the words read from it. */
const alarm = (p: Partial<AlarmItem>): AlarmItem => ({ priority: 'P1', severity: 'critical', state: 'unacknowledged_active', title: 'House 2 controller not answering', cause: null, ...p }) as AlarmItem;

describe.each(LANGS)('the poultry screens\' words in %s', (lang) => {
  beforeAll(async () => {
    // The shell fetches a language's catalogue from the box and marks the page's language.
    vi.stubGlobal('document', { documentElement: {} });
    vi.stubGlobal('fetch', async (url: string) => {
      const l = /\/app\/i18n\/(\w+)\.json$/.exec(url)?.[1] as ShippedLanguage;
      return new Response(JSON.stringify(BUILT_IN[l]), { status: 200, headers: { 'content-type': 'application/json' } });
    });
    expect(await setLanguage(lang)).toBe(true);
  });
  afterAll(() => {
    vi.unstubAllGlobals();
  });

  const expected = {
    en: {
      value: '1.5 °C',
      co2: '1,400 ppm',
      none: '—',
      band: 'target 25.5 (24–27) °C',
      atMost: 'target ≤ 3,000 ppm',
      number: '25.5',
      alarms: '1 P1 active, not acknowledged · 2 P2 acknowledged, still active · 5 critical shelved',
      plurals: ['1 P2 active, not acknowledged', '2 P2 active, not acknowledged', '5 P2 active, not acknowledged', '21 P2 active, not acknowledged'],
      left: '12 min left',
      overdue: 'overdue by 2 h 5 min',
      noAnswer: 'The house controller did not answer — nothing was changed.',
      someWritten: 'The house controller refused the value — the values marked written reached it, the others did not.',
    },
    ru: {
      value: '1,5 °C',
      co2: '1 400 ppm',
      none: '—',
      band: 'уставка 25,5 (24–27) °C',
      atMost: 'норма ≤ 3 000 ppm',
      number: '25,5',
      alarms: 'P1: 1 активна, не подтверждена · P2: 2 подтверждены, ещё активны · критическая: 5 отложены',
      plurals: ['P2: 1 активна, не подтверждена', 'P2: 2 активны, не подтверждены', 'P2: 5 активны, не подтверждены', 'P2: 21 активна, не подтверждена'],
      left: 'осталось 12 мин',
      overdue: 'просрочено на 2 ч 5 мин',
      noAnswer: 'Контроллер корпуса не ответил — ничего не изменено.',
      someWritten: 'Контроллер корпуса отклонил значение — значения с пометкой «записано» дошли, остальные нет.',
    },
    es: {
      value: '1,5 °C',
      co2: '1400 ppm',
      none: '—',
      band: 'consigna 25,5 (24–27) °C',
      atMost: 'máximo 3000 ppm',
      number: '25,5',
      alarms: 'P1: 1 activa, sin confirmar · P2: 2 confirmadas, aún activas · crítica: 5 pospuestas',
      plurals: ['P2: 1 activa, sin confirmar', 'P2: 2 activas, sin confirmar', 'P2: 5 activas, sin confirmar', 'P2: 21 activas, sin confirmar'],
      left: 'quedan 12 min',
      overdue: 'vencida hace 2 h 5 min',
      noAnswer: 'El controlador de la nave no respondió — no se cambió nada.',
      someWritten: 'El controlador de la nave rechazó el valor — los valores marcados como escritos le llegaron, los demás no.',
    },
  }[lang];

  it('values with their units, rounded as the cards show them', () => {
    expect(seen(valueWords(1.5, 'c'))).toBe(expected.value);
    expect(seen(valueWords(1400.4, 'ppm'))).toBe(expected.co2);
    expect(valueWords(undefined, 'c')).toBe(expected.none);
    expect(seen(numberWords(25.5))).toBe(expected.number);
    expect(seen(targetWords({ target: 25.5, min: 24, max: 27 }, 'c')!)).toBe(expected.band);
    expect(seen(targetWords({ max: 3000 }, 'ppm')!)).toBe(expected.atMost);
    expect(targetWords({}, 'c')).toBeUndefined();
  });

  it('the alarm counts of a house card, grouped by priority and state, with the language\'s plurals', () => {
    const list = [
      alarm({ priority: 'P1' }),
      alarm({ priority: 'P2', state: 'acknowledged_active' }),
      alarm({ priority: 'P2', state: 'acknowledged_active' }),
      ...Array.from({ length: 5 }, () => alarm({ priority: null, severity: 'critical', state: 'shelved' })),
    ];
    expect(alarmWords(list)).toBe(expected.alarms);
    expect([1, 2, 5, 21].map((n) => alarmWords(Array.from({ length: n }, () => alarm({ priority: 'P2' }))))).toEqual(expected.plurals);
  });

  it('an alarm\'s deadline, left or overdue', () => {
    const now = Date.parse('2026-11-24T14:00:00Z');
    expect(seen(deadlineWords('2026-11-24T14:12:00Z', now)!.text)).toBe(expected.left);
    expect(deadlineWords('2026-11-24T11:55:00Z', now)).toEqual({ text: expect.any(String), overdue: true });
    expect(seen(deadlineWords('2026-11-24T11:55:00Z', now)!.text)).toBe(expected.overdue);
    expect(deadlineWords(null, now)).toBeNull();
  });

  it('why a setpoint write failed, from the field service\'s message', () => {
    expect(failureWords('Connection refused 127.0.0.1:5020 addr:100', false)).toBe(expected.noAnswer);
    expect(failureWords('Modbus exception 2 (illegal data address)', true)).toBe(expected.someWritten);
  });

  it('an alarm\'s title: its key in the language when the shell knows it, else the English the box stored', () => {
    expect(alarmTitle(alarm({ title: 'House 2 controller not answering' }))).toBe('House 2 controller not answering');
    const keyed = alarm({ title: 'English title' }) as AlarmItem & { title_key: string; text_params: Record<string, string> };
    keyed.title_key = 'overview.house';
    keyed.text_params = { id: '2' };
    expect(alarmTitle(keyed)).toBe(tr(lang).t('overview.house', { id: '2' }));
    keyed.title_key = 'box.no.such.key';
    expect(alarmTitle(keyed)).toBe('English title');
  });
});
