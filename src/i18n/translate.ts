// One translator for the shell and the server: ICU MessageFormat (plurals, select, numbers,
// dates) through FormatJS's intl-messageformat, over a catalogue of flat keys. A key the
// language lacks, or a message of a site-added catalogue that does not parse, falls back to
// English for that key alone; a key nobody has reads as the key itself, so a gap is visible.
import { IntlMessageFormat } from 'intl-messageformat';

/** A catalogue: flat message keys ("alarms.inbox.title") to ICU MessageFormat strings. */
export type Catalogue = Readonly<Record<string, string>>;
export type MessageParams = Readonly<Record<string, string | number | Date | boolean | null | undefined>>;

export interface Translator {
  readonly language: string;
  /** The locale numbers and dates are formatted in (formatLocale). */
  readonly locale: string;
  t(key: string, params?: MessageParams): string;
  /** Whether the reader's language or English has this key. */
  has(key: string): boolean;
  /** Whether the reader's own language has it (false: it reads in English). */
  hasOwn(key: string): boolean;
}

type Compiled = IntlMessageFormat | null;

export function makeTranslator(language: string, locale: string, own: Catalogue, base: Catalogue): Translator {
  const cache = new Map<string, Compiled>();
  const compile = (cacheKey: string, message: string, loc: string): Compiled => {
    let hit = cache.get(cacheKey);
    if (hit !== undefined) return hit;
    try {
      hit = new IntlMessageFormat(message, loc, undefined, { ignoreTag: true });
    } catch {
      hit = null;
    }
    cache.set(cacheKey, hit);
    return hit;
  };
  const run = (fmt: Compiled, params: MessageParams | undefined): string | undefined => {
    if (!fmt) return undefined;
    try {
      const out = fmt.format(params as Record<string, string | number | boolean | Date | null | undefined>);
      return Array.isArray(out) ? out.join('') : String(out);
    } catch {
      return undefined; // a missing parameter: try English, whose message may not need it
    }
  };
  return {
    language,
    locale,
    t(key, params) {
      const mine = own[key];
      if (mine !== undefined) {
        const out = run(compile(`o:${key}`, mine, locale), params);
        if (out !== undefined) return out;
      }
      const english = base[key];
      if (english !== undefined) {
        const out = run(compile(`b:${key}`, english, locale), params);
        if (out !== undefined) return out;
      }
      return key;
    },
    has: (key) => own[key] !== undefined || base[key] !== undefined,
    hasOwn: (key) => own[key] !== undefined,
  };
}
