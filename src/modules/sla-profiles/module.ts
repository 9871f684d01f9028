// Manifest of the sla profiles module. Routes and tables arrive with the issue that implements it.
import { defineModule } from '../../kernel/module.js';

export default defineModule({
  id: 'sla-profiles',
  name: 'SLA profiles',
  description: 'Response and resolution targets with escalation policies, assigned to subscriptions.',
  version: '1.0.0',
  core: false,
  dependencies: ['subscriptions'],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'sla_profile',
  provides_enrichment_for: ['subscriptions'],
  frontend: { block_id: 'sla-profiles', component: 'SlaProfilesTable' },
  routes: [],
  tables: [],
  permissions: [
    { role: 'admin', resource: 'sla-profiles', actions: ['read', 'create', 'update', 'delete', 'execute'] },
    { role: 'operator', resource: 'sla-profiles', actions: ['read'] },
    { role: 'security', resource: 'sla-profiles', actions: ['read'] },
  ],
});
