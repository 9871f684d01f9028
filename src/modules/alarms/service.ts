// The one way alarms are raised and acknowledged (the HTTP commands, and later the industry
// rule engines, call it). Raising stores the alarm, audits it, publishes it on the bus and, for
// severity critical or high, bridges a status event with the same correlation_id.
import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { ApiError } from '../../kernel/errors.js';
import type { Services } from '../../kernel/context.js';
import { need } from '../../kernel/context.js';
import type { StatusEvent } from '../../realtime/bus.js';
import { timeId } from '../../kernel/ids.js';
import { colOf, tableOf } from '../../db/sql.js';
import { alarms, type AlarmRow, type Severity } from './schema.js';
import { alarmStateOf, annunciationOf, listedIn } from '../../industry/alarm-states.js';
import type { ChangeKind } from '../../industry/alarm-view-item.js';
import { siteItem } from './item.js';
import { storedText, textParamsOf, type BoxText } from '../../industry/box-text.js';

export interface RaiseInput {
  tenant_id: string | null;
  site_id?: string | null;
  severity: Severity;
  source: string;
  /** A text a person typed; keys null. */
  title?: string;
  message?: string | null;
  /** A text the box words itself: key and parameters, title and message rendered from it in English (src/industry/box-text.ts). */
  text?: BoxText;
  correlation_id?: string;
  details?: Record<string, unknown> | null;
  /** Who raises it (a subject, or a module such as "poultry-rules"); for the audit trail. */
  actor?: string;
}

export interface AckInput {
  id: string;
  acknowledged_by: string;
  comment?: string | null;
  /** The caller's tenant: a tenant caller can only acknowledge its own tenant's alarms. */
  tenant_id?: string;
  actor: string;
  correlation_id?: string;
}

export interface ClearInput {
  id: string;
  /** The caller's tenant: a tenant caller can only clear its own tenant's alarms. */
  tenant_id?: string;
  actor: string;
  comment?: string | null;
}

export interface AlarmService {
  raise(input: RaiseInput): Promise<AlarmRow>;
  /** The condition ended: condition cleared, cleared_at; 404 alarm_not_found, 409 lifecycle_conflict when cleared already. */
  clear(input: ClearInput): Promise<AlarmRow>;
  /** 404 alarm_not_found, 409 alarm_already_acknowledged (naming the first acknowledgement). */
  acknowledge(input: AckInput): Promise<AlarmRow>;
}

declare module '../../kernel/context.js' {
  interface Services {
    /** Built by the composition root (src/compose.ts): always present once the server is ready. */
    alarms: AlarmService;
  }
}

/** The contract's mapping of alarm severity to status: critical, high -> error; medium -> warn; low, info -> ok. */
export const statusOfSeverity = (s: Severity): StatusEvent['status'] => (s === 'critical' || s === 'high' ? 'error' : s === 'medium' ? 'warn' : 'ok');

export const busAlarm = (row: AlarmRow) => ({
  id: row.id, tenant_id: row.tenant_id, site_id: row.site_id, severity: row.severity, state: row.state, source: row.source,
  title: row.title, correlation_id: row.correlation_id, acknowledged_by: row.acknowledged_by, comment: row.comment,
  condition: row.condition, annunciated: row.annunciated, urgent: row.urgent,
  message: row.message, title_key: row.title_key, message_key: row.message_key, text_params: textParamsOf(row.text_params),
});

/** alarm_state and listed from the condition and the acknowledgement (src/industry/alarm-states.ts). */
const derivedOf = (row: Pick<AlarmRow, 'condition' | 'acknowledged_at' | 'severity'>) => {
  const input = { condition: row.condition, acked: row.acknowledged_at !== null, severity: row.severity };
  const alarm_state = alarmStateOf(input);
  return { alarm_state, listed: listedIn(alarm_state), ...annunciationOf(input) };
};

