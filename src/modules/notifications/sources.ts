// Where alarm events come from. On any process: the bus (`alarm` events after their commit),
// completed from the alarm's row (reading, limit, raised_at). On a master: the alarm events the
// sites pushed (sync_inbox, kind alarm), read after a cursor per site, with what the sync carries
// (the bus view of the alarm: title, severity, priority, level, unit, and for industry alarms the
// metric, reading, limit, comparator and raise time; boxes before that version push none of these).
// Whether the alarm was shelved or its unit out of service comes with the event (the view after
// the change), so a raise on a unit under maintenance is known as such on the box and the master.
import { and, asc, eq, gt } from 'drizzle-orm';
import type { Services } from '../../kernel/context.js';
import type { AlarmEvent } from '../../realtime/bus.js';
import { Store, storeFor } from '../../db/store.js';
import { colOf, tableOf } from '../../db/sql.js';
import { industryAlarmEvents, type AlarmEventRow } from '../../industry/alarm-schema.js';
import { alarms, type AlarmRow } from '../alarms/schema.js';
import { syncInbox, syncSites, type SyncSiteRow } from '../tenant-master-sync/schema.js';
import { cursorRecord, NOTIFY_EVENTS, type CursorRow, type NotifyEvent, type Suppression } from './schema.js';
import { textParamsOf, type AlarmFacts } from './message.js';

/** Every alarm event kind is one a rule may ask for (acknowledgements only with on_ack). */
// A reset ends the condition as a clear does; the other state changes (comment, shelve, ...) are no one's news off site.
const eventOf = (kind: AlarmEvent['kind']): NotifyEvent | undefined => {
  const event = kind === 'reset' ? 'cleared' : kind;
  return (NOTIFY_EVENTS as readonly string[]).includes(event) ? (event as NotifyEvent) : undefined;
};

/** Changes after which a suppressed alarm may be annunciated again: its held raise may go out. */
const RELEASING: readonly string[] = ['returned_to_service', 'unshelved', 'shelve_expired'];

/** An alarm back from suppression, still active and unacknowledged: what a held raise waits for. */
export interface Release {
  tenant_id: string;
  site_id: string | null;
  alarm_id: string;
}

/** The release an event calls for: an alarm annunciated again with its condition active; undefined otherwise. */
export function releaseOf(kind: string, a: Record<string, unknown>, tenant: string | null, site: string | null): Release | undefined {
  if (!RELEASING.includes(kind) || !tenant || typeof a.id !== 'string') return undefined;
  // The view's own decision where it carries one; from the contract's status (active: unacknowledged, not cleared) otherwise.
  const annunciated = typeof a.annunciated === 'boolean' ? a.annunciated : a.shelved !== true && a.out_of_service !== true;
  const active = typeof a.condition === 'string' ? a.condition === 'active' && a.state === 'active' : a.state === 'active';
  return annunciated && active ? { tenant_id: tenant, site_id: site, alarm_id: a.id } : undefined;
}

/** Out of service before shelved: the unit's state is the broader reason. */
const suppressionOf = (a: { out_of_service?: unknown; shelved?: unknown }): Suppression | null => (a.out_of_service === true ? 'out_of_service' : a.shelved === true ? 'shelved' : null);

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const num = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The facts of a bus event: the bus view, and the stored row where this process has it. */
export async function factsOfBus(services: Services, e: AlarmEvent, at = new Date()): Promise<AlarmFacts | undefined> {
  const event = eventOf(e.kind);
  const a = e.alarm;
  if (!event || !a.tenant_id) return undefined;
  const facts = fromView(a, event, a.tenant_id, a.site_id, at.toISOString());
  if (a.industry_code) {
    const row = await storeFor<AlarmEventRow>(services.db, industryAlarmEvents).find({ id: a.id });
    if (row) {
      const details = row.details ?? {};
      Object.assign(facts, { metric: row.metric, value: row.value, threshold: num(details.threshold), comparator: str(details.comparator), since: str(details.breach_since) ?? row.raised_at, source: row.source }, textsOf(facts, row));
      // The event's view says what held at the change; the row, read a moment later, only where it says nothing.
      if (a.shelved === undefined && a.out_of_service === undefined) facts.suppressed = suppressionOf(row);
    }
  } else {
    const row = await storeFor<AlarmRow>(services.db, alarms).find({ id: a.id });
    if (row) Object.assign(facts, { since: row.raised_at }, textsOf(facts, row));
  }
  return facts;
}

