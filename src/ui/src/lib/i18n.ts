// The shell's words: every text a person reads comes from here, by key (src/i18n/messages). English
// is in the main script (it is every key's fallback); another language's catalogue is fetched from
// the box when it is chosen, and kept on the tablet so that it still reads in that language offline.
// Changing the language re-renders the whole shell (app.tsx keys it on the language).
import { EN, type MessageKey } from '../../../i18n/messages/en';
import { BASE_LANGUAGE, formatLocale, isLanguageTag } from '../../../i18n/languages';
import { makeTranslator, type Catalogue, type MessageParams, type Translator } from '../../../i18n/translate';
import { observable } from './observable';
import { pageDocument } from './page';

export type { MessageKey, MessageParams };

/** Tablet-wide, not per person: clearCache() (cabinet.*) at logout must not take the words away. */
const KEPT = 'cabinet-i18n.';

let siteLocale: string | undefined;
let current: Translator = makeTranslator(BASE_LANGUAGE, formatLocale(BASE_LANGUAGE, undefined), EN, EN);

/** The language the shell reads in now (its code). */
export const language = observable<string>(BASE_LANGUAGE);

/** The text of a key in the reader's language (English for a key the language lacks). */
export function t(key: MessageKey, params?: MessageParams): string {
  return current.t(key, params);
}

/**
 * A sentence with elements inside it (a link, a code in bold): the key's text in the reader's
 * language, cut at each slot's place, so a language puts the slot where its sentence needs it.
 * Returns the pieces in order, text and slots, to render side by side.
 */
export function tParts<T>(key: MessageKey, slots: Record<string, T>, params?: MessageParams): (string | T)[] {
  const marks: Record<string, string> = {};
  for (const name of Object.keys(slots)) marks[name] = `\uE000${name}\uE000`;
  const text = current.t(key, { ...(params ?? {}), ...marks });
  return text.split('\uE000').map((piece, i) => (i % 2 === 1 && piece in slots ? slots[piece]! : piece)).filter((p) => p !== '');
}

/**
 * A text the box wrote (an alarm's title, an outcome): its key in the reader's language, or the
 * English the box stored beside it when the key is unknown to this shell or absent (older records,
 * texts typed by people).
 */
export function boxText(key: string | null | undefined, params: MessageParams | null | undefined, english: string): string {
  if (!key || !current.has(key)) return english;
  const out = current.t(key, params ?? undefined);
  return out === key ? english : out;
}

/** The locale numbers and dates are written in: the reader's language at the site's region. */
export function readerLocale(): string {
  return current.locale;
}

function storage(): Storage | undefined {
  try {
    return globalThis.localStorage;
  } catch {
    return undefined;
  }
}

function kept(lang: string): { etag?: string; catalogue: Catalogue } | undefined {
  try {
    const raw = storage()?.getItem(`${KEPT}${lang}`);
    return raw ? (JSON.parse(raw) as { etag?: string; catalogue: Catalogue }) : undefined;
  } catch {
    return undefined;
  }
}

async function fetchCatalogue(lang: string): Promise<Catalogue | undefined> {
  const have = kept(lang);
  try {
    const res = await fetch(`/app/i18n/${lang}.json`, { headers: have?.etag ? { 'if-none-match': have.etag } : {}, credentials: 'same-origin' });
    if (res.status === 304 && have) return have.catalogue;
    if (!res.ok) return have?.catalogue;
    const catalogue = (await res.json()) as Catalogue;
    try {
      storage()?.setItem(`${KEPT}${lang}`, JSON.stringify({ etag: res.headers.get('etag') ?? undefined, catalogue }));
    } catch {
      // a full storage only costs the offline copy
    }
    return catalogue;
  } catch {
    return have?.catalogue; // offline: the copy kept on the tablet
  }
}

/** The site's region for numbers and dates (app/context display.locale, setting site_locale). */
export function setSiteLocale(locale: string | undefined): void {
  siteLocale = locale;
  current = makeTranslator(current.language, formatLocale(current.language, siteLocale), own, EN);
}

