// The catalogues the box serves and renders with: the shipped ones, plus a site's own files in
// <data_dir>/i18n/<lang>.json (a language the box does not ship, or a site's own words for keys
// of a shipped one). A site file is read again when it changes, with no rebuild or restart; a
// message in it that does not parse is left out, so that key reads in English.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { BUILT_IN } from './built-in.js';
import { AUTONYMS, BASE_LANGUAGE, formatLocale, isLanguageTag, isShipped, SHIPPED_LANGUAGES } from './languages.js';
import { messageArguments } from './placeholders.js';
import { makeTranslator, type Catalogue, type Translator } from './translate.js';

export interface LanguageEntry {
  code: string;
  /** Its own name ("Русский"); a site-added language without a known name shows its code. */
  name: string;
  shipped: boolean;
  /** Share of the English keys this language has (1 for the shipped ones). */
  coverage: number;
}

interface SiteFile { mtimeMs: number; size: number; messages: Catalogue; rejected: string[] }

/** Translators kept (a language at a locale each): past this many they are made again. */
const MAX_TRANSLATORS = 64;
const NONE: Catalogue = {};

/** How long a file's stat is trusted before it is looked at again (per language). */
const STAT_TTL_MS = 2_000;

export interface Catalogues {
  /** The languages a chooser offers: shipped, then the site's own, by code. */
  languages(): LanguageEntry[];
  /** The whole catalogue of a language (shipped words with the site's over them); undefined for an unknown language. */
  catalogue(language: string): Catalogue | undefined;
  /** A translator in this language (English for an unknown one), numbers and dates in its locale at the site's region. */
  translator(language: string | undefined, siteLocale?: string): Translator;
  /** Keys of the site's file for this language that were left out because they do not parse. */
  rejected(language: string): string[];
}

export function createCatalogues(opts: { dir: string | undefined; warn?: (msg: string, data: Record<string, unknown>) => void }): Catalogues {
  const files = new Map<string, { checkedAt: number; file: SiteFile | null }>();
  const merged = new Map<string, { source: SiteFile | null; catalogue: Catalogue }>();
  const translators = new Map<string, { own: Catalogue; base: Catalogue; translator: Translator }>();

  const readSite = (lang: string): SiteFile | null => {
    if (!opts.dir) return null;
    const now = Date.now();
    const cached = files.get(lang);
    if (cached && now - cached.checkedAt < STAT_TTL_MS) return cached.file;
    const path = join(opts.dir, `${lang}.json`);
    let file: SiteFile | null = null;
    try {
      const st = statSync(path);
      if (cached?.file && cached.file.mtimeMs === st.mtimeMs && cached.file.size === st.size) file = cached.file;
      else file = parseSiteFile(path, st.mtimeMs, st.size, lang, opts.warn);
    } catch {
      file = null;
    }
    files.set(lang, { checkedAt: now, file });
    return file;
  };

  const siteLanguages = (): string[] => {
    if (!opts.dir) return [];
    try {
      return readdirSync(opts.dir).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).filter(isLanguageTag).sort();
    } catch {
      return [];
    }
  };

  const catalogue = (lang: string): Catalogue | undefined => {
    if (!isLanguageTag(lang)) return undefined;
    const site = readSite(lang);
    const shipped = isShipped(lang) ? BUILT_IN[lang] : undefined;
    if (!shipped && !site) return undefined;
    const hit = merged.get(lang);
    if (hit && hit.source === site) return hit.catalogue;
    const out: Catalogue = site ? { ...(shipped ?? {}), ...site.messages } : shipped!;
    merged.set(lang, { source: site, catalogue: out });
    return out;
  };

  const english = (): Catalogue => catalogue(BASE_LANGUAGE) ?? BUILT_IN[BASE_LANGUAGE];

  return {
    languages() {
      const baseKeys = Object.keys(BUILT_IN[BASE_LANGUAGE]);
      const extra = siteLanguages().filter((l) => !isShipped(l));
      return [...SHIPPED_LANGUAGES, ...extra].map((code) => {
        const cat = catalogue(code) ?? {};
        const shipped = isShipped(code);
        const have = shipped ? baseKeys.length : baseKeys.filter((k) => cat[k] !== undefined).length;
        return { code, name: autonym(code), shipped, coverage: baseKeys.length ? have / baseKeys.length : 1 };
      });
    },
    catalogue,
    translator(language, siteLocale) {
      const lang = language && catalogue(language) ? language : BASE_LANGUAGE;
      const locale = formatLocale(lang, siteLocale);
      const own = catalogue(lang) ?? NONE;
      const base = english();
      // Kept while its catalogues are the same objects (a changed site file makes new ones): a
      // translator compiles each message on first use, and one made per call compiled the
      // English title and message of every alarm raised (two ICU parses a raise).
      const key = `${lang}\u0000${locale}`;
      const hit = translators.get(key);
      if (hit && hit.own === own && hit.base === base) return hit.translator;
      if (translators.size >= MAX_TRANSLATORS) translators.clear();
      const translator = makeTranslator(lang, locale, own, base);
      translators.set(key, { own, base, translator });
      return translator;
    },
    rejected: (lang) => readSite(lang)?.rejected ?? [],
  };
}

/** A language's own name: ours for the shipped ones, else what Intl knows ("polski" for pl), else its code. */
function autonym(code: string): string {
  if (AUTONYMS[code]) return AUTONYMS[code]!;
  try {
    const name = new Intl.DisplayNames([code], { type: 'language' }).of(code);
    if (name && name !== code) return name.charAt(0).toLocaleUpperCase(code) + name.slice(1);
  } catch {
    // not a code Intl knows
  }
  return code;
}

function parseSiteFile(path: string, mtimeMs: number, size: number, lang: string, warn?: (msg: string, data: Record<string, unknown>) => void): SiteFile {
  const messages: Record<string, string> = {};
  const rejected: string[] = [];
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    warn?.('site catalogue is not JSON: it is ignored', { language: lang, path, error: (err as Error).message });
    return { mtimeMs, size, messages, rejected };
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    warn?.('site catalogue is not an object of messages: it is ignored', { language: lang, path });
    return { mtimeMs, size, messages, rejected };
  }
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (typeof value !== 'string') { rejected.push(key); continue; }
    try {
      messageArguments(value);
      messages[key] = value;
    } catch {
      rejected.push(key);
    }
  }
  if (rejected.length) warn?.('site catalogue messages left out (not strings or not ICU MessageFormat); they read in English', { language: lang, path, keys: rejected.slice(0, 20) });
  return { mtimeMs, size, messages, rejected };
}
