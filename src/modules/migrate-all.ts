// Migrates every module of the catalogue. Kept apart from db/migrate.ts so the migrator itself
// never imports the module list (which imports the modules, which import the kernel).
import { MODULES } from './index.js';
import type { Database } from '../db/client.js';
import { bundledMigrations, migrate } from '../db/migrate.js';

export const migrateAll = (db: Database): Promise<string[]> => migrate(db, bundledMigrations(db.dialect, MODULES.map((m) => m.id)));
