// The registry as a module runtime (the core module's): after migrations, load the install
// state from SQL (seeding new modules, importing the legacy JSON file once) and provide it as
// `services.modules` in place of the pre-start static registry.
import { defineRuntime } from '../../../kernel/module.js';
import type { Services } from '../../../kernel/context.js';
import { ApiError } from '../../../kernel/errors.js';
import { moduleMigrations } from '../../../db/migrate.js';
import { PersistentRegistry } from './persistent.js';

export const registryRuntime = defineRuntime({
  needs: ['db', 'config', 'log'],
  provides: ['modules'],
  required: true,
  create({ db, config, log }, catalogue) {
    return {
      async start() {
        const registry = new PersistentRegistry({
          db,
          config,
          log,
          catalogue,
          migrationsOf: (id) => moduleMigrations(db.dialect, id).map((m) => m.tag),
        });
        await registry.start();
        return { modules: registry };
      },
    };
  },
});

/** The persistent registry behind `services.modules` (503 before start-up finished). */
export function registryOf(services: Services): PersistentRegistry {
  const r = services.modules;
  if (!(r instanceof PersistentRegistry)) throw new ApiError('service_unavailable', 'the module registry is not loaded yet');
  return r;
}
