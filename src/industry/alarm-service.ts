// The one alarm service of the industry workspaces. Rule engines, industry-alarms/publish,
// poultry-alarms, swine and melioration alerts all raise, acknowledge, escalate and clear through
// it, so every alarm event is stored, audited, put on the bus (MQTT) and, when severe enough,
// bridged to status (WebSocket) with the same correlation_id the same way.
//
// Decisions (also in src/kernel/decisions.ts):
// - A rule that is already active or acknowledged for the same unit is not raised twice: raise
//   returns the open event (created=false). Hysteresis and hold times live in the rule engine.
// - Bridging: 'severe' (default; the contract's poultry rule) bridges critical and high only;
//   'all' (industry-alarms/publish) bridges every severity with the contract's mapping.
// - SLA: sla_deadline_at = raised_at + sla_target_sec. escalate is allowed once the deadline has
//   passed (or with force, by a person); each escalation raises escalation_level, sets
//   sla_breached, moves the deadline one more sla_target_sec on, and is a status event and an
//   audit record. Acknowledged or cleared events are not escalated.
// - ack is allowed once, on an active or cleared (never acknowledged) event; a second ack is 409
//   alarm_already_acknowledged naming the first.
// - The condition (active|cleared, cleared_at) is kept apart from the acknowledgement (acked_at):
//   clear never touches acked_at, ack never touches the condition. status, alarm_state and listed
//   are derived from both on every change (alarm-states.ts), in the transaction of the change.
//   Invariant other parts rely on: unacknowledged and active <=> acked_at IS NULL AND
//   cleared_at IS NULL (the annunciator also leaves out shelved and out_of_service ones).
// - Latched: clear() on a latched alarm only notes returned_at; the alarm stays active until
//   reset(). reset is refused (409) where resettable is false, and on a latched alarm whose
//   process has not returned yet.
// - Flood: a rule that raised alarm_flood_count times on one unit within alarm_flood_window_min
//   raises no new alarm: its latest one is raised again (raise_count + 1, acknowledgement
//   reset), so a chattering rule is one alarm with a count.
import { randomUUID } from 'node:crypto';
import { and, asc, desc, eq, gte, inArray, isNull, lte, type SQL } from 'drizzle-orm';
import { ApiError } from '../kernel/errors.js';
import type { Services } from '../kernel/context.js';
import type { StatusEvent, StatusInput } from '../realtime/bus.js';
import { timeId } from '../kernel/ids.js';
import { colOf, tableOf } from '../db/sql.js';
import { preparedQuery } from '../db/prepared.js';
import { storeFor } from '../db/store.js';
import type { Database } from '../db/client.js';
import { industryAlarmEvents, outOfServiceRecord, type AlarmEventRow, type IndustrySeverity, type OutOfServiceRow, type Priority } from './alarm-schema.js';
import { alarmStateOf, annunciationOf, listedIn } from './alarm-states.js';
import { stageChange } from './alarm-items.js';
import { storedText, textParamsOf, type BoxText } from './box-text.js';
import type { ChangeKind } from './alarm-view-item.js';
import type { CommitChange } from './alarm-change.js';
import type { AuditEntry } from '../kernel/context.js';

export interface RaiseEventBase {
  tenant_id: string;
  site_id?: string | null;
  industry_code: AlarmEventRow['industry_code'];
  unit_id?: string | null;
  batch_id?: string | null;
  rule_id?: string | null;
  metric?: string | null;
  value?: number | null;
  severity: IndustrySeverity;
  priority?: Priority | null;
  source: string;
  /** A message the box did not word itself (what a person noted); with `text`, text.message_key words it instead. */
  message?: string | null;
  correlation_id?: string | null;
  sla_target_sec?: number | null;
  details?: Record<string, unknown> | null;
  /** Who raises it (a subject, or a rule engine such as "poultry-rules"). */
  actor: string;
  bridge?: 'severe' | 'all';
  /** Stays active after its condition ends until an admin resets it. */
  latched?: boolean;
  /** Whether an admin may reset it (default true). */
  resettable?: boolean;
  /** For tests and replays: when the condition was observed. */
  now?: Date;
}

