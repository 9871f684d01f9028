// An alarm record of any alarm resource (industry-alarms, poultry-alarms, the site's `alarms`, a
// master's sync-alarms) read into one shape, for a generic list's alarm row (ResourceView opens its
// account), and which alarm resources this person may list (the menu's Alarms entry). The alarms
// the shell announces and lists are not read here: they are the one alarm store's (lib/alarms.ts),
// from the box's alarm view, which decides their state, order and annunciation.
import type { Session } from './session';

type Row = Record<string, unknown>;

export type AlarmResource = 'industry-alarms' | 'poultry-alarms' | 'alarms' | 'sync-alarms';

/** The four states of the alarm standard as the inbox tells them apart (plus shelved / out of service). */
export type InboxState = 'active' | 'cleared-unacked' | 'acked-active' | 'shelved' | 'out-of-service' | 'normal';

export interface InboxAlarm {
  /** resource:id, unique across the merged resources */
  key: string;
  /** The resource it was listed from (its ack command is there) */
  resource: string;
  id: string;
  title: string;
  message: string | null;
  /** poultry | swine | melioration, or null for a site alarm */
  industry: string | null;
  /** The house, room or field the alarm is about, in words ("House 2"), or the farm of a farm's alarm on a master; null when it does not say. */
  where: string | null;
  /**
   * A farm's alarm on a master (sync-alarms): the farm in words. Read-only there: it is
   * acknowledged at the farm, and acked_by is who did it there. null for this box's own alarms.
   */
  farm: string | null;
  priority: string | null;
  severity: string;
  state: InboxState;
  acknowledged: boolean;
  raised_at: string;
  acked_by: string | null;
  acked_at: string | null;
  cleared_at: string | null;
  shelved_until: string | null;
  sla_deadline_at: string | null;
  metric: string | null;
  value: number | null;
  threshold: number | null;
  comparator: string | null;
  raw: Row;
}

const API = '/api/v1';

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

const UNIT_NOUN: Record<string, string> = { poultry: 'House', swine: 'Room', melioration: 'Field' };

