// Roles, projections and the security log.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('roles and projections (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let operator: Client;
  let security: Client;
  let tenantAdmin: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start();
    admin = await clientAs(env, server);
    operator = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'op-1' }, admin.contract);
    security = await clientAs(env, server, { role: 'security', subject: 'sec-1' }, admin.contract);
    tenantAdmin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'farm-admin' }, admin.contract);
  });
  afterAll(async () => env.cleanup());

  it('lets only admin and security read the security log (rbac_forbidden otherwise)', async () => {
    const denied = await operator.get('/api/v1/auth/security-log/list');
    expect(denied.status).toBe(403);
    expect(denied.body.error.code).toBe('rbac_forbidden');
    expect((await security.get('/api/v1/auth/security-log/list')).status).toBe(200);
    const entries = await admin.get('/api/v1/auth/security-log/list?result=deny&event=rbac_check');
    expect(entries.body.items[0]).toMatchObject({ category: 'access', result: 'deny', event: 'rbac_check', method: 'GET', path: '/api/v1/auth/security-log/list', tenant_id: 'farm-1', subject: 'op-1', role: 'operator', reason: 'rbac_forbidden' });
    const bad = await admin.get('/api/v1/auth/security-log/list?result=maybe');
    expect(bad.body.error.details).toEqual([{ field: 'result', reason: 'unsupported_value' }]);
  });

  it('reads one entry by its id: a time id near its time, an older random id anywhere in the log, another tenant\'s or an unknown id not found', async () => {
    await operator.get('/api/v1/auth/security-log/list');
    const [denied] = (await admin.get('/api/v1/auth/security-log/list?result=deny&subject=op-1&limit=1')).body.items;
    const one = await admin.get(`/api/v1/auth/security-log/${denied.id}`);
    expect(one.status).toBe(200);
    expect(one.body.item).toMatchObject({ id: denied.id, at: denied.at, event: 'rbac_check', subject: 'op-1' });
    // An entry of before time ids (a random id), a day older than its neighbours: found over the whole log.
    const { Store } = await import('../../src/db/store.js');
    const { securityLog } = await import('../../src/auth/tables.js');
    const old = { id: '0b9c5f7e-3d1a-4c2b-9e8f-1a2b3c4d5e6f', at: new Date(Date.now() - 86_400_000).toISOString(), category: 'auth', result: 'allow', event: 'login', method: 'POST', path: '/old', tenant_id: 'farm-1', subject: 'op-1', role: 'operator', client_address: null, reason: null, request_id: null, route_context: {} };
    await new Store(server.services.db, securityLog).insert(old);
    expect((await admin.get(`/api/v1/auth/security-log/${old.id}`)).body.item).toMatchObject({ id: old.id, path: '/old' });
    expect((await tenantAdmin.get(`/api/v1/auth/security-log/${old.id}`)).body.item).toMatchObject({ id: old.id });
    // A time id whose time is not its entry's: not found in the window, then found over the whole log.
    const moved = { ...old, id: '0190a5b2-1c3d-7e4f-8a9b-0c1d2e3f4a5b', path: '/moved', tenant_id: 'farm-2' };
    await new Store(server.services.db, securityLog).insert(moved);
    expect((await admin.get(`/api/v1/auth/security-log/${moved.id}`)).body.item).toMatchObject({ path: '/moved' });
    expect((await tenantAdmin.get(`/api/v1/auth/security-log/${moved.id}`)).status).toBe(404);
    const unknown = await admin.get(`/api/v1/auth/security-log/${denied.id.slice(0, -4)}ffff`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('not_found');
  });

  it('records route context headers with each decision, and keeps tenants apart', async () => {
    await operator.get('/api/v1/tables/list', { 'x-route-path': '/farm/tables', 'x-client-version': '1.2.3' });
    const mine = await tenantAdmin.get('/api/v1/auth/security-log/list?subject=op-1&result=allow');
    expect(mine.body.items[0]).toMatchObject({ path: '/api/v1/tables/list', route_context: { route_path: '/farm/tables', client_version: '1.2.3' } });
    await security.get('/api/v1/tables/list');
    const tenantView = await tenantAdmin.get('/api/v1/auth/security-log/list?limit=500');
    expect(tenantView.body.items.every((e: { tenant_id: string }) => e.tenant_id === 'farm-1')).toBe(true);
    expect((await tenantAdmin.get('/api/v1/auth/security-log/list?tenant_id=farm-2')).body.error.code).toBe('tenant_boundary_denied');
  });

  it('merges a tablet\'s repeated reads into one entry while they wait (count, last_at); its refusals stay entries of their own', async () => {
    const tablet = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'tablet-1' }, admin.contract);
    for (let i = 0; i < 6; i++) expect((await tablet.get(`/api/v1/tables/list?limit=${i + 1}`)).status).toBe(200);
    for (let i = 0; i < 2; i++) expect((await tablet.get('/api/v1/auth/security-log/list')).status).toBe(403);
    const list = async (query: string) => (await admin.get(`/api/v1/auth/security-log/list?subject=tablet-1&${query}`)).body.items as { path: string; result: string; at: string; last_at: string; count: number; request_id: string }[];
    // The list wrote them (a reader flushes first). The minute's commit may have fallen between two
    // of the reads (then two entries); the strict merging is test/unit/security-log-merge.test.ts.
    const reads = await list('result=allow&path=/api/v1/tables/list');
    expect(reads.length).toBeLessThanOrEqual(2);
    expect(reads.reduce((n, e) => n + e.count, 0)).toBe(6);
    for (const e of reads) expect(e.last_at >= e.at).toBe(true);
    const refused = await list('result=deny');
    expect(refused.map((e) => [e.path, e.count, e.last_at === e.at])).toEqual([['/api/v1/auth/security-log/list', 1, true], ['/api/v1/auth/security-log/list', 1, true]]);
    expect(new Set(refused.map((e) => e.request_id)).size).toBe(2);
    // Written entries are not merged into: the next read is an entry of its own.
    await tablet.get('/api/v1/tables/list');
    const again = await list('result=allow&path=/api/v1/tables/list');
    expect(again).toHaveLength(reads.length + 1);
    expect(again[0]).toMatchObject({ count: 1 });
  });

  it('projects the caller\'s permissions with computed allowed, filtered by layer and allowed', async () => {
    const all = await operator.get('/api/v1/auth/permissions/list?limit=500');
    const byId = new Map(all.body.items.map((o: { id: string; allowed: boolean }) => [o.id, o.allowed]));
    expect(byId.get('api:GET /api/v1/tables/list')).toBe(true);
    expect(byId.get('api:POST /api/v1/tables')).toBe(false);
    expect(byId.get('api:GET /api/v1/auth/security-log/list')).toBe(false);
    expect(byId.get('ui:ui.sidebar.menu.read')).toBe(true);
    expect(byId.get('ui:ui.sidebar.menu.update')).toBe(false);
    const denied = await operator.get('/api/v1/auth/permissions/list?layer=api&allowed=false&limit=500');
    expect(denied.body.items.length).toBeGreaterThan(0);
    expect(denied.body.items.every((o: { layer: string; allowed: boolean }) => o.layer === 'api' && !o.allowed)).toBe(true);
    // The projection agrees with what the guard enforces.
    expect((await operator.post('/api/v1/tables', { item: { id: 'nope' } })).status).toBe(403);
  });

  it('serves the app context with policy, capabilities and guards', async () => {
    const ctx = (await operator.get('/api/v1/app/context')).body.item;
    expect(ctx).toMatchObject({
      deployment_mode: 'edge-single', industry_code: 'poultry', available_industries: ['poultry'], tenant_id: 'farm-1',
      policy: { scope_type: 'tenant', role: 'operator', effective_tenant_id: 'farm-1', guards: { master_scope: false, tenant_scope: true, allow_industry_switch: false } },
    });
    expect(ctx.policy.capabilities).toMatchObject({ switch_industry: false, sidebar_menu: true, sidebar_menu_update: false, module_install: false });
    expect(ctx.policy.permissions.api['api:GET /api/v1/tables/list']).toBe(true);
    const adminCtx = (await admin.get('/api/v1/app/context')).body.item;
    expect(adminCtx.policy.capabilities.sidebar_menu_update).toBe(true);
    expect(adminCtx.policy.guards.master_scope).toBe(true);
  });

  it('updates the sidebar menu rules per tenant; only roles with update may, and admin cannot be locked out', async () => {
    const rules = [{ role: 'operator', actions: ['read', 'update'] }, { role: 'admin', actions: ['read', 'update'] }, { role: 'security', actions: [] }];
    expect((await operator.post('/api/v1/auth/ui-access/commands/update', { rules })).status).toBe(403);
    const lockout = await tenantAdmin.post('/api/v1/auth/ui-access/commands/update', { rules: [{ role: 'admin', actions: ['read'] }] });
    expect(lockout.body.error.details).toEqual([{ field: 'rules', reason: 'locks_out_admin' }]);
    const ok = await tenantAdmin.post('/api/v1/auth/ui-access/commands/update', { rules });
    expect(ok.body.item).toMatchObject({ id: 'ui.sidebar.menu', source: 'tenant:farm-1' });
    expect((await operator.get('/api/v1/auth/ui-access/list')).body.items[0].rules).toEqual(rules);
    expect((await operator.get('/api/v1/app/context')).body.item.policy.capabilities.sidebar_menu_update).toBe(true);
    // Another tenant still has the default.
    const other = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'farm-2' }, admin.contract);
    expect((await other.get('/api/v1/auth/ui-access/list')).body.items[0].source).toBe('default');
  });

  it('filters the module projection by grants on the server', async () => {
    const ids = async (c: Client) => (await c.get('/api/v1/modules/list?limit=500')).body.items.map((m: { id: string }) => m.id) as string[];
    const full = await ids(admin);
    expect(full).toEqual(expect.arrayContaining(['tables', 'passkeys', 'tenant-master', 'swine']));
    const mine = await ids(operator);
    expect(mine).toEqual(expect.arrayContaining(['tables', 'forms', 'field']));
    // No grant (passkeys), master scope only (tenant-master), not installed on a poultry box (swine).
    for (const hidden of ['passkeys', 'tenant-master', 'subscriptions', 'swine']) expect(mine, hidden).not.toContain(hidden);
    const sec = await ids(security);
    expect(sec).toContain('passkeys');
    expect(sec).not.toContain('field');
  });

  it('guards scope groups: master groups need master, tenant groups need tenant (by path)', async () => {
    const { requiredScope } = await import('../../src/auth/guard.js');
    const route = (path: string) => ({ path, access: { resource: 'x', action: 'read' } }) as never;
    expect(requiredScope(route('/api/v1/tenant-master/list'))).toBe('master');
    expect(requiredScope(route('/api/v1/tenant-master-sync/list'))).toBe('master');
    expect(requiredScope(route('/api/v1/subscriptions/list'))).toBe('master');
    expect(requiredScope(route('/api/v1/analytics/summary'))).toBe('master');
    expect(requiredScope(route('/api/v1/poultry-climate/list'))).toBe('tenant');
    expect(requiredScope(route('/api/v1/industry-alarms/list'))).toBe('tenant');
    expect(requiredScope(route('/api/v1/melioration-field/list'))).toBe('tenant');
    expect(requiredScope(route('/api/v1/tables/list'))).toBe('any');
  });
});

describe('security log retention', () => {
  it('deletes entries older than security_log_retention_days at a flush', async () => {
    const env = await createTestEnv('sqlite');
    try {
      const server = await env.start({ security_log_retention_days: '30' });
      const admin = await clientAs(env, server);
      await admin.get('/api/v1/tables/list');
      await server.services.security.flush();
      await server.services.db.exec(`update auth_security_log set at = '2020-01-01T00:00:00.000Z'`);
      const { SecurityLog } = await import('../../src/auth/security-log.js');
      const fresh = new SecurityLog(server.services.db, server.services.log, 30);
      fresh.record({ category: 'auth', result: 'allow', event: 'login', method: 'POST', path: '/x' });
      await fresh.flush();
      const left = await admin.get('/api/v1/auth/security-log/list?limit=500');
      expect(left.body.items.every((e: { at: string }) => e.at > '2021-01-01')).toBe(true);
      expect(left.body.items.some((e: { path: string }) => e.path === '/x')).toBe(true);
    } finally {
      await env.cleanup();
    }
  });
});
