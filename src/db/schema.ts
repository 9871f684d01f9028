// Every table of every module, in one list: the schema source for both dialects.
import { MODULES } from '../modules/index.js';
import type { NeutralTable } from './table.js';

export const ALL_TABLES: readonly NeutralTable[] = MODULES.flatMap((m) => m.tables);
