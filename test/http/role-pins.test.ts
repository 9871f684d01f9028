// Quick buttons and module order for a role (auth/ui-role-preferences): only an admin sets them,
// within its own tenant; an operator's preferences answer them (and keep them over the operator's
// own row, since an operator may not arrange the menu); an admin's own pins stay its own; a
// session bound to a site gets the tenant-wide defaults. On SQLite and PostgreSQL.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const SET = '/api/v1/auth/ui-role-preferences/commands/set';
const PREFS = '/api/v1/auth/ui-preferences/list?industry_code=poultry';

describe.each(DIALECTS)('role quick buttons (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let operator: Client;
  let siteOperator: Client;
  let otherAdmin: Client;
  let otherOperator: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    const master = await clientAs(env, server);
    const as = (role: string, tenant: string, extra: Record<string, string> = {}) => clientAs(env, server, { role, scope_type: 'tenant', tenant_id: tenant, subject: `${role}-${tenant}-${extra.site_id ?? 'all'}`, ...extra }, master.contract);
    admin = await as('admin', 'farm-1');
    operator = await as('operator', 'farm-1');
    siteOperator = await as('operator', 'farm-1', { site_id: 'house-2' });
    otherAdmin = await as('admin', 'farm-2');
    otherOperator = await as('operator', 'farm-2');
  });
  afterAll(async () => env?.cleanup());

  const prefsOf = async (c: Client) => (await c.get(PREFS)).body.items[0] as { quick_module_ids: string[] | null; dashboard_layout: { module_order?: string[]; contrast?: string } | null; source: string; role_fields: string[] };

  it('an admin sets the operators\' quick buttons and order; operators get them, over their own', async () => {
    expect((await prefsOf(operator)).role_fields).toEqual([]);
    const set = await admin.post(SET, { role: 'operator', industry_code: 'poultry', quick_module_ids: ['alarms'], module_order: ['poultry', 'alarms', 'tasks'] });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    expect(set.body.item).toMatchObject({ role: 'operator', tenant_id: 'farm-1', quick_module_ids: ['alarms'], module_order: ['poultry', 'alarms', 'tasks'], updated_by: 'admin-farm-1-all' });
    let p = await prefsOf(operator);
    expect(p).toMatchObject({ quick_module_ids: ['alarms'], source: 'role', role_fields: ['quick_module_ids', 'module_order'] });
    expect(p.dashboard_layout?.module_order).toEqual(['poultry', 'alarms', 'tasks']);
    // the operator's own row (a theme change saves the whole preferences) does not undo them
    const own = await operator.post('/api/v1/auth/ui-preferences/commands/update', { industry_code: 'poultry', theme: 'dark', quick_module_ids: ['tasks'], dashboard_layout: { module_order: ['tasks'], contrast: 'high' } });
    expect(own.status).toBe(200);
    p = await prefsOf(operator);
    expect(p).toMatchObject({ quick_module_ids: ['alarms'], source: 'user', role_fields: ['quick_module_ids', 'module_order'] });
    expect(p.dashboard_layout).toEqual({ module_order: ['poultry', 'alarms', 'tasks'], contrast: 'high' });
    // a session bound to a site gets the tenant-wide defaults
    expect(await prefsOf(siteOperator)).toMatchObject({ quick_module_ids: ['alarms'], role_fields: ['quick_module_ids', 'module_order'] });
    // the admin reads what it set
    const listed = await admin.get('/api/v1/auth/ui-role-preferences/list?industry_code=poultry');
    expect(listed.body.items.find((r: { role: string }) => r.role === 'operator')).toMatchObject({ quick_module_ids: ['alarms'] });
    const audit = await admin.get('/api/v1/audit/list?action=ui-role-preferences.set');
    expect(audit.body.items.length).toBeGreaterThanOrEqual(1);
  });

  it('only an admin sets them, only in its own tenant, only with known modules', async () => {
    const op = await operator.post(SET, { role: 'operator', industry_code: 'poultry', quick_module_ids: ['tasks'] });
    expect(op.status).toBe(403);
    expect(op.body.error.code).toBe('rbac_forbidden');
    expect((await operator.get('/api/v1/auth/ui-role-preferences/list')).status).toBe(403);
    const cross = await otherAdmin.post(SET, { role: 'operator', industry_code: 'poultry', tenant_id: 'farm-1', quick_module_ids: ['tasks'] });
    expect(cross.status).toBe(403);
    expect(cross.body.error.code).toBe('tenant_boundary_denied');
    const unknown = await admin.post(SET, { role: 'operator', industry_code: 'poultry', quick_module_ids: ['no-such-module'] });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details[0]).toMatchObject({ field: 'quick_module_ids.0', reason: 'unsupported_value' });
    // a button the operators could not open: the module list of the role says which they can
    const listed = await admin.get('/api/v1/auth/ui-role-preferences/list?industry_code=poultry');
    const opens = listed.body.items.find((r: { role: string }) => r.role === 'operator').modules as string[];
    expect(opens).toEqual(expect.arrayContaining(['alarms', 'tasks', 'poultry']));
    expect(opens).not.toContain('passkeys');
    const closed = await admin.post(SET, { role: 'operator', industry_code: 'poultry', quick_module_ids: ['tasks', 'passkeys'] });
    expect(closed.status).toBe(400);
    expect(closed.body.error.details).toEqual([{ field: 'quick_module_ids.1', reason: 'not_open_to_role' }]);
    // nothing of that changed farm-1's operators, and farm-2's see nothing of farm-1's
    expect((await prefsOf(operator)).quick_module_ids).toEqual(['alarms']);
    expect(await prefsOf(otherOperator)).toMatchObject({ quick_module_ids: null, role_fields: [] });
    const other = await otherAdmin.get('/api/v1/auth/ui-role-preferences/list?industry_code=poultry');
    expect(other.body.items.every((r: { quick_module_ids: unknown }) => r.quick_module_ids === null)).toBe(true);
  });

  it('an admin\'s own quick buttons stay its own; the admin role\'s defaults fill in where it has none', async () => {
    expect((await admin.post(SET, { role: 'admin', industry_code: 'poultry', quick_module_ids: ['tasks'] })).status).toBe(200);
    expect(await prefsOf(admin)).toMatchObject({ quick_module_ids: ['tasks'], role_fields: ['quick_module_ids'] });
    expect((await admin.post('/api/v1/auth/ui-preferences/commands/update', { industry_code: 'poultry', quick_module_ids: ['alarms'] })).status).toBe(200);
    expect(await prefsOf(admin)).toMatchObject({ quick_module_ids: ['alarms'], source: 'user', role_fields: [] });
  });
});
