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
import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, isNull, lte, sql, type SQL } from 'drizzle-orm';
import { ApiError } from '../kernel/errors.js';
import type { Services } from '../kernel/context.js';
import type { AlarmEvent, StatusEvent } from '../realtime/bus.js';
import { timeId } from '../kernel/ids.js';
import { colOf, tableOf } from '../db/sql.js';
import { industryAlarmEvents, type AlarmEventRow, type IndustrySeverity, type Priority } from './alarm-schema.js';

export interface RaiseEventInput {
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
  title: string;
  message?: string | null;
  correlation_id?: string | null;
  sla_target_sec?: number | null;
  details?: Record<string, unknown> | null;
  /** Who raises it (a subject, or a rule engine such as "poultry-rules"). */
  actor: string;
  bridge?: 'severe' | 'all';
  /** For tests and replays: when the condition was observed. */
  now?: Date;
}

/** Which events a caller may touch: a tenant caller passes its tenant; a master caller none. */
export interface EventRef {
  id: string;
  tenant_id?: string;
  industry_code?: string;
}

export interface IndustryAlarmService {
  raise(input: RaiseEventInput): Promise<{ event: AlarmEventRow; created: boolean }>;
  ack(input: EventRef & { assignee: string; actor: string }): Promise<AlarmEventRow>;
  escalate(input: EventRef & { actor: string; force?: boolean; now?: Date }): Promise<AlarmEventRow>;
  /** Clears the open event of a rule on a unit (the condition ended), or one event by id. Undefined when none is open. */
  clear(input: ({ id: string; tenant_id?: string } | { tenant_id: string; industry_code: string; unit_id: string | null; rule_id: string }) & { actor: string; now?: Date }): Promise<AlarmEventRow | undefined>;
  /** Open (active or acknowledged) events matching the equality filter. */
  open(filter: Partial<Record<'tenant_id' | 'site_id' | 'industry_code' | 'unit_id' | 'rule_id', string>>): Promise<AlarmEventRow[]>;
  /** Active (unacknowledged) events whose SLA deadline has passed, oldest deadline first. */
  overdue(now: Date, limit?: number): Promise<AlarmEventRow[]>;
}

declare module '../kernel/context.js' {
  interface Services {
    industryAlarms?: IndustryAlarmService;
  }
}

/** The contract's mapping of alarm severity to status: critical, high -> error; medium -> warn; low, info -> ok. */
export const statusOfSeverity = (s: IndustrySeverity): StatusEvent['status'] => (s === 'critical' || s === 'high' ? 'error' : s === 'medium' ? 'warn' : 'ok');

const severe = (s: IndustrySeverity) => s === 'critical' || s === 'high';

const busView = (row: AlarmEventRow): AlarmEvent['alarm'] => ({
  id: row.id, tenant_id: row.tenant_id, site_id: row.site_id, severity: row.severity, state: row.status, source: row.source,
  title: row.title, correlation_id: row.correlation_id, acknowledged_by: row.acked_by, comment: null,
  industry_code: row.industry_code, unit_id: row.unit_id, priority: row.priority, escalation_level: row.escalation_level,
  sla_deadline_at: row.sla_deadline_at,
});