export function createAlarmService(services: Services): AlarmService {
  const t = () => tableOf(alarms, services.db);
  const c = (n: string) => colOf(alarms, services.db, n);
  /** Inside the change's transaction: the derived columns follow the change. */
  const settle = async (row: AlarmRow | undefined): Promise<AlarmRow | undefined> => {
    if (!row) return row;
    const d = derivedOf(row);
    if (d.alarm_state === row.alarm_state && d.listed === row.listed && d.annunciated === row.annunciated && d.urgent === row.urgent) return row;
    const [saved] = (await services.db.orm.update(t()).set(d as never).where(eq(c('id'), row.id)).returning()) as AlarmRow[];
    return saved;
  };
  /** After the commit: one event per change, with the alarm's new state as the view shows it. */
  const emit = (kind: ChangeKind, row: AlarmRow) => need(services, 'bus').emit('alarm', { kind, alarm: busAlarm(row), item: siteItem(row) });
  return {
    async raise(input) {
      const { db } = services;
      const row: AlarmRow = {
        id: timeId(),
        tenant_id: input.tenant_id,
        site_id: input.site_id ?? null,
        scope: input.site_id ? 'site' : input.tenant_id ? 'tenant' : 'master',
        severity: input.severity,
        state: 'open',
        source: input.source,
        ...storedText(services, input),
        correlation_id: input.correlation_id ?? randomUUID(),
        details: input.details ?? null,
        raised_at: new Date().toISOString(),
        acknowledged_by: null,
        acknowledged_at: null,
        comment: null,
        condition: 'active',
        cleared_at: null,
        alarm_state: 'unacknowledged_active',
        listed: true,
        ...annunciationOf({ condition: 'active', acked: false, severity: input.severity }),
      };
      await db.transaction(async () => {
        await db.orm.insert(t()).values(row as never);
        await need(services, 'bus').stage('alarm', { kind: 'raised', alarm: busAlarm(row) });
      });
      await services.audit.record({ actor: input.actor ?? input.source, action: 'alarm.raise', resource: 'alarms', result: 'success', correlation_id: row.correlation_id, details: { id: row.id, severity: row.severity, title: row.title }, tenant_id: row.tenant_id });
      emit('raised', row);
      if (row.severity === 'critical' || row.severity === 'high') {
        await need(services, 'status').publish({
          tenant_id: row.tenant_id, site_id: row.site_id, source: `alarms:${row.source}`, event: 'alarm_raised',
          status: statusOfSeverity(row.severity), correlation_id: row.correlation_id, details: { alarm_id: row.id, severity: row.severity, title: row.title },
        });
      }
      return row;
    },
    async clear(input) {
      const { db } = services;
      const mine = input.tenant_id === undefined ? [eq(c('id'), input.id)] : [eq(c('id'), input.id), eq(c('tenant_id'), input.tenant_id)];
      const now = new Date().toISOString();
      const row = await db.transaction(async () => {
        const [changed] = (await db.orm.update(t()).set({ condition: 'cleared', cleared_at: now } as never).where(and(...mine, eq(c('condition'), 'active'))).returning()) as AlarmRow[];
        const saved = await settle(changed);
        if (saved) await need(services, 'bus').stage('alarm', { kind: 'cleared', alarm: busAlarm(saved) });
        return saved;
      });
      if (!row) {
        const [existing] = (await db.orm.select().from(t()).where(and(...mine))) as AlarmRow[];
        if (!existing) throw new ApiError('alarm_not_found', `alarm ${input.id} not found`);
        throw new ApiError('lifecycle_conflict', `alarm ${input.id} was cleared already at ${existing.cleared_at}`, [{ field: 'id', reason: 'condition_cleared' }]);
      }
      await services.audit.record({ actor: input.actor, action: 'alarm.clear', resource: 'alarms', result: 'success', correlation_id: row.correlation_id, details: { id: row.id, comment: input.comment ?? null, alarm_state: row.alarm_state }, tenant_id: row.tenant_id });
      emit('cleared', row);
      if (row.severity === 'critical' || row.severity === 'high') {
        await need(services, 'status').publish({
          tenant_id: row.tenant_id, site_id: row.site_id, source: `alarms:${row.source}`, event: 'alarm_cleared',
          status: 'ok', correlation_id: row.correlation_id, details: { alarm_id: row.id, severity: row.severity, title: row.title },
        });
      }
      return row;
    },
    async acknowledge(input) {
      const { db } = services;
      const mine = input.tenant_id === undefined ? [eq(c('id'), input.id)] : [eq(c('id'), input.id), eq(c('tenant_id'), input.tenant_id)];
      const now = new Date().toISOString();
      // Conditional on state = open: two concurrent acknowledgements cannot both win.
      const updated = await db.transaction(async () => {
        const changed = (await db.orm.update(t()).set({ state: 'acknowledged', acknowledged_by: input.acknowledged_by, acknowledged_at: now, comment: input.comment ?? null } as never)
          .where(and(...mine, eq(c('state'), 'open'))).returning()) as AlarmRow[];
        const rows = changed[0] ? [(await settle(changed[0]))!] : [];
        if (rows[0]) await need(services, 'bus').stage('alarm', { kind: 'acknowledged', alarm: busAlarm(rows[0]) });
        return rows;
      });
      const row = updated[0];
      if (!row) {
        const [existing] = (await db.orm.select().from(t()).where(and(...mine))) as AlarmRow[];
        if (!existing) throw new ApiError('alarm_not_found', `alarm ${input.id} not found`);
        await services.audit.record({ actor: input.actor, action: 'alarm.ack', resource: 'alarms', result: 'denied', correlation_id: input.correlation_id ?? existing.correlation_id, details: { id: existing.id, reason: 'already_acknowledged' }, tenant_id: existing.tenant_id });
        throw new ApiError('alarm_already_acknowledged', `alarm ${input.id} was already acknowledged by ${existing.acknowledged_by} at ${existing.acknowledged_at}; the first acknowledgement is kept`, [{ field: 'id', reason: 'already_acknowledged' }]);
      }
      await services.audit.record({ actor: input.actor, action: 'alarm.ack', resource: 'alarms', result: 'success', correlation_id: input.correlation_id ?? row.correlation_id, details: { id: row.id, acknowledged_by: row.acknowledged_by, comment: row.comment }, tenant_id: row.tenant_id });
      emit('acknowledged', row);
      return row;
    },
  };
}
