// audit/scheme|list (newest first, filters) and audit/commands/log.
import * as v from 'valibot';
import { defineResource } from '../../kernel/resource.js';
import { insertAudit, toAuditRow } from './service.js';
import { auditRecords, type AuditRow } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';

const RESULTS = ['success', 'denied', 'error'] as const;
const short = (max: number) => v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(max));

const logBody = v.strictObject({
  actor: v.optional(short(200)),
  action: short(200),
  resource: short(200),
  result: v.picklist(RESULTS),
  correlation_id: v.optional(short(200)),
  details: v.optional(v.record(v.string(), v.unknown())),
  tenant_id: v.optional(short(200)),
});

export const auditResource = defineResource<AuditRow>({
  name: 'audit',
  module: 'audit',
  title: 'Audit',
  table: auditRecords,
  access: { resource: 'audit', scope: 'any' },
  tenantColumn: 'tenant_id',
  fields: {
    id: { type: 'string', label: 'ID', readOnly: true },
    tenant_id: { type: 'string', label: 'Tenant', nullable: true, readOnly: true },
    actor: { type: 'string', label: 'Actor' },
    action: { type: 'string', label: 'Action' },
    resource: { type: 'string', label: 'Resource' },
    result: { type: 'string', label: 'Result', enum: RESULTS },
    correlation_id: { type: 'string', label: 'Correlation id', description: 'Traces one operation across modules; the request id when the caller gives none.' },
    details: { type: 'object', label: 'Details', nullable: true },
    recorded_by: { type: 'string', label: 'Recorded by', readOnly: true, description: 'The authenticated subject (or module) that wrote the record.' },
    created_at: { type: 'datetime', label: 'Time', readOnly: true },
  },
  filters: {
    actor: { type: 'string' },
    action: { type: 'string' },
    resource: { type: 'string' },
    result: { type: 'string', enum: RESULTS },
    correlation_id: { type: 'string' },
    tenant_id: { type: 'string', description: 'Master callers only; a tenant caller always sees its own tenant.' },
  },
  sortable: ['created_at', 'actor', 'action', 'resource', 'result'],
  defaultSort: { field: 'created_at', order: 'desc' },
  search: ['actor', 'action', 'resource', 'correlation_id'],
  toItem: (row) => ({ ...row }),
  commands: {
    log: {
      summary: 'Record an audit entry (actor defaults to the caller; correlation_id to the request id)',
      action: 'log',
      body: logBody,
      status: 201,
      handler: async (ctx, kit) => {
        const b = ctx.body as v.InferOutput<typeof logBody>;
        const caller = ctx.caller!;
        const tenant = ownerTenant(caller, b.tenant_id);
        const row = toAuditRow({
          actor: b.actor ?? caller.subject, action: b.action, resource: b.resource, result: b.result,
          correlation_id: b.correlation_id ?? ctx.requestId, details: b.details, tenant_id: tenant, recorded_by: caller.subject,
        });
        return kit.toItem(await insertAudit(ctx.services, row));
      },
    },
  },
});