export function createIndustryAlarmService(services: Services): IndustryAlarmService {
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
  const emit = (kind: AlarmEvent['kind'], row: AlarmEventRow) => services.bus?.emit('alarm', { kind, alarm: busView(row) });
  /** Inside the transaction that changed the row (the sync outbox commits with it); answers the rows. */
  const stage = async (kind: AlarmEvent['kind'], rows: AlarmEventRow[]) => {
    if (rows[0]) await services.bus?.stage('alarm', { kind, alarm: busView(rows[0]) });
    return rows;
  };
  const toStatus = async (row: AlarmEventRow, event: string, status: StatusEvent['status']) => {
    if (!services.status) return false;
    await services.status.publish({
      tenant_id: row.tenant_id, site_id: row.site_id, source: `${row.industry_code}-alarms`, event, status, correlation_id: row.correlation_id,
      details: { alarm_id: row.id, industry_code: row.industry_code, unit_id: row.unit_id, batch_id: row.batch_id, severity: row.severity, priority: row.priority, rule_id: row.rule_id, escalation_level: row.escalation_level, title: row.title },
    });
    return true;
  };
  const audit = (row: AlarmEventRow, actor: string, action: string, details: Record<string, unknown> = {}, result: 'success' | 'denied' = 'success') =>
    services.audit.record({ actor, action, resource: `${row.industry_code}-alarms`, result, correlation_id: row.correlation_id, tenant_id: row.tenant_id, details: { id: row.id, ...details } });

  const service: IndustryAlarmService = {
    async raise(input) {
      const { db } = services;
      const now = input.now ?? new Date();
      const bridge = input.bridge === 'all' || severe(input.severity);
      const result = await db.transaction(async () => {
        if (input.rule_id) {
          const [open] = (await db.orm.select().from(t()).where(and(
            eq(c('tenant_id'), input.tenant_id), eq(c('industry_code'), input.industry_code),
            input.unit_id ? eq(c('unit_id'), input.unit_id) : isNull(c('unit_id')),
            eq(c('rule_id'), input.rule_id), inArray(c('status'), ['active', 'acked']),
          )).limit(1)) as AlarmEventRow[];
          if (open) return { event: open, created: false };
        }
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
          source: input.source,
          title: input.title,
          message: input.message ?? null,
          correlation_id: input.correlation_id || randomUUID(),
          sla_target_sec: input.sla_target_sec ?? null,
          sla_deadline_at: input.sla_target_sec ? new Date(now.getTime() + input.sla_target_sec * 1000).toISOString() : null,
          sla_breached: false,
          escalation_level: 0,
          bridged_to_status: bridge && Boolean(services.status),
          assignee: null,
          acked_by: null,
          acked_at: null,
          escalated_at: null,
          cleared_at: null,
          raised_at: now.toISOString(),
          details: input.details ?? null,
        };
        const [saved] = await stage('raised', (await db.orm.insert(t()).values(row as never).returning()) as AlarmEventRow[]);
        return { event: saved!, created: true };
      });
      if (!result.created) return result;
      const row = result.event;
      await audit(row, input.actor, 'alarm.raise', { severity: row.severity, priority: row.priority, rule_id: row.rule_id, unit_id: row.unit_id, value: row.value });
      emit('raised', row);
      if (row.bridged_to_status) await toStatus(row, 'alarm_raised', statusOfSeverity(row.severity));
      return result;
    },

    async ack(input) {
      const { db } = services;
      const now = new Date().toISOString();
      // Conditional on "never acknowledged": two tablets acknowledging at once cannot both win.
      const [row] = await db.transaction(async () => stage('acknowledged', (await db.orm.update(t())
        .set({ status: sql`case when ${c('status')} = 'active' then 'acked' else ${c('status')} end`, acked_at: now, acked_by: input.actor, assignee: input.assignee } as never)
        .where(and(...mine(input), isNull(c('acked_at')))).returning()) as AlarmEventRow[]));
      if (!row) {
        const existing = await load(input);
        await audit(existing, input.actor, 'alarm.ack', { reason: 'already_acknowledged' }, 'denied');
        throw new ApiError('alarm_already_acknowledged', `alarm ${input.id} was already acknowledged by ${existing.acked_by} at ${existing.acked_at} (assignee ${existing.assignee}); the first acknowledgement is kept`, [{ field: 'id', reason: 'already_acknowledged' }]);
      }
      await audit(row, input.actor, 'alarm.ack', { assignee: row.assignee });
      emit('acknowledged', row);
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
      const [row] = await db.transaction(async () => stage('escalated', (await db.orm.update(t())
        .set({ escalation_level: current.escalation_level + 1, sla_breached: due || current.sla_breached, escalated_at: now.toISOString(), sla_deadline_at: next } as never)
        .where(and(...mine(input), eq(c('status'), 'active'), eq(c('escalation_level'), current.escalation_level))).returning()) as AlarmEventRow[]));
      if (!row) return load(input);
      await audit(row, input.actor, 'alarm.escalate', { escalation_level: row.escalation_level, sla_breached: row.sla_breached, forced: !due });
      emit('escalated', row);
      await toStatus(row, 'alarm_escalated', 'error');
      return row;
    },

    async clear(input) {
      const { db } = services;
      const now = (input.now ?? new Date()).toISOString();
      const where = 'id' in input
        ? and(...mine(input), inArray(c('status'), ['active', 'acked']))
        : and(eq(c('tenant_id'), input.tenant_id), eq(c('industry_code'), input.industry_code),
          input.unit_id ? eq(c('unit_id'), input.unit_id) : isNull(c('unit_id')), eq(c('rule_id'), input.rule_id), inArray(c('status'), ['active', 'acked']));
      const [row] = await db.transaction(async () => stage('cleared', (await db.orm.update(t()).set({ status: 'cleared', cleared_at: now } as never).where(where).returning()) as AlarmEventRow[]));
      if (!row) return undefined;
      await audit(row, input.actor, 'alarm.clear');
      emit('cleared', row);
      if (row.bridged_to_status) await toStatus(row, 'alarm_cleared', 'ok');
      return row;
    },

    async open(filter) {
      const conds = Object.entries(filter).filter(([, v]) => v !== undefined).map(([k, v]) => eq(c(k), v as string));
      return (await services.db.orm.select().from(t()).where(and(...conds, inArray(c('status'), ['active', 'acked']))).orderBy(asc(c('raised_at')))) as AlarmEventRow[];
    },

    async overdue(now, limit = 100) {
      return (await services.db.orm.select().from(t())
        .where(and(eq(c('status'), 'active'), lte(c('sla_deadline_at'), now.toISOString())))
        .orderBy(asc(c('sla_deadline_at'))).limit(limit)) as AlarmEventRow[];
    },
  };
  return service;
}
