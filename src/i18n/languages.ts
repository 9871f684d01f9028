// The languages the box ships complete, and how a language tag is checked. A site may add more
// (a catalogue file in its data directory); those fall back to English key by key.

/** Shipped complete: every key in every one of these (test/unit/i18n-catalogues.test.ts). */
export const SHIPPED_LANGUAGES = ['en', 'ru', 'es'] as const;
export type ShippedLanguage = (typeof SHIPPED_LANGUAGES)[number];

/** The fallback for a key a catalogue lacks, and the language of the API's own English fields. */
export const BASE_LANGUAGE: ShippedLanguage = 'en';

/** Each language's own name for itself, as a chooser shows it (a reader finds their language by its own name). */
export const AUTONYMS: Readonly<Record<string, string>> = {
  en: 'English',
  ru: 'Русский',
  es: 'Español',
};

/** A language as the box stores it: a lowercase ISO 639 code, optionally with a region ("pt-BR"). */
export const LANGUAGE_TAG = /^[a-z]{2,3}(-[A-Z]{2})?$/;

export function isLanguageTag(value: unknown): value is string {
  return typeof value === 'string' && LANGUAGE_TAG.test(value);
}

export function isShipped(lang: string): lang is ShippedLanguage {
  return (SHIPPED_LANGUAGES as readonly string[]).includes(lang);
}

/**
 * The locale numbers and dates are written in: the reader's language, with the site's region
 * (site_locale "es-AR" and a Russian reader: "ru-AR", which Intl resolves to Russian digits and
 * separators). The language decides the decimal comma; the region only what Intl has for it.
 */
export function formatLocale(language: string, siteLocale: string | undefined): string {
  const lang = language.split('-')[0]!;
  const region = /^[a-z]{2,3}-([A-Z]{2})$/.exec(siteLocale ?? '')?.[1];
  const own = /-([A-Z]{2})$/.exec(language)?.[1];
  const tag = `${lang}${own ? `-${own}` : region ? `-${region}` : ''}`;
  try {
    return Intl.getCanonicalLocales(tag)[0] ?? lang;
  } catch {
    return lang;
  }
}
