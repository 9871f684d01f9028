// A person's language: the one kept on their card or badge (passkeys.language; null = the site's
// default, setting site_language). A value must be a language this box offers (shipped, or a
// catalogue the site added in data_dir/i18n), so that a card can never name one the tablets
// cannot read in.
import * as v from 'valibot';
import { eq } from 'drizzle-orm';
import { ApiError } from '../kernel/errors.js';
import type { Services } from '../kernel/context.js';
import type { Catalogues } from '../i18n/site-catalogues.js';
import { LANGUAGE_TAG } from '../i18n/languages.js';
import { colOf, tableOf } from '../db/sql.js';
import { isPasskeySubject } from './scope.js';
import { passkeys } from '../modules/passkeys/schema.js';

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

/**
 * The language of whoever a session belongs to: their card's or badge's (a session opened with a
 * passkey acts as its id), or null when it has none, or for a session that is not a person's card
 * (a token made with `cabinet token`).
 */
export async function personLanguage(services: Pick<Services, 'db' | 'modules'>, subject: string): Promise<string | null> {
  if (!isPasskeySubject(subject) || !services.modules.isInstalled('passkeys')) return null;
  const { db } = services;
  const [row] = (await db.orm.select({ language: colOf(passkeys, db, 'language') }).from(tableOf(passkeys, db)).where(eq(colOf(passkeys, db, 'id'), subject)).limit(1)) as { language: string | null }[];
  return row?.language ?? null;
}
