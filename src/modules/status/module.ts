import { defineModule, defineRuntime, grant } from '../../kernel/module.js';
import { startMqtt, type MqttHandle } from './mqtt.js';
import { startStatusStream } from './stream.js';
import { statusRoutes } from './resource.js';
import { statusEvents, statusSequence } from './schema.js';
import { createStatusService } from './service.js';
import { hourlyRetention, type Retention } from '../../kernel/retention.js';


export default defineModule({
  id: 'status',
  name: 'Status',
  description: 'Status events: stored, listed, streamed live over WebSocket (with catch-up) and published over MQTT; owns the MQTT broker.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'status_event',
  provides_enrichment_for: [],
  routes: statusRoutes,
  tables: [statusEvents, statusSequence],
  permissions: grant('status', { operator: ['read', 'publish'], admin: ['read', 'publish'], security: ['read'] }),
  // The stream and MQTT run the handlers' code paths (services.status, services.telemetry at
  // message time), so they take the handler view; the bus they publish from is the root's.
  runtime: defineRuntime({
    needs: ['services', 'bus', 'modules'],
    provides: ['status', 'mqtt'],
    required: true,
    create({ services }) {
      let stream: ReturnType<typeof startStatusStream> | undefined;
      let retention: Retention | undefined;
      let mqtt: MqttHandle | undefined;
      return {
        async start() {
          const status = await createStatusService(services);
          stream = startStatusStream(services);
          retention = hourlyRetention(services.log, 'status', services.config.status_retention_days, (before) => status.purge(before));
          retention.start();
          // MQTT failing to start is reported and leaves HTTP and the WebSocket stream running.
          try {
            mqtt = await startMqtt(services);
          } catch (err) {
            services.log.error('MQTT failed to start; HTTP goes on', { error: (err as Error).message });
            mqtt = { mode: 'off', ready: Promise.resolve(), stats: { received: 0, rejected: 0, published: 0 }, stop: async () => undefined };
          }
          return { status, mqtt };
        },
        async stop() {
          retention?.stop();
          stream?.stop();
          await mqtt?.stop();
        },
      };
    },
  }),
});
