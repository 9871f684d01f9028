// The admin's words in each shipped language, as the shell's own functions give them (lib/field-words,
// lib/words, lib/adapter-draft, components/adapters/link-words): the shell is switched to a language
// with its served catalogue (fetch answered from the shipped one), then back to English. Plurals
// (1, 2, 5, 21 days), numbers with the reader's decimal mark (27,5 °C), a field the catalogue does
// not name keeping the server's label, a module named in the language of the moment.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { setLanguage } from '../../src/ui/src/lib/i18n.js';
import { choiceWords, durationWords, fieldWords, scopeWords, serverLabel } from '../../src/ui/src/lib/field-words.js';
import { commandLabel, commandWords, inFarmWords } from '../../src/ui/src/lib/words.js';
import { fromProfile, readingText, toProfile } from '../../src/ui/src/lib/adapter-draft.js';
import { agoWords, errorWords, linkWords } from '../../src/ui/src/components/adapters/link-words.js';
import type { ModuleRecord } from '../../src/ui/src/lib/types.js';

type Lang = keyof typeof BUILT_IN;
const g = globalThis as unknown as { fetch: typeof fetch; document?: { documentElement: { lang?: string } } };
const realFetch = g.fetch;

/** The shell reads in `lang` from now on (its catalogue as the box serves it: the shipped one). */
async function readIn(lang: Lang): Promise<void> {
  expect(await setLanguage(lang)).toBe(true);
}

beforeAll(() => {
  g.document ??= { documentElement: {} };
  g.fetch = (async (url: string) => {
    const lang = /\/app\/i18n\/([a-z]+)\.json$/.exec(String(url))?.[1] as Lang | undefined;
    return lang && BUILT_IN[lang] ? new Response(JSON.stringify(BUILT_IN[lang]), { status: 200, headers: { etag: `"${lang}"` } }) : new Response('{}', { status: 404 });
  }) as typeof fetch;
});
afterAll(async () => {
  await setLanguage('en');
  g.fetch = realFetch;
});

const NOW = Date.parse('2026-11-24T10:45:00Z');
const core = { id: 'core', name: 'Core', description: 'Probes, the OpenAPI contract and its UI.' } as ModuleRecord;

describe('the admin\'s words in each language', () => {
  it('English: the words are today\'s', async () => {
    await readIn('en');
    expect([1, 2, 5, 21].map((n) => durationWords(n * 1440))).toEqual(['1 day', '2 days', '5 days', '21 days']);
    expect(durationWords(525_600)).toBe('1 year');
    expect(durationWords(90)).toBe('about 2 hours');
    expect(fieldWords('ttl_minutes', 'passkeys')).toMatchObject({ label: 'Valid for', unit: 'minutes', unitId: 'minutes' });
    expect(fieldWords('profile_id', 'poultry-flock').hint).toMatch(/^Empty: the newest curve/);
    expect(choiceWords('scope', 'tenant')).toBe('Site staff');
    expect(choiceWords('priority', 'p1')).toBe('P1');
    expect(scopeWords('tenant:farm-1')).toBe('Farm farm-1');
    expect(commandLabel('ingest', 'poultry-production')).toBe('Record a day');
    expect(commandLabel('set-status')).toBe('Set status');
    expect(readingText(27.5, 'temp')).toBe('27.5 °C');
    expect(agoWords('2026-11-24T10:44:48Z', NOW)).toBe('12 s ago');
  });

  it('Russian: plurals, the decimal comma, farm words; an unknown field keeps the server\'s label', async () => {
    await readIn('ru');
    expect([1, 2, 5, 21].map((n) => durationWords(n * 1440))).toEqual(['1 день', '2 дня', '5 дней', '21 день']);
    expect(durationWords(2 * 525_600)).toBe('2 года');
    expect(fieldWords('ttl_minutes', 'passkeys')).toMatchObject({ label: 'Действует', unit: 'мин' });
    expect(fieldWords('house_id').label).toBe('Корпус');
    expect(fieldWords('acked_by', 'alarms', [{ name: 'acked_by', label: 'Acknowledged by', type: 'string' }]).label).toBe('Кто подтвердил');
    expect(fieldWords('odd_field', 'alarms', [{ name: 'odd_field', label: 'Something new', type: 'string' }]).label).toBe('Something new');
    expect(serverLabel('Published')).toBe('Опубликовано');
    expect(choiceWords('scope', 'tenant')).toBe('Персонал площадки');
    expect(choiceWords('subtype', 'broiler')).toBe('Бройлеры');
    expect(scopeWords('tenant:farm-1')).toBe('Хозяйство farm-1');
    expect(commandLabel('place', 'poultry-flock')).toBe('Посадить стадо');
    expect(commandWords('shelve', 'Shelve an alarm (contract 4.2).', 'poultry-alarms')).toBe('Отложить тревогу на время: до конца срока она не объявляется.');
    expect(readingText(27.5, 'temp')).toBe('27,5 °C');
    expect(readingText(1200, 'water_l')).toBe('1200 л');
    expect(agoWords('2026-11-24T10:44:48Z', NOW)).toBe('12 с назад');
    expect(errorWords('Timeout 10.0.0.7:502 addr:3')).toBe('Нет ответа вовремя от 10.0.0.7, порт 502: проверьте питание, кабель и номер устройства');
    const lost = linkWords({ device_id: 'poultry:a', state: 'lost', reason: 'no_answer', bus: 'tcp', misses: 5, last_ok_at: null, last_message: null }, { reads: true, priority: 'P1', now: NOW });
    expect(lost.detail).toBe('5 опросов пропущено подряд; показаний ещё нет');
    expect(() => toProfile({ ...fromProfile(undefined), unit_id: '1', controller_id: 'c', port: 'x' })).toThrow('«Порт»: нужно целое число.');
    expect(() => toProfile({ ...fromProfile(undefined), unit_id: '1', controller_id: 'c' })).toThrow('Уставка 1: выберите, что это.');
  });

  it('Spanish: plurals and farm words', async () => {
    await readIn('es');
    expect([1, 2, 5, 21].map((n) => durationWords(n * 1440))).toEqual(['1 día', '2 días', '5 días', '21 días']);
    expect(fieldWords('house_id').label).toBe('Nave');
    expect(choiceWords('type', 'qr')).toBe('Credencial QR');
    expect(commandLabel('ack')).toBe('Confirmar');
    expect(readingText(27.5, 'temp')).toBe('27,5 °C');
  });

  it('a module kept by the session reads in the language of the moment', async () => {
    await readIn('en');
    const m = inFarmWords(core);
    expect(m.name).toBe('System');
    await readIn('ru');
    expect(m.name).toBe('Система');
    expect(m.description).toBe('Сам блок: его модули, их версии и состояние.');
    await readIn('es');
    expect({ ...m }.name).toBe('Sistema');
    await readIn('en');
  });
});