/**
 * The alarm's own texts from its stored row where the event's view lacks them: the English cause
 * (the view carries the title only) and the message keys with their parameters.
 */
function textsOf(facts: AlarmFacts, row: object): Partial<AlarmFacts> {
  const r = row as Record<string, unknown>;
  return {
    message: facts.message ?? str(r.message),
    title_key: facts.title_key ?? str(r.title_key),
    message_key: facts.message_key ?? str(r.message_key),
    text_params: facts.text_params ?? textParamsOf(r.text_params),
  };
}

function fromView(a: Record<string, unknown>, event: NotifyEvent, tenant: string, site: string | null, at: string): AlarmFacts {
  return {
    id: str(a.id) ?? '', tenant_id: tenant, site_id: site, event, title: str(a.title) ?? '(untitled alarm)', severity: str(a.severity) ?? 'info',
    // The box's own texts as keys with parameters, where the view carries them (a master renders a site's alarm in each channel's language too).
    title_key: str(a.title_key), message: str(a.message), message_key: str(a.message_key), text_params: textParamsOf(a.text_params),
    priority: str(a.priority), escalation_level: num(a.escalation_level) ?? 0, industry_code: str(a.industry_code), unit_id: str(a.unit_id),
    source: str(a.source) ?? 'alarms', correlation_id: str(a.correlation_id),
    // Industry alarm views carry the reading, its limit and the raise time; those of older boxes and site alarms do not.
    metric: str(a.metric), value: num(a.value), threshold: num(a.threshold), comparator: str(a.comparator),
    acknowledged_by: str(a.acknowledged_by),
    since: str(a.breach_since) ?? str(a.raised_at) ?? (event === 'raised' ? at : null), at,
    suppressed: suppressionOf(a),
  };
}

/** Master: events older than this when first read are not notified (a site's backlog after an outage would flood the phones). */
export const MASTER_MAX_AGE_MS = 3_600_000;

/**
 * One pass over the sites' pushed alarm events: each site's events after its cursor, oldest
 * first, handed to `notify`; the cursor moves past what was handed over. Answers the events read.
 */
export async function readSiteEvents(services: Services, notify: (facts: AlarmFacts) => Promise<unknown>, now = new Date(), release?: (r: Release) => Promise<unknown>): Promise<number> {
  const { db } = services;
  const cursors = new Store<CursorRow>(db, cursorRecord.table);
  const sites = (await db.orm.select().from(tableOf(syncSites, db))) as SyncSiteRow[];
  const ic = (n: string) => colOf(syncInbox, db, n);
  let read = 0;
  for (const site of sites) {
    const key = { tenant_id: site.tenant_id, site_id: site.site_id };
    const cursor = await cursors.find(key);
    const from = Number(cursor?.seq ?? 0);
    if (Number(site.applied_seq) <= from) continue;
    const rows = (await db.orm.select().from(tableOf(syncInbox, db))
      .where(and(eq(ic('tenant_id'), site.tenant_id), eq(ic('site_id'), site.site_id), gt(ic('seq'), from)))
      .orderBy(asc(ic('seq'))).limit(500)) as { seq: number; kind: string; created_at: string; payload: Record<string, unknown> }[];
    let last = from;
    for (const row of rows) {
      last = Number(row.seq);
      if (row.kind !== 'alarm') continue;
      const kind = str(row.payload.kind) as AlarmEvent['kind'] | null;
      const event = kind ? eventOf(kind) : undefined;
      const view = row.payload.alarm;
      if (!kind || !view || typeof view !== 'object') continue;
      if (now.getTime() - Date.parse(row.created_at) > MASTER_MAX_AGE_MS) continue;
      const freed = release && releaseOf(kind, view as Record<string, unknown>, site.tenant_id, site.site_id);
      if (freed) {
        read++;
        await release(freed);
        continue;
      }
      if (!event) continue;
      read++;
      // The site's registered tenant and site, whatever the payload names.
      await notify(fromView(view as Record<string, unknown>, event, site.tenant_id, site.site_id, row.created_at));
    }
    if (last > from) {
      if (cursor) await cursors.update(key, { seq: last });
      else await cursors.insert({ ...key, seq: last });
    }
  }
  return read;
}
