// industry-alarms/scheme|list|{id} and commands/publish: the alarm events of every industry
// (one table, one service: src/industry/alarm-service.ts), filtered by tenant, industry and site.
// publish bridges every severity to status with the contract's mapping (critical, high -> error;
// medium -> warn; low, info -> ok) and the same correlation_id, so it reaches the status
// WebSocket stream and MQTT. This is the industry alarm circuit: it never touches the
// tenant-master exchange.
import * as v from 'valibot';
import { ApiError } from '../../kernel/errors.js';
import { need } from '../../kernel/context.js';
import { command, defineResource } from '../../kernel/resource.js';
import { alarmEventRecord, INDUSTRY_CODES, INDUSTRY_SEVERITIES, PRIORITIES, type AlarmEventRow } from '../../industry/alarm-schema.js';
import { servesIndustry } from '../../industry/profiles.js';
import { ownerSite as writeSite, requiredTenant } from '../../kernel/tenancy.js';
import { alarmAckCommand, alarmCommentCommand, alarmResetCommand, alarmShelveCommand, alarmUnshelveCommand } from '../../industry/alarm-commands.js';

const text = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));

const publishBody = v.strictObject({
  industry_code: v.picklist(INDUSTRY_CODES),
  severity: v.picklist(INDUSTRY_SEVERITIES),
  title: text(500),
  tenant_id: v.optional(text(200)),
  site_id: v.optional(text(200)),
  unit_id: v.optional(text(200)),
  batch_id: v.optional(text(200)),
  priority: v.optional(v.picklist(PRIORITIES)),
  source: v.optional(text(200)),
  message: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  metric: v.optional(text(100)),
  value: v.optional(v.pipe(v.number(), v.finite())),
  correlation_id: v.optional(text(200)),
  sla_target_sec: v.optional(v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(30 * 24 * 3600))),
  details: v.optional(v.record(v.string(), v.unknown())),
  latched: v.optional(v.boolean()),
  resettable: v.optional(v.boolean()),
});

const serviceBody = v.strictObject({
  industry_code: v.picklist(INDUSTRY_CODES),
  unit_id: text(200),
  reason: v.optional(text(500)),
  tenant_id: v.optional(text(200)),
  site_id: v.optional(text(200)),
});

const silenceBody = v.strictObject({
  minutes: v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(60)),
  tablet: text(100),
  alarm_ids: v.pipe(v.array(text(200)), v.maxLength(200)),
});

