// Manifest of the melioration module: fields and their water balance, irrigation (machines and
// drip), soil moisture, weather (station primary, service fallback) with station health, control
// modes, and the water_deficit / overwatering alerts raised through the industry alarm service.
import { defineModule, defineRuntime, grant, managed } from '../../kernel/module.js';
import { fieldRoutes } from './fields.js';
import { irrigationRoutes } from './irrigation.js';
import { soilRoutes } from './soil.js';
import { weatherRoutes } from './weather.js';
import { controlModeRoutes } from './control-mode.js';
import { alertRoutes } from './alerts.js';
import { adapterRecord, adapterResource } from './devices.js';
import { balanceDays, controlModes, irrigationEvents, meliorationFields, soilMoisture, weather } from './schema.js';
import { createMeliorationService } from './service.js';
import { industrySetup } from '../../industry/setup-steps.js';

const MANAGE = ['read', 'create', 'update', 'delete', 'execute'] as const;

/** How often the box looks for stations that went silent (the health check needs no request). */
const SWEEP_INTERVAL_MS = 60_000;

export default defineModule({
  id: 'melioration',
  name: 'Melioration',
  description: 'Melioration workspace: fields, irrigation machines and drip lines, soil moisture, weather with fallback control modes, water-balance alerts.',
  version: '1.0.0',
  core: false,
  dependencies: ['industry'],
  industry_code: 'melioration',
  industry_scope: 'industry',
  key_entity: 'field',
  provides_enrichment_for: [],
  routes: [...fieldRoutes, ...irrigationRoutes, ...soilRoutes, ...weatherRoutes, ...controlModeRoutes, ...alertRoutes, ...adapterResource.routes],
  setup: industrySetup({ industry: 'melioration', unit: 'field', adapters: adapterRecord.table }),
  tables: [meliorationFields, irrigationEvents, soilMoisture, weather, controlModes, balanceDays, adapterRecord.table],
  // As in poultry (docs/alarms.md, Permissions): readings (irrigation events, soil probes, weather
  // and station telemetry), fields (their soil and thresholds) and the stations and probes the box
  // reads (melioration-adapters) are for devices, integrations
  // (admin-role service tokens) and admins; operators acknowledge and shelve alerts and switch a
  // field's control mode (like poultry's curve following).
  permissions: [
    ...managed(['melioration-control-mode'], 'operate'),
    ...managed(['melioration-field', 'melioration-irrigation-machine', 'melioration-irrigation-drip', 'melioration-soil-moisture', 'melioration-weather', 'melioration-adapters'], 'read'),
    ...grant('melioration-alerts', { admin: [...MANAGE, 'acknowledge', 'shelve', 'reset'], operator: ['read', 'acknowledge', 'shelve'], security: ['read'] }),
  ],
  runtime: defineRuntime({
    needs: ['services', 'modules'],
    provides: ['melioration'],
    create({ services }) {
      let timer: NodeJS.Timeout | undefined;
      return {
        async start() {
          const melioration = createMeliorationService(services);
          timer = setInterval(() => {
            if (!services.modules.isInstalled('melioration')) return;
            melioration.sweepMissingStations().catch((err: unknown) => services.log.warn('melioration station sweep failed', { error: String(err) }));
          }, SWEEP_INTERVAL_MS);
          timer.unref();
          return { melioration };
        },
        async stop() {
          if (timer) clearInterval(timer);
        },
      };
    },
  }),
});