/**
 * The title is the box's own text (`text`: a key with parameters; title and message are rendered
 * from it in English, box-text.ts) or one a person typed (`title`, keys null).
 */
export interface RaiseEventInput extends RaiseEventBase {
  /** The box's own text; when given, title is not read. */
  text?: BoxText;
  /** A text a person (or an integration) typed; stored as given, keys null. */
  title?: string;
}

/** The maximum shelving time (decision): a shelved alarm always comes back within a shift. */
export const SHELVE_MAX_MIN = 8 * 60;

/** Which events a caller may touch: a tenant caller passes its tenant; a master caller none. */
export interface EventRef {
  id: string;
  tenant_id?: string;
  industry_code?: string;
}

export interface IndustryAlarmService {
  /** created: a new alarm row; grouped: a flood folded this raise into an earlier alarm (raise_count + 1). */
  raise(input: RaiseEventInput): Promise<{ event: AlarmEventRow; created: boolean; grouped?: boolean }>;
  /** Ends an active alarm's condition by hand (admin): 409 where not resettable, or latched and not yet returned. */
  reset(input: EventRef & { actor: string; comment?: string; now?: Date }): Promise<AlarmEventRow>;
  shelve(input: EventRef & { actor: string; reason: string; minutes: number; now?: Date }): Promise<AlarmEventRow>;
  unshelve(input: EventRef & { actor: string }): Promise<AlarmEventRow>;
  /** Ends every shelve whose time is up at `now`; answers the alarms unshelved. */
  expireShelves(now: Date): Promise<AlarmEventRow[]>;
  /** Takes a unit out of service (its open and future alarms are marked) or returns it. */
  setOutOfService(input: { tenant_id: string; site_id?: string | null; industry_code: AlarmEventRow['industry_code']; unit_id: string; reason?: string; actor: string; out: boolean; correlation_id?: string }): Promise<{ unit: OutOfServiceRow | null; alarms: number }>;
  ack(input: EventRef & { assignee: string; actor: string }): Promise<AlarmEventRow>;
  escalate(input: EventRef & { actor: string; force?: boolean; now?: Date }): Promise<AlarmEventRow>;
  /** Clears the open event of a rule on a unit (the condition ended), or one event by id. Undefined when none is open. */
  clear(input: ({ id: string; tenant_id?: string } | { tenant_id: string; industry_code: string; unit_id: string | null; rule_id: string }) & { actor: string; now?: Date }): Promise<AlarmEventRow | undefined>;
  /** Open (active or acknowledged) events matching the equality filter. */
  open(filter: Partial<Record<'tenant_id' | 'site_id' | 'industry_code' | 'unit_id' | 'rule_id', string>>): Promise<AlarmEventRow[]>;
  /** Active (unacknowledged, neither shelved nor out of service) events whose SLA deadline has passed, oldest deadline first. */
  overdue(now: Date, limit?: number): Promise<AlarmEventRow[]>;
}

declare module '../kernel/context.js' {
  interface Services {
    /** Built by the composition root (src/compose.ts): always present, so no rule engine can lose an alarm. */
    industryAlarms: IndustryAlarmService;
  }
}

/** The contract's mapping of alarm severity to status: critical, high -> error; medium -> warn; low, info -> ok. */
export const statusOfSeverity = (s: IndustrySeverity): StatusEvent['status'] => (s === 'critical' || s === 'high' ? 'error' : s === 'medium' ? 'warn' : 'ok');

const severe = (s: IndustrySeverity) => s === 'critical' || s === 'high';


