// audit/scheme|list (newest first, filters) and audit/commands/log.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { insertAudit, toAuditRow } from './service.js';
import { auditRecord, RESULTS, type AuditRow } from './schema.js';
import { ownerTenant } from '../../kernel/tenancy.js';

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
  record: auditRecord,
  access: { resource: 'audit', scope: 'any' },
  tenantColumn: 'tenant_id',
  defaultSort: { field: 'created_at', order: 'desc' },
  commands: {
    log: command({
      summary: 'Record an audit entry (actor defaults to the caller; correlation_id to the request id)',
      action: 'log',
      body: logBody,
      status: 201,
      handler: async (ctx, kit) => {
        const b = ctx.body;
        const caller = ctx.caller!;
        const tenant = ownerTenant(caller, b.tenant_id);
        const row = toAuditRow({
          actor: b.actor ?? caller.subject, action: b.action, resource: b.resource, result: b.result,
          correlation_id: b.correlation_id ?? ctx.requestId, details: b.details, tenant_id: tenant, recorded_by: caller.subject,
        });
        return kit.toItem(await insertAudit(ctx.services, row));
      },
    }),
  },
});

