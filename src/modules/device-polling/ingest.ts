// A polled device's answer into its industry: the climate keys become one reading through the
// industry's own ingest (judged, stored with source 'device', run through the alarm rules like a
// reading typed or sent over MQTT); the other keys (water_l, feed_kg, outside_temp) become device
// telemetry points of the controller, so they are charted and rolled up with the rest.
// A refused reading (out of range, no flock in the house, no phase for the room) is logged and
// dropped: a controller is not told no, and the next poll comes anyway.
import * as v from 'valibot';
import { desc, and, eq } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { Caller } from '../../kernel/context.js';
import type { HandlerContext } from '../../kernel/route.js';
import type { DeviceReadingEvent } from '../../field/poll-types.js';
import type { TelemetryPoint } from '../../realtime/bus.js';
import { colOf, tableOf } from '../../db/sql.js';
import { ingestClimate, telemetryBody } from '../poultry/climate.js';
import { climateRecord as swineReadings, judgeReading } from '../swine/climate.js';
import { ingestMeliorationDevice } from '../melioration/devices.js';

const CLIMATE = ['temp', 'humidity', 'co2', 'nh3', 'ventilation'] as const;
const SWINE_FIELD = { temp: 'temp_c', humidity: 'humidity_pct', co2: 'co2_ppm', nh3: 'nh3_ppm', ventilation: 'ventilation_pct' } as const;
/** Units of the non-climate keys as device telemetry. */
const UNIT: Record<string, string> = { water_l: 'L', feed_kg: 'kg', outside_temp: '°C' };

const climateOf = (values: Record<string, number>) => Object.fromEntries(CLIMATE.filter((k) => Number.isFinite(values[k])).map((k) => [k, values[k]!]));

async function poultry(services: Services, e: DeviceReadingEvent, climate: Record<string, number>): Promise<void> {
  const body = v.safeParse(telemetryBody, { house_id: e.unit_id, ts: e.at, ...climate });
  if (!body.success) {
    services.log.warn('device reading refused', { device_id: e.device_id, house_id: e.unit_id, error: body.issues[0]?.message });
    return;
  }
  await ingestClimate(services, { tenant: e.tenant_id, ...(e.site_id ? { site_bound: e.site_id } : {}), actor: `device:${e.controller_id}`, correlation_id: crypto.randomUUID() }, body.output, 'device');
}

/** The room's phase: a controller does not know it, so the room's last judged reading names it. */
async function lastPhase(services: Services, tenant: string, room: string): Promise<string | undefined> {
  const c = (n: string) => colOf(swineReadings.table, services.db, n);
  const [row] = (await services.db.orm.select({ phase_id: c('phase_id') }).from(tableOf(swineReadings.table, services.db))
    .where(and(eq(c('tenant_id'), tenant), eq(c('room_id'), room))).orderBy(desc(c('ts'))).limit(1)) as { phase_id: string }[];
  return row?.phase_id;
}

async function swine(services: Services, e: DeviceReadingEvent, climate: Record<string, number>): Promise<void> {
  const phase = await lastPhase(services, e.tenant_id, e.unit_id);
  if (!phase) {
    services.log.warn('device reading refused: the room has no judged reading to take its phase from', { device_id: e.device_id, room_id: e.unit_id });
    return;
  }
  const caller: Caller = { subject: `device:${e.controller_id}`, role: 'operator', scope_type: 'tenant', tenant_id: e.tenant_id, ...(e.site_id ? { site_id: e.site_id } : {}), session_id: 'device-polling' };
  const ctx = { services, caller, requestId: crypto.randomUUID() } as HandlerContext<unknown>;
  const input = Object.fromEntries(Object.entries(climate).map(([k, x]) => [SWINE_FIELD[k as keyof typeof SWINE_FIELD], x]));
  await judgeReading(ctx, { room_id: e.unit_id, phase_id: phase, ts: e.at, ...input }, 'device');
}

/** One device answer: its climate reading into the industry, its other values into telemetry. */
export async function ingestDeviceReading(services: Services, e: DeviceReadingEvent): Promise<void> {
  // A station's or probe's values are all the melioration pipeline's (src/modules/melioration/devices.ts).
  if (e.industry === 'melioration') return ingestMeliorationDevice(services, e);
  const climate = climateOf(e.values);
  const received = new Date().toISOString();
  const points: TelemetryPoint[] = Object.entries(e.values).filter(([k, x]) => !(CLIMATE as readonly string[]).includes(k) && Number.isFinite(x)).map(([metric, value]) => ({
    tenant_id: e.tenant_id, site_id: e.site_id, device_id: e.controller_id, metric, value, unit: UNIT[metric] ?? null,
    status: 'online', latency_ms: null, ts: e.at, received_at: received,
  }));
  try {
    if (Object.keys(climate).length) await (e.industry === 'swine' ? swine(services, e, climate) : e.industry === 'poultry' ? poultry(services, e, climate) : Promise.resolve());
  } catch (err) {
    services.log.warn('device reading not ingested', { device_id: e.device_id, unit_id: e.unit_id, error: (err as Error).message });
  }
  // Not awaited, and nobody waits for them: the points are committed with the whole minute's
  // (telemetry_hold_ms; within telemetry_flush_ms when it is 0), and the device's next reading
  // must not wait behind them (the writer keeps their order).
  if (points.length && services.telemetry) {
    services.telemetry.ingest(points, { hold: true }).catch((err: Error) => services.log.warn('device telemetry not stored', { device_id: e.device_id, error: err.message }));
  }
}
