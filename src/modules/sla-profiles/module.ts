// Manifest of the SLA profiles module: response/resolution targets assigned to subscriptions.
import { defineModule } from '../../kernel/module.js';
import { slaProfileResource } from './resource.js';
import { slaProfiles } from './schema.js';

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
  routes: slaProfileResource.routes,
  tables: [slaProfiles],
  permissions: [
    { role: 'admin', resource: 'sla-profiles', actions: ['read', 'create', 'update', 'delete', 'execute'] },
    { role: 'operator', resource: 'sla-profiles', actions: ['read'] },
    { role: 'security', resource: 'sla-profiles', actions: ['read'] },
  ],
});
