import { defineModule } from '../../kernel/module.js';
import { authTables } from '../../auth/tables.js';
import { sessionRoutes } from './session-routes.js';
import { loginRoutes } from './login-routes.js';

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
  frontend: { block_id: 'auth', component: 'LoginPanel' },
  routes: [...sessionRoutes, ...loginRoutes],
  tables: authTables,
  permissions: [],
});
