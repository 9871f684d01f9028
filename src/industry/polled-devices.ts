// Adapter profiles (poultry-adapters, swine-adapters, melioration-adapters) as the poller sees them: one PolledDevice
// per profile that has something to read (readings, or setpoints read back). The codec is the
// write path's: engineering = raw / scale + offset (src/field/poll-types.ts).
import type { Services } from '../kernel/context.js';
import type { PolledDevice, PollPoint } from '../field/poll-types.js';
import type { AdapterPoint, AdapterReading, AdapterRow } from './dispatch.js';

export const POLL_DEFAULTS = { poll_period_s: 10, loss_after_misses: 3 } as const;
export type PollDefaults = { poll_period_s: number; loss_after_misses: number };

/** The industries whose adapter profiles are polled. */
export type PolledIndustry = 'poultry' | 'swine' | 'melioration';

const defined = <T extends object>(o: T): T => Object.fromEntries(Object.entries(o).filter(([, x]) => x !== undefined && x !== null)) as T;

export const readingPoint = (r: AdapterReading): PollPoint => defined({
  key: r.key, kind: 'reading' as const, object_type: r.object_type ?? 'input register', address: r.address, data_type: r.data_type ?? (r.object_type === 'coil' || r.object_type === 'discrete input' ? 'bool' : 'int16'),
  order: r.order, scale: r.scale, offset: r.offset, bacnet_object_type: r.bacnet_object_type, property: r.property,
  period_ms: r.period_s !== undefined ? r.period_s * 1000 : undefined, cov: r.cov,
});

export const setpointPoint = (p: AdapterPoint): PollPoint => defined({
  key: p.key, kind: 'setpoint' as const, object_type: p.object_type ?? 'holding register', address: p.address, data_type: p.data_type ?? (p.object_type === 'coil' ? 'bool' : 'int16'),
  order: p.order, scale: p.scale, offset: p.offset, bacnet_object_type: p.bacnet_object_type, property: p.property,
});

/** The device id the poller and its events use for a profile: unique across industries. */
export const deviceIdOf = (industry: PolledIndustry, rowId: string) => `${industry}:${rowId}`;

/** Profiles -> the devices to poll; a profile with no readings and no read-back setpoint is left out. */
export function toPolledDevices(industry: PolledIndustry, rows: readonly AdapterRow[], defaults: PollDefaults = POLL_DEFAULTS): PolledDevice[] {
  const out: PolledDevice[] = [];
  for (const row of rows) {
    const points = [
      ...((row.readings ?? []) as AdapterReading[]).map(readingPoint),
      ...(row.points as AdapterPoint[]).filter((p) => p.read_back !== false).map(setpointPoint),
    ];
    if (!points.length) continue;
    out.push({
      id: deviceIdOf(industry, row.id), industry, tenant_id: row.tenant_id, site_id: row.site_id, unit_id: row.unit_id, controller_id: row.controller_id,
      transport: row.transport as PolledDevice['transport'],
      // Only the address fields of the transport: absent, not null, elsewhere.
      ...defined({
        host: row.host ?? undefined, port: row.transport === 'modbus-tcp' ? (row.port ?? 502) : undefined, serial_path: row.serial_path ?? undefined,
        modbus_unit_id: row.modbus_unit_id ?? undefined, device_instance: row.device_instance ?? undefined,
      }),
      period_ms: (row.poll_period_s ?? defaults.poll_period_s) * 1000,
      loss_after_misses: row.loss_after_misses ?? defaults.loss_after_misses,
      points,
    });
  }
  return out;
}

// Adapter profile changes, per Services (one server's bag): the adapter resource tells, the
// device-polling runtime listens. In-process and awaited: the poller has the new set before the
// create's answer leaves.
const listeners = new WeakMap<object, Set<() => Promise<void>>>();

export function onAdapterChange(services: Services, fn: () => Promise<void>): () => void {
  let set = listeners.get(services);
  if (!set) listeners.set(services, (set = new Set()));
  set.add(fn);
  return () => set.delete(fn);
}

export async function adapterChanged(services: Readonly<Services>): Promise<void> {
  for (const fn of listeners.get(services) ?? []) await fn();
}
