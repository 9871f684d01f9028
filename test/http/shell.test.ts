// Shell settings: per-user preferences with has_* flags, versioned shell profiles with export
// (schema v1, live snapshot without history), import, admin-only rollback and the audit trail.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('shell settings (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let adminA: Client;
  let opA: Client;
  let opA2: Client;
  let secA: Client;
  let opB: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off' });
    adminA = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA' });
    opA = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, adminA.contract);
    opA2 = await clientAs(env, server, { subject: 'op-a2', role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, adminA.contract);
    secA = await clientAs(env, server, { subject: 'sec-a', role: 'security', scope_type: 'tenant', tenant_id: 'tA' }, adminA.contract);
    opB = await clientAs(env, server, { subject: 'op-b', role: 'operator', scope_type: 'tenant', tenant_id: 'tB' }, adminA.contract);
  });
  afterAll(async () => env.cleanup());

  it('exports a live snapshot (schema v1) while the profile has no history', async () => {
    const res = await opA.post('/api/v1/auth/shell-profile/commands/export', { site_id: 'farm-1', industry_code: 'poultry' });
    expect(res.status).toBe(200);
    expect(res.body.item).toMatchObject({ schema_version: 'v1', live: true, version: null, tenant_id: 'tA', site_id: 'farm-1', industry_code: 'poultry', theme: null });
    expect(res.body.item.ui_access.length).toBeGreaterThan(0);
    expect((await opA.get('/api/v1/auth/shell-profile/list')).body.items).toEqual([]);
  });

  it('preferences: has_* flags false, then set per user and per context; every role may update', async () => {
    const empty = (await opA.get('/api/v1/auth/ui-preferences/list?site_id=farm-1&industry_code=poultry')).body.items[0];
    expect(empty).toMatchObject({ subject: 'op-a', theme: null, has_theme: false, has_dashboard_layout: false, has_quick_module_ids: false, source: 'none' });
    const upd = await opA.post('/api/v1/auth/ui-preferences/commands/update', { site_id: 'farm-1', industry_code: 'poultry', theme: 'dark', quick_module_ids: ['alarms', 'tasks'] });
    expect(upd.status).toBe(200);
    expect(upd.body.item).toMatchObject({ theme: 'dark', quick_module_ids: ['alarms', 'tasks'], has_theme: true, has_dashboard_layout: false, has_quick_module_ids: true });
    const merged = await opA.post('/api/v1/auth/ui-preferences/commands/update', { site_id: 'farm-1', industry_code: 'poultry', dashboard_layout: { columns: 3, blocks: ['alarms'] } });
    expect(merged.body.item).toMatchObject({ theme: 'dark', dashboard_layout: { columns: 3, blocks: ['alarms'] }, has_dashboard_layout: true });
    const mine = (await opA.get('/api/v1/auth/ui-preferences/list?site_id=farm-1&industry_code=poultry')).body.items[0];
    expect(mine).toMatchObject({ theme: 'dark', source: 'user', has_theme: true });
    // Another context of the same user is separate.
    expect((await opA.get('/api/v1/auth/ui-preferences/list?site_id=farm-2')).body.items[0].has_theme).toBe(false);
    // Another user of the same tenant and context sees the profile values, without own flags.
    const other = (await opA2.get('/api/v1/auth/ui-preferences/list?site_id=farm-1&industry_code=poultry')).body.items[0];
    expect(other).toMatchObject({ theme: 'dark', source: 'profile', has_theme: false });
    expect((await secA.post('/api/v1/auth/ui-preferences/commands/update', { theme: 'light' })).status).toBe(200);
    expect((await opA.post('/api/v1/auth/ui-preferences/commands/update', { theme: 'neon' })).status).toBe(400);
    expect((await opA.post('/api/v1/auth/ui-preferences/commands/update', { quick_module_ids: ['no-such-module'] })).body.error.details).toContainEqual({ field: 'quick_module_ids.0', reason: 'unsupported_value' });
  });

  it('each preferences update is a shell-profile version with an audit entry', async () => {
    const list = (await opA.get('/api/v1/auth/shell-profile/list?site_id=farm-1&industry_code=poultry')).body.items;
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ tenant_id: 'tA', site_id: 'farm-1', industry_code: 'poultry', current_version: 2 });
    expect(list[0].versions.map((v: { version: number; source: string }) => `${v.version}:${v.source}`)).toEqual(['1:ui-preferences', '2:ui-preferences']);
    expect(list[0].audit.map((a: { action: string }) => a.action)).toEqual(['export', 'preferences-update', 'preferences-update']);
    expect((await opB.get('/api/v1/auth/shell-profile/list')).body.items).toEqual([]);
  });

  it('imports (admin) as a new version, exports any version, and round-trips an export', async () => {
    const ctx = { site_id: 'farm-1', industry_code: 'poultry' };
    expect((await opA.post('/api/v1/auth/shell-profile/commands/import', { ...ctx, theme: 'light' })).status).toBe(403);
    const imp = await adminA.post('/api/v1/auth/shell-profile/commands/import', { ...ctx, theme: 'light', dashboard_layout: [{ block: 'tasks' }], quick_module_ids: ['status'], ui_access: [{ resource: 'ui.sidebar.menu', role: 'operator', actions: ['read'] }] });
    expect(imp.status).toBe(201);
    expect(imp.body.item.current_version).toBe(3);
    expect(imp.body.item.versions.at(-1)).toMatchObject({ version: 3, source: 'import', theme: 'light', rollback_of: null, created_by: 'admin-a' });
    const v1 = (await opA.post('/api/v1/auth/shell-profile/commands/export', { ...ctx, version: 1 })).body.item;
    expect(v1).toMatchObject({ schema_version: 'v1', live: false, version: 1, theme: 'dark' });
    const current = (await opA.post('/api/v1/auth/shell-profile/commands/export', ctx)).body.item;
    expect(current).toMatchObject({ version: 3, theme: 'light', quick_module_ids: ['status'] });
    expect((await opA.post('/api/v1/auth/shell-profile/commands/export', { ...ctx, version: 99 })).status).toBe(404);
    const again = await adminA.post('/api/v1/auth/shell-profile/commands/import', current);
    expect(again.status).toBe(201);
    expect(again.body.item.versions.at(-1)).toMatchObject({ version: 4, theme: 'light', dashboard_layout: [{ block: 'tasks' }], ui_access: current.ui_access });
    expect((await adminA.post('/api/v1/auth/shell-profile/commands/import', { ...current, schema_version: 'v2' })).status).toBe(400);
  });

  it('rollback is admin-only, creates a new version with rollback_of, and is audited', async () => {
    const ctx = { site_id: 'farm-1', industry_code: 'poultry' };
    for (const api of [opA, secA]) {
      const denied = await api.post('/api/v1/auth/shell-profile/commands/rollback', { ...ctx, to_version: 1 });
      expect(denied.status).toBe(403);
      expect(denied.body.error.code).toBe('rbac_forbidden');
    }
    const rb = await adminA.post('/api/v1/auth/shell-profile/commands/rollback', { ...ctx, to_version: 1 });
    expect(rb.status).toBe(201);
    expect(rb.body.item.current_version).toBe(5);
    expect(rb.body.item.versions.at(-1)).toMatchObject({ version: 5, rollback_of: 1, source: 'rollback', theme: 'dark', quick_module_ids: ['alarms', 'tasks'] });
    expect(rb.body.item.audit.at(-1)).toMatchObject({ action: 'rollback', actor: 'admin-a', version: 5, details: { rollback_of: 1 } });
    expect((await adminA.post('/api/v1/auth/shell-profile/commands/rollback', { ...ctx, to_version: 42 })).status).toBe(404);
    const audit = (await adminA.get('/api/v1/audit/list?resource=shell-profile&action=shell-profile.rollback')).body.items;
    expect(audit[0]).toMatchObject({ actor: 'admin-a', tenant_id: 'tA' });
    expect((await opA.get('/api/v1/auth/ui-preferences/list?site_id=farm-1&industry_code=poultry')).body.items[0].theme).toBe('dark');
  });
});

describe('shell live snapshot follows auth/ui-access', () => {
  it('exports the tenant\'s sidebar menu rules when there is no history', async () => {
    const env = await createTestEnv('sqlite');
    try {
      const server = await env.start({ mqtt_broker: 'off' });
      const tenantAdmin = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-ui' });
      const rules = [{ role: 'operator', actions: ['read', 'update'] }, { role: 'admin', actions: ['read', 'update'] }, { role: 'security', actions: [] }];
      expect((await tenantAdmin.post('/api/v1/auth/ui-access/commands/update', { rules })).status).toBe(200);
      const exported = await tenantAdmin.post('/api/v1/auth/shell-profile/commands/export', {});
      expect(exported.body.item.live).toBe(true);
      expect(exported.body.item.ui_access).toEqual([
        { resource: 'ui.sidebar.menu', role: 'operator', actions: ['read', 'update'] },
        { resource: 'ui.sidebar.menu', role: 'admin', actions: ['read', 'update'] },
        { resource: 'ui.sidebar.menu', role: 'security', actions: [] },
      ]);
    } finally {
      await env.cleanup();
    }
  });
});
