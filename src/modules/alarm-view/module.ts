import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { alarmViewRoutes } from './routes.js';
import { bridgeAlarmChanges } from './bridge.js';

export default defineModule({
  id: 'alarm-view',
  name: 'Alarm view',
  description: 'Every alarm a person may see, of every alarm resource, with what the box announces (annunciated, urgent, colour), its counts, and every change as one status event (alarm_changed).',
  version: '1.0.0',
  core: true,
  dependencies: ['status'],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'alarm',
  provides_enrichment_for: [],
  routes: alarmViewRoutes,
  tables: [],
  // Reading the view shows no more than the alarm resources the caller may list (view.ts).
  permissions: grant('alarm-view', { operator: ['read'], admin: ['read'], security: ['read'] }),
  runtime: defineRuntime({
    needs: ['bus', 'log', 'status'],
    provides: [],
    required: true,
    create({ bus, log, status }) {
      let off: (() => void) | undefined;
      return {
        async start() {
          off = bridgeAlarmChanges({ bus, log }, status);
        },
        async stop() {
          off?.();
        },
      };
    },
  }),
});
