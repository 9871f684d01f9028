// Manifest of the poultry module: the poultry workspace's resources.
import { defineModule, defineRuntime, grant, managed } from '../../kernel/module.js';
import { feedwaterDaysResource, feedwaterResource } from './feedwater.js';
import { feedwaterDayRecord, feedwaterRecord } from './feedwater-schema.js';
import { productionKpiRoute, productionRecord, productionResource } from './production.js';
import { poultryProfileRoutes } from './profiles.js';
import { flockRoutes } from './flock.js';
import { climateRoutes, poultryRules } from './climate.js';
import { sensorsRoute } from './sensors.js';
import { readingsRoutes } from './readings.js';
import { adapterRoutes } from './adapters.js';
import { poultryAlarmRoutes } from './alarms.js';
import { adapterRecord, climateRecord, flockRecord, readingRecord, recentReadingTable, ruleStateRecord } from './climate-schema.js';
import { startReadingSettle, type ReadingSettle } from './recent-readings.js';
import { startRuleScheduler, type RuleScheduler } from '../../industry/rules.js';
import { bridgeMqttClimate } from './mqtt-climate.js';
import { purgeReadings } from './readings.js';
import { hourlyRetention, type Retention } from '../../kernel/retention.js';
import { followRoutes } from './follow.js';
import { followRecord } from './follow-schema.js';
import { adapterVersionRecord } from './adapter-versions.js';
import { startCurveFollower } from './follow-service.js';
import { industrySetup } from '../../industry/setup-steps.js';

// A house's interval is at least 60 s; a pass every 30 s keeps each within half a minute of it.
const FOLLOW_PASS_MS = 30_000;

const ADMIN = ['read', 'create', 'update', 'delete', 'execute'] as const;

export default defineModule({
  id: 'poultry',
  name: 'Poultry',
  description: 'Poultry workspace: climate profiles and telemetry, flocks, feed and water, production KPIs and alarms with SLA escalation.',
  version: '1.0.0',
  core: false,
  dependencies: ['industry'],
  industry_code: 'poultry',
  industry_scope: 'industry',
  key_entity: 'flock',
  provides_enrichment_for: [],
  routes: [...flockRoutes, ...climateRoutes, ...readingsRoutes, sensorsRoute, ...adapterRoutes, ...poultryAlarmRoutes, ...feedwaterResource.routes, ...feedwaterDaysResource.routes, productionKpiRoute, ...productionResource.routes, ...poultryProfileRoutes, ...followRoutes],
  setup: industrySetup({ industry: 'poultry', unit: 'house', adapters: adapterRecord.table, flocks: flockRecord.table }),
  tables: [flockRecord.table, climateRecord.table, readingRecord.table, recentReadingTable, ruleStateRecord.table, adapterRecord.table, feedwaterRecord.table, feedwaterDayRecord.table, productionRecord.table, followRecord.table, adapterVersionRecord.table],
  // As a farm sets them (docs/alarms.md, Permissions): operators acknowledge and shelve alarms,
  // propose and confirm setpoints (as at the controller's own panel) and switch curve following;
  // readings (telemetry, sensor and feed/water ingest), thresholds and alarm
  // publish/evaluate/escalate/reset are for devices, integrations (admin-role service tokens) and admins.
  permissions: [
    ...managed(['poultry-flock', 'poultry-production', 'poultry-profiles'], 'operate'),
    ...grant('poultry-climate', { admin: [...ADMIN, 'propose', 'confirm', 'follow'], operator: ['read', 'propose', 'confirm', 'follow'], security: ['read'] }),
    ...grant('poultry-feedwater', { admin: ADMIN, operator: ['read'], security: ['read'] }),
    ...grant('poultry-alarms', { admin: [...ADMIN, 'acknowledge', 'shelve', 'reset'], operator: ['read', 'acknowledge', 'shelve'], security: ['read'] }),
  ],
  // The box raises alarm rules whose hold time has passed on its own, every
  // alarm_escalation_interval_ms (the industry module's escalator escalates breached SLAs on the
  // same period); the state is in SQL, so the first pass after a restart catches up. Houses that
  // follow their climate curve are compared every FOLLOW_PASS_MS (each at its own interval_s).
  runtime: defineRuntime({
    needs: ['services', 'bus'],
    provides: ['curveFollower'],
    create({ services, bus }) {
      let following: ReturnType<typeof startCurveFollower> | undefined;
      let scheduler: RuleScheduler | undefined;
      let unbridge: (() => Promise<void>) | undefined;
      let retention: Retention | undefined;
      let settle: ReadingSettle | undefined;
      return {
        async start() {
          // Readings a previous run left in the recent table go to their place first (recent-readings.ts).
          settle = await startReadingSettle(services);
          // Raw readings are the box's fastest-growing table (a house reporting every minute adds
          // 1,440 rows a day): kept poultry_readings_retention_days.
          retention = hourlyRetention(services.log, 'poultry readings', services.config.poultry_readings_retention_days, (before) => purgeReadings(services, before));
          retention.start();
          scheduler = startRuleScheduler(services, services.config.alarm_escalation_interval_ms, (now) => poultryRules(services).tick(now));
          // House controllers' readings over MQTT take the telemetry path (mqtt-climate.ts).
          unbridge = bridgeMqttClimate(services, bus);
          following = startCurveFollower(services, FOLLOW_PASS_MS);
          return { curveFollower: following.follower };
        },
        async stop() {
          scheduler?.stop();
          await unbridge?.();
          retention?.stop();
          await following?.stop();
          await settle?.stop();
        },
      };
    },
  }),
});
