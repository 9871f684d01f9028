// Migrates every module of the catalogue. Kept apart from migrate.ts so the migrator itself
// never imports the module list (which imports the modules, which import the kernel).
import { MODULES } from '../modules/index.js';
import type { Database } from './client.js';
import { bundledMigrations, migrate } from './migrate.js';

export const migrateAll = (db: Database): Promise<string[]> => migrate(db, bundledMigrations(db.dialect, MODULES.map((m) => m.id)));
