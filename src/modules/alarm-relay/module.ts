// Manifest of the alarm-relay module (issue 22, item 5): the siren relay energised while an
// unacknowledged alarm of its priorities is active, and the watchdog output the box toggles while
// it is healthy. Both are the box's admin's settings (installation-owned) and are written through
// the field service. Needs the industry alarm service: the alarms it follows are industry alarms,
// and a failed drive is one.
import { defineModule, defineRuntime, managed } from '../../kernel/module.js';
import { alarmRelayRoutes } from './routes.js';
import { createAlarmRelay } from './runtime.js';
import { alarmRelayOutputs } from './schema.js';
import { alarmRelaySetup } from './setup.js';

export default defineModule({
  id: 'alarm-relay',
  name: 'Alarm relay and watchdog',
  description: 'Drives an external siren from the box\'s unacknowledged alarms and toggles a watchdog output for a dialler while the box is healthy, through the field service (Modbus TCP/RTU coil or BACnet binary output).',
  version: '1.0.0',
  core: false,
  dependencies: [],
  industry_code: null,
  industry_scope: 'global',
  key_entity: 'alarm_output',
  provides_enrichment_for: [],
  routes: alarmRelayRoutes,
  setup: alarmRelaySetup,
  tables: [alarmRelayOutputs],
  permissions: managed('alarm-relay', 'read'),
  runtime: defineRuntime({
    needs: ['services', 'bus', 'field', 'industryAlarms'],
    provides: ['alarmRelay'],
    create({ services, field, industryAlarms }) {
      const relay = createAlarmRelay({ services, field, industryAlarms });
      return {
        async start() {
          await relay.start();
          return { alarmRelay: relay.relay };
        },
        stop: () => relay.stop(),
      };
    },
  }),
});
