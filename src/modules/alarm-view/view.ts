// The alarm view: every alarm a person may see, of every alarm resource, as one list of items
// with the annunciation the box decided (src/industry/alarm-view-item.ts), and its summary. The
// shell's one alarm store reads this and the alarm_changed events; nothing re-derives it.
// Which resources a caller sees is the policy's answer for each resource's own list route
// (apiAllowed), so the view never shows what the resource itself would refuse.
import { createHash } from 'node:crypto';
import { and, desc, eq, isNotNull, type SQL } from 'drizzle-orm';
import type { Caller, Services } from '../../kernel/context.js';
import type { AnyRoute } from '../../kernel/route.js';
import { apiAllowed } from '../../auth/policy.js';
import { colOf, tableOf } from '../../db/sql.js';
import { industryAlarmEvents, type AlarmEventRow } from '../../industry/alarm-schema.js';
import { industryItem } from '../../industry/alarm-items.js';
import { VIEW_STATES, viewOrder, type AlarmCounts, type AlarmSummary, type AlarmViewItem } from '../../industry/alarm-view-item.js';
import { industryAlarmResource } from '../industry/alarms-resource.js';
import { alarmResource } from '../alarms/resource.js';
import { alarms, type AlarmRow } from '../alarms/schema.js';
import { siteItem } from '../alarms/item.js';
import { alarmsResource as syncAlarmsResource } from '../tenant-master-sync/alarms.js';
import { syncAlarms, type SyncAlarmRow } from '../tenant-master-sync/schema.js';
import { farmItem } from './farm-item.js';

/** At most this many alarms of each resource: a site with more listed alarms has bigger problems than a long list. */
export const SOURCE_CAP = 500;

export interface ViewFilter {
  /** The past (state normal), newest first; else the listed alarms. */
  history: boolean;
  unit_id?: string;
  industry_code?: string;
  /** History only: rows per resource to read (offset + limit of the page). */
  upto?: number;
}

const listRoute = (routes: readonly AnyRoute[]) => routes.find((r) => r.method === 'get' && r.path.endsWith('/list'))!;
const ROUTES = {
  industry: listRoute(industryAlarmResource.routes),
  site: listRoute(alarmResource.routes),
  farms: listRoute(syncAlarmsResource.routes),
};

/** Which alarm resources this caller may list (the farms' only on a master). */
export function sourcesOf(services: Services, caller: Caller) {
  return {
    industry: apiAllowed(services, caller, ROUTES.industry),
    site: apiAllowed(services, caller, ROUTES.site),
    farms: services.config.mode === 'cloud-multi' && apiAllowed(services, caller, ROUTES.farms),
  };
}

async function industryRows(services: Services, caller: Caller, f: ViewFilter): Promise<AlarmEventRow[]> {
  const { db } = services;
  const c = (n: string) => colOf(industryAlarmEvents, db, n);
  const where: SQL[] = [f.history ? eq(c('alarm_state'), 'normal') : eq(c('listed'), true)];
  if (caller.scope_type === 'tenant') {
    where.push(eq(c('tenant_id'), caller.tenant_id!));
    if (caller.site_id) where.push(eq(c('site_id'), caller.site_id));
  }
  if (f.unit_id !== undefined) where.push(eq(c('unit_id'), f.unit_id));
  if (f.industry_code !== undefined) where.push(eq(c('industry_code'), f.industry_code));
  return (await db.orm.select().from(tableOf(industryAlarmEvents, db)).where(and(...where)).orderBy(desc(c('raised_at'))).limit(f.upto ?? SOURCE_CAP)) as AlarmEventRow[];
}

async function siteRows(services: Services, caller: Caller, f: ViewFilter): Promise<AlarmRow[]> {
  // Site alarms are nobody's house, room or field.
  if (f.unit_id !== undefined || f.industry_code !== undefined) return [];
  const { db } = services;
  const c = (n: string) => colOf(alarms, db, n);
  const where: SQL[] = [f.history ? eq(c('alarm_state'), 'normal') : eq(c('listed'), true)];
  if (caller.scope_type === 'tenant') where.push(eq(c('tenant_id'), caller.tenant_id!));
  return (await db.orm.select().from(tableOf(alarms, db)).where(and(...where)).orderBy(desc(c('raised_at'))).limit(f.upto ?? SOURCE_CAP)) as AlarmRow[];
}

