import { defineModule } from '../../kernel/module.js';
import { deviceRoutes } from './resource.js';
import { deviceTelemetry } from './schema.js';
import { createTelemetryService } from './service.js';
import { hourlyRetention, type Retention } from '../../kernel/retention.js';


export default defineModule({
  id: 'devices',
  name: 'Devices',
  description: 'Device telemetry points (HTTP and MQTT intake, batched writes, retention) and device KPIs.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'device_telemetry_point',
  provides_enrichment_for: [],
  frontend: { block_id: 'devices', component: 'DeviceTelemetry' },
  routes: deviceRoutes,
  tables: [deviceTelemetry],
  permissions: [
    { role: 'operator', resource: 'devices', actions: ['read', 'ingest'] },
    { role: 'admin', resource: 'devices', actions: ['read', 'ingest'] },
    { role: 'security', resource: 'devices', actions: ['read'] },
  ],
  runtime: (services) => {
    let retention: Retention | undefined;
    return {
      async start() {
        const telemetry = createTelemetryService(services);
        services.telemetry = telemetry;
        retention = hourlyRetention(services.log, 'telemetry', services.config.telemetry_retention_days, (before) => telemetry.purge(before));
        retention.start();
      },
      async stop() {
        retention?.stop();
        await services.telemetry?.writer.stop();
      },
    };
  },
});
