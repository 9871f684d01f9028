// Manifest of the swine module: rooms and pens instead of houses, sows and growing pigs instead
// of flocks. Climate readings judged by weight/age phase, feeding and water per pen with
// anomalies, daily production with KPIs, biosecurity events; out-of-norm findings raise alarms
// through the one industry alarm service (the industry module), profiles live in its store.
import { defineModule, defineRuntime, grant, managed, MANAGE } from '../../kernel/module.js';
import { climateRecord, climateRoutes } from './climate.js';
import { feedingRecord, feedingRoutes } from './feeding.js';
import { waterRecord, waterRoutes } from './water.js';
import { productionRecord, productionRoutes } from './production.js';
import { biosecurityRecord, biosecurityRoutes } from './biosecurity.js';
import { climateRules, ruleStateRecord } from './climate-rules.js';
import { startRuleScheduler, type RuleScheduler } from '../../industry/rules.js';
import { adapterRecord, setpointRecord, setpointRoutes } from './setpoints.js';
import { industrySetup } from '../../industry/setup-steps.js';

export default defineModule({
  id: 'swine',
  name: 'Swine',
  description: 'Swine workspace: climate, feeding, water, production and biosecurity.',
  version: '1.0.0',
  core: false,
  dependencies: ['industry'],
  industry_code: 'swine',
  industry_scope: 'industry',
  key_entity: 'herd',
  provides_enrichment_for: [],
  routes: [...climateRoutes, ...feedingRoutes, ...waterRoutes, ...productionRoutes, ...biosecurityRoutes, ...setpointRoutes],
  setup: industrySetup({ industry: 'swine', unit: 'room', adapters: adapterRecord.table }),
  tables: [climateRecord.table, feedingRecord.table, waterRecord.table, productionRecord.table, biosecurityRecord.table, ruleStateRecord.table, setpointRecord.table, adapterRecord.table],
  // As in poultry (docs/alarms.md, Permissions): readings (climate telemetry and sensors, feed and
  // water ingest) are for devices, integrations (admin-role service tokens) and admins; operators
  // read them and set their rooms' setpoints (action confirm, as at the controller's panel). Production records and
  // biosecurity events are kept by the crew (typed in at the gate and in the rooms, not device
  // readings), so operators still execute those, and they acknowledge alarms on industry-alarms.
  permissions: [
    ...managed(['swine-production', 'swine-biosecurity'], 'operate'),
    ...managed(['swine-feeding', 'swine-water'], 'read'),
    ...grant('swine-climate', { admin: [...MANAGE, 'confirm'], operator: ['read', 'confirm'], security: ['read'] }),
  ],
  // The climate rules hold a breach before raising it (climate-rules.ts): this pass raises a
  // room's breach whose hold has passed when no reading arrives to do it (a controller that went
  // quiet while the room overheats), as poultry's does. The state is in SQL, so the first pass
  // after a restart catches up.
  runtime: defineRuntime({
    needs: ['services'],
    create({ services }) {
      let scheduler: RuleScheduler | undefined;
      return {
        async start() {
          scheduler = startRuleScheduler(services, services.config.alarm_escalation_interval_ms, (now) => climateRules(services).tick(now));
        },
        async stop() {
          scheduler?.stop();
        },
      };
    },
  }),
});