async function farmRows(services: Services, f: ViewFilter): Promise<SyncAlarmRow[]> {
  if (f.unit_id !== undefined || f.industry_code !== undefined) return [];
  const { db } = services;
  const c = (n: string) => colOf(syncAlarms, db, n);
  const t = tableOf(syncAlarms, db);
  const cap = f.upto ?? SOURCE_CAP;
  if (f.history) return (await db.orm.select().from(t).where(eq(c('open'), false)).orderBy(desc(c('raised_at'))).limit(cap)) as SyncAlarmRow[];
  // Still active at the farm: open, or an industry alarm acknowledged there and not reported cleared.
  const [open, acked] = await Promise.all([
    db.orm.select().from(t).where(eq(c('open'), true)).orderBy(desc(c('sort_key'))).limit(cap),
    db.orm.select().from(t).where(and(eq(c('state'), 'acknowledged'), isNotNull(c('priority')))).orderBy(desc(c('raised_at'))).limit(cap),
  ]);
  return [...open, ...acked] as SyncAlarmRow[];
}

/** One alarm by its key (`<resource>:<id>`), as the caller may see it, in any state; undefined when not. */
export async function viewItem(services: Services, caller: Caller, key: string): Promise<AlarmViewItem | undefined> {
  const at = key.indexOf(':');
  const resource = key.slice(0, at);
  const id = key.slice(at + 1);
  if (at < 0 || !id) return undefined;
  const allowed = sourcesOf(services, caller);
  const { db } = services;
  const tenant = caller.scope_type === 'tenant' ? caller.tenant_id! : undefined;
  if (resource === 'industry-alarms' && allowed.industry) {
    const c = (n: string) => colOf(industryAlarmEvents, db, n);
    const where: SQL[] = [eq(c('id'), id)];
    if (tenant !== undefined) where.push(eq(c('tenant_id'), tenant));
    if (tenant !== undefined && caller.site_id) where.push(eq(c('site_id'), caller.site_id));
    const [row] = (await db.orm.select().from(tableOf(industryAlarmEvents, db)).where(and(...where)).limit(1)) as AlarmEventRow[];
    return row && industryItem(row);
  }
  if (resource === 'alarms' && allowed.site) {
    const c = (n: string) => colOf(alarms, db, n);
    const where: SQL[] = [eq(c('id'), id)];
    if (tenant !== undefined) where.push(eq(c('tenant_id'), tenant));
    const [row] = (await db.orm.select().from(tableOf(alarms, db)).where(and(...where)).limit(1)) as AlarmRow[];
    return row && siteItem(row);
  }
  if (resource === 'sync-alarms' && allowed.farms) {
    const [row] = (await db.orm.select().from(tableOf(syncAlarms, db)).where(eq(colOf(syncAlarms, db, 'id'), id)).limit(1)) as SyncAlarmRow[];
    return row && farmItem(row);
  }
  return undefined;
}

/** The caller's alarms as items: listed ones in view order, or the past newest first. */
export async function viewItems(services: Services, caller: Caller, f: ViewFilter): Promise<AlarmViewItem[]> {
  const allowed = sourcesOf(services, caller);
  const [industry, site, farms] = await Promise.all([
    allowed.industry ? industryRows(services, caller, f) : [],
    allowed.site ? siteRows(services, caller, f) : [],
    allowed.farms ? farmRows(services, f) : [],
  ]);
  const items = [...industry.map(industryItem), ...site.map(siteItem), ...farms.map(farmItem)]
    .filter((i) => (f.history ? i.state === 'normal' : i.state !== 'normal'));
  return f.history ? items.sort((a, b) => (b.cleared_at ?? b.raised_at).localeCompare(a.cleared_at ?? a.raised_at)) : items.sort(viewOrder);
}

const zero = (): AlarmCounts => ({ listed: 0, annunciated: 0, urgent: 0 });

/** Counts by priority and state, and a revision that changes whenever any listed alarm changes. */
export function summarise(items: readonly AlarmViewItem[], at = new Date()): AlarmSummary {
  const by_state = Object.fromEntries(VIEW_STATES.filter((s) => s !== 'normal').map((s) => [s, 0])) as AlarmSummary['by_state'];
  const by_priority = { P1: zero(), P2: zero(), other: zero() };
  const all = zero();
  const hash = createHash('sha1');
  for (const i of items) {
    if (i.state === 'normal') continue;
    by_state[i.state]++;
    for (const counts of [all, by_priority[i.priority ?? 'other']]) {
      counts.listed++;
      if (i.annunciated) counts.annunciated++;
      if (i.urgent) counts.urgent++;
    }
    hash.update(`${i.key}|${i.state}|${i.condition}|${i.acked_at ?? ''}|${i.raise_count}|${i.last_raised_at}|${i.shelved_until ?? ''}|${i.comments.length}|${i.returned_at ?? ''}\n`);
  }
  return { ...all, by_state, by_priority, revision: hash.digest('hex').slice(0, 16), at: at.toISOString() };
}
