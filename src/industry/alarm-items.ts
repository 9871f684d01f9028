// An industry alarm event (poultry, swine, melioration, comm loss, the relay's failures) as the
// alarm view's item: the one shape every screen, the status stream and the relay read.
import type { Services } from '../kernel/context.js';
import type { AlarmEvent } from '../realtime/bus.js';
import type { AlarmComment, AlarmEventRow } from './alarm-schema.js';
import { causeKey, causeOf, placeKey, placeOf, type KeyedText } from './alarm-words.js';
import { textParamsOf } from './box-text.js';
import { industryActions, toneOf, viewStateOf, type AlarmViewItem, type ChangeKind } from './alarm-view-item.js';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const commentOf = (c: Record<string, unknown>): AlarmComment => ({ text: String(c.text ?? ''), by: String(c.by ?? ''), at: String(c.at ?? '') });
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/**
 * The keys of an item's texts: the title's and message's as stored (the box's own; null for a
 * person's text and for older records), the cause's from the reading when it is worded from it,
 * the place's. One set of parameters for all (their names do not overlap: box-text.ts).
 */
export function itemTexts(row: { title_key: string | null; message_key: string | null; text_params: unknown }, cause: KeyedText | null, place: KeyedText | null): Pick<AlarmViewItem, 'title_key' | 'message_key' | 'where_key' | 'text_params'> {
  const stored = textParamsOf(row.text_params);
  const params = stored || cause || place ? { ...stored, ...place?.params, ...cause?.params } : null;
  return { title_key: row.title_key, message_key: cause ? cause.key : row.message_key, where_key: place?.key ?? null, text_params: params };
}

export function industryItem(row: AlarmEventRow): AlarmViewItem {
  const details = row.details ?? {};
  const threshold = num(details.threshold);
  const comparator = str(details.comparator);
  const state = viewStateOf(row);
  const returned = row.returned_at !== null;
  return {
    key: `industry-alarms:${row.id}`, resource: 'industry-alarms', id: row.id, tenant_id: row.tenant_id, site_id: row.site_id,
    industry: row.industry_code, unit_id: row.unit_id, where: placeOf(row.industry_code, row.unit_id), farm: null,
    title: row.title, cause: causeOf({ metric: row.metric, value: row.value, threshold, comparator, message: row.message }),
    ...itemTexts(row, causeKey({ metric: row.metric, value: row.value, threshold, comparator }), placeKey(row.industry_code, row.unit_id)),
    metric: row.metric, value: row.value, threshold, comparator, priority: row.priority, severity: row.severity,
    condition: row.condition, alarm_state: row.alarm_state, state, annunciated: row.annunciated, urgent: row.urgent,
    tone: toneOf({ state, condition: returned ? 'returned' : row.condition, priority: row.priority, severity: row.severity }),
    comm_loss: row.metric === 'comm_loss', latched: row.latched, resettable: row.resettable, raise_count: row.raise_count,
    raised_at: row.raised_at, last_raised_at: row.last_raised_at || row.raised_at, returned_at: row.returned_at, cleared_at: row.cleared_at,
    reset_at: row.reset_at, reset_by: row.reset_by, acked_at: row.acked_at, acked_by: row.acked_by,
    shelved_until: row.shelved ? row.shelved_until : null, shelved_at: row.shelved_at, shelved_by: row.shelved_by, shelve_reason: row.shelve_reason,
    sla_deadline_at: row.sla_deadline_at, comments: (row.comments ?? []).map(commentOf),
    applicable: state === 'normal' ? ['comment'] : industryActions(row),
  };
}

/** The alarm as the bus carries it to its other consumers (MQTT, the sync, notifications, the relay). */
export const busView = (row: AlarmEventRow): AlarmEvent['alarm'] => ({
  id: row.id, tenant_id: row.tenant_id, site_id: row.site_id, severity: row.severity, state: row.status, source: row.source,
  title: row.title, correlation_id: row.correlation_id, acknowledged_by: row.acked_by, comment: null,
  message: row.message, title_key: row.title_key, message_key: row.message_key, text_params: textParamsOf(row.text_params),
  industry_code: row.industry_code, unit_id: row.unit_id, priority: row.priority, escalation_level: row.escalation_level,
  sla_deadline_at: row.sla_deadline_at,
  // What a master needs to word a notification as the box does (the sync pushes this view).
  metric: row.metric, value: row.value, raised_at: row.raised_at,
  threshold: typeof row.details?.threshold === 'number' ? row.details.threshold : null,
  comparator: typeof row.details?.comparator === 'string' ? row.details.comparator : null,
  breach_since: typeof row.details?.breach_since === 'string' ? row.details.breach_since : null,
  condition: row.condition, annunciated: row.annunciated, urgent: row.urgent, shelved: row.shelved, out_of_service: row.out_of_service,
});

/** Inside the transaction of the change: the sync outbox writes with it. */
export async function stageChange(services: Pick<Services, 'bus'>, kind: ChangeKind, row: AlarmEventRow | undefined): Promise<void> {
  if (row) await services.bus?.stage('alarm', { kind, alarm: busView(row) });
}

/** One event per change, with the alarm's new state as the view shows it. */
export const alarmEventOf = (kind: ChangeKind, row: AlarmEventRow): AlarmEvent => ({ kind, alarm: busView(row), item: industryItem(row) });

/** After the commit: one event per change, with the alarm's new state as the view shows it. */
export function announce(services: Pick<Services, 'bus'>, kind: ChangeKind, row: AlarmEventRow): void {
  services.bus?.emit('alarm', alarmEventOf(kind, row));
}
