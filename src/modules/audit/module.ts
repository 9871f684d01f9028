import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { auditResource } from './resource.js';
import { auditRecords } from './schema.js';
import { purgeAudit } from './service.js';
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
  routes: auditResource.routes,
  tables: [auditRecords],
  permissions: grant('audit', { operator: ['log'], admin: ['read', 'log'], security: ['read', 'log'] }),
  // services.audit itself is built by the composition root (src/compose.ts); this runtime keeps it trimmed.
  runtime: defineRuntime({
    needs: ['config', 'log', 'db'],
    create(deps) {
      let retention: Retention | undefined;
      return {
        async start() {
          retention = hourlyRetention(deps.log, 'audit', deps.config.audit_retention_days, (before) => purgeAudit(deps, before));
          retention.start();
        },
        async stop() {
          retention?.stop();
        },
      };
    },
  }),
});
