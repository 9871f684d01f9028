import { defineModule } from '../../kernel/module.js';
import { deviceRoutes } from './resource.js';
import { deviceTelemetry } from './schema.js';
import { createTelemetryService } from './service.js';
import { documentTenantBoundary } from '../../realtime/sql.js';

const HOUR = 60 * 60 * 1000;

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
  routes: documentTenantBoundary(deviceRoutes),
  tables: [deviceTelemetry],
  permissions: [
    { role: 'operator', resource: 'devices', actions: ['read', 'ingest'] },
    { role: 'admin', resource: 'devices', actions: ['read', 'ingest'] },
    { role: 'security', resource: 'devices', actions: ['read'] },
  ],
  runtime: (services) => {
    let timer: NodeJS.Timeout | undefined;
    return {
      async start() {
        const telemetry = createTelemetryService(services);
        services.telemetry = telemetry;
        const purge = () => {
          const before = new Date(Date.now() - services.config.telemetry_retention_days * 24 * HOUR);
          telemetry.purge(before).catch((err: Error) => services.log.error('telemetry retention purge failed', { error: err.message }));
        };
        purge();
        timer = setInterval(purge, HOUR);
        timer.unref();
      },
      async stop() {
        if (timer) clearInterval(timer);
        await services.telemetry?.writer.stop();
      },
    };
  },
});
