// Every alarm state change, of every priority, onto the status stream as one event: alarm_changed
// with details {kind, item}. The screens apply the item at once (the shell's alarm store); the
// contract's alarm_raised / alarm_cleared events of critical and high alarms stay as they were.
import type { Services } from '../../kernel/context.js';
import type { AlarmEvent, StatusEvent } from '../../realtime/bus.js';
import type { StatusService } from '../status/service.js';

const statusOf = (item: NonNullable<AlarmEvent['item']>): StatusEvent['status'] =>
  item.condition !== 'active' || item.state === 'normal' ? 'ok' : item.tone === 'alarm' ? 'error' : 'warn';

export function bridgeAlarmChanges(services: Pick<Services, 'bus' | 'log'>, status: StatusService): () => void {
  return services.bus.on('alarm', (e) => {
    const item = e.item;
    if (!item) return;
    status.publish({
      tenant_id: item.tenant_id, site_id: item.site_id, source: item.resource, event: 'alarm_changed', status: statusOf(item),
      correlation_id: e.alarm.correlation_id, details: { kind: e.kind, item },
    }).catch((err: Error) => services.log.error('alarm change not published to the status stream', { alarm_id: item.id, kind: e.kind, error: err.message }));
  });
}
