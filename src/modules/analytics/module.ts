// Manifest of the analytics module: fleet metrics and summary, and the pilot summary.
import { defineModule, managed } from '../../kernel/module.js';
import { analyticsRoutes } from './resource.js';
import { analyticsMetrics } from './schema.js';

export default defineModule({
  id: 'analytics',
  name: 'Analytics',
  description: 'Fleet analytics aggregated per tenant, industry and window, and the fleet summary.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'metric',
  provides_enrichment_for: ['tenant-master', 'subscriptions'],
  routes: analyticsRoutes,
  tables: [analyticsMetrics],
  permissions: managed('analytics', 'read'),
});
