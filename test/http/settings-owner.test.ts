// Settings have an owner: module install state and permission rules are shared by every tenant,
// so only the installation's master scope changes them (cloud-multi: the fleet master; edge-single:
// the box's admin: an admin of the box's own tenant, fixed in site.json at first start, or a
// master-scope session of the box). Any other tenant admin's attempt is refused with
// 403 scope_boundary_denied and changes nothing; the other tenant goes on as before. Per-tenant
// settings (site policies, ui-access) stay open to tenant admins, each for its own tenant.
// One server per mode and engine; the its share it and restore what they change.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Answer, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { siteOf } from '../../src/runtime/first-run.js';

const MODES = ['edge-single', 'cloud-multi'] as const;
type Rule = { role: string; resource: string; actions: string[] };

function expectRefused(res: Answer, code: 'scope_boundary_denied' | 'tenant_boundary_denied') {
  expect(res.status, JSON.stringify(res.body)).toBe(403);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  expect(typeof res.body.meta.request_id).toBe('string');
}

describe.each(DIALECTS)('settings owner (%s)', (dialect) => {
  describe.each(MODES)('%s', (mode) => {
    let env: TestEnv;
    let server: RunningServer;
    let owner: Client; // master scope: the fleet master (cloud-multi) or the box's admin (edge-single)
    let adminA: Client;
    let adminB: Client;
    let opB: Client;
    let task = 0;

    const installed = async (id: string) =>
      ((await owner.get('/api/v1/modules/list?limit=500')).body.items as { id: string; installed: boolean }[]).find((m) => m.id === id)?.installed;
    const rulesOf = async (id: string) =>
      ((await owner.get('/api/v1/modules/permissions/list?limit=500')).body.items as { module_id: string; rules: Rule[] }[]).find((m) => m.module_id === id)?.rules;
    const createTask = (c: Client) => c.post('/api/v1/tasks', { item: { title: `round ${++task}`, priority: 'high', sla_minutes: 30 } });

    beforeAll(async () => {
      env = await createTestEnv(dialect);
      server = await env.start({ mode, mqtt_broker: 'off' });
      owner = await clientAs(env, server, { subject: 'owner' });
      adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a' }, owner.contract);
      adminB = await clientAs(env, server, { subject: 'admin-b', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-b' }, owner.contract);
      opB = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'farm-b' }, owner.contract);
    });
    afterAll(async () => env.cleanup());

    it('uninstall: a tenant admin is refused and nothing changes; the owner uninstalls for everyone', async () => {
      const refused = await adminA.post('/api/v1/modules/commands/uninstall', { id: 'tasks' });
      expectRefused(refused, 'scope_boundary_denied');
      expect(refused.body.error.message).toContain(mode === 'edge-single' ? 'the box\'s admin' : 'master-scope session of this installation');
      expect(await installed('tasks')).toBe(true);
      expect((await adminB.get('/api/v1/tasks/list')).status).toBe(200);
      expect((await createTask(opB)).status).toBe(201);
      // The guard refuses before the idempotency store: the same key twice is refused twice, changing nothing.
      for (let i = 0; i < 2; i++) {
        const keyed = await adminA.post('/api/v1/modules/commands/uninstall', { id: 'tasks' }, { 'idempotency-key': 'owner-uninstall-1' });
        expectRefused(keyed, 'scope_boundary_denied');
        expect(keyed.headers.get('idempotent-replayed')).toBeNull();
      }
      expect(await installed('tasks')).toBe(true);

      const done = await owner.post('/api/v1/modules/commands/uninstall', { id: 'tasks' });
      expect(done.status).toBe(200);
      expect(done.body.item).toMatchObject({ id: 'tasks', installed: false });
      const gone = await adminB.get('/api/v1/tasks/list');
      expect(gone.status).toBe(404);
      expect(gone.body.error.code).toBe('module_not_installed');
    });

    it('install: a tenant admin is refused and nothing changes; the owner installs for everyone', async () => {
      expect(await installed('tasks')).toBe(false);
      expectRefused(await adminA.post('/api/v1/modules/commands/install', { id: 'tasks' }), 'scope_boundary_denied');
      expect(await installed('tasks')).toBe(false);
      expect((await adminB.get('/api/v1/tasks/list')).body.error.code).toBe('module_not_installed');

      const done = await owner.post('/api/v1/modules/commands/install', { id: 'tasks' });
      expect(done.status).toBe(200);
      expect(done.body.item).toMatchObject({ id: 'tasks', installed: true });
      expect((await adminB.get('/api/v1/tasks/list')).status).toBe(200);
      // The access audit saw only the owner's decisions: the guard refused before the registry.
      const audit = (await owner.get('/api/v1/modules/access-audit/list?module_id=tasks&limit=500')).body.items as { actor: string }[];
      expect(audit.map((e) => e.actor)).toEqual(['owner', 'owner']);
    });

    it('permission rules: a tenant admin is refused and nothing changes; the owner\'s rules hold for every tenant', async () => {
      const before = await rulesOf('tasks');
      expect(before?.some((r) => r.role === 'operator' && r.actions.includes('create'))).toBe(true);
      const readOnly = [{ role: 'operator', resource: 'tasks', actions: ['read'] }, { role: 'admin', resource: 'tasks', actions: ['read', 'create', 'transition'] }];
      expectRefused(await adminA.post('/api/v1/modules/permissions/commands/update', { id: 'tasks', rules: readOnly }), 'scope_boundary_denied');
      expect(await rulesOf('tasks')).toEqual(before);
      expect((await createTask(opB)).status).toBe(201);

      expect((await owner.post('/api/v1/modules/permissions/commands/update', { id: 'tasks', rules: readOnly })).status).toBe(200);
      const denied = await createTask(opB);
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('rbac_forbidden');
      expect((await owner.post('/api/v1/modules/permissions/commands/update', { id: 'tasks', rules: before })).status).toBe(200);
      expect((await createTask(opB)).status).toBe(201);
    });

    it('tells each caller what it may do: capabilities and the permission matrix follow the owner rule', async () => {
      const install = 'api:POST /api/v1/modules/commands/install';
      const tenantCtx = (await adminA.get('/api/v1/app/context')).body.item.policy;
      expect(tenantCtx.capabilities).toMatchObject({ module_install: false, module_permissions: false });
      expect(tenantCtx.permissions.api[install]).toBe(false);
      const ownerCtx = (await owner.get('/api/v1/app/context')).body.item.policy;
      expect(ownerCtx.capabilities).toMatchObject({ module_install: true, module_permissions: true });
      // Per-tenant settings stay the tenant admin's.
      expect(tenantCtx.permissions.api['api:POST /api/v1/modules/site-policy/commands/set']).toBe(true);
    });

    it('records each refusal in the security log as an owner check', async () => {
      expectRefused(await adminA.post('/api/v1/modules/commands/install', { id: 'tasks' }), 'scope_boundary_denied');
      const log = await owner.get('/api/v1/auth/security-log/list?event=owner_check&result=deny&limit=500');
      expect(log.status).toBe(200);
      const mine = (log.body.items as { tenant_id: string; path: string; reason: string }[]).filter((e) => e.tenant_id === 'farm-a');
      expect(mine.map((e) => e.path)).toEqual(expect.arrayContaining(['/api/v1/modules/commands/install', '/api/v1/modules/commands/uninstall', '/api/v1/modules/permissions/commands/update']));
      expect(mine.every((e) => e.reason === 'scope_boundary_denied')).toBe(true);
    });

    it('site policies are per tenant: a tenant admin changes its own only, the owner any', async () => {
      const siteIds = async (c: Client, extra = '') => ((await c.get(`/api/v1/modules/site-policy/list?site_id=s1${extra}`)).body.items as { module_id: string }[]).map((p) => p.module_id);
      const moduleIds = async (c: Client) => ((await c.get('/api/v1/modules/list?site_id=s1&limit=500')).body.items as { id: string }[]).map((m) => m.id);
      const mine = await adminA.post('/api/v1/modules/site-policy/commands/set', { site_id: 's1', module_id: 'tasks', enabled: false });
      expect(mine.status).toBe(200);
      expect(mine.body.item).toMatchObject({ tenant_id: 'farm-a', module_id: 'tasks', enabled: false });
      expect(await moduleIds(adminA)).not.toContain('tasks');
      expect(await moduleIds(adminB)).toContain('tasks');
      expect(await siteIds(adminB)).toEqual([]);
      expect(await siteIds(owner)).toEqual([]);

      expectRefused(await adminA.post('/api/v1/modules/site-policy/commands/set', { site_id: 's1', module_id: 'tasks', enabled: false, tenant_id: 'farm-b' }), 'tenant_boundary_denied');
      expect(await siteIds(adminB)).toEqual([]);

      // A session bound to a site sets that site's policy only.
      const siteBound = await clientAs(env, server, { subject: 'admin-a-s2', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a', site_id: 's2' }, owner.contract);
      expectRefused(await siteBound.post('/api/v1/modules/site-policy/commands/set', { site_id: 's1', module_id: 'tasks', enabled: true }), 'tenant_boundary_denied');
      expect((await adminA.get('/api/v1/modules/site-policy/list?site_id=s1')).body.items).toMatchObject([{ module_id: 'tasks', enabled: false }]);
      expect((await siteBound.post('/api/v1/modules/site-policy/commands/set', { site_id: 's2', module_id: 'forms', enabled: false })).status).toBe(200);

      const forB = await owner.post('/api/v1/modules/site-policy/commands/set', { site_id: 's1', module_id: 'forms', enabled: false, tenant_id: 'farm-b' });
      expect(forB.status).toBe(200);
      expect(await siteIds(adminB)).toEqual(['forms']);
      expect(await siteIds(adminA)).toEqual(['tasks']);
    });

    it('ui-access rules are per tenant: a tenant admin changes its own, the owner the fleet default', async () => {
      const rulesFor = async (c: Client) => (await c.get('/api/v1/auth/ui-access/list')).body.items[0] as { source: string; rules: { role: string; actions: string[] }[] };
      const before = await rulesFor(adminB);
      const locked = [{ role: 'admin', actions: ['read', 'update'] }, { role: 'operator', actions: [] }];
      const mine = await adminA.post('/api/v1/auth/ui-access/commands/update', { rules: locked });
      expect(mine.status).toBe(200);
      expect(mine.body.item.source).toBe('tenant:farm-a');
      expect(await rulesFor(adminB)).toEqual(before);

      const fleet = await owner.post('/api/v1/auth/ui-access/commands/update', { rules: [{ role: 'admin', actions: ['read', 'update'] }, { role: 'operator', actions: ['read'] }] });
      expect(fleet.body.item.source).toBe('fleet');
      expect((await rulesFor(adminB)).source).toBe('fleet');
      expect((await rulesFor(adminA)).source).toBe('tenant:farm-a');
    });

    it('on a box, the admin of the box\'s own tenant owns the box; its operators are held by their role; in the cloud no tenant owns it', async () => {
      const box = siteOf(server.services.config);
      expect(box === undefined).toBe(mode === 'cloud-multi');
      const tenant = box?.tenant_id ?? 'farm-a';
      const boxAdmin = await clientAs(env, server, { subject: 'box-admin', role: 'admin', scope_type: 'tenant', tenant_id: tenant, site_id: box?.site_id }, owner.contract);
      const boxOperator = await clientAs(env, server, { subject: 'box-op', role: 'operator', scope_type: 'tenant', tenant_id: tenant }, owner.contract);
      const off = await boxAdmin.post('/api/v1/modules/commands/uninstall', { id: 'tasks' });
      if (mode === 'cloud-multi') {
        expectRefused(off, 'scope_boundary_denied');
        expect(await installed('tasks')).toBe(true);
        return;
      }
      expect(off.status, JSON.stringify(off.body)).toBe(200);
      expect(await installed('tasks')).toBe(false);
      const byOperator = await boxOperator.post('/api/v1/modules/commands/install', { id: 'tasks' });
      expect(byOperator.status).toBe(403);
      expect(byOperator.body.error.code).toBe('rbac_forbidden');
      expect(await installed('tasks')).toBe(false);
      expect((await boxAdmin.post('/api/v1/modules/commands/install', { id: 'tasks' })).status).toBe(200);
      expect(await installed('tasks')).toBe(true);
      // Another tenant on the same box is still refused.
      expectRefused(await adminA.post('/api/v1/modules/commands/uninstall', { id: 'tasks' }), 'scope_boundary_denied');
    });

    it('says in the served OpenAPI document who may call each owned operation', async () => {
      const doc = owner.contract.doc as unknown as { paths: Record<string, Record<string, { description?: string; 'x-permission'?: { owner?: string } }>> };
      for (const path of ['/api/v1/modules/commands/install', '/api/v1/modules/commands/uninstall', '/api/v1/modules/permissions/commands/update']) {
        expect(doc.paths[path]!.post!['x-permission']?.owner).toBe('installation');
        expect(doc.paths[path]!.post!.description).toContain('Who may call: an installation-wide setting');
      }
      expect(doc.paths['/api/v1/modules/site-policy/commands/set']!.post!['x-permission']?.owner).toBe('tenant');
      // Every operation the document marks as the installation's is refused to a tenant admin, before its body is read.
      const owned = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops).filter(([, op]) => op['x-permission']?.owner === 'installation').map(([method]) => ({ method, path })));
      expect(owned.length).toBeGreaterThanOrEqual(3);
      for (const op of owned) expectRefused(await adminA.request(op.method.toUpperCase(), op.path.replace(/\{\w+\}/g, 'x'), { body: {} }), 'scope_boundary_denied');
    });
  });
});
