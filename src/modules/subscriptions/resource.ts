// subscriptions/scheme|list|{id}, commands/create and commands/set-status (move matrix in schema.ts).
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { timeId } from '../../kernel/ids.js';
import { ident, short } from '../tenant-master/input.js';
import { movesText, SUBSCRIPTION_MOVES, SUBSCRIPTION_STATES, subscriptionRecord, type SubscriptionRow } from './schema.js';

const createBody = v.strictObject({
  id: v.optional(ident),
  tenant_id: ident,
  plan: v.optional(short(100)),
  status: v.optional(v.picklist(['trial', 'active']), 'trial'),
});

const setStatusBody = v.strictObject({ id: ident, status: v.picklist(SUBSCRIPTION_STATES) });

export const subscriptionResource = defineResource<SubscriptionRow>({
  name: 'subscriptions',
  module: 'subscriptions',
  title: 'Subscriptions',
  record: subscriptionRecord,
  access: { resource: 'subscriptions', scope: 'master' },
  defaultSort: { field: 'updated_at', order: 'desc' },
  commands: {
    create: command({
      summary: 'Open a subscription for a tenant (status trial unless active is given)',
      action: 'create',
      body: createBody,
      status: 201,
      errors: ['already_exists'],
      handler: async (ctx, kit) => {
        const now = new Date().toISOString();
        const b = ctx.body;
        const row: SubscriptionRow = { id: b.id ?? `SUB-${timeId()}`, tenant_id: b.tenant_id, plan: b.plan ?? null, status: b.status, sla_profile_id: null, created_at: now, updated_at: now };
        const saved = await kit.store(ctx.services.db).insert(row);
        if (!saved) throw new ApiError('already_exists', `subscription ${row.id} already exists`, [{ field: 'id', reason: 'taken' }]);
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'subscription.create', resource: 'subscriptions', result: 'success', correlation_id: ctx.requestId, details: { id: row.id, status: row.status }, tenant_id: row.tenant_id });
        return kit.toItem(saved);
      },
    }),
    'set-status': command({
      summary: 'Move a subscription to another status',
      action: 'update',
      body: setStatusBody,
      errors: ['not_found', 'lifecycle_conflict'],
      handler: async (ctx, kit) => {
        const { id, status } = ctx.body;
        const current = (await kit.load(ctx, id)) as SubscriptionRow;
        // Setting the current status again is a no-op that answers the record (safe retries).
        if (current.status === status) return kit.toItem(current);
        if (!SUBSCRIPTION_MOVES[current.status].includes(status)) {
          await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'subscription.set_status', resource: 'subscriptions', result: 'denied', correlation_id: ctx.requestId, details: { id, from: current.status, to: status }, tenant_id: current.tenant_id });
          throw new ApiError('lifecycle_conflict', `subscription ${id} cannot move from ${current.status} to ${status}; allowed moves: ${movesText}`, [{ field: 'status', reason: `not_allowed_from_${current.status}` }]);
        }
        // Conditional on the status read: a concurrent move cannot be overwritten silently.
        const saved = await kit.store(ctx.services.db).update({ id, status: current.status }, { status, updated_at: new Date().toISOString() });
        if (!saved) throw new ApiError('lifecycle_conflict', `subscription ${id} changed while it was being moved; read it again`);
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'subscription.set_status', resource: 'subscriptions', result: 'success', correlation_id: ctx.requestId, details: { id, from: current.status, to: status }, tenant_id: current.tenant_id });
        return kit.toItem(saved);
      },
    }),
  },
});

subscriptionResource.routes.find((r) => r.path.endsWith('/commands/set-status'))!.description = `Allowed moves: ${movesText}. Setting the current status again answers the record unchanged. Any other move is 409 lifecycle_conflict. updated_at is set on every move.`;
