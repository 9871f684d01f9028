// The shell frame's and the alarm screens' counted words (src/i18n/messages/<lang>/{shell,alarms}.json)
// in each shipped language: the plural forms Russian needs for 1, 2, 5 and 21 (one, few, many, and
// 21 back to "one"), Spanish's one/other, and the English the browser tests read, unchanged.
import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { formatLocale } from '../../src/i18n/languages.js';
import { makeTranslator } from '../../src/i18n/translate.js';

type Lang = 'en' | 'ru' | 'es';
const tr = (lang: Lang) => makeTranslator(lang, formatLocale(lang, 'en-GB'), BUILT_IN[lang], BUILT_IN.en);
const counts = (lang: Lang, key: string, arg = 'n') => [1, 2, 5, 21].map((n) => tr(lang).t(key, { [arg]: n, at: '01:31' }));

describe('counted alarm words', () => {
  it('"N more" alarms in the banner: ru one/few/many, es one/other, en as before', () => {
    expect(counts('ru', 'alarms.banner.more')).toEqual(['ещё 1 тревога', 'ещё 2 тревоги', 'ещё 5 тревог', 'ещё 21 тревога']);
    expect(counts('es', 'alarms.banner.more')).toEqual(['1 alarma más', '2 alarmas más', '5 alarmas más', '21 alarmas más']);
    expect(counts('en', 'alarms.banner.more')).toEqual(['1 more', '2 more', '5 more', '21 more']);
  });

  it('the inbox summary counts each state with its own agreement', () => {
    expect(counts('ru', 'alarms.summary.unacknowledged_active')).toEqual(['1 тревога не подтверждена', '2 тревоги не подтверждены', '5 тревог не подтверждено', '21 тревога не подтверждена']);
    expect(counts('ru', 'alarms.summary.shelved')).toEqual(['1 тревога отложена', '2 тревоги отложены', '5 тревог отложено', '21 тревога отложена']);
    expect(counts('es', 'alarms.summary.acknowledged_active')).toEqual(['1 alarma confirmada y aún activa', '2 alarmas confirmadas y aún activas', '5 alarmas confirmadas y aún activas', '21 alarmas confirmadas y aún activas']);
    expect(counts('en', 'alarms.summary.unacknowledged_active')).toEqual(['1 not acknowledged', '2 not acknowledged', '5 not acknowledged', '21 not acknowledged']);
    const list = (lang: Lang, ...parts: string[]) => tr(lang).t('alarms.summary.list', { list: parts.join(', ') });
    expect(list('en', tr('en').t('alarms.summary.unacknowledged_active', { n: 2 }), tr('en').t('alarms.summary.shelved', { n: 1 }))).toBe('2 not acknowledged, 1 shelved.');
  });

  it('the top bar: acknowledged alarms still active, and the other priorities', () => {
    expect(counts('ru', 'alarms.count.stillActiveLong')).toEqual(['1 подтверждена, ещё активна', '2 подтверждены, ещё активны', '5 подтверждено, ещё активно', '21 подтверждена, ещё активна']);
    expect(counts('ru', 'alarms.count.other')).toEqual(['1 другая', '2 другие', '5 других', '21 другая']);
    expect(counts('es', 'alarms.count.stillActiveShort')).toEqual(['1 aún activa', '2 aún activas', '5 aún activas', '21 aún activas']);
    expect(counts('en', 'alarms.count.stillActiveLong')).toEqual(['1 acknowledged, still active', '2 acknowledged, still active', '5 acknowledged, still active', '21 acknowledged, still active']);
  });

  it('raised again: times, and the earlier comments', () => {
    expect(counts('ru', 'alarms.banner.raisedTimes')).toEqual([
      'возникала 1 раз, последний: 01:31', 'возникала 2 раза, последний: 01:31', 'возникала 5 раз, последний: 01:31', 'возникала 21 раз, последний: 01:31',
    ]);
    expect(counts('en', 'alarms.banner.raisedTimes')[1]).toBe('raised 2 times, last at 01:31');
    expect(counts('en', 'alarms.story.raisedTimes')[1]).toBe('Raised (2 times, last at 01:31)');
    expect(counts('ru', 'alarms.account.earlier')).toEqual([
      'Ещё 1 комментарий — в «Подробнее».', 'Ещё 2 комментария — в «Подробнее».', 'Ещё 5 комментариев — в «Подробнее».', 'Ещё 21 комментарий — в «Подробнее».',
    ]);
    expect(counts('en', 'alarms.account.earlier').slice(0, 2)).toEqual(['1 earlier comment under More.', '2 earlier comments under More.']);
  });

  it('ages and durations: days in each language', () => {
    expect(counts('ru', 'shell.ago.days')).toEqual(['1 день назад', '2 дня назад', '5 дней назад', '21 день назад']);
    expect(counts('ru', 'alarms.since.days', 'd')).toEqual(['1 день', '2 дня', '5 дней', '21 день']);
    expect(counts('es', 'shell.ago.days')).toEqual(['hace 1 día', 'hace 2 días', 'hace 5 días', 'hace 21 días']);
    expect(counts('en', 'shell.ago.days')).toEqual(['1 day ago', '2 days ago', '5 days ago', '21 days ago']);
    expect(tr('en').t('shell.ago.minutes', { n: 12 })).toBe('12 min ago');
    expect(tr('ru').t('shell.for.minutes', { n: 12 })).toBe('12 мин');
  });

  it('state sentences choose the farm\'s wording by select, in English as the inbox said it before', () => {
    const en = tr('en');
    expect(en.t('alarms.words.ackedActiveAt', { farm: 'no', who: 'Night shift', at: '01:31' })).toBe('Acknowledged by Night shift at 01:31, still active');
    expect(en.t('alarms.acked.by', { farm: 'yes', who: 'anna' })).toBe('Acknowledged at the farm by anna');
    expect(en.t('alarms.words.backAt', { farm: 'no', at: '01:33' })).toBe('Back to normal at 01:33 — acknowledge');
    expect(tr('ru').t('alarms.words.ackedActiveAt', { farm: 'no', who: 'Анна', at: '01:31' })).toBe('Подтверждена: Анна, 01:31; ещё активна');
    expect(tr('es').t('alarms.words.backAt', { farm: 'yes', at: '01:33' })).toBe('Normalizada desde 01:33, aún sin confirmar en la granja');
  });

  it('names of codes: a code the catalogue does not know gives nothing (the shell then shows the box\'s own)', () => {
    expect(tr('ru').t('shell.industry.name', { code: 'poultry' })).toBe('Птицеводство');
    expect(tr('es').t('shell.industry.name', { code: 'aquaculture' })).toBe('');
    expect(tr('en').t('shell.workspace.title', { industry: 'swine', name: 'Swine' })).toBe('Swine workspace');
    expect(tr('en').t('shell.feed.event', { event: 'alarm_raised' })).toBe('Alarm raised');
    expect(tr('ru').t('shell.feed.event', { event: 'something_new' })).toBe('');
  });

  it('every module the box ships is named in each language (its farm words in modules.*, else the shell\'s), once', async () => {
    const dir = new URL('../../src/modules/', import.meta.url).pathname;
    const ids: string[] = [];
    for (const d of readdirSync(dir, { withFileTypes: true }).filter((x) => x.isDirectory())) {
      const mod = (await import(`${dir}${d.name}/module.ts`).catch(() => ({}))) as Record<string, unknown>;
      for (const v of Object.values(mod)) if (v && typeof v === 'object' && typeof (v as { id?: unknown }).id === 'string' && 'description' in v) ids.push((v as unknown as { id: string }).id);
    }
    expect(ids.length).toBeGreaterThan(20);
    for (const lang of ['en', 'ru', 'es'] as const) {
      const cat = BUILT_IN[lang];
      for (const id of ids) {
        const farm = cat[`modules.${id}.name`] !== undefined;
        const shell = cat[`shell.module.${id}`] !== undefined;
        expect(farm || shell, `${lang}: module ${id} has no name`).toBe(true);
        expect(farm && shell, `${lang}: module ${id} named twice`).toBe(false);
        if (shell) expect(cat[`shell.module.${id}.about`], `${lang} ${id}.about`).toBeTruthy();
      }
    }
  }, 30_000);
});
