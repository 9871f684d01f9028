// The shell profile's live snapshot (export with no history) carries the sidebar menu rules that
// auth/ui-access serves for the tenant: its own rules, else the fleet default a master set, else
// the built-in default; the first version a preferences change creates captures those rules.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';

const menu = (rules: { role: string; actions: string[] }[]) => rules.map((r) => ({ resource: 'ui.sidebar.menu', ...r }));

describe.each(DIALECTS)('shell live snapshot reads auth/ui-access (%s)', (dialect) => {
  let env: TestEnv;
  let master: Client;
  let admin: Client;
  let operator: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    const server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'adm-f', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-f' }, master.contract);
    operator = await clientAs(env, server, { subject: 'op-f', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-f' }, master.contract);
  });
  afterAll(async () => env.cleanup());

  const exportLive = async () => (await admin.post('/api/v1/auth/shell-profile/commands/export', {})).body.item;
  const served = async () => (await admin.get('/api/v1/auth/ui-access/list')).body.items[0];

  it('follows the fleet default, then the tenant\'s own rules, exactly as auth/ui-access serves them', async () => {
    const fleet = [{ role: 'operator', actions: [] }, { role: 'admin', actions: ['read', 'update'] }, { role: 'security', actions: ['read'] }];
    expect((await master.post('/api/v1/auth/ui-access/commands/update', { rules: fleet })).status).toBe(200);
    expect(await served()).toMatchObject({ source: 'fleet', rules: fleet });
    let snap = await exportLive();
    expect(snap).toMatchObject({ live: true, version: null, tenant_id: 'farm-f' });
    expect(snap.ui_access).toEqual(menu(fleet));

    const own = [{ role: 'operator', actions: ['read'] }, { role: 'admin', actions: ['read', 'update'] }];
    expect((await admin.post('/api/v1/auth/ui-access/commands/update', { rules: own })).status).toBe(200);
    expect(await served()).toMatchObject({ source: 'tenant:farm-f', rules: own });
    snap = await exportLive();
    expect(snap.live).toBe(true);
    expect(snap.ui_access).toEqual(menu(own));
  });

  it('the first version, made by a preferences change, captures the rules in force', async () => {
    expect((await operator.post('/api/v1/auth/ui-preferences/commands/update', { theme: 'dark' })).status).toBe(200);
    const v1 = await exportLive();
    expect(v1).toMatchObject({ live: false, version: 1, theme: 'dark' });
    expect(v1.ui_access).toEqual(menu((await served()).rules));
  });
});