export const industryAlarmResource = defineResource<AlarmEventRow>({
  name: 'industry-alarms',
  module: 'industry',
  title: 'Industry alarms',
  record: alarmEventRecord,
  access: { resource: 'industry-alarms', scope: 'tenant' },
  tenantColumn: 'tenant_id',
  siteColumn: 'site_id',
  filters: {
    unit_id: { type: 'string', description: 'House, room/pen or field the alarm is about.' },
    // The annunciator's count: unacknowledged and active, neither shelved nor out of service
    // (alarm_state=unacknowledged_active&shelved=false&out_of_service=false).
    batch_id: { type: 'string' },
    rule_id: { type: 'string' },
  },
  defaultSort: { field: 'raised_at', order: 'desc' },
  commands: {
    // The shell's annunciator and alarm inbox acknowledge any industry's alarm here; operators may
    // acknowledge (their job at the panel) but not publish.
    ack: alarmAckCommand(null, 'alarm of any industry', 'acknowledge'),
    comment: alarmCommentCommand(null, 'alarm of any industry'),
    reset: alarmResetCommand(null, 'alarm of any industry'),
    shelve: alarmShelveCommand(null, 'alarm of any industry'),
    unshelve: alarmUnshelveCommand(null, 'alarm of any industry'),
    'out-of-service': command({
      summary: 'Take a unit (house, room, field) of an industry out of service for maintenance, with a reason (admins: action maintain): its active alarms and any raised while it is out are marked out_of_service=true, listed as such, neither annunciated nor escalated. Audited (alarm.out_of_service). Answers {unit, alarms} (alarms: how many open alarms were marked).',
      action: 'maintain',
      body: serviceBody,
      response: { type: 'object', required: ['unit', 'alarms'], properties: { unit: { type: ['object', 'null'] }, alarms: { type: 'integer' } } },
      handler: async (ctx) => {
        const b = ctx.body;
        return need(ctx.services, 'industryAlarms').setOutOfService({ tenant_id: requiredTenant(ctx.caller, b.tenant_id), site_id: writeSite(ctx.caller!, b.site_id), industry_code: b.industry_code, unit_id: b.unit_id, reason: b.reason ?? 'maintenance', actor: ctx.caller!.subject, out: true, correlation_id: ctx.requestId });
      },
    }),
    'return-to-service': command({
      summary: 'Return a unit to service (admins: action maintain): its active alarms are annunciated again (out_of_service=false). Audited (alarm.return_to_service). Answers {unit: null, alarms}.',
      action: 'maintain',
      body: serviceBody,
      response: { type: 'object', required: ['unit', 'alarms'], properties: { unit: { type: ['object', 'null'] }, alarms: { type: 'integer' } } },
      handler: async (ctx) => {
        const b = ctx.body;
        return need(ctx.services, 'industryAlarms').setOutOfService({ tenant_id: requiredTenant(ctx.caller, b.tenant_id), industry_code: b.industry_code, unit_id: b.unit_id, reason: b.reason, actor: ctx.caller!.subject, out: false, correlation_id: ctx.requestId });
      },
    }),
    silence: command({
      summary: 'Record that this tablet silenced its alarm tone for some minutes (1-60) while these alarms were unacknowledged. The silence itself is kept on the tablet (another tablet still sounds); the box keeps the audit record (action alarms.silence) with who, which tablet and which alarms. Nothing about the alarms changes.',
      action: 'acknowledge',
      body: silenceBody,
      response: { type: 'object', required: ['silenced_until', 'alarm_ids'], properties: { silenced_until: { type: 'string', format: 'date-time' }, alarm_ids: { type: 'array', items: { type: 'string' } } } },
      handler: async (ctx) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const until = new Date(Date.now() + b.minutes * 60_000).toISOString();
        await ctx.services.audit.record({
          actor: caller.subject, action: 'alarms.silence', resource: 'industry-alarms', result: 'success', correlation_id: ctx.requestId, tenant_id: caller.tenant_id ?? null,
          details: { minutes: b.minutes, silenced_until: until, tablet: b.tablet, alarm_ids: b.alarm_ids },
        });
        return { silenced_until: until, alarm_ids: b.alarm_ids };
      },
    }),
    publish: command({
      summary: 'Publish an industry alarm (tenant_id, industry_code, site_id, severity, correlation_id): stored active, audited, on the bus (MQTT) and bridged to the status stream for every severity with the contract mapping (critical, high -> error; medium -> warn; low, info -> ok) and the same correlation_id (generated when absent). latched=true: it stays active after its condition ends until an admin resets it; resettable=false: no reset (default true). industry_code must be an industry this installation serves (edge-single: its one industry; cloud-multi: installed industry modules), else 409 industry_policy_conflict.',
      action: 'execute',
      body: publishBody,
      status: 201,
      errors: ['industry_policy_conflict'],
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        if (!servesIndustry(ctx.services, b.industry_code)) {
          throw new ApiError('industry_policy_conflict', ctx.services.config.mode === 'edge-single'
            ? `this edge-single box runs ${ctx.services.config.industry}; it does not take ${b.industry_code} alarms`
            : `the ${b.industry_code} module is not installed`, [{ field: 'industry_code', reason: 'industry_policy' }]);
        }
        const { event } = await need(ctx.services, 'industryAlarms').raise({
          tenant_id: caller.tenant_id!, site_id: writeSite(caller, b.site_id), industry_code: b.industry_code,
          unit_id: b.unit_id, batch_id: b.batch_id, metric: b.metric, value: b.value, severity: b.severity, priority: b.priority,
          source: b.source ?? 'industry-alarms', title: b.title, message: b.message, correlation_id: b.correlation_id,
          sla_target_sec: b.sla_target_sec, details: b.details, actor: caller.subject, bridge: 'all', latched: b.latched, resettable: b.resettable,
        });
        return kit.toItem(event);
      },
    }),
  },
});

export const industryAlarmRoutes = industryAlarmResource.routes;
