// The industry side of the reading loop: loads every industry's adapter profiles into the poller
// (at start and whenever a profile is created or deleted), and turns the poller's bus events into
// the industries' readings and comm_loss alarms. Events of one device (or one bus) are handled in
// order, one after the other; different devices do not wait for each other.
import type { Services } from '../../kernel/context.js';
import type { DeviceState, PolledDevice } from '../../field/poll-types.js';
import type { AdapterRow } from '../../industry/dispatch.js';
import type { Priority } from '../../industry/alarm-schema.js';
import { onAdapterChange, toPolledDevices, type PolledIndustry } from '../../industry/polled-devices.js';
import { tableOf } from '../../db/sql.js';
import { adapterRecord as poultryAdapters } from '../poultry/climate-schema.js';
import { adapterRecord as swineAdapters } from '../swine/setpoints.js';
import { adapterRecord as meliorationAdapters } from '../melioration/devices.js';
import { ingestDeviceReading } from './ingest.js';
import { onBusLink, onDeviceLink, type KnownDevice } from './links.js';
import { clearCommLoss, controllerRule } from '../../industry/comm-loss.js';
import { watchMqttSilence, type MqttSilence } from './mqtt-silence.js';

/**
 * Why a device is lost: `bus_lost` while its serial bus (RS-485 adapter) is gone, whatever the
 * device's own state (the poller counts no device loss then, one bus alarm stands for all);
 * `no_answer` when the device itself missed loss_after_misses polls.
 */
export type LostReason = 'bus_lost' | 'no_answer';

/** A polled device as the API shows it: the profile's names with the poller's link state. */
export type PolledDeviceView = Omit<DeviceState, 'device_id'> & {
  device_id: string; industry: PolledDevice['industry']; tenant_id: string; site_id: string | null; unit_id: string; controller_id: string; transport: PolledDevice['transport']; period_ms: number;
  reason: LostReason | null;
  /** Since when it is lost (the poller's loss event, or its bus's); null unless lost. */
  lost_since: string | null;
};

export interface DevicePolling {
  /** Every device loaded from the profiles, with the poller's state (unknown without a poller). */
  list(): PolledDeviceView[];
  /** Reloads the profiles into the poller; resolves when the poller has the new set. */
  reload(): Promise<void>;
}

declare module '../../kernel/context.js' {
  interface Services {
    devicePolling?: DevicePolling;
  }
}

const TABLES: [PolledIndustry, typeof poultryAdapters.table][] = [['poultry', poultryAdapters.table], ['swine', swineAdapters.table], ['melioration', meliorationAdapters.table]];

const busName = (bus: string) => (bus.startsWith('rtu:') ? `RS-485 bus ${bus.slice(4)}` : `Bus ${bus}`);

export function createDevicePolling(services: Services) {
  let known = new Map<string, KnownDevice>();
  /** Buses the poller said are lost (bus_link), by its bus key: what the list says of every device on them. */
  const lostBuses = new Map<string, { message: string | null; at: string }>();
  /** When the poller said each device is lost (device_link), by device id: a screen says "since". */
  const lostAt = new Map<string, string>();
  const chains = new Map<string, Promise<void>>();
  /** Runs fn after the earlier work of the same key; failures are logged (the bus must not throw). */
  const inOrder = (key: string, what: string, fn: () => Promise<void>) => {
    const next = (chains.get(key) ?? Promise.resolve()).then(fn).catch((err: Error) => services.log.warn(`device polling: ${what} failed`, { key, error: err.message }));
    chains.set(key, next);
    void next.then(() => { if (chains.get(key) === next) chains.delete(key); });
  };

  const load = async () => {
    const next = new Map<string, KnownDevice>();
    for (const [industry, table] of TABLES) {
      const rows = (await services.db.orm.select().from(tableOf(table, services.db))) as AdapterRow[];
      const priorities = new Map(rows.map((r) => [r.id, (r.comm_loss_priority ?? 'P1') as Priority]));
      for (const d of toPolledDevices(industry, rows)) next.set(d.id, { device: d, priority: priorities.get(d.id.slice(industry.length + 1)) ?? 'P1' });
    }
    // A controller taken off the box, or renamed or moved to another house by a revised profile,
    // cannot answer again under its old name: its open loss would never clear.
    const gone = [...known.values()].filter((k) => {
      const now = next.get(k.device.id)?.device;
      return !now || now.unit_id !== k.device.unit_id || now.controller_id !== k.device.controller_id;
    });
    known = next;
    services.poller?.set([...next.values()].map((k) => k.device));
    // A controller taken off the box cannot answer again: its open loss would never clear.
    for (const { device: d } of gone) {
      await clearCommLoss(services, { tenant_id: d.tenant_id, industry_code: d.industry, unit_id: d.unit_id, rule_id: controllerRule(d.controller_id) });
    }
  };
  let loading = Promise.resolve();
  const reload = () => (loading = loading.then(load).catch((err: Error) => services.log.error('device polling: loading adapter profiles failed', { error: err.message })));

  const service: DevicePolling = {
    list() {
      const states = new Map((services.poller?.snapshot() ?? []).map((s) => [s.device_id, s]));
      return [...known.values()].map(({ device: d }) => {
        const s = states.get(d.id);
        const view: PolledDeviceView = {
          device_id: d.id, industry: d.industry, tenant_id: d.tenant_id, site_id: d.site_id, unit_id: d.unit_id, controller_id: d.controller_id, transport: d.transport, period_ms: d.period_ms,
          bus: s?.bus ?? '', state: s?.state ?? 'unknown', misses: s?.misses ?? 0, last_ok_at: s?.last_ok_at ?? null, last_message: s?.last_message ?? null,
          reason: s?.state === 'lost' ? 'no_answer' : null,
          lost_since: s?.state === 'lost' ? (lostAt.get(d.id) ?? null) : null,
        };
        // The poller keeps a device's own state while its bus is gone (it was ok, it will be ok
        // once the adapter is back): the list says what a person needs, that it cannot be read.
        const lostBus = s ? lostBuses.get(s.bus) : undefined;
        if (lostBus) Object.assign(view, { state: 'lost', reason: 'bus_lost', lost_since: lostBus.at, last_message: `${busName(s!.bus)} lost: ${lostBus.message ?? 'the adapter does not answer'}` });
        return view;
      });
    },
    reload,
  };

  let offs: (() => void)[] = [];
  let silence: MqttSilence | undefined;
  return {
    service,
    async start() {
      await reload();
      const bus = services.bus!;
      offs = [
        onAdapterChange(services, reload),
        bus.on('device_readings', (e) => inOrder(e.device_id, 'reading', () => ingestDeviceReading(services, e))),
        bus.on('device_link', (e) => {
          if (e.state === 'lost') lostAt.set(e.device_id, e.at);
          else lostAt.delete(e.device_id);
          inOrder(e.device_id, 'link', () => onDeviceLink(services, e, known.get(e.device_id)));
        }),
        bus.on('bus_link', (e) => {
          // At once, not after the alarm is stored: the list answers from memory.
          if (e.state === 'lost') lostBuses.set(e.bus, { message: e.message, at: e.at });
          else lostBuses.delete(e.bus);
          inOrder(`bus:${e.bus}`, 'bus link', () => onBusLink(services, e, (id) => known.get(id)));
        }),
      ];
      silence = await watchMqttSilence(services, services.config.stale_after_s);
    },
    async stop() {
      for (const off of offs) off();
      await silence?.stop();
      await loading;
      await Promise.all([...chains.values()]);
    },
  };
}
