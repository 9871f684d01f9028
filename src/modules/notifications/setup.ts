// The notifications step of the site set-up screen: whether anyone off site hears of a P1.
import { and, desc, eq, ne } from 'drizzle-orm';
import { colOf, tableOf } from '../../db/sql.js';
import type { NeutralTable } from '../../db/table.js';
import { count, setupTenant, siteTime, type SetupStep } from '../../kernel/setup.js';
import type { Services } from '../../kernel/context.js';
import { channelRecord, deliveryRecord, ruleRecord } from './schema.js';

const enabledOf = (db: Services['db'], table: NeutralTable, tenant: string) =>
  db.orm.select().from(tableOf(table, db)).where(and(eq(colOf(table, db, 'tenant_id'), tenant), eq(colOf(table, db, 'enabled'), true)));

export const notificationSetup: SetupStep[] = [{
  id: 'notifications',
  order: 60,
  title: 'Notifications off site',
  screen: { module: 'notifications' },
  async check({ db, config }, caller) {
    const tenant = setupTenant(caller);
    const channels = (await enabledOf(db, channelRecord.table, tenant)) as { id: string; name: string }[];
    if (channels.length === 0) return { state: 'missing', words: 'No notification channel: nobody off site hears of an alarm, and a P1 at night waits until someone sees a tablet.' };
    const rules = ((await enabledOf(db, ruleRecord.table, tenant)) as { channel_id: string; priorities: string[] | string }[])
      .filter((r) => channels.some((c) => c.id === r.channel_id));
    const held = `${count(channels.length, 'channel')}, ${count(rules.length, 'rule')}`;
    if (rules.length === 0) return { state: 'missing', words: `${held}: no rule sends anything yet. Add a rule for P1 alarms.` };
    const prios = (r: (typeof rules)[number]) => (Array.isArray(r.priorities) ? r.priorities : JSON.parse(r.priorities || '[]') as string[]);
    if (!rules.some((r) => prios(r).length === 0 || prios(r).includes('P1'))) return { state: 'attention', words: `${held}, but no rule covers P1 alarms: the most urgent ones reach nobody off site.` };
    const d = (n: string) => colOf(deliveryRecord.table, db, n);
    const [last] = (await db.orm.select({ status: d('status'), recipient: d('recipient'), last_error: d('last_error'), at: d('updated_at') })
      .from(tableOf(deliveryRecord.table, db)).where(and(eq(d('tenant_id'), tenant), ne(d('status'), 'pending'), ne(d('status'), 'suppressed')))
      .orderBy(desc(d('updated_at'))).limit(1)) as { status: string; recipient: string; last_error: string | null; at: string }[];
    if (last?.status === 'failed') return { state: 'attention', words: `${held}. The last message, to ${last.recipient}, could not be sent${last.last_error ? `: ${last.last_error}` : ''}. Send a test message.` };
    return { state: 'done', words: `${held}; P1 alarms are sent off site${last ? ` (last message sent ${siteTime(config, last.at, true)})` : '; send a test message to be sure'}.` };
  },
}];
