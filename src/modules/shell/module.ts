import { defineModule, grant } from '../../kernel/module.js';
import { roleRoutes, shellRoutes } from './routes.js';
import { shellProfileAudit, shellProfileVersions, uiPreferences } from './schema.js';

export default defineModule({
  id: 'shell',
  name: 'Shell settings',
  description: 'Per-user UI preferences per tenant/site/industry, and versioned shell profiles with export, import, rollback and an audit trail.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'shell_profile',
  provides_enrichment_for: [],
  routes: [...shellRoutes, ...roleRoutes],
  tables: [uiPreferences, shellProfileVersions, shellProfileAudit],
  permissions: [
    ...grant('ui-preferences', { operator: ['read', 'update'], admin: ['read', 'update'], security: ['read', 'update'] }),
    // Only admins set what a role's panel shows; they read it to edit it.
    ...grant('ui-role-preferences', { admin: ['read', 'update'] }),
    ...grant('shell-profile', { operator: ['read', 'export'], admin: ['read', 'export', 'import', 'rollback'], security: ['read', 'export'] }),
  ],
});
