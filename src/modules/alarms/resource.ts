// alarms/scheme|list|{id}, commands/ack, commands/clear and commands/raise.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { need } from '../../kernel/context.js';
import { alarmRecord, SEVERITIES, type AlarmRow } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';

const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));

const ackBody = v.strictObject({
  id: short(200),
  acknowledged_by: v.optional(short(200)),
  comment: v.optional(v.pipe(v.string(), v.maxLength(2000))),
});

const raiseBody = v.strictObject({
  severity: v.picklist(SEVERITIES),
  source: short(200),
  title: short(500),
  message: v.optional(v.pipe(v.string(), v.maxLength(4000))),
  site_id: v.optional(short(200)),
  tenant_id: v.optional(short(200)),
  correlation_id: v.optional(short(200)),
  details: v.optional(v.record(v.string(), v.unknown())),
});

export const alarmResource = defineResource<AlarmRow>({
  name: 'alarms',
  module: 'alarms',
  title: 'Alarms',
  record: alarmRecord,
  access: { resource: 'alarms', scope: 'any' },
  tenantColumn: 'tenant_id',
  defaultSort: { field: 'raised_at', order: 'desc' },
  commands: {
    ack: command({
      summary: 'Acknowledge an open alarm (404 alarm_not_found; 409 alarm_already_acknowledged keeps the first acknowledgement)',
      action: 'ack',
      body: ackBody,
      errors: ['alarm_not_found', 'alarm_already_acknowledged'],
      handler: async (ctx) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        return need(ctx.services, 'alarms').acknowledge({
          id: b.id, acknowledged_by: b.acknowledged_by ?? caller.subject, comment: b.comment ?? null,
          tenant_id: caller.scope_type === 'tenant' ? caller.tenant_id : undefined, actor: caller.subject,
        });
      },
    }),
    clear: command({
      summary: 'The alarm\'s condition ended (admins and integrations: action clear): condition cleared, cleared_at set, audited; the acknowledgement is kept apart (state). An unacknowledged cleared alarm stays listed until acknowledged unless it is low or info. 404 alarm_not_found; 409 lifecycle_conflict when cleared already.',
      action: 'clear',
      body: v.strictObject({ id: short(200), comment: v.optional(v.pipe(v.string(), v.maxLength(2000))) }),
      errors: ['alarm_not_found', 'lifecycle_conflict'],
      handler: async (ctx) => {
        const caller = ctx.caller!;
        return need(ctx.services, 'alarms').clear({ id: ctx.body.id, comment: ctx.body.comment ?? null, tenant_id: caller.scope_type === 'tenant' ? caller.tenant_id : undefined, actor: caller.subject });
      },
    }),
    raise: command({
      summary: 'Raise an alarm by hand (rule engines use the same alarm service)',
      action: 'raise',
      body: raiseBody,
      status: 201,
      handler: async (ctx) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        return need(ctx.services, 'alarms').raise({
          ...b, tenant_id: ownerTenant(caller, b.tenant_id),
          site_id: b.site_id ?? caller.site_id ?? null, actor: caller.subject, correlation_id: b.correlation_id ?? ctx.requestId,
        });
      },
    }),
  },
});
