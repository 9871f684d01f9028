import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { deviceRoutes } from './resource.js';
import { deviceCredentials } from './credentials.js';
import { deviceCredentialsResource } from './credential-resource.js';
import { telemetryPoints, telemetryPointsRecent, telemetryRollups, telemetrySeries } from './schema.js';
import { createTelemetryService, type TelemetryService } from './service.js';
import { recoverRollups } from './storage.js';


export default defineModule({
  id: 'devices',
  name: 'Devices',
  description: 'Device telemetry points (HTTP and MQTT intake, batched writes, retention), per-minute and per-hour roll-ups, device KPIs, and the devices\' MQTT credentials.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'device_telemetry_point',
  provides_enrichment_for: [],
  routes: [...deviceRoutes, ...deviceCredentialsResource.routes],
  tables: [telemetrySeries, telemetryPoints, telemetryPointsRecent, telemetryRollups, deviceCredentials],
  permissions: [
    ...grant('devices', { operator: ['read', 'ingest'], admin: ['read', 'ingest'], security: ['read'] }),
    // A device credential publishes into the tenant's telemetry: issued by its admins only.
    ...grant('device-credentials', { admin: ['read', 'issue', 'revoke'], security: ['read', 'revoke'] }),
  ],
  runtime: defineRuntime({
    needs: ['services', 'bus'],
    provides: ['telemetry'],
    create({ services }) {
      let telemetry: TelemetryService | undefined;
      return {
        async start() {
          // Retention of points and roll-ups is the storage module's (src/modules/storage): by
          // their retention days, capped by the data's own newest time, and to the storage budget.
          const t = (telemetry = createTelemetryService(services));
          // The open roll-ups of a run that did not stop cleanly were in its memory only: rebuilt
          // from the stored points (PostgreSQL keeps no marker of a clean stop: always).
          const { db } = services;
          // Points a previous run left waiting in the recent table (recent.ts) go to their place
          // first: the recovery below and the storage run read telemetry_points.
          await t.writer.settle();
          if (services.config.telemetry_hold_ms > 0 && (db.uncleanStop || db.dialect === 'postgres')) {
            try {
              const rows = await db.transaction(() => recoverRollups(db, Date.now()));
              if (rows) services.log.info('telemetry roll-ups rebuilt from the stored points after an unclean stop', { rows });
            } catch (err) {
              // Telemetry goes on: the charts then lack the buckets that were open when the run stopped.
              services.log.error('telemetry roll-ups could not be rebuilt after an unclean stop', { error: (err as Error).message });
            }
          }
          return { telemetry: t };
        },
        async stop() {
          await telemetry?.writer.stop();
        },
      };
    },
  }),
});
