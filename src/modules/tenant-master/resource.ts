// tenant-master/scheme|list|{id} and commands/publish: whitelisted tenant events. A published
// event is stored, audited and bridged to the status stream with the same correlation_id.
import * as v from 'valibot';
import { randomUUID } from 'node:crypto';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { need } from '../../kernel/context.js';
import { timeId } from '../../kernel/ids.js';
import { short, ident } from './input.js';
import { EVENT_STATUSES, EVENT_TYPES, tenantEventRecord, type TenantEventRow } from './schema.js';

const publishBody = v.strictObject({
  tenant_id: ident,
  event_type: short(100),
  status: short(100),
  correlation_id: v.optional(short(200)),
  payload: v.optional(v.record(v.string(), v.unknown())),
});

const isOneOf = <T extends string>(list: readonly T[], value: string): value is T => (list as readonly string[]).includes(value);

/** failed/rejected are errors on the status stream, in_progress a warning, the rest ok. */
const streamStatus = (s: (typeof EVENT_STATUSES)[number]) => (s === 'failed' || s === 'rejected' ? 'error' : s === 'in_progress' ? 'warn' : 'ok');

export const tenantMasterResource = defineResource<TenantEventRow>({
  name: 'tenant-master',
  module: 'tenant-master',
  title: 'Tenant-master events',
  record: tenantEventRecord,
  access: { resource: 'tenant-master', scope: 'master' },
  defaultSort: { field: 'created_at', order: 'desc' },
  commands: {
    publish: command({
      summary: 'Publish a tenant event (409 event_not_whitelisted / status_not_whitelisted outside the whitelists)',
      action: 'execute',
      body: publishBody,
      status: 201,
      errors: ['event_not_whitelisted', 'status_not_whitelisted'],
      handler: async (ctx, kit) => {
        const b = ctx.body;
        if (!isOneOf(EVENT_TYPES, b.event_type)) {
          throw new ApiError('event_not_whitelisted', `event_type ${b.event_type} is not whitelisted; allowed: ${EVENT_TYPES.join(', ')}`, [{ field: 'event_type', reason: 'not_whitelisted' }]);
        }
        if (!isOneOf(EVENT_STATUSES, b.status)) {
          throw new ApiError('status_not_whitelisted', `status ${b.status} is not whitelisted; allowed: ${EVENT_STATUSES.join(', ')}`, [{ field: 'status', reason: 'not_whitelisted' }]);
        }
        const row: TenantEventRow = {
          id: timeId(), tenant_id: b.tenant_id, event_type: b.event_type, status: b.status,
          correlation_id: b.correlation_id ?? randomUUID(), payload: b.payload ?? null,
          created_by: ctx.caller?.subject ?? 'system', created_at: new Date().toISOString(),
        };
        const saved = (await kit.store(ctx.services.db).insert(row)) as TenantEventRow;
        await ctx.services.audit.record({
          actor: row.created_by, action: 'tenant_master.publish', resource: 'tenant-master', result: 'success',
          correlation_id: row.correlation_id, details: { id: row.id, event_type: row.event_type, status: row.status }, tenant_id: row.tenant_id,
        });
        await need(ctx.services, 'status').publish({
          tenant_id: row.tenant_id, source: 'tenant-master', event: row.event_type, status: streamStatus(row.status),
          correlation_id: row.correlation_id, details: { tenant_event_id: row.id, status: row.status },
        });
        return kit.toItem(saved);
      },
    }),
  },
});

tenantMasterResource.routes.find((r) => r.path.endsWith('/commands/publish'))!.description =
  `Whitelisted event_type: ${EVENT_TYPES.join(', ')} (else 409 event_not_whitelisted). Whitelisted status: ${EVENT_STATUSES.join(', ')} (else 409 status_not_whitelisted). ` +
  'The event is stored, audited and bridged to the status stream (failed/rejected -> error, in_progress -> warn, else ok) with the same correlation_id, generated when absent.';
