// One alarm inbox: every alarm resource this person may list (industry-alarms: poultry, swine,
// melioration and the box's own alarms, all in one table; poultry-alarms when only that view is
// granted; the site's `alarms`), normalised into one shape, in one order (state, then priority,
// then newest first), acknowledged through the resource each alarm came from. On a master, the
// farms' alarms (sync-alarms, as each farm's box synced them) are merged in read-only: they are
// acknowledged at the farm, and their place is the farm ("north-barn · green-acres").
// The alarm condition (active | cleared, cleared_at, shelved_until, out_of_service) is read when
// the records carry it; older records only have status (active | acked | cleared).
import { getList, getLoaded, post, query } from './api';
import type { Session } from './session';
import { observable } from './store';
import type { Scheme } from './types';

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
const LIMIT = 100;

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

const STATE_RANK: Record<InboxState, number> = { active: 0, 'cleared-unacked': 1, 'acked-active': 2, shelved: 3, 'out-of-service': 4, normal: 5 };
const SEVERITY_RANK: Record<string, number> = { critical: 0, high: 1, medium: 2, low: 3, info: 4 };
const priorityRank = (a: InboxAlarm) => (a.priority === 'P1' ? 0 : a.priority === 'P2' ? 1 : 2);

/** State (unacknowledged active first), then priority (P1, P2, then by severity), then newest first. */
export function inboxOrder(a: InboxAlarm, b: InboxAlarm): number {
  return (
    STATE_RANK[a.state] - STATE_RANK[b.state] ||
    priorityRank(a) - priorityRank(b) ||
    (SEVERITY_RANK[a.severity] ?? 5) - (SEVERITY_RANK[b.severity] ?? 5) ||
    b.raised_at.localeCompare(a.raised_at)
  );
}

async function list(path: string, params: Record<string, string | number>): Promise<Row[]> {
  return (await getList<Row>(`${API}/${path}/list${query({ limit: LIMIT, sort: 'raised_at', order: 'desc', ...params })}`)).data.items;
}

/** The farms' alarms a master lists, and how many are open in all (a page holds LIMIT). */
export interface FarmAlarms {
  alarms: InboxAlarm[];
  /** Open at the farms in all, and of them P1 (the fleet's P1: P1, or critical without a priority). */
  open: number;
  openP1: number;
}

/** The farms' open alarms in all, set by each load on a master; null where this person does not list them. */
export const farmTotals = observable<Omit<FarmAlarms, 'alarms'> | null>(null);

/**
 * The farms' open alarms (sync-alarms' own order: P1 first, newest first), and the acknowledged
 * industry alarms still active at the farm. Past one page of open ones, the P1s are counted too,
 * so the annunciator's count is the fleet's whatever the page holds.
 */
async function loadFarmAlarms(): Promise<FarmAlarms> {
  const page = (params: Record<string, string | number>) => getList<Row>(`${API}/sync-alarms/list${query({ limit: LIMIT, ...params })}`).then((r) => r.data);
  const [open, ackedP1, ackedP2] = await Promise.all([page({ open: 'true' }), page({ state: 'acknowledged', priority: 'P1' }), page({ state: 'acknowledged', priority: 'P2' })]);
  const loadedP1 = open.items.filter((r) => r.p1 === true).length;
  const openP1 = open.total > open.items.length ? (await page({ open: 'true', p1: 'true', limit: 1 })).total : loadedP1;
  return { alarms: [...open.items, ...ackedP1.items, ...ackedP2.items].map(fromFarm), open: open.total, openP1 };
}

/** The alarms in the inbox: every listed resource, unacknowledged or still active, merged and ordered. */
/** Each alarm resource's filters, read once a page load (a scheme does not change under a tablet; the inbox refreshes every 15 s). */
const filterNames = new Map<string, Promise<Set<string>>>();
function filtersOf(path: AlarmResource): Promise<Set<string>> {
  let names = filterNames.get(path);
  if (!names) {
    names = getLoaded<{ item: Scheme }>(`${API}/${path}/scheme`).then((r) => new Set((r.data.item.filters ?? []).map((f) => f.name)));
    names.catch(() => filterNames.delete(path));
    filterNames.set(path, names);
  }
  return names;
}

export async function loadInbox(s: Session): Promise<InboxAlarm[]> {
  const out: InboxAlarm[] = [];
  let totals: Omit<FarmAlarms, 'alarms'> | null = null;
  const parts = alarmResources(s).map(async (path) => {
    if (path === 'sync-alarms') {
      const farms = await loadFarmAlarms();
      totals = { open: farms.open, openP1: farms.openP1 };
      out.push(...farms.alarms.filter((a) => a.state !== 'normal'));
      return;
    }
    const filters = await filtersOf(path);
    const site = path === 'alarms';
    // The operator's list (listed=true: every alarm not in the normal state) where the record
    // keeps the alarm states; otherwise the older filters.
    const batches = await Promise.all(
      filters.has('listed')
        ? [list(path, { listed: 'true' })]
        : site
          ? [list(path, { state: 'open' })]
          : [list(path, { status: 'active' }), list(path, { status: 'acked' }), ...(filters.has('condition') ? [list(path, { condition: 'cleared' })] : [])],
    );
    const seen = new Set<string>();
    for (const r of batches.flat()) {
      const a = site ? fromSite(r) : fromIndustry(path, r);
      if (seen.has(a.key) || a.state === 'normal') continue;
      seen.add(a.key);
      out.push(a);
    }
  });
  await Promise.all(parts);
  farmTotals.set(totals);
  return out.sort(inboxOrder);
}

/** Acknowledges the alarm through the resource it came from (never a farm's alarm: that is done at the farm). */
export async function ackAlarm(a: Pick<InboxAlarm, 'resource' | 'id' | 'farm'>): Promise<void> {
  if (a.farm !== null) throw new Error(`This alarm is acknowledged at the farm (${a.farm}).`);
  await post(`${API}/${a.resource}/commands/ack`, { id: a.id });
}

/** The state in words an operator reads. */
export function stateWords(a: InboxAlarm, when: (iso: string) => string): string {
  switch (a.state) {
    case 'active':
      return 'Active, not acknowledged';
    case 'acked-active':
      return 'Acknowledged, still active';
    case 'cleared-unacked':
      return 'Cleared, waiting for acknowledgement';
    case 'shelved':
      return `Shelved until ${a.shelved_until ? when(a.shelved_until) : '—'}`;
    case 'out-of-service':
      return 'Out of service';
    default:
      return a.cleared_at ? 'Cleared and acknowledged' : a.acknowledged ? 'Acknowledged' : 'Back to normal';
  }
}

/** The badge colour of an alarm: red for an unacknowledged P1 or critical, amber otherwise, grey once cleared. */
export function alarmTone(a: InboxAlarm): 'alarm' | 'warn' | 'muted' {
  if (a.state === 'active') return a.priority === 'P1' || (!a.priority && (a.severity === 'critical' || a.severity === 'high')) ? 'alarm' : 'warn';
  if (a.state === 'acked-active') return 'warn';
  return a.state === 'cleared-unacked' ? 'warn' : 'muted';
}
