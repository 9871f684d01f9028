// The cards step of the site set-up screen: who can log in at the panel.
import { and, eq, gt } from 'drizzle-orm';
import { colOf, tableOf } from '../../db/sql.js';
import { count, setupTenant, type SetupStep } from '../../kernel/setup.js';
import { passkeys } from './schema.js';

export const passkeySetup: SetupStep[] = [{
  id: 'people',
  order: 20,
  title: 'People and their cards',
  screen: { module: 'passkeys' },
  async check({ db }, caller) {
    const c = (n: string) => colOf(passkeys, db, n);
    const rows = (await db.orm.select({ role: c('role') }).from(tableOf(passkeys, db))
      .where(and(eq(c('tenant_id'), setupTenant(caller)), eq(c('status'), 'active'), gt(c('expires_at'), new Date().toISOString())))) as { role: string }[];
    const admins = rows.filter((r) => r.role === 'admin').length;
    const operators = rows.filter((r) => r.role === 'operator').length;
    const held = `${count(admins, 'admin card')} and ${count(operators, 'operator card')} in use`;
    if (operators === 0) return { state: 'missing', words: `${held}. No operator card yet: the farm staff cannot log in at the panel.` };
    if (admins < 2) return { state: 'attention', words: `${held}. Only one admin card: if it is lost, nobody can change the box's set-up. Issue a second one and keep it apart.` };
    return { state: 'done', words: `${held}.` };
  },
}];
