// Manifest of the device-polling module: the industries' side of the reading loop (issue 21).
// The adapter profiles become the poller's devices; its readings become the houses' and rooms'
// readings (source device), its link events comm_loss alarms; houses fed over MQTT that fall
// silent for stale_after_s get one too. Works without a poller (nothing is read, the bus events
// of one are still handled), so it is declared after the modules whose services it uses.
import { defineModule, defineRuntime, managed } from '../../kernel/module.js';
import { devicePollingRoutes } from './routes.js';
import { createDevicePolling } from './runtime.js';

export default defineModule({
  id: 'device-polling',
  name: 'Device polling',
  description: 'Reads the house and room controllers of the adapter profiles: their readings into the industries (source device), communication loss as comm_loss alarms, MQTT silence, the link state of every polled controller.',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'polled_device',
  provides_enrichment_for: [],
  routes: devicePollingRoutes,
  tables: [],
  permissions: managed('device-polling', 'read'),
  runtime: defineRuntime({
    needs: ['services', 'bus'],
    provides: ['devicePolling'],
    create({ services }) {
      const polling = createDevicePolling(services);
      return {
        async start() {
          await polling.start();
          return { devicePolling: polling.service };
        },
        stop: () => polling.stop(),
      };
    },
  }),
});
