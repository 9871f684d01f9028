import { defineModule, grant } from '../../kernel/module.js';
import { authTables } from '../../auth/tables.js';
import { sessionRoutes } from './session-routes.js';
import { loginRoutes } from './login-routes.js';
import { policyRoutes } from './policy-routes.js';
import { securityLogResource } from './security-log-routes.js';
import { peopleRoute } from './people-routes.js';
import { languageRoute } from './language-routes.js';

export default defineModule({
  id: 'auth',
  name: 'Authentication',
  description: 'Sessions, login challenges (QR, 4-digit code, RFID), permissions projection, UI access and the security log.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'session',
  provides_enrichment_for: [],
  routes: [...sessionRoutes, ...loginRoutes, ...policyRoutes, ...securityLogResource.routes, peopleRoute, languageRoute],
  tables: authTables,
  permissions: [
    ...grant('permissions', { operator: ['read'], admin: ['read'], security: ['read'] }),
    ...grant('app-context', { operator: ['read'], admin: ['read'], security: ['read'] }),
    ...grant('ui-access', { operator: ['read'], admin: ['read', 'update'], security: ['read'] }),
    ...grant('security-log', { admin: ['read'], security: ['read'] }),
    ...grant('people', { operator: ['read'], admin: ['read'], security: ['read'] }),
    // Each person their own card's language (auth/commands/set-language).
    ...grant('language', { operator: ['update'], admin: ['update'], security: ['update'] }),
  ],
});
