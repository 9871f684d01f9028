// The shell's alarm store and the events that come while a list read is on its way: the answer
// may predate them, and they are applied to it again rather than lost until the next read (a CI
// run once showed "1 P1" without the P2 raised a moment before it).
import { describe, expect, it } from 'vitest';
import { withChanges, type AlarmItem } from '../../src/ui/src/lib/alarms.js';

function alarm(id: string, priority: 'P1' | 'P2', over: Partial<AlarmItem> = {}): AlarmItem {
  return {
    key: `industry-alarms:${id}`, resource: 'industry-alarms', id, tenant_id: 'farm-1', site_id: null, industry: 'poultry', unit_id: '2',
    where: 'House 2', farm: null, title: `alarm ${id}`, cause: null, title_key: null, message_key: null, where_key: null, text_params: null,
    metric: null, value: null, threshold: null, comparator: null, priority, severity: priority === 'P1' ? 'critical' : 'high',
    condition: 'active', alarm_state: 'unacknowledged_active', state: 'unacknowledged_active', annunciated: true, urgent: priority === 'P1',
    tone: priority === 'P1' ? 'alarm' : 'warn', comm_loss: false, latched: false, resettable: false, raise_count: 1,
    raised_at: '2026-11-29T10:00:00.000Z', last_raised_at: '2026-11-29T10:00:00.000Z', returned_at: null, cleared_at: null, reset_at: null,
    reset_by: null, acked_at: null, acked_by: null, shelved_until: null, shelved_at: null, shelved_by: null, shelve_reason: null,
    sla_deadline_at: null, comments: [], applicable: ['ack'], ...over,
  };
}

describe('alarm store: events during a read', () => {
  it('keeps an alarm raised while the read was on its way, beside the ones the answer has', () => {
    const p2 = alarm('a2', 'P2');
    const p1 = alarm('a1', 'P1');
    expect(withChanges([], [p2]).map((a) => a.key)).toEqual([p2.key]);
    // The answer has the P1; the P2's event came during the read: both, the urgent one first.
    expect(withChanges([p1], [p2]).map((a) => a.key)).toEqual([p1.key, p2.key]);
  });

  it('applies the events in the order they came: the last state of an alarm wins, normal leaves the list', () => {
    const raised = alarm('a1', 'P1');
    const acked = alarm('a1', 'P1', { state: 'acknowledged_active', alarm_state: 'acknowledged_active', annunciated: false, urgent: false, acked_by: 'Night shift' });
    const normal = alarm('a1', 'P1', { state: 'normal', alarm_state: 'normal', condition: 'cleared', annunciated: false, urgent: false });
    expect(withChanges([raised], [acked])).toEqual([acked]);
    expect(withChanges([], [raised, acked])).toEqual([acked]);
    expect(withChanges([raised], [acked, normal])).toEqual([]);
  });

  it('changes nothing without events', () => {
    const list = [alarm('a1', 'P1'), alarm('a2', 'P2')];
    expect(withChanges(list, [])).toBe(list);
  });
});
