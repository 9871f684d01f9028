// The texts the box writes itself (alarm titles and causes, outcomes) are message keys with
// parameters (box.* in src/i18n/messages): a reader renders them in their own language. The
// English `title`/`message` an alarm record keeps for the API's clients is rendered from the same
// key with the English catalogue, so there is one wording, not two.
import type { Services } from '../kernel/context.js';
import { BUILT_IN } from '../i18n/built-in.js';
import { makeTranslator, type Translator } from '../i18n/translate.js';
import type { TextParams } from './alarm-view-item.js';

export type { TextParams };

/** A text of the box: its title key, an optional message key, and the parameters of both (data, never worded English). */
export interface BoxText {
  title_key: string;
  message_key?: string | null;
  params: TextParams;
}

/** The columns an alarm record keeps for its texts. */
export interface StoredText {
  title: string;
  message: string | null;
  title_key: string | null;
  message_key: string | null;
  text_params: TextParams | null;
}

let bundled: Translator | undefined;

/**
 * The English of the box's texts: the site's English catalogue when the box has one, the shipped
 * one otherwise (tools, unit tests). Numbers as plain English writes them whatever the site's
 * region (12.5, not 12,5): this English is what the API's clients read and match.
 */
export function english(services?: Partial<Pick<Services, 'catalogues' | 'config'>>): Translator {
  if (services?.catalogues) return services.catalogues.translator('en');
  return (bundled ??= makeTranslator('en', 'en', BUILT_IN.en, BUILT_IN.en));
}

/** A text in another language (a channel's, a test's): the same key and parameters. */
export function inLanguage(services: Partial<Pick<Services, 'catalogues' | 'config'>> | undefined, language: string): Translator {
  if (services?.catalogues) return services.catalogues.translator(language, services.config?.site_locale);
  return english();
}

/**
 * What an alarm record stores for a text: with a BoxText its keys and parameters and their English
 * (a message the box did not word itself, e.g. what a person noted, is kept as given); without one
 * the title and message as given, keys null (a text a person typed).
 */
export function storedText(services: Partial<Pick<Services, 'catalogues' | 'config'>> | undefined, input: { title?: string; message?: string | null; text?: BoxText }): StoredText {
  const text = input.text;
  if (!text) return { title: input.title ?? '', message: input.message ?? null, title_key: null, message_key: null, text_params: null };
  const en = english(services);
  return {
    title: en.t(text.title_key, text.params),
    message: text.message_key ? en.t(text.message_key, text.params) : (input.message ?? null),
    title_key: text.title_key,
    message_key: text.message_key ?? null,
    text_params: { ...text.params },
  };
}

/** The unit's name part as the crew says it after the noun: "house-3" -> "3", "3" -> "3", "north" -> "north" (the noun comes from the catalogue, by industry). */
export function unitPart(industry: string, unitId: string): string {
  const label = ({ poultry: 'House', swine: 'Room', melioration: 'Field' } as Record<string, string>)[industry] ?? 'Unit';
  const m = new RegExp(`^${label}[-_ ]*(.+)$`, 'i').exec(unitId);
  return m ? m[1]! : unitId;
}

/** A stored text_params column as parameters: its primitive values (a JSON column read back may hold anything). */
export function textParamsOf(v: unknown): TextParams | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const out: TextParams = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) {
    if (typeof x === 'string' || typeof x === 'number' || typeof x === 'boolean' || x === null) out[k] = x;
  }
  return out;
}
