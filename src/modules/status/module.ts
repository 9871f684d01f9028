import { defineModule, grant } from '../../kernel/module.js';
import { EventBus } from '../../realtime/bus.js';
import { startMqtt } from './mqtt.js';
import { startStatusStream } from './stream.js';
import { statusRoutes } from './resource.js';
import { statusEvents, statusSequence } from './schema.js';
import { createStatusService } from './service.js';
import { hourlyRetention, type Retention } from '../../kernel/retention.js';
import { need } from '../../kernel/context.js';


export default defineModule({
  id: 'status',
  name: 'Status',
  description: 'Status events: stored, listed, streamed live over WebSocket (with catch-up) and published over MQTT; owns the event bus and the MQTT broker.',
  version: '1.0.0',
  core: true,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'status_event',
  provides_enrichment_for: [],
  frontend: { block_id: 'status', component: 'StatusFeed' },
  routes: statusRoutes,
  tables: [statusEvents, statusSequence],
  permissions: grant('status', { operator: ['read', 'publish'], admin: ['read', 'publish'], security: ['read'] }),
  runtime: (services) => {
    let stream: ReturnType<typeof startStatusStream> | undefined;
    let retention: Retention | undefined;
    return {
      required: true,
      async start() {
        // The sync module (before this one) may have created it to stage its outbox on.
        services.bus ??= new EventBus(services.log);
        services.status = await createStatusService(services);
        stream = startStatusStream(services);
        retention = hourlyRetention(services.log, 'status', services.config.status_retention_days, (before) => need(services, 'status').purge(before));
        retention.start();
        // MQTT failing to start is reported and leaves HTTP and the WebSocket stream running.
        try {
          services.mqtt = await startMqtt(services);
        } catch (err) {
          services.log.error('MQTT failed to start; HTTP goes on', { error: (err as Error).message });
          services.mqtt = { mode: 'off', ready: Promise.resolve(), stats: { received: 0, rejected: 0, published: 0 }, stop: async () => undefined };
        }
      },
      async stop() {
        retention?.stop();
        stream?.stop();
        await services.mqtt?.stop();
      },
    };
  },
});
