// Every shipped catalogue, for the server (notifications, the served catalogues). The shell
// bundles English only (messages/en.ts) and fetches the reader's language when it is another.
import type { ShippedLanguage } from './languages.js';
import type { Catalogue } from './translate.js';
import { EN } from './messages/en.js';
import { RU } from './messages/ru.js';
import { ES } from './messages/es.js';

export const BUILT_IN: Readonly<Record<ShippedLanguage, Catalogue>> = { en: EN, ru: RU, es: ES };
