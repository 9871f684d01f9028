// Manifest of the tenant master module: whitelisted tenant events between tenant clouds and the master.
import { defineModule, managed } from '../../kernel/module.js';
import { tenantMasterResource } from './resource.js';
import { tenantEvents } from './schema.js';

export default defineModule({
  id: 'tenant-master',
  name: 'Tenant master',
  description: 'Tenant-master exchange: whitelisted tenant events (event_type, status, correlation_id, payload) between tenant clouds and the master.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'tenant_event',
  provides_enrichment_for: [],
  routes: tenantMasterResource.routes,
  tables: [tenantEvents],
  permissions: managed('tenant-master', 'read'),
});
