import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { createStorageService, type StorageService } from './budget.js';
import { storageRoutes } from './routes.js';
import { convertToNoVacuum } from './space.js';

const FIRST_RUN_MS = 60_000;

export default defineModule({
  id: 'storage',
  name: 'Storage budget',
  description: 'Keeps the database within storage_budget_bytes: retention of telemetry, roll-ups, status events, audit and alarm history, thinned in order within floors, freed room kept in the file for the next rows, usage and projection reported.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'storage_run',
  provides_enrichment_for: [],
  routes: storageRoutes,
  tables: [],
  permissions: grant('storage', { admin: ['read', 'thin'], security: ['read'] }),
  runtime: defineRuntime({
    needs: ['services'],
    provides: ['storage'],
    create({ services }) {
      let first: NodeJS.Timeout | undefined;
      let timer: NodeJS.Timeout | undefined;
      let storage: StorageService | undefined;
      return {
        async start() {
          const { log, config } = services;
          // Once per database: a SQLite file made with auto-vacuum (the versions before this one;
          // new files are made without, src/db/client.ts) is converted here, before the box is
          // ready; see space.ts for why and for the limits.
          let conversion: string | null = null;
          try {
            const c = await convertToNoVacuum(services.db);
            if (c.converted) log.info('database converted to auto_vacuum = NONE', { ms: c.ms });
            if (c.reason) {
              conversion = `not converted: ${c.reason}`;
              log.warn('database not converted to auto_vacuum = NONE: it keeps its pointer map and gives freed room back', { reason: c.reason });
            }
          } catch (err) {
            conversion = `conversion failed: ${(err as Error).message}`;
            log.error('database conversion to auto_vacuum = NONE failed', { error: (err as Error).message });
          }
          const s = (storage = createStorageService(services, () => conversion));
          const run = (reason: 'start' | 'schedule') => {
            s.run(reason).catch((err: Error) => log.error('storage run failed', { error: err.message }));
          };
          // The first run a minute after start (or at the first interval, if shorter): start-up and
          // the first requests do not share the writer with it.
          first = setTimeout(() => {
            run('start');
            timer = setInterval(() => run('schedule'), config.storage_interval_ms);
            timer.unref();
          }, Math.min(FIRST_RUN_MS, config.storage_interval_ms));
          first.unref();
          return { storage: s };
        },
        async stop() {
          if (first) clearTimeout(first);
          if (timer) clearInterval(timer);
          timer = undefined;
          // A run in progress finishes before the database closes.
          await storage?.settled();
        },
      };
    },
  }),
});
