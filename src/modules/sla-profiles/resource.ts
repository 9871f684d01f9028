// sla-profiles/scheme|list|{id}, commands/set (create or update by id) and commands/assign
// (links a subscription to an active profile).
import * as v from 'valibot';
import { command, defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { Store } from '../../db/store.js';
import { ident, short } from '../tenant-master/input.js';
import { subscriptionRecord, subscriptions, type SubscriptionRow } from '../subscriptions/schema.js';
import { itemSchema } from '../../kernel/resource.js';
import { SLA_STATES, slaProfileRecord, type SlaProfileRow } from './schema.js';

const minutes = v.pipe(v.number(), v.integer(), v.minValue(1), v.maxValue(525_600));
const setBody = v.pipe(
  v.strictObject({
    id: ident,
    name: short(200),
    response_minutes: minutes,
    resolution_minutes: minutes,
    escalation_policy: short(1000),
    status: v.optional(v.picklist(SLA_STATES), 'active'),
  }),
  v.check((b) => b.resolution_minutes >= b.response_minutes, 'resolution_minutes must be at least response_minutes'),
);
const assignBody = v.strictObject({ subscription_id: ident, sla_profile_id: ident });

export const slaProfileResource = defineResource<SlaProfileRow>({
  name: 'sla-profiles',
  module: 'sla-profiles',
  title: 'SLA profiles',
  record: slaProfileRecord,
  access: { resource: 'sla-profiles', scope: 'master' },
  defaultSort: { field: 'id', order: 'asc' },
  commands: {
    set: command({
      summary: 'Create or update an SLA profile by id (status retired keeps it for history but it can no longer be assigned)',
      action: 'update',
      body: setBody,
      handler: async (ctx, kit) => {
        const row: SlaProfileRow = { ...ctx.body, updated_at: new Date().toISOString() };
        const store = kit.store(ctx.services.db);
        const saved = (await store.update({ id: row.id }, row)) ?? (await store.insert(row)) ?? (await store.update({ id: row.id }, row));
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'sla_profile.set', resource: 'sla-profiles', result: 'success', correlation_id: ctx.requestId, details: { ...row } });
        return kit.toItem(saved as SlaProfileRow);
      },
    }),
    assign: command({
      summary: 'Link a subscription to an active SLA profile; answers the subscription',
      action: 'execute',
      body: assignBody,
      errors: ['not_found', 'lifecycle_conflict'],
      response: itemSchema(subscriptionRecord.fields),
      handler: async (ctx, kit) => {
        const { subscription_id, sla_profile_id } = ctx.body;
        const profile = (await kit.load(ctx, sla_profile_id)) as SlaProfileRow;
        if (profile.status !== 'active') {
          throw new ApiError('lifecycle_conflict', `SLA profile ${profile.id} is ${profile.status}; only an active profile can be assigned`, [{ field: 'sla_profile_id', reason: 'not_active' }]);
        }
        const subs = new Store<SubscriptionRow>(ctx.services.db, subscriptions);
        const sub = await subs.find({ id: subscription_id });
        if (!sub) throw new ApiError('not_found', `subscription ${subscription_id} not found`, [{ field: 'subscription_id', reason: 'not_found' }]);
        if (sub.status === 'canceled') {
          throw new ApiError('lifecycle_conflict', `subscription ${sub.id} is canceled; open a new subscription instead`, [{ field: 'subscription_id', reason: 'canceled' }]);
        }
        const saved = await subs.update({ id: sub.id }, { sla_profile_id: profile.id, updated_at: new Date().toISOString() });
        await ctx.services.audit.record({ actor: ctx.caller?.subject ?? 'system', action: 'sla_profile.assign', resource: 'sla-profiles', result: 'success', correlation_id: ctx.requestId, details: { subscription_id, sla_profile_id }, tenant_id: sub.tenant_id });
        return { ...(saved as SubscriptionRow) };
      },
    }),
  },
});