let own: Catalogue = EN;
let pending = 0;

/**
 * Reads the shell in this language from now on. Resolves false (and stays as it is) when the
 * language is unknown or its catalogue cannot be had, online or kept.
 */
export async function setLanguage(lang: string): Promise<boolean> {
  if (!isLanguageTag(lang)) return false;
  const ticket = ++pending;
  // English too: a site's own file may change its words (the bundled English stays the fallback).
  const catalogue = (await fetchCatalogue(lang)) ?? (lang === BASE_LANGUAGE ? EN : undefined);
  if (!catalogue || ticket !== pending) return false;
  own = catalogue;
  current = makeTranslator(lang, formatLocale(lang, siteLocale), catalogue, EN);
  const doc = pageDocument();
  if (doc) doc.documentElement.lang = lang;
  language.set(lang);
  return true;
}

const CHOICE = `${KEPT}choice`;
const OFFERED = `${KEPT}languages`;

/** A language a chooser offers (GET /app/i18n/languages.json). */
export interface OfferedLanguage { code: string; name: string; shipped: boolean; coverage: number }
export interface Offered { default: string; languages: OfferedLanguage[] }

/** The languages this box offers and the site's default, as last read (kept on the tablet for offline starts). */
export const offered = observable<Offered | undefined>(keptOffered());

function keptOffered(): Offered | undefined {
  try {
    const raw = storage()?.getItem(OFFERED);
    const v = raw ? (JSON.parse(raw) as Offered) : undefined;
    return v && Array.isArray(v.languages) && typeof v.default === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

/** Reads the languages offered from the box (public: the login screen asks before anyone logs in); offline, the kept copy. */
export async function loadOffered(): Promise<Offered | undefined> {
  try {
    const res = await fetch('/app/i18n/languages.json', { credentials: 'same-origin' });
    if (!res.ok) return offered.get();
    const v = (await res.json()) as Offered;
    offered.set(v);
    try {
      storage()?.setItem(OFFERED, JSON.stringify(v));
    } catch {
      // kept for this page only
    }
    return v;
  } catch {
    return offered.get();
  }
}

/** The site's default language, as the box last said (languages.json default, app/context display.language). */
export function siteDefault(): string {
  return offered.get()?.default ?? BASE_LANGUAGE;
}

/** The site's default as app/context says it (kept with the offered list, so that an offline logout finds it). */
export function setSiteDefault(lang: string | undefined): void {
  if (!lang || !isLanguageTag(lang)) return;
  const have = offered.get();
  if (have?.default === lang) return;
  const next = { default: lang, languages: have?.languages ?? [] };
  offered.set(next);
  try {
    storage()?.setItem(OFFERED, JSON.stringify(next));
  } catch {
    // kept for this page only
  }
}

/** The language chosen on this tablet (at the login screen), kept across reloads and logouts. */
export function tabletChoice(): string | undefined {
  const v = storage()?.getItem(CHOICE);
  return v && isLanguageTag(v) ? v : undefined;
}

/** The tablet's own language when nobody is logged in: the one chosen on it, else the site's default. */
export function tabletLanguage(): string {
  return tabletChoice() ?? siteDefault();
}

/**
 * The language of whoever logged in: their card's own, else the one chosen on this tablet (the
 * person standing at it chose it), else the site's default.
 */
export function personLanguage(own: string | null | undefined): string {
  return own && isLanguageTag(own) ? own : tabletLanguage();
}

/** Back to the tablet's language (the session ended). A language that cannot be had falls back to the site's default, then English. */
export async function backToTabletLanguage(): Promise<void> {
  for (const lang of [tabletLanguage(), siteDefault(), BASE_LANGUAGE]) if (await setLanguage(lang)) return;
}

/** A language chosen on this tablet: read in it now and after a reload. */
export async function chooseLanguage(lang: string): Promise<boolean> {
  const ok = await setLanguage(lang);
  if (ok) {
    try {
      storage()?.setItem(CHOICE, lang);
    } catch {
      // kept for this page only
    }
  }
  return ok;
}
