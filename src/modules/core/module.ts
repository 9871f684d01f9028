import { defineModule } from '../../kernel/module.js';
import { kernelTables } from '../../kernel/tables.js';
import { systemRoutes } from './system.js';

export default defineModule({
  id: 'core',
  name: 'Core',
  description: 'Probes, the OpenAPI contract and its UI, the runtime snapshot and the kernel tables.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: null,
  provides_enrichment_for: [],
  frontend: { block_id: 'core', component: 'Shell' },
  routes: systemRoutes,
  tables: kernelTables,
  permissions: [
    { role: 'admin', resource: 'operability', actions: ['read'] },
    { role: 'security', resource: 'operability', actions: ['read'] },
  ],
});
