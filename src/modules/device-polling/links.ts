// Link events of the poller as comm_loss alarms (src/industry/comm-loss.ts): a device lost is
// one alarm on its house or room, a bus lost one alarm for the bus (its devices are silent while
// it is, the poller sends no device_link for them). ok clears. The alarm service finds an open
// alarm again, so a repeated event or one after a restart does not add a second.
import type { Services } from '../../kernel/context.js';
import type { BusLinkEvent, DeviceLinkEvent, PolledDevice } from '../../field/poll-types.js';
import type { Priority } from '../../industry/alarm-schema.js';
import { busRule, clearCommLoss, controllerRule, raiseCommLoss } from '../../industry/comm-loss.js';
import { unitPart } from '../../industry/box-text.js';

export interface KnownDevice {
  device: PolledDevice;
  priority: Priority;
}

export async function onDeviceLink(services: Services, e: DeviceLinkEvent, known: KnownDevice | undefined): Promise<void> {
  const key = { tenant_id: e.tenant_id, industry_code: e.industry, unit_id: e.unit_id, rule_id: controllerRule(e.controller_id) };
  if (e.state === 'ok') {
    await clearCommLoss(services, key);
    return;
  }
  await raiseCommLoss(services, {
    ...key, site_id: e.site_id, priority: known?.priority ?? 'P1', source: 'device',
    // Farm words for the screens, in each reader's language; what the bus said stays in details for the installer.
    text: {
      title_key: 'box.comm_loss.controller.title', message_key: 'box.comm_loss.controller.message',
      params: { industry: e.industry, unit: unitPart(e.industry, e.unit_id), controller: e.controller_id, misses: e.misses },
    },
    details: { device_id: e.device_id, controller_id: e.controller_id, bus: e.bus, misses: e.misses, last_message: e.message, at: e.at },
  }, new Date(e.at));
}

/** The most units a bus title names; the rest are counted ("and 2 more"). */
const NAMED_UNITS = 3;

/** One alarm per tenant for the bus (a box serves one tenant; a shared bus is each tenant's loss). */
export async function onBusLink(services: Services, e: BusLinkEvent, lookup: (deviceId: string) => KnownDevice | undefined): Promise<void> {
  const byTenant = new Map<string, KnownDevice[]>();
  for (const id of e.device_ids) {
    const k = lookup(id);
    if (!k) continue;
    const list = byTenant.get(k.device.tenant_id) ?? [];
    list.push(k);
    byTenant.set(k.device.tenant_id, list);
  }
  if (!byTenant.size) services.log.warn('bus link event for devices that are not polled', { bus: e.bus, state: e.state, device_ids: e.device_ids });
  for (const [tenant, list] of byTenant) {
    const first = list[0]!.device;
    const key = { tenant_id: tenant, industry_code: first.industry, unit_id: null, rule_id: busRule(e.bus) };
    if (e.state === 'ok') {
      await clearCommLoss(services, key);
      continue;
    }
    // The units by their names after the noun (the noun is the first device's industry's, in the reader's language).
    const units = [...new Set(list.map((k) => unitPart(first.industry, k.device.unit_id)))];
    const rtu = e.bus.startsWith('rtu:');
    const named = Object.fromEntries(units.slice(0, NAMED_UNITS).map((u, i) => [`u${i + 1}`, u]));
    await raiseCommLoss(services, {
      ...key, site_id: first.site_id, priority: list.some((k) => k.priority === 'P1') ? 'P1' : 'P2', source: 'device',
      text: {
        title_key: 'box.comm_loss.bus.title', message_key: 'box.comm_loss.bus.message',
        params: { rtu, bus: rtu ? e.bus.slice(4) : e.bus, industry: first.industry, count: Math.min(units.length, NAMED_UNITS + 1), more: Math.max(0, units.length - NAMED_UNITS), ...named },
      },
      details: { bus: e.bus, last_message: e.message, device_ids: list.map((k) => k.device.id), controllers: list.map((k) => k.device.controller_id), at: e.at },
    }, new Date(e.at));
  }
}
