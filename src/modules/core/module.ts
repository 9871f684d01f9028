import { defineModule, grant } from '../../kernel/module.js';
import { kernelTables } from '../../kernel/tables.js';
import { registryRuntime } from './registry/runtime.js';
import { systemRoutes } from './system.js';
import { registryRoutes } from './registry-routes.js';
import { i18nRoutes } from './i18n-routes.js';
import { registryTables } from './registry/tables.js';
import { tlsRoutes } from '../../runtime/tls-routes.js';

export default defineModule({
  id: 'core',
  name: 'Core',
  description: 'Probes, the OpenAPI contract and its UI, the runtime snapshot, the kernel tables and the module registry.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'module',
  provides_enrichment_for: [],
  routes: [...systemRoutes, ...registryRoutes, ...tlsRoutes, ...i18nRoutes],
  tables: [...kernelTables, ...registryTables],
  permissions: [
    ...grant('operability', { admin: ['read'], security: ['read'] }),
    ...grant('modules', { admin: ['read', 'install', 'update', 'audit'], operator: ['read'], security: ['read', 'audit'] }),
  ],
  runtime: registryRuntime,
});
