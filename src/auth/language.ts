// A person's language: the one kept on their card or badge (passkeys.language; null = the site's
// default, setting site_language). A value must be a language this box offers (shipped, or a
// catalogue the site added in data_dir/i18n), so that a card can never name one the tablets
// cannot read in. Reading a person's language is the auth module's (modules/auth/language-routes.ts):
// this layer imports no module.
import * as v from 'valibot';
import { ApiError } from '../kernel/errors.js';
import type { Catalogues } from '../i18n/site-catalogues.js';
import { LANGUAGE_TAG } from '../i18n/languages.js';

/** The body field: a language code, or null for the site's default. Checked against the box's languages in the handler. */
export const languageField = v.nullable(v.pipe(v.string(), v.regex(LANGUAGE_TAG, 'a language code such as en, ru, es')));

export const LANGUAGE_RULE = 'A language this box offers (GET /app/i18n/languages.json: en, ru, es, or a catalogue the site added in data_dir/i18n), or null for the site\'s default (setting site_language); another value is 400 validation_error (reason unknown_language) and nothing changes.';

/** The value as stored: the language when the box offers it, null for the site's default; else 400 validation_error. */
export function offeredLanguage(catalogues: Catalogues, value: string | null | undefined, field = 'language'): string | null {
  if (value === undefined || value === null) return null;
  const offered = catalogues.languages().map((l) => l.code);
  if (!offered.includes(value)) {
    throw new ApiError('validation_error', `${field}: ${value} is not a language this box offers (${offered.join(', ')})`, [{ field, reason: 'unknown_language' }]);
  }
  return value;
}