/** "House 2" for unit 2 (or house-2, H2) of a poultry site; a unit with a name of its own as it is, in words. */
export function placeOf(industry: string | null, unit: string | null): string | null {
  if (!unit) return null;
  const noun = industry ? UNIT_NOUN[industry] : undefined;
  const bare = /^(?:house|room|pen|field|h|r|f)?[\s_-]*(\d+[a-z]?)$/i.exec(unit)?.[1];
  if (noun && bare) return `${noun} ${bare}`;
  const words = unit.replace(/[_-]+/g, ' ').trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function may(s: Session, path: string): boolean {
  return s.ctx.policy.permissions.api[`api:GET ${API}/${path}/list`] === true;
}

/** The alarm resources this person may list, poultry-alarms only when industry-alarms is not granted (the same rows). */
export function alarmResources(s: Session): AlarmResource[] {
  const out: AlarmResource[] = [];
  if (may(s, 'industry-alarms')) out.push('industry-alarms');
  else if (may(s, 'poultry-alarms')) out.push('poultry-alarms');
  if (may(s, 'alarms')) out.push('alarms');
  // The farms' alarms exist on a master only (an edge box's sync tables hold its outbox, never alarms).
  if (s.ctx.deployment_mode === 'cloud-multi' && may(s, 'sync-alarms')) out.push('sync-alarms');
  return out;
}

const ISA_STATE: Record<string, InboxState> = {
  unacknowledged_active: 'active',
  acknowledged_active: 'acked-active',
  unacknowledged_cleared: 'cleared-unacked',
  normal: 'normal',
};

/** Shelved (until a time still ahead) or out of service: listed as such, never annunciated. */
function suppressed(r: Row): InboxState | undefined {
  if (r.out_of_service === true) return 'out-of-service';
  const until = str(r.shelved_until);
  if (until ? Date.parse(until) > Date.now() : r.shelved === true) return 'shelved';
  return undefined;
}

/** The record's own ISA-18.2 state when it has one (alarm_state), else told from the older fields. */
function stateOf(r: Row, older: () => InboxState): InboxState {
  const normal = typeof r.alarm_state === 'string' && ISA_STATE[r.alarm_state] === 'normal';
  if (normal) return 'normal';
  return suppressed(r) ?? (typeof r.alarm_state === 'string' ? ISA_STATE[r.alarm_state] : undefined) ?? older();
}

function industryState(r: Row): InboxState {
  return stateOf(r, () => {
    const acked = Boolean(r.acked_at) || r.status === 'acked';
    // The condition when the record has it; else the status: cleared means the condition ended.
    const cleared = r.condition !== undefined ? r.condition === 'cleared' : r.status === 'cleared';
    if (cleared) return acked ? 'normal' : 'cleared-unacked';
    return acked ? 'acked-active' : 'active';
  });
}

function fromIndustry(resource: string, r: Row): InboxAlarm {
  const industry = str(r.industry_code) ?? (resource === 'poultry-alarms' ? 'poultry' : null);
  const details = r.details && typeof r.details === 'object' ? (r.details as Row) : {};
  const state = industryState(r);
  return {
    key: `${resource}:${String(r.id)}`, resource, id: String(r.id), title: str(r.title) ?? 'Alarm', message: str(r.message), industry,
    where: placeOf(industry, str(r.unit_id) ?? str(r.house_id)), farm: null, priority: str(r.priority), severity: str(r.severity) ?? 'info', state,
    acknowledged: Boolean(r.acked_at) || r.status === 'acked', raised_at: String(r.raised_at ?? ''), acked_by: str(r.acked_by), acked_at: str(r.acked_at),
    cleared_at: str(r.cleared_at), shelved_until: str(r.shelved_until), sla_deadline_at: str(r.sla_deadline_at), metric: str(r.metric), value: num(r.value),
    threshold: num(details.threshold), comparator: str(details.comparator), raw: r,
  };
}

function fromSite(r: Row): InboxAlarm {
  const acked = r.state === 'acknowledged';
  const state = stateOf(r, () => (acked ? 'normal' : 'active'));
  return {
    key: `alarms:${String(r.id)}`, resource: 'alarms', id: String(r.id), title: str(r.title) ?? 'Alarm', message: str(r.message), industry: null,
    where: placeOf(null, str(r.source)), farm: null, priority: null, severity: str(r.severity) ?? 'info', state, acknowledged: acked,
    raised_at: String(r.raised_at ?? ''), acked_by: str(r.acknowledged_by), acked_at: str(r.acknowledged_at), cleared_at: str(r.cleared_at), shelved_until: null,
    sla_deadline_at: null, metric: null, value: null, threshold: null, comparator: null, raw: r,
  };
}

/**
 * A farm's alarm as the master holds it (sync-alarms). Its state is what the box last synced:
 * open/active is unacknowledged; an industry alarm (it has a priority) stays acknowledged until
 * the farm reports it cleared, so it is listed as acknowledged and still active; a site alarm
 * (no priority) carries no condition, so, as on the box without one, it leaves when acknowledged.
 * Its priority is the fleet's: P1 also for a critical alarm without one, as the site cards count.
 */
export function fromFarm(r: Row): InboxAlarm {
  const industryAlarm = str(r.priority) !== null;
  const state: InboxState = r.open === true ? 'active' : r.state === 'acknowledged' && industryAlarm ? 'acked-active' : 'normal';
  const farm = str(r.site_label) ?? `${String(r.site_id)} · ${String(r.tenant_id)}`;
  return {
    key: `sync-alarms:${String(r.id)}`, resource: 'sync-alarms', id: String(r.id), title: str(r.title) ?? 'Alarm', message: null, industry: null,
    where: farm, farm, priority: str(r.priority) ?? (r.p1 === true ? 'P1' : null), severity: str(r.severity) ?? 'info', state,
    acknowledged: r.open !== true, raised_at: String(r.raised_at ?? ''), acked_by: str(r.acknowledged_by), acked_at: null, cleared_at: null,
    shelved_until: null, sla_deadline_at: null, metric: null, value: null, threshold: null, comparator: null, raw: r,
  };
}

/** Any alarm record shown by a resource (a site alarm has `state`; an industry alarm view has `status`). */
export function toInboxAlarm(resource: string, r: Row): InboxAlarm {
  if (resource === 'sync-alarms') return fromFarm(r);
  return 'state' in r && !('status' in r) ? fromSite(r) : fromIndustry(resource, r);
}
