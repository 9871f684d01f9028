// The commands every industry's view of the one alarm table shares (poultry-alarms,
// melioration-alerts, industry-alarms): acknowledge, comment, escalate, reset, shelve and unshelve by id. The event is loaded through the view's kit,
// so the caller's tenant, bound site and the view's industry decide what exists (else 404
// alarm_not_found), and the answer is the event as that view shows it.
import * as v from 'valibot';
import { need } from '../kernel/context.js';
import { command } from '../kernel/resource.js';
import type { AlarmEventRow } from './alarm-schema.js';
import { SHELVE_MAX_MIN } from './alarm-service.js';
import { commentAlarm, COMMENT_MAX_CHARS, COMMENTS_KEPT } from './alarm-comments.js';

const key = v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200));

/**
 * `what` names one event in the view's words: "poultry alarm", "melioration alert". `industry`
 * null: the view shows every industry (industry-alarms) and the event's own industry is used.
 * `action`: the permission it takes ('acknowledge' lets an operator acknowledge without publishing).
 */
export function alarmAckCommand(industry: AlarmEventRow['industry_code'] | null, what: string, action = 'execute') {
  return command({
    summary: `Acknowledge a ${what} by id: status acked, acked_at and assignee set (default: the caller); it stops escalating. Once only: 409 alarm_already_acknowledged names the first; 404 alarm_not_found. A cleared event can still be acknowledged.`,
    action,
    body: v.strictObject({ id: key, assignee: v.optional(key) }),
    errors: ['alarm_not_found', 'alarm_already_acknowledged'],
    handler: async (ctx, kit) => {
      const event = (await kit.load(ctx, ctx.body.id, 'alarm_not_found')) as AlarmEventRow;
      const actor = ctx.caller?.subject ?? 'system';
      const row = await need(ctx.services, 'industryAlarms').ack({ id: event.id, tenant_id: event.tenant_id, industry_code: industry ?? event.industry_code, assignee: ctx.body.assignee ?? actor, actor });
      return kit.toItem(row);
    },
  });
}

export function alarmEscalateCommand(industry: AlarmEventRow['industry_code'], what: string) {
  return command({
    summary: `Escalate a ${what} by id once its SLA deadline has passed unacknowledged (force=true before): escalation_level + 1, sla_breached=true, a status event and an audit record; status unchanged. 409 lifecycle_conflict when acknowledged, cleared or within its SLA without force. The box also does this by itself (the industry module's escalator).`,
    action: 'execute',
    body: v.strictObject({ id: key, force: v.optional(v.boolean()) }),
    errors: ['alarm_not_found', 'lifecycle_conflict'],
    handler: async (ctx, kit) => {
      const event = (await kit.load(ctx, ctx.body.id, 'alarm_not_found')) as AlarmEventRow;
      const row = await need(ctx.services, 'industryAlarms').escalate({ id: event.id, tenant_id: event.tenant_id, industry_code: industry, actor: ctx.caller?.subject ?? 'system', force: ctx.body.force });
      return kit.toItem(row);
    },
  });
}

/** Reset: ends an active alarm's condition by hand (admins: action `reset`), audited; see alarm-service.ts. */
export function alarmResetCommand(industry: AlarmEventRow['industry_code'] | null, what: string) {
  return command({
    summary: `Reset a ${what} by id (admins): its condition ends (condition cleared, cleared_at set) and the reset is audited with the comment. A latched alarm is reset once its readings showed the condition ended (returned_at); 409 lifecycle_conflict when already cleared, when the alarm does not allow a reset (resettable=false), or when a latched alarm's condition is still present. A non-latched alarm's rule raises again only after its value recovers and breaches anew.`,
    action: 'reset',
    body: v.strictObject({ id: key, comment: v.optional(v.pipe(v.string(), v.maxLength(2000))) }),
    errors: ['alarm_not_found', 'lifecycle_conflict'],
    handler: async (ctx, kit) => {
      const event = (await kit.load(ctx, ctx.body.id, 'alarm_not_found')) as AlarmEventRow;
      const row = await need(ctx.services, 'industryAlarms').reset({ id: event.id, tenant_id: event.tenant_id, industry_code: industry ?? event.industry_code, actor: ctx.caller?.subject ?? 'system', comment: ctx.body.comment });
      return kit.toItem(row);
    },
  });
}

export function alarmShelveCommand(industry: AlarmEventRow['industry_code'] | null, what: string) {
  return command({
    summary: `Shelve an active ${what} by id with a reason for some minutes (1-${SHELVE_MAX_MIN}, at most 8 hours): shelved=true, shelved_until, shelved_by, shelve_reason; it stays listed as shelved, is not annunciated nor escalated, and comes back by itself when shelved_until passes (or by commands/unshelve). Audited. 409 lifecycle_conflict when its condition is cleared.`,
    action: 'shelve',
    body: v.strictObject({ id: key, reason: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(500)), minutes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(SHELVE_MAX_MIN)) }),
    errors: ['alarm_not_found', 'lifecycle_conflict'],
    handler: async (ctx, kit) => {
      const event = (await kit.load(ctx, ctx.body.id, 'alarm_not_found')) as AlarmEventRow;
      const row = await need(ctx.services, 'industryAlarms').shelve({ id: event.id, tenant_id: event.tenant_id, industry_code: industry ?? event.industry_code, actor: ctx.caller?.subject ?? 'system', reason: ctx.body.reason, minutes: ctx.body.minutes });
      return kit.toItem(row);
    },
  });
}

export function alarmUnshelveCommand(industry: AlarmEventRow['industry_code'] | null, what: string) {
  return command({
    summary: `Unshelve a ${what} by id before its shelve expires: annunciated again if still unacknowledged and active. Audited. 409 lifecycle_conflict when it is not shelved.`,
    action: 'shelve',
    body: v.strictObject({ id: key }),
    errors: ['alarm_not_found', 'lifecycle_conflict'],
    handler: async (ctx, kit) => {
      const event = (await kit.load(ctx, ctx.body.id, 'alarm_not_found')) as AlarmEventRow;
      const row = await need(ctx.services, 'industryAlarms').unshelve({ id: event.id, tenant_id: event.tenant_id, industry_code: industry ?? event.industry_code, actor: ctx.caller?.subject ?? 'system' });
      return kit.toItem(row);
    },
  });
}

/** Comment: operators note what they found or did (action acknowledge: whoever may acknowledge may comment). */
export function alarmCommentCommand(industry: AlarmEventRow['industry_code'] | null, what: string) {
  return command({
    summary: `Comment on a ${what} by id, in any state: {text, by, at} is appended to its comments (oldest first; the latest ${COMMENTS_KEPT} are kept on the alarm, every one in the audit as alarm.comment). Nothing else about the alarm changes. 404 alarm_not_found.`,
    action: 'acknowledge',
    body: v.strictObject({ id: key, text: v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(COMMENT_MAX_CHARS)) }),
    errors: ['alarm_not_found'],
    handler: async (ctx, kit) => {
      const event = (await kit.load(ctx, ctx.body.id, 'alarm_not_found')) as AlarmEventRow;
      const row = await commentAlarm(ctx.services, { id: event.id, tenant_id: event.tenant_id, industry_code: industry ?? event.industry_code, text: ctx.body.text, actor: ctx.caller?.subject ?? 'system' });
      return kit.toItem(row);
    },
  });
}
