// A farm's alarm on a master (sync-alarms) as the alarm view's item. Its state is what the farm's
// box last synced: open is unacknowledged and active; an industry alarm (it has a priority) stays
// acknowledged and active until the farm reports it cleared; a site alarm carries no condition,
// so, as on the box without one, it leaves the list once acknowledged. Read-only on the master:
// an alarm is acknowledged at the farm (decisions.ts, "Farm alarms on the master"). The fleet
// annunciates the farms' P1s only: a fleet of a thousand farms would sound all day for every P2.
import { toneOf, type AlarmViewItem, type ViewState } from '../../industry/alarm-view-item.js';
import type { SyncAlarmRow } from '../tenant-master-sync/schema.js';

export function farmItem(row: SyncAlarmRow): AlarmViewItem {
  const open = row.open === true;
  const industry = row.priority !== null;
  const state: ViewState = open ? 'unacknowledged_active' : row.state === 'acknowledged' && industry ? 'acknowledged_active' : 'normal';
  const condition = state === 'normal' && row.state === 'cleared' ? 'cleared' : 'active';
  const p1 = row.p1 === true;
  const id = row.id ?? `${row.alarm_id}@${row.tenant_id}`;
  return {
    key: `sync-alarms:${id}`, resource: 'sync-alarms', id, tenant_id: row.tenant_id, site_id: row.site_id, industry: null, unit_id: null,
    where: `${row.site_id} · ${row.tenant_id}`, farm: `${row.site_id} · ${row.tenant_id}`, title: row.title, cause: null,
    title_key: null, message_key: null, where_key: null, text_params: null,
    metric: null, value: null, threshold: null, comparator: null, priority: row.priority ?? (p1 ? 'P1' : null), severity: row.severity,
    condition, alarm_state: state === 'normal' ? 'normal' : state === 'acknowledged_active' ? 'acknowledged_active' : 'unacknowledged_active', state,
    annunciated: open && p1, urgent: open && p1,
    tone: toneOf({ state, condition, priority: row.priority ?? (p1 ? 'P1' : null), severity: row.severity }),
    comm_loss: false, latched: false, resettable: false, raise_count: 1, raised_at: row.raised_at, last_raised_at: row.raised_at,
    returned_at: null, cleared_at: null, reset_at: null, reset_by: null, acked_at: null, acked_by: row.acknowledged_by,
    shelved_until: null, shelved_at: null, shelved_by: null, shelve_reason: null, sla_deadline_at: null, comments: [], applicable: [],
  };
}
