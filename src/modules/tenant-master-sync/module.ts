// Manifest of the tenant-master sync module. Routes and tables arrive with the issue that implements it.
import { defineModule } from '../../kernel/module.js';

export default defineModule({
  id: 'tenant-master-sync',
  name: 'Tenant-master sync',
  description: 'Synchronisation state per tenant (live, degraded, stopped), its mode (auto, manual, paused), lag and pending counters, forced runs.',
  version: '1.0.0',
  core: false,
  dependencies: ['tenant-master'],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'tenant_sync',
  provides_enrichment_for: ['tenant-master'],
  frontend: { block_id: 'tenant-master-sync', component: 'TenantSyncPanel' },
  routes: [],
  tables: [],
  permissions: [
    { role: 'admin', resource: 'tenant-master-sync', actions: ['read', 'create', 'update', 'delete', 'execute'] },
    { role: 'operator', resource: 'tenant-master-sync', actions: ['read'] },
    { role: 'security', resource: 'tenant-master-sync', actions: ['read'] },
  ],
});
