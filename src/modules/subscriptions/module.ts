// Manifest of the subscriptions module. Routes and tables arrive with the issue that implements it.
import { defineModule } from '../../kernel/module.js';

export default defineModule({
  id: 'subscriptions',
  name: 'Subscriptions',
  description: 'Tenant subscriptions and their status (trial, active, paused, canceled).',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'subscription',
  provides_enrichment_for: [],
  frontend: { block_id: 'subscriptions', component: 'SubscriptionsTable' },
  routes: [],
  tables: [],
  permissions: [
    { role: 'admin', resource: 'subscriptions', actions: ['read', 'create', 'update', 'delete', 'execute'] },
    { role: 'operator', resource: 'subscriptions', actions: ['read'] },
    { role: 'security', resource: 'subscriptions', actions: ['read'] },
  ],
});
