import { defineModule, grant } from '../../kernel/module.js';
import { alarmResource } from './resource.js';
import { alarms } from './schema.js';

export default defineModule({
  id: 'alarms',
  name: 'Alarms',
  description: 'Tenant and master alarms: one service raises them (bridging critical/high to status), operators acknowledge them.',
  version: '1.0.0',
  core: false,
  dependencies: ['status'],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'alarm',
  provides_enrichment_for: [],
  routes: alarmResource.routes,
  tables: [alarms],
  // docs/alarms.md: operators acknowledge and raise by hand (what they see on site); the end of a
  // condition is said by admins and integrations (admin-role service tokens).
  permissions: grant('alarms', { operator: ['read', 'ack', 'raise'], admin: ['read', 'ack', 'raise', 'clear'], security: ['read'] }),
});
