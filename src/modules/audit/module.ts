import { defineModule, grant } from '../../kernel/module.js';
import { auditResource } from './resource.js';
import { auditRecords } from './schema.js';
import { createSqlAudit, purgeAudit } from './service.js';
import { hourlyRetention, type Retention } from '../../kernel/retention.js';

export default defineModule({
  id: 'audit',
  name: 'Audit',
  description: 'Who did what, with a correlation id: the audit trail every module writes through services.audit.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'audit_record',
  provides_enrichment_for: [],
  frontend: { block_id: 'audit', component: 'AuditLog' },
  routes: auditResource.routes,
  tables: [auditRecords],
  permissions: grant('audit', { operator: ['log'], admin: ['read', 'log'], security: ['read', 'log'] }),
  runtime: (services) => {
    let retention: Retention | undefined;
    return {
      required: true,
      async start() {
        services.audit = createSqlAudit(services);
        retention = hourlyRetention(services.log, 'audit', services.config.audit_retention_days, (before) => purgeAudit(services, before));
        retention.start();
      },
      async stop() {
        retention?.stop();
      },
    };
  },
});
