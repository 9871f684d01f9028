// The translator: plural and number forms in each shipped language, the per-key fallback to
// English, and a site's own catalogue file picked up without a restart.
import { mkdtempSync, writeFileSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { describe, expect, it } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { createCatalogues } from '../../src/i18n/site-catalogues.js';
import { makeTranslator } from '../../src/i18n/translate.js';

const tr = (lang: 'en' | 'ru' | 'es', siteLocale = 'en-GB') => makeTranslator(lang, formatLocale(lang, siteLocale), BUILT_IN[lang], BUILT_IN.en);

describe('plural and number forms', () => {
  it('birds: 1, 2, 5, 21 in English, Russian and Spanish', () => {
    const birds = (lang: 'en' | 'ru' | 'es') => [1, 2, 5, 21].map((n) => tr(lang).t('common.birds', { n }));
    expect(birds('en')).toEqual(['1 bird', '2 birds', '5 birds', '21 birds']);
    expect(birds('ru')).toEqual(['1 голова', '2 головы', '5 голов', '21 голова']);
    expect(birds('es')).toEqual(['1 ave', '2 aves', '5 aves', '21 aves']);
  });

  it('a thousand birds groups digits as each language does', () => {
    expect(tr('en').t('common.birds', { n: 21500 })).toBe('21,500 birds');
    expect(tr('ru').t('common.birds', { n: 21500 })).toBe('21\u00a0500 голов');
    expect(tr('es').t('common.birds', { n: 21500 })).toBe('21.500 aves');
  });

  it('1,5 °C in Russian and Spanish, 1.5 °C in English, whatever the site region', () => {
    const m = makeTranslator('ru', formatLocale('ru', 'en-GB'), { x: '{v, number} °C' }, { x: '{v, number} °C' });
    expect(m.t('x', { v: 1.5 })).toBe('1,5 °C');
    expect(makeTranslator('es', formatLocale('es', 'en-GB'), { x: '{v, number} °C' }, {}).t('x', { v: 1.5 })).toBe('1,5 °C');
    expect(makeTranslator('en', formatLocale('en', 'ru-RU'), { x: '{v, number} °C' }, {}).t('x', { v: 1.5 })).toBe('1.5 °C');
  });

  it('the format locale is the reader\'s language at the site\'s region', () => {
    expect(formatLocale('ru', 'es-AR')).toBe('ru-AR');
    expect(formatLocale('es', 'en-GB')).toBe('es-GB');
    expect(formatLocale('pt-BR', 'en-GB')).toBe('pt-BR');
    expect(formatLocale('en', undefined)).toBe('en');
  });
});

describe('fallback', () => {
  it('a key the language lacks reads in English; a key nobody has reads as itself', () => {
    const m = makeTranslator('ru', 'ru', { a: 'по-русски' }, { a: 'in English', b: 'only English {n}' });
    expect(m.t('a')).toBe('по-русски');
    expect(m.t('b', { n: 2 })).toBe('only English 2');
    expect(m.t('c')).toBe('c');
    expect(m.hasOwn('b')).toBe(false);
    expect(m.has('b')).toBe(true);
  });

  it('a message that does not parse, or lacks an argument, falls back to English for that key', () => {
    const m = makeTranslator('ru', 'ru', { a: '{n, plural, one {# x}', b: '{missing} и {n}' }, { a: '{n} things', b: '{n} things' });
    expect(m.t('a', { n: 3 })).toBe('3 things');
    expect(m.t('b', { n: 3 })).toBe('3 things');
  });
});

describe('site catalogues in the data directory', () => {
  it('a site-added language is offered, falls back to English per key, and a change is read without a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'i18n-'));
    const file = join(dir, 'pl.json');
    writeFileSync(file, JSON.stringify({ 'common.action.save': 'Zapisz', 'common.birds': '{n, plural, one {# ptak} few {# ptaki} many {# ptaków} other {# ptaka}}', 'common.none': '{broken', 'not.a.key': 7 }));
    const warnings: string[] = [];
    const cats = createCatalogues({ dir, warn: (msg) => warnings.push(msg) });
    const pl = cats.languages().find((l) => l.code === 'pl');
    expect(pl).toMatchObject({ code: 'pl', shipped: false });
    expect(pl!.coverage).toBeGreaterThan(0);
    expect(pl!.coverage).toBeLessThan(1);
    const t = cats.translator('pl', 'pl-PL');
    expect(t.t('common.action.save')).toBe('Zapisz');
    expect(t.t('common.birds', { n: 5 })).toBe('5 ptaków');
    expect(t.t('common.action.cancel')).toBe('Cancel'); // not in the site file: English
    expect(t.t('common.none')).toBe('None'); // did not parse: English
    expect(cats.rejected('pl').sort()).toEqual(['common.none', 'not.a.key']);
    expect(warnings.length).toBeGreaterThan(0);
    // Kept while the file is unchanged: its messages are compiled once, not per call.
    expect(cats.translator('pl', 'pl-PL')).toBe(t);

    writeFileSync(file, JSON.stringify({ 'common.action.save': 'Zachowaj' }));
    const later = Date.now() / 1000 + 5;
    utimesSync(file, later, later);
    await new Promise((r) => setTimeout(r, 2_100)); // the stat is trusted for 2 s
    expect(cats.translator('pl').t('common.action.save')).toBe('Zachowaj');
    // The kept translator of the same language and locale is not used once the file changed.
    expect(cats.translator('pl', 'pl-PL').t('common.action.save')).toBe('Zachowaj');
  });

  it('a site file over a shipped language changes only its own keys', () => {
    const dir = mkdtempSync(join(tmpdir(), 'i18n-'));
    writeFileSync(join(dir, 'ru.json'), JSON.stringify({ 'common.action.save': 'Записать' }));
    const cats = createCatalogues({ dir });
    expect(cats.translator('ru').t('common.action.save')).toBe('Записать');
    expect(cats.translator('ru').t('common.action.cancel')).toBe('Отмена');
    expect(cats.languages().map((l) => l.code)).toEqual(['en', 'ru', 'es']);
  });

  it('an unknown language reads in English; a code that is not a language tag is refused', () => {
    const cats = createCatalogues({ dir: undefined });
    expect(cats.translator('xx').language).toBe('en');
    expect(cats.catalogue('../etc/passwd')).toBeUndefined();
    expect(cats.catalogue('ru')).toBe(BUILT_IN.ru);
  });
});
