// Every alarm state change, of every priority, onto the status stream as one event: alarm_changed
// with details {kind, item}. The screens apply the item at once (the shell's alarm store); the
// contract's alarm_raised / alarm_cleared events of critical and high alarms stay as they were.
// The industry alarm service stores the alarm_changed event of its changes in the change's own
// commit (src/modules/alarm-view/alarm-commit.ts) and marks the bus event, which the bridge then leaves be.
import type { Services } from '../../kernel/context.js';
import type { AlarmEvent, EventBus, StatusEvent } from '../../realtime/bus.js';
import type { StatusInput, StatusService } from '../status/service.js';

const statusOf = (item: NonNullable<AlarmEvent['item']>): StatusEvent['status'] =>
  item.condition !== 'active' || item.state === 'normal' ? 'ok' : item.tone === 'alarm' ? 'error' : 'warn';

/** The buses whose alarm changes are bridged (the alarm view's runtime is started). */
const bridged = new WeakSet<EventBus>();
/** Alarm events whose alarm_changed was stored with their change. */
const storedWithChange = new WeakSet<AlarmEvent>();

/** Whether alarm changes on this bus go onto the status stream. */
export const alarmChangesBridged = (bus: EventBus | undefined): boolean => bus !== undefined && bridged.has(bus);

/** The alarm_changed event of a change (undefined for an event without its view item). */
export function changedStatus(e: AlarmEvent): StatusInput | undefined {
  const item = e.item;
  if (!item) return undefined;
  return {
    tenant_id: item.tenant_id, site_id: item.site_id, source: item.resource, event: 'alarm_changed', status: statusOf(item),
    correlation_id: e.alarm.correlation_id, details: { kind: e.kind, item },
  };
}

/** Called by a producer that stored the event's alarm_changed in its change's commit. */
export const markStoredWithChange = (e: AlarmEvent): void => {
  storedWithChange.add(e);
};

export function bridgeAlarmChanges(services: Pick<Services, 'bus' | 'log'>, status: StatusService): () => void {
  bridged.add(services.bus);
  const off = services.bus.on('alarm', (e) => {
    if (storedWithChange.has(e)) return;
    const input = changedStatus(e);
    if (!input) return;
    status.publish(input).catch((err: Error) => services.log.error('alarm change not published to the status stream', { alarm_id: e.item?.id, kind: e.kind, error: err.message }));
  });
  return () => {
    bridged.delete(services.bus);
    off();
  };
}
