// Manifest of the version policies module: allowed module versions by scope, and the violations check.
import { defineModule, managed } from '../../kernel/module.js';
import { versionPolicyResource } from './resource.js';
import { versionPolicies } from './schema.js';

export default defineModule({
  id: 'version-policies',
  name: 'Version policies',
  description: 'Allowed module versions by scope (global, industry, tenant): allowed major, min, max and pinned versions, with a violations check.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'master',
  key_entity: 'version_policy',
  provides_enrichment_for: [],
  routes: versionPolicyResource.routes,
  tables: [versionPolicies],
  permissions: managed('version-policies', 'read'),
});
