import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { deviceRoutes } from './resource.js';
import { telemetryPoints, telemetryRollups, telemetrySeries } from './schema.js';
import { createTelemetryService, type TelemetryService } from './service.js';
import { hourlyRetention, type Retention } from '../../kernel/retention.js';


export default defineModule({
  id: 'devices',
  name: 'Devices',
  description: 'Device telemetry points (HTTP and MQTT intake, batched writes, retention), per-minute and per-hour roll-ups, and device KPIs.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'device_telemetry_point',
  provides_enrichment_for: [],
  routes: deviceRoutes,
  tables: [telemetrySeries, telemetryPoints, telemetryRollups],
  permissions: grant('devices', { operator: ['read', 'ingest'], admin: ['read', 'ingest'], security: ['read'] }),
  runtime: defineRuntime({
    needs: ['services', 'bus'],
    provides: ['telemetry'],
    create({ services }) {
      let retentions: Retention[] = [];
      let telemetry: TelemetryService | undefined;
      return {
        async start() {
          const t = (telemetry = createTelemetryService(services));
          const { config, log } = services;
          retentions = [
            hourlyRetention(log, 'telemetry', config.telemetry_retention_days, (before) => t.purge(before)),
            hourlyRetention(log, 'telemetry minute roll-up', config.telemetry_minute_retention_days, (before) => t.purgeRollups('minute', before)),
            hourlyRetention(log, 'telemetry hour roll-up', config.telemetry_hour_retention_days, (before) => t.purgeRollups('hour', before)),
          ];
          for (const r of retentions) r.start();
          return { telemetry: t };
        },
        async stop() {
          for (const r of retentions) r.stop();
          await telemetry?.writer.stop();
        },
      };
    },
  }),
});
