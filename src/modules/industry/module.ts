// Manifest of the industry module: the generic industry resources and the one alarm service of
// the industry workspaces (src/industry/alarm-service.ts), whose events table it owns.
import { defineModule, defineRuntime, grant, managed } from '../../kernel/module.js';
import { industryAlarmEvents, outOfServiceRecord } from '../../industry/alarm-schema.js';
import { startEscalator, type Escalator } from '../../industry/escalator.js';
import { industryProfiles } from '../../industry/profiles.js';
import { industryProfileRoutes } from './profiles-resource.js';
import { industryAlarmRoutes } from './alarms-resource.js';

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
  routes: [...industryProfileRoutes, ...industryAlarmRoutes],
  tables: [industryAlarmEvents, industryProfiles, outOfServiceRecord.table],
  permissions: [
    ...managed('industry-profiles', 'read'),
    // docs/alarms.md: operators acknowledge and shelve; admins and integrations (admin-role
    // service tokens) publish, reset and take units out of service.
    ...grant('industry-alarms', { admin: ['read', 'create', 'update', 'delete', 'execute', 'acknowledge', 'shelve', 'reset', 'maintain'], operator: ['read', 'acknowledge', 'shelve'], security: ['read'] }),
  ],
  runtime: defineRuntime({
    needs: ['services', 'bus', 'industryAlarms'],
    provides: [],
    create({ services }) {
      let escalator: Escalator | undefined;
      return {
        async start() {
          escalator = startEscalator(services, services.config.alarm_escalation_interval_ms);
        },
        async stop() {
          escalator?.stop();
        },
      };
    },
  }),
});
