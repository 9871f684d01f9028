// A site alarm (`alarms`) as the alarm view's item. Site alarms have a severity and no priority,
// no shelving and no out of service: what applies to them is acknowledging.
import { causeOf, placeOf } from '../../industry/alarm-words.js';
import { toneOf, viewStateOf, type AlarmViewItem } from '../../industry/alarm-view-item.js';
import type { AlarmRow } from './schema.js';
import { itemTexts } from '../../industry/alarm-items.js';

export function siteItem(row: AlarmRow): AlarmViewItem {
  const state = viewStateOf({ alarm_state: row.alarm_state, shelved: false, out_of_service: false, latched: false, returned_at: null, condition: row.condition });
  return {
    key: `alarms:${row.id}`, resource: 'alarms', id: row.id, tenant_id: row.tenant_id, site_id: row.site_id, industry: null, unit_id: null,
    where: placeOf(null, row.source), farm: null, title: row.title, cause: causeOf({ metric: null, value: null, threshold: null, comparator: null, message: row.message }),
    // A site alarm has no reading: its cause is its message (the place is its source's own name).
    ...itemTexts(row, null, null),
    metric: null, value: null, threshold: null, comparator: null, priority: null, severity: row.severity,
    condition: row.condition, alarm_state: row.alarm_state, state, annunciated: row.annunciated, urgent: row.urgent,
    tone: toneOf({ state, condition: row.condition, priority: null, severity: row.severity }), comm_loss: false, latched: false, resettable: false,
    raise_count: 1, raised_at: row.raised_at, last_raised_at: row.raised_at, returned_at: null, cleared_at: row.cleared_at, reset_at: null, reset_by: null,
    acked_at: row.acknowledged_at, acked_by: row.acknowledged_by, shelved_until: null, shelved_at: null, shelved_by: null, shelve_reason: null, sla_deadline_at: null,
    comments: row.comment && row.acknowledged_by && row.acknowledged_at ? [{ text: row.comment, by: row.acknowledged_by, at: row.acknowledged_at }] : [],
    applicable: row.state === 'open' ? ['ack'] : [],
  };
}
