// Every shipped catalogue, for the server (notifications, the box's English texts, the served
// catalogues). Read from the catalogue files (embedded in the executable as assets i18n/<lang>/*.json,
// src/i18n/messages/ in a checkout) the first time a language is needed, not imported as modules:
// three languages of words held from the start cost the idle box several MiB it mostly never uses
// (a box whose readers and channels are all English never parses Russian or Spanish). The shell
// bundles English only (messages/en.ts) and fetches the reader's language when it is another.
import { listAssets, readAsset } from '../runtime/assets.js';
import { SHIPPED_LANGUAGES, type ShippedLanguage } from './languages.js';
import type { Catalogue } from './translate.js';

const loaded = new Map<ShippedLanguage, Catalogue>();

/** A shipped language's whole catalogue (all its areas), read once. */
export function builtIn(lang: ShippedLanguage): Catalogue {
  const hit = loaded.get(lang);
  if (hit) return hit;
  const out: Record<string, string> = {};
  const files = listAssets(`i18n/${lang}/`).filter((name) => name.endsWith('.json')).sort();
  if (!files.length) throw new Error(`no catalogue files for ${lang} (assets i18n/${lang}/*.json)`);
  for (const name of files) Object.assign(out, JSON.parse(readAsset(name)!.toString('utf8')) as Record<string, string>);
  loaded.set(lang, out);
  return out;
}

/** The shipped catalogues by language, each read at its first use. */
export const BUILT_IN: Readonly<Record<ShippedLanguage, Catalogue>> = Object.defineProperties(
  {} as Record<ShippedLanguage, Catalogue>,
  Object.fromEntries(SHIPPED_LANGUAGES.map((lang) => [lang, { get: () => builtIn(lang), enumerable: true }])),
);
