// The cards step of the site set-up screen: who can log in at the panel.
import { and, eq, gt } from 'drizzle-orm';
import { colOf, tableOf } from '../../db/sql.js';
import { setupTenant, type SetupCheck, type SetupStep } from '../../kernel/setup.js';
import { passkeys } from './schema.js';

export const passkeySetup: SetupStep[] = [{
  id: 'people',
  order: 20,
  title: 'setup.people.title',
  screen: { module: 'passkeys' },
  async check({ db }, caller): Promise<SetupCheck> {
    const c = (n: string) => colOf(passkeys, db, n);
    const rows = (await db.orm.select({ role: c('role') }).from(tableOf(passkeys, db))
      .where(and(eq(c('tenant_id'), setupTenant(caller)), eq(c('status'), 'active'), gt(c('expires_at'), new Date().toISOString())))) as { role: string }[];
    const admins = rows.filter((r) => r.role === 'admin').length;
    const operators = rows.filter((r) => r.role === 'operator').length;
    const params = { admins, operators };
    if (operators === 0) return { state: 'missing', key: 'setup.people.no_operator', params };
    if (admins === 0) return { state: 'attention', key: 'setup.people.no_admin', params };
    if (admins < 2) return { state: 'attention', key: 'setup.people.one_admin', params };
    return { state: 'done', key: 'setup.people.done', params };
  },
}];