// The queries of raise and clear, which rule engines run on readings (a chattering unit raises
// and clears many times an hour), built once (src/db/prepared.ts). A unit's queries and those of
// an alarm without a unit differ in shape (unit_id = ? against IS NULL), so each has its own.
const ac = (db: Database, n: string) => colOf(industryAlarmEvents, db, n);
const at = (db: Database) => tableOf(industryAlarmEvents, db);
type RuleKey = { tenant: string; industry: string; unit: string; rule: string };
type RuleKeyNoUnit = Omit<RuleKey, 'unit'>;
const OPEN = ['active', 'acked'];
const openOfUnitRule = preparedQuery<RuleKey, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), eq(ac(db, 'unit_id'), p('unit')), eq(ac(db, 'rule_id'), p('rule')), inArray(ac(db, 'status'), OPEN),
)).limit(1));
const openOfRule = preparedQuery<RuleKeyNoUnit, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), isNull(ac(db, 'unit_id')), eq(ac(db, 'rule_id'), p('rule')), inArray(ac(db, 'status'), OPEN),
)).limit(1));
const recentOfUnitRule = preparedQuery<RuleKey & { since: string; limit: number }, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), eq(ac(db, 'unit_id'), p('unit')), eq(ac(db, 'rule_id'), p('rule')), gte(ac(db, 'last_raised_at'), p('since')),
)).orderBy(desc(ac(db, 'last_raised_at'))).limit(p('limit')));
const recentOfRule = preparedQuery<RuleKeyNoUnit & { since: string; limit: number }, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), isNull(ac(db, 'unit_id')), eq(ac(db, 'rule_id'), p('rule')), gte(ac(db, 'last_raised_at'), p('since')),
)).orderBy(desc(ac(db, 'last_raised_at'))).limit(p('limit')));
const activeOfUnitRule = preparedQuery<RuleKey, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), eq(ac(db, 'unit_id'), p('unit')), eq(ac(db, 'rule_id'), p('rule')), eq(ac(db, 'condition'), 'active'),
)).limit(1));
const activeOfRule = preparedQuery<RuleKeyNoUnit, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), isNull(ac(db, 'unit_id')), eq(ac(db, 'rule_id'), p('rule')), eq(ac(db, 'condition'), 'active'),
)).limit(1));
const unitOutOfService = preparedQuery<{ tenant: string; industry: string; unit: string }, unknown[]>((db, orm, p) => {
  const oc = (n: string) => colOf(outOfServiceRecord.table, db, n);
  return orm.select({ unit_id: oc('unit_id') }).from(tableOf(outOfServiceRecord.table, db))
    .where(and(eq(oc('tenant_id'), p('tenant')), eq(oc('industry_code'), p('industry')), eq(oc('unit_id'), p('unit')))).limit(1);
});
/** A unit's open alarms: what a swine reading whose rule raised answers (the list lookup keeps its built query). */
const openOfUnit = preparedQuery<Omit<RuleKey, 'rule'>, AlarmEventRow[]>((db, orm, p) => orm.select().from(at(db)).where(and(
  eq(ac(db, 'tenant_id'), p('tenant')), eq(ac(db, 'industry_code'), p('industry')), eq(ac(db, 'unit_id'), p('unit')), inArray(ac(db, 'status'), OPEN),
)).orderBy(asc(ac(db, 'raised_at'))));
/** The condition ends, conditional on it being active still (a reset or another clear may have won). */
const clearActive = preparedQuery<{ id: string; now: string }, AlarmEventRow[]>((db, orm, p) => orm.update(at(db))
  .set({ condition: 'cleared', cleared_at: p('now') } as never).where(and(eq(ac(db, 'id'), p('id')), eq(ac(db, 'condition'), 'active'))).returning());
/** A new occurrence of a chattering rule: its grouped alarm is active and unacknowledged again. */
const raiseAgain = preparedQuery<{ id: string; value: number | null; raise_count: number; now: string }, AlarmEventRow[]>((db, orm, p) => orm.update(at(db)).set({
  condition: 'active', cleared_at: null, returned_at: null, acked_at: null, acked_by: null, value: p('value'), raise_count: p('raise_count'), last_raised_at: p('now'),
} as never).where(eq(ac(db, 'id'), p('id'))).returning());
const setDerived = preparedQuery<{ id: string; alarm_state: string; listed: boolean; status: string; annunciated: boolean; urgent: boolean }, AlarmEventRow[]>((db, orm, p) => orm.update(at(db))
  .set({ alarm_state: p('alarm_state'), listed: p('listed'), status: p('status'), annunciated: p('annunciated'), urgent: p('urgent') } as never).where(eq(ac(db, 'id'), p('id'))).returning());

