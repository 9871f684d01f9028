// notification-rules: who is told of which alarms. A rule names one channel, its recipients
// (e-mail addresses; none for a webhook), the priorities and severities it covers and the
// escalation levels: level 0 is the raise, level n the n-th SLA escalation of an unacknowledged
// alarm (src/industry/escalator.ts), so "the crew at once, the manager from the first
// escalation" is two rules. unit_ids narrows a rule to houses, rooms or fields. An e-mail rule
// without recipients of its own sends to its channel's.
import * as v from 'valibot';
import { defineResource } from '../../kernel/resource.js';
import { ApiError } from '../../kernel/errors.js';
import { requiredTenant } from '../../kernel/tenancy.js';
import { timeId } from '../../kernel/ids.js';
import type { HandlerContext } from '../../kernel/route.js';
import { INDUSTRY_SEVERITIES, PRIORITIES } from '../../industry/alarm-schema.js';
import { channelResource } from './channels.js';
import { ruleRecord, type RuleRow } from './schema.js';
import { email, ident, int, opt, short } from './inputs.js';

const settings = {
  name: short(200),
  site_id: opt(ident),
  channel_id: ident,
  recipients: v.optional(v.pipe(v.array(email), v.maxLength(50))),
  priorities: v.optional(v.array(v.picklist(PRIORITIES))),
  severities: v.optional(v.array(v.picklist(INDUSTRY_SEVERITIES))),
  unit_ids: v.optional(v.pipe(v.array(ident), v.maxLength(200))),
  min_escalation_level: v.optional(int(0, 1000)),
  max_escalation_level: opt(int(0, 1000)),
  on_raise: v.optional(v.boolean()),
  on_escalation: v.optional(v.boolean()),
  on_clear: v.optional(v.boolean()),
  on_ack: v.optional(v.boolean()),
  enabled: v.optional(v.boolean()),
};
const createBody = v.strictObject({ item: v.strictObject({ id: v.optional(ident), tenant_id: v.optional(ident), ...settings }) });
const patchBody = v.strictObject({ item: v.strictObject({ ...settings, name: v.optional(settings.name), channel_id: v.optional(ident) }) });

/** The channel must be the rule's tenant's; an e-mail rule needs recipients, a webhook rule has none. */
async function check(row: RuleRow, ctx: HandlerContext<unknown>): Promise<void> {
  const channel = await channelResource.kit.store(ctx.services.db).find({ id: row.channel_id, tenant_id: row.tenant_id });
  if (!channel) throw new ApiError('validation_error', `channel ${row.channel_id} not found`, [{ field: 'item.channel_id', reason: 'not_found' }]);
  if (channel.kind === 'email' && row.recipients.length === 0 && channel.recipients.length === 0) {
    throw new ApiError('validation_error', 'an e-mail rule needs recipients (its channel has none of its own)', [{ field: 'item.recipients', reason: 'required' }]);
  }
  if (channel.kind === 'webhook' && row.recipients.length > 0) throw new ApiError('validation_error', 'a webhook rule has no recipients (the channel\'s URL is the recipient)', [{ field: 'item.recipients', reason: 'not_allowed' }]);
  if (row.max_escalation_level !== null && row.max_escalation_level < row.min_escalation_level) {
    throw new ApiError('validation_error', 'max_escalation_level is below min_escalation_level', [{ field: 'item.max_escalation_level', reason: 'below_min' }]);
  }
  // A session bound to a site manages that site's rules only.
  const bound = ctx.caller?.scope_type === 'tenant' ? ctx.caller.site_id : undefined;
  if (bound && row.site_id !== bound) throw new ApiError('tenant_boundary_denied', `this session is bound to site ${bound}`, [{ field: 'item.site_id', reason: 'other_site' }]);
}

const defined = (b: Record<string, unknown>) => Object.fromEntries(Object.entries(b).filter(([k, value]) => value !== undefined && k in settings));

export const ruleResource = defineResource<RuleRow, v.InferOutput<typeof createBody>, v.InferOutput<typeof patchBody>>({
  name: 'notification-rules',
  module: 'notifications',
  title: 'Notification rules',
  record: ruleRecord,
  access: { resource: 'notifications', scope: 'any' },
  tenantColumn: 'tenant_id',
  defaultSort: { field: 'id', order: 'asc' },
  create: {
    body: createBody,
    toRow: async (body, ctx) => {
      const b = body.item;
      const bound = ctx.caller?.scope_type === 'tenant' ? ctx.caller.site_id : undefined;
      const row: RuleRow = {
        id: b.id ?? timeId(), tenant_id: requiredTenant(ctx.caller, b.tenant_id), site_id: b.site_id ?? bound ?? null, name: b.name, channel_id: b.channel_id,
        recipients: b.recipients ?? [], priorities: b.priorities ?? [], severities: b.severities ?? [], unit_ids: b.unit_ids ?? [],
        min_escalation_level: b.min_escalation_level ?? 0, max_escalation_level: b.max_escalation_level ?? null,
        on_raise: b.on_raise ?? true, on_escalation: b.on_escalation ?? true, on_clear: b.on_clear ?? false, on_ack: b.on_ack ?? false, enabled: b.enabled ?? true,
        updated_at: new Date().toISOString(),
      };
      await check(row, ctx as HandlerContext<unknown>);
      return row;
    },
  },
  patch: {
    body: patchBody,
    apply: async (current, body, ctx) => {
      const changes = defined(body.item) as Partial<RuleRow>;
      await check({ ...current, ...changes }, ctx as HandlerContext<unknown>);
      return { ...changes, updated_at: new Date().toISOString() };
    },
  },
  delete: true,
});
