// A tenant's subscription and the allowed moves between its states. The contract leaves the
// move matrix to the implementation (section 3, "not shown"); it is written here once and shown
// in the route description, the x-decisions list and the README.
import { defineRecord } from '../../kernel/record.js';

export const SUBSCRIPTION_STATES = ['trial', 'active', 'paused', 'canceled'] as const;
export type SubscriptionState = (typeof SUBSCRIPTION_STATES)[number];

/** canceled is final: a tenant that comes back gets a new subscription, so history stays honest. */
export const SUBSCRIPTION_MOVES: Record<SubscriptionState, readonly SubscriptionState[]> = {
  trial: ['active', 'paused', 'canceled'],
  active: ['paused', 'canceled'],
  paused: ['active', 'canceled'],
  canceled: [],
};

export const movesText = Object.entries(SUBSCRIPTION_MOVES).map(([from, to]) => `${from} -> ${to.length ? to.join(' | ') : '(none: final)'}`).join('; ');

export const subscriptionRecord = defineRecord('subscriptions', {
  id: { type: 'string', label: 'Subscription', readOnly: true, sortable: true, searchable: true },
  tenant_id: { type: 'string', label: 'Tenant', filter: true, sortable: true, searchable: true },
  plan: { type: 'string', label: 'Plan', nullable: true, searchable: true },
  status: { type: 'string', label: 'Status', enum: SUBSCRIPTION_STATES, filter: true, sortable: true },
  sla_profile_id: { type: 'string', label: 'SLA profile', nullable: true, filter: true },
  created_at: { type: 'datetime', label: 'Created', readOnly: true, sortable: true },
  updated_at: { type: 'datetime', label: 'Updated', readOnly: true, sortable: true },
}, {
  indexes: [{ name: 'subscriptions_tenant', columns: ['tenant_id'] }, { name: 'subscriptions_status', columns: ['status'] }],
});

export const subscriptions = subscriptionRecord.table;
export type SubscriptionRow = typeof subscriptionRecord.row;
