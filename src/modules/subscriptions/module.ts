// Manifest of the subscriptions module: one subscription per tenant offer, with a status lifecycle.
import { defineModule, managed } from '../../kernel/module.js';
import { subscriptionResource } from './resource.js';
import { subscriptions } from './schema.js';

export default defineModule({
  id: 'subscriptions',
  name: 'Subscriptions',
  description: 'Tenant subscriptions: status trial, active, paused or canceled, and the SLA profile linked to each.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'subscription',
  provides_enrichment_for: [],
  routes: subscriptionResource.routes,
  tables: [subscriptions],
  permissions: managed('subscriptions', 'read'),
});
