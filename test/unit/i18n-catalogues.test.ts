// The catalogues: every shipped language has every key, with the same arguments; every message
// parses; every area file is in its language's index; keys live in the area their file names.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BUILT_IN } from '../../src/i18n/built-in.js';
import { SHIPPED_LANGUAGES } from '../../src/i18n/languages.js';
import { messageArguments } from '../../src/i18n/placeholders.js';

const DIR = new URL('../../src/i18n/messages/', import.meta.url).pathname;
const en = BUILT_IN.en;

describe('shipped catalogues', () => {
  it('every English area file is merged by the shell\'s index (the server reads every file of a language itself)', () => {
    const index = readFileSync(join(DIR, 'en.ts'), 'utf8');
    for (const f of readdirSync(join(DIR, 'en'))) expect(index, `en/${f} is not imported by en.ts`).toContain(`from './en/${f}'`);
  });

  it('the same area files exist in every language, and each key starts with its area', () => {
    const areas = readdirSync(join(DIR, 'en')).sort();
    for (const lang of SHIPPED_LANGUAGES) {
      expect(readdirSync(join(DIR, lang)).sort(), lang).toEqual(areas);
      for (const f of areas) {
        const area = f.replace(/\.json$/, '');
        const keys = Object.keys(JSON.parse(readFileSync(join(DIR, lang, f), 'utf8')) as object);
        const stray = keys.filter((k) => !k.startsWith(`${area}.`));
        expect(stray, `${lang}/${f}: keys outside the area "${area}."`).toEqual([]);
      }
    }
  });

  it('no key is defined in two areas (a later file would silently win)', () => {
    for (const lang of SHIPPED_LANGUAGES) {
      const seen = new Map<string, string>();
      for (const f of readdirSync(join(DIR, lang))) {
        for (const k of Object.keys(JSON.parse(readFileSync(join(DIR, lang, f), 'utf8')) as object)) {
          expect(seen.get(k), `${lang}: ${k} in ${f} and ${seen.get(k)}`).toBeUndefined();
          seen.set(k, f);
        }
      }
    }
  });

  for (const lang of SHIPPED_LANGUAGES.filter((l) => l !== 'en')) {
    it(`${lang} has every English key and no other`, () => {
      const cat = BUILT_IN[lang];
      expect(Object.keys(en).filter((k) => cat[k] === undefined), `missing in ${lang}`).toEqual([]);
      expect(Object.keys(cat).filter((k) => en[k] === undefined), `in ${lang} but not in English`).toEqual([]);
    });

    it(`${lang} uses the same arguments as English in every message`, () => {
      const cat = BUILT_IN[lang];
      const differ = Object.keys(en).filter((k) => cat[k] !== undefined && messageArguments(cat[k]!).join() !== messageArguments(en[k]!).join());
      expect(differ.map((k) => `${k}: en {${messageArguments(en[k]!).join(', ')}} ${lang} {${messageArguments(cat[k]!).join(', ')}}`)).toEqual([]);
    });
  }

  it('every message of every shipped language is valid ICU MessageFormat', () => {
    const bad: string[] = [];
    for (const lang of SHIPPED_LANGUAGES) {
      for (const [k, m] of Object.entries(BUILT_IN[lang])) {
        try {
          messageArguments(m);
        } catch (err) {
          bad.push(`${lang} ${k}: ${(err as Error).message}`);
        }
      }
    }
    expect(bad).toEqual([]);
  });

  it('messageArguments finds arguments inside plural branches, not the branches themselves', () => {
    expect(messageArguments('{n, plural, one {# bird in {house}} other {# birds}}')).toEqual(['house', 'n']);
    expect(messageArguments('{kind, select, poultry {House} other {Room}} {name}')).toEqual(['kind', 'name']);
    expect(() => messageArguments('{n, plural, one {# bird}')).toThrow();
  });
});
