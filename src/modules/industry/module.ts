// Manifest of the industry module. Routes and tables arrive with the issue that implements it.
import { defineModule } from '../../kernel/module.js';

export default defineModule({
  id: 'industry',
  name: 'Industry',
  description: 'Generic industry resources: equipment profiles (versioned, YAML import and export) and industry alarms bridged to status.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'industry_profile',
  provides_enrichment_for: ['poultry', 'swine', 'melioration'],
  frontend: { block_id: 'industry', component: 'IndustryWorkspace' },
  routes: [],
  tables: [],
  permissions: [
    { role: 'admin', resource: 'industry-profiles', actions: ['read', 'create', 'update', 'delete', 'execute'] },
    { role: 'operator', resource: 'industry-profiles', actions: ['read'] },
    { role: 'security', resource: 'industry-profiles', actions: ['read'] },
    { role: 'admin', resource: 'industry-alarms', actions: ['read', 'create', 'update', 'delete', 'execute'] },
    { role: 'operator', resource: 'industry-alarms', actions: ['read'] },
    { role: 'security', resource: 'industry-alarms', actions: ['read'] },
  ],
});
