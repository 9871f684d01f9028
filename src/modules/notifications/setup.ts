// The notifications step of the site set-up screen: whether anyone off site hears of a P1.
import { and, desc, eq, ne } from 'drizzle-orm';
import { colOf, tableOf } from '../../db/sql.js';
import type { NeutralTable } from '../../db/table.js';
import { setupTenant, type SetupCheck, type SetupStep } from '../../kernel/setup.js';
import type { Services } from '../../kernel/context.js';
import { channelRecord, deliveryRecord, ruleRecord } from './schema.js';

const enabledOf = (db: Services['db'], table: NeutralTable, tenant: string) =>
  db.orm.select().from(tableOf(table, db)).where(and(eq(colOf(table, db, 'tenant_id'), tenant), eq(colOf(table, db, 'enabled'), true)));

export const notificationSetup: SetupStep[] = [{
  id: 'notifications',
  order: 60,
  title: 'setup.notifications.title',
  screen: { module: 'notifications' },
  async check({ db }, caller): Promise<SetupCheck> {
    const tenant = setupTenant(caller);
    const channels = (await enabledOf(db, channelRecord.table, tenant)) as { id: string; name: string }[];
    if (channels.length === 0) return { state: 'missing', key: 'setup.notifications.none' };
    const rules = ((await enabledOf(db, ruleRecord.table, tenant)) as { channel_id: string; priorities: string[] | string }[])
      .filter((r) => channels.some((c) => c.id === r.channel_id));
    const held = { channels: channels.length, rules: rules.length };
    if (rules.length === 0) return { state: 'missing', key: 'setup.notifications.no_rule', params: held };
    const prios = (r: (typeof rules)[number]) => (Array.isArray(r.priorities) ? r.priorities : JSON.parse(r.priorities || '[]') as string[]);
    if (!rules.some((r) => prios(r).length === 0 || prios(r).includes('P1'))) return { state: 'attention', key: 'setup.notifications.no_p1', params: held };
    const d = (n: string) => colOf(deliveryRecord.table, db, n);
    const [last] = (await db.orm.select({ status: d('status'), recipient: d('recipient'), last_error: d('last_error'), at: d('updated_at') })
      .from(tableOf(deliveryRecord.table, db)).where(and(eq(d('tenant_id'), tenant), ne(d('status'), 'pending'), ne(d('status'), 'suppressed')))
      .orderBy(desc(d('updated_at'))).limit(1)) as { status: string; recipient: string; last_error: string | null; at: string | Date }[];
    if (last?.status === 'failed') {
      return { state: 'attention', key: 'setup.notifications.failed', params: { ...held, recipient: last.recipient, why: last.last_error ? 'yes' : 'no', error: last.last_error ?? '' } };
    }
    return { state: 'done', key: 'setup.notifications.done', params: { ...held, sent: last ? 'yes' : 'no', last_at: last ? new Date(last.at).toISOString() : '' } };
  },
}];
