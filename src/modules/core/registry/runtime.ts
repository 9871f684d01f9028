// The registry as a module runtime (the core module's): after migrations, load the install
// state from SQL (seeding new modules, importing the legacy JSON file once) and replace the
// pre-start static registry on `services.modules`.
import type { ModuleManifest, ModuleRuntime } from '../../../kernel/module.js';
import type { Services } from '../../../kernel/context.js';
import { ApiError } from '../../../kernel/errors.js';
import { moduleMigrations } from '../../../db/migrate.js';
import { PersistentRegistry } from './persistent.js';

export function registryRuntime(services: Services, catalogue: readonly ModuleManifest[]): ModuleRuntime {
  return {
    required: true,
    async start() {
      const db = services.db;
      const registry = new PersistentRegistry({
        db,
        config: services.config,
        log: services.log,
        catalogue,
        migrationsOf: (id) => moduleMigrations(db.dialect, id).map((m) => m.tag),
      });
      await registry.start();
      services.modules = registry;
    },
  };
}

/** The persistent registry behind `services.modules` (503 before start-up finished). */
export function registryOf(services: Services): PersistentRegistry {
  const r = services.modules;
  if (!(r instanceof PersistentRegistry)) throw new ApiError('service_unavailable', 'the module registry is not loaded yet');
  return r;
}
