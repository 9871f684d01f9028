// alarms/scheme|list|{id}, commands/ack and commands/raise.
import * as v from 'valibot';
import { defineResource } from '../../kernel/resource.js';
import { alarms, ALARM_SCOPES, ALARM_STATES, SEVERITIES, type AlarmRow } from './schema.js';
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
  table: alarms,
  access: { resource: 'alarms', scope: 'any' },
  tenantColumn: 'tenant_id',
  fields: {
    id: { type: 'string', label: 'ID', readOnly: true },
    tenant_id: { type: 'string', label: 'Tenant', nullable: true, readOnly: true },
    site_id: { type: 'string', label: 'Site', nullable: true },
    scope: { type: 'string', label: 'Scope', enum: ALARM_SCOPES, readOnly: true },
    severity: { type: 'string', label: 'Severity', enum: SEVERITIES },
    state: { type: 'string', label: 'State', enum: ALARM_STATES, readOnly: true },
    source: { type: 'string', label: 'Source' },
    title: { type: 'string', label: 'Title' },
    message: { type: 'string', label: 'Message', nullable: true },
    correlation_id: { type: 'string', label: 'Correlation id' },
    details: { type: 'object', label: 'Details', nullable: true },
    raised_at: { type: 'datetime', label: 'Raised', readOnly: true },
    acknowledged_by: { type: 'string', label: 'Acknowledged by', nullable: true, readOnly: true },
    acknowledged_at: { type: 'datetime', label: 'Acknowledged', nullable: true, readOnly: true },
    comment: { type: 'string', label: 'Comment', nullable: true, readOnly: true },
  },
  filters: {
    severity: { type: 'string', enum: SEVERITIES },
    state: { type: 'string', enum: ALARM_STATES },
    scope: { type: 'string', enum: ALARM_SCOPES },
    site_id: { type: 'string' },
    source: { type: 'string' },
    correlation_id: { type: 'string' },
    tenant_id: { type: 'string', description: 'Master callers only; a tenant caller always sees its own tenant.' },
  },
  sortable: ['raised_at', 'severity', 'state', 'source', 'title'],
  defaultSort: { field: 'raised_at', order: 'desc' },
  search: ['title', 'message', 'source', 'correlation_id'],
  toItem: (row) => ({ ...row }),
  commands: {
    ack: {
      summary: 'Acknowledge an open alarm (404 alarm_not_found; 409 alarm_already_acknowledged keeps the first acknowledgement)',
      action: 'ack',
      body: ackBody,
      errors: ['alarm_not_found', 'alarm_already_acknowledged'],
      handler: async (ctx) => {
        const b = ctx.body as v.InferOutput<typeof ackBody>;
        const caller = ctx.caller!;
        return ctx.services.alarms!.acknowledge({
          id: b.id, acknowledged_by: b.acknowledged_by ?? caller.subject, comment: b.comment ?? null,
          tenant_id: caller.scope_type === 'tenant' ? caller.tenant_id : undefined, actor: caller.subject,
        });
      },
    },
    raise: {
      summary: 'Raise an alarm by hand (rule engines use the same alarm service)',
      action: 'raise',
      body: raiseBody,
      status: 201,
      handler: async (ctx) => {
        const b = ctx.body as v.InferOutput<typeof raiseBody>;
        const caller = ctx.caller!;
        return ctx.services.alarms!.raise({
          ...b, tenant_id: ownerTenant(caller, b.tenant_id),
          site_id: b.site_id ?? caller.site_id ?? null, actor: caller.subject, correlation_id: b.correlation_id ?? ctx.requestId,
        });
      },
    },
  },
});
