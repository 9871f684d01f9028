// notification-deliveries: scheme, list, {id} and commands/retry. Read-only but for retry: the
// worker writes them (pending -> sent | failed); an admin may queue a failed one again.
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { deliveryRecord, type DeliveryRow } from './schema.js';

export const deliveryResource = defineResource<DeliveryRow>({
  name: 'notification-deliveries',
  module: 'notifications',
  title: 'Notification deliveries',
  record: deliveryRecord,
  access: { resource: 'notification-deliveries', scope: 'any' },
  tenantColumn: 'tenant_id',
  defaultSort: { field: 'created_at', order: 'desc' },
  toItem: (row) => {
    const { claimed_until: _claim, ...item } = row;
    return item;
  },
  commands: {
    retry: command({
      summary: 'Queue a failed delivery again: its attempts start over and the worker sends it at once (409 lifecycle_conflict unless it is failed)',
      action: 'update',
      body: v.strictObject({ id: v.pipe(v.string(), v.minLength(1), v.maxLength(200)) }),
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => {
        const row = (await kit.load(ctx, ctx.body.id)) as DeliveryRow;
        if (row.status !== 'failed') throw new ApiError('lifecycle_conflict', `delivery ${row.id} is ${row.status}; only a failed delivery is retried`, [{ field: 'id', reason: `status_${row.status}` }]);
        const now = new Date().toISOString();
        const saved = await kit.store(ctx.services.db).update({ id: row.id, status: 'failed' }, { status: 'pending', attempts: 0, next_attempt_at: now, claimed_until: null, updated_at: now });
        if (!saved) throw new ApiError('lifecycle_conflict', `delivery ${row.id} changed meanwhile`, [{ field: 'id', reason: 'changed' }]);
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'notification.retry', resource: 'notification-deliveries', result: 'success', correlation_id: ctx.requestId, tenant_id: row.tenant_id, details: { id: row.id } });
        ctx.services.notifier?.wake();
        return kit.toItem(saved);
      },
    }),
  },
});
