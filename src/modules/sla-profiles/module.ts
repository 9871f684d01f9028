// Manifest of the SLA profiles module: response/resolution targets assigned to subscriptions.
import { defineModule, managed } from '../../kernel/module.js';
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
  routes: slaProfileResource.routes,
  tables: [slaProfiles],
  permissions: managed('sla-profiles', 'read'),
});
