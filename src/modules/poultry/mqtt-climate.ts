// Climate readings of house controllers arriving over MQTT take the same path as
// commands/telemetry: a controller publishes under its house id as the device,
//   <prefix>/<tenant>/<site>/telemetry/<house_id>   [{metric, value, unit?, ts?}, ...]
// The devices module stores the points as device telemetry and puts each written batch on the
// bus; here points of a device that is the house of an active flock are grouped by (house, ts)
// into one reading (metrics temp|temperature, humidity, co2, nh3, ventilation; temperature in F
// or K and the other sensor units are converted as by sensors/commands/ingest) and ingested:
// judged against the phase in force, stored, run through the alarm rules. Other devices are
// left alone. A reading that is refused (out of range) is logged, never retried.
import type { Services } from '../../kernel/context.js';
import type { EventBus, TelemetryPoint } from '../../realtime/bus.js';
import * as v from 'valibot';
import { ingestClimate, telemetryBody } from './climate.js';
import { findFlock } from './flock.js';
import { SENSOR_UNITS } from './sensors.js';

const METRIC: Record<string, { field: 'temp' | 'humidity' | 'co2' | 'nh3' | 'ventilation'; kind?: keyof typeof SENSOR_UNITS }> = {
  temp: { field: 'temp', kind: 'temperature' }, temperature: { field: 'temp', kind: 'temperature' },
  humidity: { field: 'humidity', kind: 'humidity' }, co2: { field: 'co2', kind: 'co2' }, nh3: { field: 'nh3', kind: 'nh3' },
  ventilation: { field: 'ventilation' },
};

function convert(kind: keyof typeof SENSOR_UNITS | undefined, unit: string | null, value: number): number | undefined {
  if (!kind || !unit) return value;
  const table = SENSOR_UNITS[kind] as Record<string, (x: number) => number>;
  const alias = unit === '°C' ? 'C' : unit === '°F' ? 'F' : unit === '%RH' ? '%' : unit;
  const f = table[alias];
  return f ? Math.round(f(value) * 1000) / 1000 : undefined;
}

/** Returns the stop: it detaches from the bus and waits for the batches already queued, so none runs after the database closes. */
export function bridgeMqttClimate(services: Services, bus: EventBus): () => Promise<void> {
  let chain = Promise.resolve();
  const handle = async (points: TelemetryPoint[]) => {
    const readings = new Map<string, { tenant: string; site: string | null; house: string; ts: string; values: Record<string, number> }>();
    for (const p of points) {
      const m = METRIC[p.metric];
      if (!m || p.value === null) continue;
      const value = convert(m.kind, p.unit, p.value);
      if (value === undefined) continue;
      const k = `${p.tenant_id}\u0000${p.device_id}\u0000${p.ts}`;
      let r = readings.get(k);
      if (!r) readings.set(k, (r = { tenant: p.tenant_id, site: p.site_id, house: p.device_id, ts: p.ts, values: {} }));
      r.values[m.field] = value;
    }
    // One lookup per house and batch (a batch holds many readings of few houses).
    const flocks = new Map<string, ReturnType<typeof findFlock>>();
    for (const r of readings.values()) {
      const k = `${r.tenant}\u0000${r.house}`;
      let found = flocks.get(k);
      if (!found) flocks.set(k, (found = findFlock(services, r.tenant, r.house)));
      const flock = await found;
      if (!flock || flock.status !== 'active' || (r.site && flock.site_id && r.site !== flock.site_id)) continue;
      const body = v.safeParse(telemetryBody, { house_id: r.house, ts: r.ts, ...r.values });
      if (!body.success) {
        services.log.warn('MQTT climate reading refused', { tenant_id: r.tenant, house_id: r.house, error: body.issues[0]?.message });
        continue;
      }
      try {
        await ingestClimate(services, { tenant: r.tenant, actor: `mqtt:${r.house}`, correlation_id: crypto.randomUUID() }, body.output, 'mqtt');
      } catch (err) {
        services.log.warn('MQTT climate reading not ingested', { tenant_id: r.tenant, house_id: r.house, error: (err as Error).message });
      }
    }
  };
  // One batch after the other, so a house's readings are judged in order.
  const off = bus.on('telemetry', (points) => {
    chain = chain.then(() => handle(points)).catch((err: Error) => services.log.error('MQTT climate bridge failed', { error: err.message }));
  });
  return async () => {
    off();
    await chain;
  };
}
