// melioration-adapters: the weather stations and soil probes the box reads itself, declared like a
// poultry house controller (src/industry/adapter-resource.ts), only read: no setpoints, at least
// one reading. A profile's unit is the field the device stands in (its comm_loss alarm is the
// field's); the controller is the device.
//   - station keys (air_temp_c, rh_pct, wind_ms, solar_w_m2, rain_mm) make one station frame of
//     the profile's site, station_id = the controller: judged for health like a frame sent to
//     melioration-weather/commands/telemetry (it may move the site's fields between modes);
//   - vwc_pct_<depth cm> makes one probe reading of the field at that depth, probe_id = the
//     controller, as melioration-soil-moisture/commands/ingest would.
// Both are stored with reading_source `device`. A refused reading (a field without its field
// capacity, a station profile without a site) is logged and dropped, as poultry's are.
import * as v from 'valibot';
import type { Caller, Services } from '../../kernel/context.js';
import type { HandlerContext } from '../../kernel/route.js';
import type { DeviceReadingEvent } from '../../field/poll-types.js';
import { defineAdapterRecord } from '../../industry/dispatch.js';
import { defineAdapterResource } from '../../industry/adapter-resource.js';
import { ingestProbe, probeItemSchema } from './soil.js';
import { ingestStationFrame, stationFrameSchema } from './weather.js';

export const STATION_KEYS = ['air_temp_c', 'rh_pct', 'wind_ms', 'solar_w_m2', 'rain_mm'] as const;
const PROBE_KEY = /^vwc_pct_(\d{1,3})$/;
const KEYS_TEXT = `${STATION_KEYS.join(', ')}, vwc_pct_<depth cm>`;

const readingKey = v.union([v.picklist(STATION_KEYS), v.pipe(v.string(), v.regex(PROBE_KEY))], `key must be one of ${KEYS_TEXT}`);

export const adapterRecord = defineAdapterRecord('melioration_adapter_profiles', 'Field', KEYS_TEXT);

export const adapterResource = defineAdapterResource({
  name: 'melioration-adapters', module: 'melioration', title: 'Weather stations and soil probes read by the box', record: adapterRecord,
  accessResource: 'melioration-adapters', readings: { key: readingKey, setpoints: false },
});

/** The device as the caller of the commands it feeds: its tenant and site, an integration's role. */
function deviceContext(services: Services, e: DeviceReadingEvent): HandlerContext<unknown> {
  const caller: Caller = { subject: `device:${e.controller_id}`, role: 'admin', scope_type: 'tenant', tenant_id: e.tenant_id, ...(e.site_id ? { site_id: e.site_id } : {}), session_id: 'device-polling' };
  return { services, caller, requestId: crypto.randomUUID() } as HandlerContext<unknown>;
}

/** One polled answer of a station or probe into the melioration pipeline. */
export async function ingestMeliorationDevice(services: Services, e: DeviceReadingEvent): Promise<void> {
  const ctx = deviceContext(services, e);
  const frame: Partial<Record<(typeof STATION_KEYS)[number], number>> = {};
  for (const k of STATION_KEYS) if (Number.isFinite(e.values[k])) frame[k] = e.values[k]!;
  // Each reading on its own: a refused probe depth does not drop the station's frame.
  const refused = (what: string, err: unknown) => services.log.warn('device reading refused', { device_id: e.device_id, unit_id: e.unit_id, reading: what, error: err instanceof v.ValiError ? err.issues[0]?.message : (err as Error).message });
  if (Object.keys(frame).length) {
    try {
      const item = v.parse(stationFrameSchema, { station_id: e.controller_id, observed_at: e.at, ...frame, ...(e.site_id ? { site_id: e.site_id } : {}) });
      await ingestStationFrame(ctx, item, 'device');
    } catch (err) {
      refused('station frame', err);
    }
  }
  for (const [key, value] of Object.entries(e.values)) {
    const depth = PROBE_KEY.exec(key);
    if (!depth) continue;
    try {
      const item = v.parse(probeItemSchema, { field_id: e.unit_id, probe_id: e.controller_id, depth_cm: Number(depth[1]), vwc_pct: value, observed_at: e.at });
      await ingestProbe(ctx, item, 'device');
    } catch (err) {
      refused(key, err);
    }
  }
}