export function createIndustryAlarmService(services: Services, commitChange: CommitChange): IndustryAlarmService {
  const c = (n: string) => colOf(industryAlarmEvents, services.db, n);
  const t = () => tableOf(industryAlarmEvents, services.db);
  const mine = (ref: { id: string; tenant_id?: string; industry_code?: string }): SQL[] => [
    eq(c('id'), ref.id),
    ...(ref.tenant_id !== undefined ? [eq(c('tenant_id'), ref.tenant_id)] : []),
    ...(ref.industry_code !== undefined ? [eq(c('industry_code'), ref.industry_code)] : []),
  ];
  const load = async (ref: EventRef): Promise<AlarmEventRow> => {
    const [row] = (await services.db.orm.select().from(t()).where(and(...mine(ref))).limit(1)) as AlarmEventRow[];
    if (!row) throw new ApiError('alarm_not_found', `alarm ${ref.id} not found`, [{ field: 'id', reason: 'not_found' }]);
    return row;
  };
  /** Inside the transaction that changed the rows (the sync outbox commits with it); answers the rows. */
  const stage = async (kind: ChangeKind, rows: AlarmEventRow[]) => {
    for (const row of rows) await stageChange(services, kind, row);
    return rows;
  };
  const statusOf = (row: AlarmEventRow, event: string, status: StatusEvent['status']): StatusInput => ({
    tenant_id: row.tenant_id, site_id: row.site_id, source: `${row.industry_code}-alarms`, event, status, correlation_id: row.correlation_id,
    details: { alarm_id: row.id, industry_code: row.industry_code, unit_id: row.unit_id, batch_id: row.batch_id, severity: row.severity, priority: row.priority, rule_id: row.rule_id, escalation_level: row.escalation_level, title: row.title,
      // A reader in another language renders the title from its key (the live feed, after the alarm has left the store).
      title_key: row.title_key, text_params: textParamsOf(row.text_params) },
  });
  const entryOf = (row: AlarmEventRow, actor: string, action: string, details: Record<string, unknown> = {}, result: 'success' | 'denied' = 'success'): AuditEntry =>
    ({ actor, action, resource: `${row.industry_code}-alarms`, result, correlation_id: row.correlation_id, tenant_id: row.tenant_id, details: { id: row.id, ...details } });
  /** An audit record of its own (a refusal: nothing changed). */
  const audit = (row: AlarmEventRow, actor: string, action: string, details: Record<string, unknown> = {}, result: 'success' | 'denied' = 'success') =>
    services.audit.record(entryOf(row, actor, action, details, result));
  /** A change, its audit records and its status events in one commit (alarm-commit.ts). */

  /** status, alarm_state and listed from the condition and the acknowledgement (alarm-states.ts). */
  const derived = (row: AlarmEventRow) => {
    const input = { condition: row.condition, acked: row.acked_at !== null, severity: row.severity, priority: row.priority, shelved: row.shelved, out_of_service: row.out_of_service, returned: row.returned_at !== null };
    const alarm_state = alarmStateOf(input);
    return { alarm_state, listed: listedIn(alarm_state), status: row.condition === 'cleared' ? 'cleared' as const : row.acked_at !== null ? 'acked' as const : 'active' as const, ...annunciationOf(input) };
  };
  /** Inside the transaction of a change: brings the derived columns in line with it. */
  const settle = async (rows: AlarmEventRow[]): Promise<AlarmEventRow[]> => {
    const out: AlarmEventRow[] = [];
    for (const row of rows) {
      const d = derived(row);
      if (d.alarm_state === row.alarm_state && d.listed === row.listed && d.status === row.status && d.annunciated === row.annunciated && d.urgent === row.urgent) { out.push(row); continue; }
      const [saved] = await setDerived(services.db, { id: row.id, ...d });
      out.push(saved!);
    }
    return out;
  };
  const oc = (n: string) => colOf(outOfServiceRecord.table, services.db, n);
  const ot = () => tableOf(outOfServiceRecord.table, services.db);
  const unitOut = async (tenant: string, industry: string, unit: string | null | undefined) => {
    if (!unit) return false;
    return (await unitOutOfService(services.db, { tenant, industry, unit })).length > 0;
  };
  const floodGroup = async (input: RaiseEventInput, now: Date): Promise<AlarmEventRow | undefined> => {
    const n = services.config.alarm_flood_count;
    if (!input.rule_id || !n) return undefined;
    const since = new Date(now.getTime() - services.config.alarm_flood_window_min * 60_000).toISOString();
    const key = { tenant: input.tenant_id, industry: input.industry_code, rule: input.rule_id, since, limit: n + 1 };
    const recent = input.unit_id ? await recentOfUnitRule(services.db, { ...key, unit: input.unit_id }) : await recentOfRule(services.db, key);
    const raises = recent.reduce((sum, r) => sum + r.raise_count, 0);
    return raises >= n ? recent[0] : undefined;
  };

  const service: IndustryAlarmService = {
    async raise(input) {
      const { db } = services;
      const now = input.now ?? new Date();
      const bridge = input.bridge === 'all' || severe(input.severity);
      type Raised = { event: AlarmEventRow; created: boolean; grouped?: boolean };
      return commitChange<Raised>(async (writes) => {
        if (input.rule_id) {
          const key = { tenant: input.tenant_id, industry: input.industry_code, rule: input.rule_id };
          const [open] = input.unit_id ? await openOfUnitRule(db, { ...key, unit: input.unit_id }) : await openOfRule(db, key);
          if (open) return { event: open, created: false };
          const group = await floodGroup(input, now);
          if (group) {
            // A new occurrence of the chattering rule: the grouped alarm is active and unacknowledged again.
            const [again] = await stage('raised', await settle(await raiseAgain(db, { id: group.id, value: input.value ?? null, raise_count: group.raise_count + 1, now: now.toISOString() })));
            await writes.changed('raised', again!);
            await writes.audit(entryOf(again!, input.actor, 'alarm.raise', { grouped: true, raise_count: again!.raise_count, rule_id: again!.rule_id, unit_id: again!.unit_id, value: again!.value }));
            return { event: again!, created: false, grouped: true };
          }
        }
        const out = await unitOut(input.tenant_id, input.industry_code, input.unit_id);
        const row: AlarmEventRow = {
          id: timeId(),
          tenant_id: input.tenant_id,
          site_id: input.site_id ?? null,
          industry_code: input.industry_code,
          unit_id: input.unit_id ?? null,
          batch_id: input.batch_id ?? null,
          rule_id: input.rule_id ?? null,
          metric: input.metric ?? null,
          value: input.value ?? null,
          severity: input.severity,
          priority: input.priority ?? null,
          status: 'active',
          condition: 'active',
          alarm_state: 'unacknowledged_active',
          listed: true,
          ...annunciationOf({ condition: 'active', acked: false, severity: input.severity, priority: input.priority ?? null, out_of_service: out }),
          latched: input.latched ?? false,
          resettable: input.resettable ?? true,
          returned_at: null,
          shelved: false,
          shelved_until: null,
          shelved_at: null,
          shelved_by: null,
          shelve_reason: null,
          comments: null,
          out_of_service: out,
          raise_count: 1,
          last_raised_at: now.toISOString(),
          source: input.source,
          ...storedText(services, input),
          correlation_id: input.correlation_id || randomUUID(),
          sla_target_sec: input.sla_target_sec ?? null,
          sla_deadline_at: input.sla_target_sec ? new Date(now.getTime() + input.sla_target_sec * 1000).toISOString() : null,
          sla_breached: false,
          escalation_level: 0,
          bridged_to_status: bridge && Boolean(services.status),
          assignee: null,
          reset_at: null,
          reset_by: null,
          acked_by: null,
          acked_at: null,
          escalated_at: null,
          cleared_at: null,
          raised_at: now.toISOString(),
          details: input.details ?? null,
        };
        // The row as given is the row stored (its id is new): one prepared INSERT, no RETURNING to map.
        await storeFor<AlarmEventRow>(db, industryAlarmEvents).append(row);
        await stage('raised', [row]);
        await writes.changed('raised', row);
        await writes.audit(entryOf(row, input.actor, 'alarm.raise', { severity: row.severity, priority: row.priority, rule_id: row.rule_id, unit_id: row.unit_id, value: row.value, latched: row.latched, out_of_service: row.out_of_service }));
        if (row.bridged_to_status) await writes.status(statusOf(row, 'alarm_raised', statusOfSeverity(row.severity)));
        return { event: row, created: true };
      });
    },

    async ack(input) {
      const { db } = services;
      const now = new Date().toISOString();
      // Conditional on "never acknowledged": two tablets acknowledging at once cannot both win.
      const row = await commitChange(async (writes) => {
        const [acked] = await stage('acknowledged', await settle((await db.orm.update(t())
          .set({ acked_at: now, acked_by: input.actor, assignee: input.assignee } as never)
          .where(and(...mine(input), isNull(c('acked_at')))).returning()) as AlarmEventRow[]));
        if (!acked) return undefined;
        await writes.changed('acknowledged', acked);
        await writes.audit(entryOf(acked, input.actor, 'alarm.ack', { assignee: acked.assignee, alarm_state: acked.alarm_state }));
        return acked;
      });
      if (!row) {
        const existing = await load(input);
        await audit(existing, input.actor, 'alarm.ack', { reason: 'already_acknowledged' }, 'denied');
        throw new ApiError('alarm_already_acknowledged', `alarm ${input.id} was already acknowledged by ${existing.acked_by} at ${existing.acked_at} (assignee ${existing.assignee}); the first acknowledgement is kept`, [{ field: 'id', reason: 'already_acknowledged' }]);
      }
      return row;
    },

    async escalate(input) {
      const { db } = services;
      const now = input.now ?? new Date();
      const current = await load(input);
      if (current.status !== 'active') {
        throw new ApiError('lifecycle_conflict', `alarm ${current.id} is ${current.status}; only an active (unacknowledged) alarm is escalated`, [{ field: 'id', reason: `status_${current.status}` }]);
      }
      const due = current.sla_deadline_at !== null && Date.parse(current.sla_deadline_at) <= now.getTime();
      if (!due && !input.force) {
        throw new ApiError('lifecycle_conflict', current.sla_deadline_at
          ? `alarm ${current.id} is within its SLA until ${current.sla_deadline_at}; send force=true to escalate it now`
          : `alarm ${current.id} has no SLA target; send force=true to escalate it`, [{ field: 'id', reason: 'sla_not_breached' }]);
      }
      const next = current.sla_target_sec ? new Date(Math.max(now.getTime(), Date.parse(current.sla_deadline_at ?? now.toISOString())) + current.sla_target_sec * 1000).toISOString() : current.sla_deadline_at;
      // Conditional on the level read, so the scheduler and a person cannot escalate one breach twice.
      const row = await commitChange(async (writes) => {
        const [escalated] = await stage('escalated', (await db.orm.update(t())
          .set({ escalation_level: current.escalation_level + 1, sla_breached: due || current.sla_breached, escalated_at: now.toISOString(), sla_deadline_at: next } as never)
          .where(and(...mine(input), eq(c('status'), 'active'), eq(c('escalation_level'), current.escalation_level))).returning()) as AlarmEventRow[]);
        if (!escalated) return undefined;
        await writes.changed('escalated', escalated);
        await writes.audit(entryOf(escalated, input.actor, 'alarm.escalate', { escalation_level: escalated.escalation_level, sla_breached: escalated.sla_breached, forced: !due }));
        await writes.status(statusOf(escalated, 'alarm_escalated', 'error'));
        return escalated;
      });
      // (shelved and out-of-service alarms are left out by overdue(); a person may still escalate one with force)
      return row ?? load(input);
    },

    async clear(input) {
      const { db } = services;
      const now = (input.now ?? new Date()).toISOString();
      let open: AlarmEventRow | undefined;
      if ('id' in input) [open] = (await db.orm.select().from(t()).where(and(...mine(input), eq(c('condition'), 'active'))).limit(1)) as AlarmEventRow[];
      else {
        const key = { tenant: input.tenant_id, industry: input.industry_code, rule: input.rule_id };
        [open] = input.unit_id ? await activeOfUnitRule(db, { ...key, unit: input.unit_id }) : await activeOfRule(db, key);
      }
      if (!open) return undefined;
      if (open.latched) {
        // The process returned, the alarm stays: an admin resets it (commands/reset).
        if (open.returned_at) return open;
        return commitChange(async (writes) => {
          const [row] = await stage('returned', await settle((await db.orm.update(t()).set({ returned_at: now } as never).where(and(eq(c('id'), open.id), eq(c('condition'), 'active'))).returning()) as AlarmEventRow[]));
          if (!row) return undefined;
          await writes.changed('returned', row);
          await writes.audit(entryOf(row, input.actor, 'alarm.return', { latched: true }));
          return row;
        });
      }
      return commitChange(async (writes) => {
        const [row] = await stage('cleared', await settle(await clearActive(db, { id: open.id, now })));
        if (!row) return undefined;
        await writes.changed('cleared', row);
        await writes.audit(entryOf(row, input.actor, 'alarm.clear', { alarm_state: row.alarm_state }));
        if (row.bridged_to_status) await writes.status(statusOf(row, 'alarm_cleared', 'ok'));
        return row;
      });
    },

    async reset(input) {
      const { db } = services;
      const now = (input.now ?? new Date()).toISOString();
      const current = await load(input);
      const refuse = async (reason: string, message: string): Promise<never> => {
        await audit(current, input.actor, 'alarm.reset', { reason }, 'denied');
        throw new ApiError('lifecycle_conflict', message, [{ field: 'id', reason }]);
      };
      if (current.condition !== 'active') await refuse('condition_cleared', `alarm ${current.id} is cleared already; nothing to reset`);
      if (!current.resettable) await refuse('not_resettable', `alarm ${current.id} does not allow a reset: its condition ends only by readings from its device or publisher`);
      if (current.latched && !current.returned_at) await refuse('condition_present', `latched alarm ${current.id}: its condition is still present; it can be reset once the readings show it ended`);
      const row = await commitChange(async (writes) => {
        const [reset] = await stage('reset', await settle((await db.orm.update(t()).set({ condition: 'cleared', cleared_at: now, reset_at: now, reset_by: input.actor } as never)
          .where(and(...mine(input), eq(c('condition'), 'active'))).returning()) as AlarmEventRow[]));
        if (!reset) return undefined;
        await writes.changed('reset', reset);
        await writes.audit(entryOf(reset, input.actor, 'alarm.reset', { comment: input.comment ?? null, latched: reset.latched, returned_at: reset.returned_at, alarm_state: reset.alarm_state }));
        if (reset.bridged_to_status) await writes.status(statusOf(reset, 'alarm_cleared', 'ok'));
        return reset;
      });
      return row ?? load(input);
    },

    async shelve(input) {
      const now = input.now ?? new Date();
      const current = await load(input);
      if (current.condition !== 'active') {
        await audit(current, input.actor, 'alarm.shelve', { reason: 'condition_cleared' }, 'denied');
        throw new ApiError('lifecycle_conflict', `alarm ${current.id} is cleared; only an active alarm is shelved`, [{ field: 'id', reason: 'condition_cleared' }]);
      }
      const until = new Date(now.getTime() + Math.min(input.minutes, SHELVE_MAX_MIN) * 60_000).toISOString();
      return commitChange(async (writes) => {
        const [row] = await stage('shelved', await settle((await services.db.orm.update(t()).set({ shelved: true, shelved_at: now.toISOString(), shelved_until: until, shelved_by: input.actor, shelve_reason: input.reason } as never)
          .where(and(...mine(input))).returning()) as AlarmEventRow[]));
        await writes.changed('shelved', row!);
        await writes.audit(entryOf(row!, input.actor, 'alarm.shelve', { reason: input.reason, minutes: input.minutes, shelved_until: until }));
        return row!;
      });
    },

    async unshelve(input) {
      const current = await load(input);
      if (!current.shelved) throw new ApiError('lifecycle_conflict', `alarm ${current.id} is not shelved`, [{ field: 'id', reason: 'not_shelved' }]);
      const row = await commitChange(async (writes) => {
        const [unshelved] = await stage('unshelved', await settle((await services.db.orm.update(t()).set({ shelved: false, shelved_until: null } as never)
          .where(and(...mine(input), eq(c('shelved'), true))).returning()) as AlarmEventRow[]));
        if (!unshelved) return undefined;
        await writes.changed('unshelved', unshelved);
        await writes.audit(entryOf(unshelved, input.actor, 'alarm.unshelve', { expired: false }));
        return unshelved;
      });
      return row ?? load(input);
    },

    async expireShelves(now) {
      return commitChange(async (writes) => {
        const rows = await stage('shelve_expired', await settle((await services.db.orm.update(t()).set({ shelved: false, shelved_until: null } as never)
          .where(and(eq(c('shelved'), true), lte(c('shelved_until'), now.toISOString()))).returning()) as AlarmEventRow[]));
        for (const row of rows) {
          await writes.changed('shelve_expired', row);
          await writes.audit(entryOf(row, 'alarm-shelve-expiry', 'alarm.unshelve', { expired: true }));
        }
        return rows;
      });
    },

    async setOutOfService(input) {
      const { db } = services;
      const key = and(eq(oc('tenant_id'), input.tenant_id), eq(oc('industry_code'), input.industry_code), eq(oc('unit_id'), input.unit_id));
      const unitWhere = and(eq(c('tenant_id'), input.tenant_id), eq(c('industry_code'), input.industry_code), eq(c('unit_id'), input.unit_id), eq(c('condition'), 'active'));
      const result = await commitChange(async (writes) => {
        let unit: OutOfServiceRow | null = null;
        if (input.out) {
          unit = { tenant_id: input.tenant_id, industry_code: input.industry_code, unit_id: input.unit_id, site_id: input.site_id ?? null, reason: input.reason ?? '', since: new Date().toISOString(), by: input.actor };
          await db.orm.insert(ot()).values(unit as never).onConflictDoUpdate({ target: [oc('tenant_id'), oc('industry_code'), oc('unit_id')] as never, set: { reason: unit.reason, by: unit.by, site_id: unit.site_id } as never });
          unit = ((await db.orm.select().from(ot()).where(key).limit(1)) as OutOfServiceRow[])[0] ?? null;
        } else {
          await db.orm.delete(ot()).where(key);
        }
        const marked = await stage(input.out ? 'out_of_service' : 'returned_to_service', await settle((await db.orm.update(t()).set({ out_of_service: input.out } as never).where(unitWhere).returning()) as AlarmEventRow[]));
        for (const row of marked) await writes.changed(input.out ? 'out_of_service' : 'returned_to_service', row);
        await writes.audit({
          actor: input.actor, action: input.out ? 'alarm.out_of_service' : 'alarm.return_to_service', resource: `${input.industry_code}-alarms`, result: 'success',
          correlation_id: input.correlation_id ?? randomUUID(), tenant_id: input.tenant_id, details: { unit_id: input.unit_id, reason: input.reason ?? null, alarms: marked.length },
        });
        return { unit: unit ?? null, alarms: marked.length };
      });
      return { unit: result.unit, alarms: result.alarms };
    },

    async open(filter) {
      const { tenant_id, industry_code, unit_id, site_id, rule_id } = filter;
      if (tenant_id !== undefined && industry_code !== undefined && unit_id !== undefined && site_id === undefined && rule_id === undefined) {
        return openOfUnit(services.db, { tenant: tenant_id, industry: industry_code, unit: unit_id });
      }
      const conds = Object.entries(filter).filter(([, v]) => v !== undefined).map(([k, v]) => eq(c(k), v as string));
      return (await services.db.orm.select().from(t()).where(and(...conds, inArray(c('status'), ['active', 'acked']))).orderBy(asc(c('raised_at')))) as AlarmEventRow[];
    },

    async overdue(now, limit = 100) {
      return (await services.db.orm.select().from(t())
        .where(and(eq(c('status'), 'active'), eq(c('shelved'), false), eq(c('out_of_service'), false), lte(c('sla_deadline_at'), now.toISOString())))
        .orderBy(asc(c('sla_deadline_at'))).limit(limit)) as AlarmEventRow[];
    },
  };
  return service;
}
