// The module registry (issue 3, contract 4.3) over HTTP on every dialect: the catalogue and its
// circuits against what the server really serves and holds, install rules and their codes,
// industry policy, versions, permissions, site policies, the access audit, restart and the
// one-time legacy import.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, createClient, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

type Rec = { id: string; installed: boolean; core: boolean; version: string; dependencies: string[]; industry_code: string | null; backend: { routes: string[] }; database: { migrations: string[]; tables: { name: string; primary_key: string[]; columns: string[] }[] }; permissions: { rules: { role: string; resource: string; actions: string[] }[] } };

const CATALOGUE = ['core', 'auth', 'tables', 'forms', 'tenant-master', 'tenant-master-sync', 'subscriptions', 'sla-profiles', 'version-policies', 'analytics', 'industry', 'poultry', 'swine', 'melioration'];

async function catalogue(api: Client, query = ''): Promise<Rec[]> {
  const res = await api.get(`/api/v1/modules/list?limit=500${query}`);
  expect(res.status).toBe(200);
  return res.body.items as Rec[];
}
const byId = async (api: Client, id: string) => (await catalogue(api)).find((m) => m.id === id) as Rec;
const expectError = (res: { status: number; body: { error: { code: string } } }, status: number, code: string) => {
  expect({ status: res.status, code: res.body.error?.code }).toEqual({ status, code });
};

async function columnsOf(server: RunningServer, table: string): Promise<string[]> {
  const db = server.services.db;
  const rows = db.dialect === 'sqlite'
    ? await db.rows<{ name: string }>(sql`select name from pragma_table_info(${table})`)
    : await db.rows<{ name: string }>(sql`select column_name as name from information_schema.columns where table_schema = current_schema() and table_name = ${table}`);
  return rows.map((r) => r.name).sort();
}

describe.each(DIALECTS)('module registry (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let api: Client;
  let operator: Client;
  let security: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start();
    api = await clientAs(env, server, { subject: 'alice' });
    operator = await clientAs(env, server, { subject: 'olga', role: 'operator' }, api.contract);
    security = await clientAs(env, server, { subject: 'sam', role: 'security' }, api.contract);
  });
  afterAll(async () => env.cleanup());

  it('lists the whole catalogue with metadata; edge-single poultry leaves other industries uninstalled', async () => {
    const mods = await catalogue(api);
    expect(mods.map((m) => m.id)).toEqual(expect.arrayContaining(CATALOGUE));
    for (const m of mods) expect(m.version).toMatch(/^\d+\.\d+\.\d+$/);
    const get = (id: string) => mods.find((m) => m.id === id) as Rec;
    expect(get('core')).toMatchObject({ core: true, installed: true });
    expect(get('auth')).toMatchObject({ core: true, installed: true });
    expect(get('poultry')).toMatchObject({ installed: true, industry_code: 'poultry', dependencies: ['industry'], industry_scope: 'industry' });
    expect(get('swine')).toMatchObject({ installed: false, industry_code: 'swine' });
    expect(get('melioration').installed).toBe(false);
    expect(get('analytics')).toMatchObject({ installed: true, industry_scope: 'master', industry_code: null });
    expect(get('tables').core).toBe(false);
    const scheme = await operator.get('/api/v1/modules/scheme');
    expect(scheme.status).toBe(200);
    expect(scheme.body.item).toMatchObject({ display_module: 'modules', show_filters: true, module_view: 'catalog' });
    expect(scheme.body.item.catalog_enrichment.sidebar_fields).toContain('name');
    expect(scheme.body.item.catalog_enrichment.infobar_fields).toContain('description');
  });

  it('shows backend routes and tables that match the served API and the migrated database', async () => {
    const doc = api.contract.doc as unknown as { paths: Record<string, Record<string, { 'x-module': string }>> };
    const served = new Map<string, Set<string>>();
    for (const [path, ops] of Object.entries(doc.paths)) for (const op of Object.values(ops)) (served.get(op['x-module']) ?? served.set(op['x-module'], new Set()).get(op['x-module'])!).add(path);
    const applied = await server.services.db.rows<{ module: string; tag: string }>(sql`select module, tag from cabinet_migrations order by module, tag`);
    const installed = (await catalogue(api)).filter((m) => m.installed);
    expect(installed.length).toBeGreaterThan(8);
    for (const m of installed) {
      // Every route the record names is served (documented by the served OpenAPI), and no other.
      expect(new Set(m.backend.routes), m.id).toEqual(served.get(m.id) ?? new Set());
      for (const t of m.database.tables) {
        expect(await columnsOf(server, t.name), `${m.id}/${t.name}`).toEqual([...t.columns].sort());
        for (const k of t.primary_key) expect(t.columns).toContain(k);
      }
      expect(m.database.migrations, m.id).toEqual(applied.filter((r) => r.module === m.id).map((r) => r.tag));
    }
    const core = installed.find((m) => m.id === 'core') as Rec;
    expect(core.backend.routes).toEqual(expect.arrayContaining(['/api/v1/modules/list', '/api/v1/modules/commands/install', '/health']));
    expect(core.database.tables.map((t) => t.name)).toEqual(expect.arrayContaining(['module_installs', 'site_policies', 'permission_overrides', 'registry_imports']));
    expect(core.database.migrations).toEqual(['0000_init', '0001_registry']);
    const tables = installed.find((m) => m.id === 'tables') as Rec;
    expect(tables.backend.routes).toEqual(['/api/v1/tables/scheme', '/api/v1/tables/list', '/api/v1/tables', '/api/v1/tables/{id}']);
    expect(tables.database.tables).toEqual([{ name: 'tables_items', primary_key: ['id'], columns: ['id', 'tenant_id', 'data', 'created_at', 'updated_at'] }]);
    // A GET list route of every installed module with one is really served and installed (it may
    // still refuse a master admin by scope: that is an answer of the route, not a missing one).
    for (const m of installed) {
      for (const path of m.backend.routes.filter((p) => p.startsWith('/api/v1/') && p.endsWith('/list'))) {
        const res = await api.get(path);
        expect([404, 405].includes(res.status) && ['not_found', 'method_not_allowed', 'module_not_installed'].includes(res.body.error?.code), `${path}: ${res.status} ${res.body.error?.code}`).toBe(false);
      }
    }
  });

  it('installs and uninstalls along the dependency chain', async () => {
    const blocked = await api.post('/api/v1/modules/commands/uninstall', { id: 'industry' });
    expectError(blocked, 409, 'module_has_dependents');
    expect(blocked.body.error.details).toEqual([{ field: 'dependents', reason: 'poultry' }]);
    const down = await api.post('/api/v1/modules/commands/uninstall', { id: 'poultry' });
    expect(down.status).toBe(200);
    expect(down.body.item).toMatchObject({ id: 'poultry', installed: false });
    expectError(await api.post('/api/v1/modules/commands/uninstall', { id: 'poultry' }), 404, 'module_not_installed');
    expect((await api.post('/api/v1/modules/commands/uninstall', { id: 'industry' })).status).toBe(200);
    const missing = await api.post('/api/v1/modules/commands/install', { id: 'poultry' });
    expectError(missing, 409, 'module_dependency_missing');
    expect(missing.body.error.details).toEqual([{ field: 'dependencies', reason: 'industry' }]);
    expect((await byId(api, 'poultry')).installed).toBe(false);
    expect((await api.post('/api/v1/modules/commands/install', { id: 'industry' })).status).toBe(200);
    const up = await api.post('/api/v1/modules/commands/install', { id: 'poultry' });
    expect(up.status).toBe(200);
    expect(up.body.item).toMatchObject({ id: 'poultry', installed: true });
    expectError(await api.post('/api/v1/modules/commands/install', { id: 'poultry' }), 409, 'module_already_installed');
  });

  it('refuses unknown modules, core uninstalls and malformed bodies', async () => {
    expectError(await api.post('/api/v1/modules/commands/install', { id: 'no-such-module' }), 404, 'module_not_found');
    expectError(await api.post('/api/v1/modules/commands/uninstall', { id: 'no-such-module' }), 404, 'module_not_found');
    expectError(await api.post('/api/v1/modules/commands/uninstall', { id: 'core' }), 409, 'module_is_core');
    expectError(await api.post('/api/v1/modules/commands/uninstall', { id: 'auth' }), 409, 'module_is_core');
    const bad = await api.post('/api/v1/modules/commands/install', { id: 'tables', colour: 'red' });
    expectError(bad, 400, 'validation_error');
    expectError(await api.post('/api/v1/modules/commands/install', { id: 'tables', industry_code: 'fish' }), 400, 'validation_error');
    expectError(await operator.post('/api/v1/modules/commands/install', { id: 'swine' }), 403, 'rbac_forbidden');
  });

  it('applies the edge-single industry policy and the one-major-line rule', async () => {
    const swine = await api.post('/api/v1/modules/commands/install', { id: 'swine' });
    expectError(swine, 409, 'industry_policy_conflict');
    expect((await byId(api, 'swine')).installed).toBe(false);
    expect((await api.post('/api/v1/modules/commands/uninstall', { id: 'subscriptions' })).status).toBe(409); // sla-profiles depends on it
    expect((await api.post('/api/v1/modules/commands/uninstall', { id: 'version-policies' })).status).toBe(200);
    expectError(await api.post('/api/v1/modules/commands/install', { id: 'version-policies', industry_code: 'swine' }), 409, 'industry_policy_conflict');
    const major = await api.post('/api/v1/modules/commands/install', { id: 'version-policies', version: '2.0.0' });
    expectError(major, 409, 'module_version_conflict');
    expect(major.body.error.details).toEqual([{ field: 'version', reason: 'major_line' }]);
    const same = await api.post('/api/v1/modules/commands/install', { id: 'version-policies', version: '1.9.0', industry_code: 'poultry' });
    expect(same.status).toBe(200);
    expect(same.body.item).toMatchObject({ installed: true, version: '1.0.0' });
  });

  it('answers 404 module_not_installed on every endpoint of an uninstalled module, before anything else, until reinstalled', async () => {
    expect((await api.post('/api/v1/tables', { item: { id: 'kept-row', v: 1 } })).status).toBe(201);
    expect((await api.post('/api/v1/modules/commands/uninstall', { id: 'tables' })).status).toBe(200);
    expectError(await api.get('/api/v1/tables/list'), 404, 'module_not_installed');
    expectError(await api.get('/api/v1/tables/scheme'), 404, 'module_not_installed');
    expectError(await api.get('/api/v1/tables/kept-row'), 404, 'module_not_installed');
    expectError(await api.delete('/api/v1/tables/kept-row'), 404, 'module_not_installed');
    // Before authentication, query and body checks.
    const anonymous = await createClient(server.url, {}, api.contract);
    expectError(await anonymous.get('/api/v1/tables/list?colour=blue'), 404, 'module_not_installed');
    expectError(await anonymous.request('POST', '/api/v1/tables', { raw: '{not json', headers: { 'content-type': 'application/json' } }), 404, 'module_not_installed');
    expectError(await operator.patch('/api/v1/tables/kept-row', { item: {} }), 404, 'module_not_installed');
    expect((await api.get('/api/v1/forms/list')).status).toBe(200);
    expect((await api.post('/api/v1/modules/commands/install', { id: 'tables' })).status).toBe(200);
    const back = await api.get('/api/v1/tables/kept-row');
    expect(back.status).toBe(200);
    expect(back.body.item.v).toBe(1);
  });

  it('lists database and permission models with installed_only, industry_code and validation', async () => {
    const db = await api.get('/api/v1/modules/database/list?limit=500');
    expect(db.status).toBe(200);
    const ids = db.body.items.map((i: { module_id: string }) => i.module_id);
    expect(ids).toContain('core');
    expect(ids).not.toContain('swine');
    const core = db.body.items.find((i: { module_id: string }) => i.module_id === 'core');
    expect(core).toMatchObject({ module_name: 'Core', installed: true, migrations: ['0000_init', '0001_registry'] });
    const all = await api.get('/api/v1/modules/database/list?installed_only=false&limit=500');
    expect(all.body.items.map((i: { module_id: string }) => i.module_id)).toContain('swine');
    const poultry = await api.get('/api/v1/modules/permissions/list?installed_only=false&industry_code=poultry&limit=500');
    const pIds = poultry.body.items.map((i: { module_id: string }) => i.module_id);
    expect(pIds).toEqual(expect.arrayContaining(['core', 'tables', 'industry', 'poultry', 'analytics']));
    expect(pIds).not.toContain('swine');
    expect(pIds).not.toContain('melioration');
    const perm = (await operator.get('/api/v1/modules/permissions/list?limit=500')).body.items.find((i: { module_id: string }) => i.module_id === 'core');
    expect(perm.rules).toContainEqual({ role: 'operator', resource: 'modules', actions: ['read'] });
    const bad1 = await api.get('/api/v1/modules/database/list?installed_only=maybe');
    expectError(bad1, 400, 'validation_error');
    expect(bad1.body.error.details).toEqual([{ field: 'installed_only', reason: 'unsupported_value' }]);
    const bad2 = await api.get('/api/v1/modules/permissions/list?industry_code=fish');
    expect(bad2.body.error.details).toEqual([{ field: 'industry_code', reason: 'unsupported_value' }]);
    const paged = await api.get('/api/v1/modules/list?limit=3&offset=2');
    expect(paged.body).toMatchObject({ offset: 2, limit: 3, has_more: true });
    expect(paged.body.items).toHaveLength(3);
  });

  it('updates permission rules: effective at once, industry-checked, no admin lockout, all audited', async () => {
    const restricted = await api.post('/api/v1/modules/permissions/commands/update', {
      id: 'forms', rules: [{ role: 'admin', resource: 'forms', actions: ['read', 'read'] }, { role: 'operator', resource: 'forms', actions: ['read'] }],
    });
    expect(restricted.status).toBe(200);
    expect(restricted.body.item.permissions.rules).toEqual([{ role: 'admin', resource: 'forms', actions: ['read'] }, { role: 'operator', resource: 'forms', actions: ['read'] }]);
    expectError(await api.post('/api/v1/forms', { item: { x: 1 } }), 403, 'rbac_forbidden');
    expect((await api.get('/api/v1/forms/list')).status).toBe(200);
    const listed = (await api.get('/api/v1/modules/permissions/list?limit=500')).body.items.find((i: { module_id: string }) => i.module_id === 'forms');
    expect(listed.rules).toEqual(restricted.body.item.permissions.rules);
    expectError(await api.post('/api/v1/modules/permissions/commands/update', { id: 'forms', industry_code: 'swine', rules: [] }), 409, 'industry_policy_conflict');
    expectError(await api.post('/api/v1/modules/permissions/commands/update', { id: 'ghost', rules: [] }), 404, 'module_not_found');
    const lockout = await api.post('/api/v1/modules/permissions/commands/update', { id: 'core', rules: [] });
    expectError(lockout, 400, 'validation_error');
    expect(lockout.body.error.details).toEqual([{ field: 'rules', reason: 'admin_lockout' }]);
    expectError(await api.post('/api/v1/modules/permissions/commands/update', { id: 'forms', rules: [{ role: 'guest', resource: 'forms', actions: ['read'] }] }), 400, 'validation_error');
    const restored = await api.post('/api/v1/modules/permissions/commands/update', {
      id: 'forms', industry_code: 'poultry', rules: [{ role: 'admin', resource: 'forms', actions: ['read', 'create', 'update', 'delete'] }],
    });
    expect(restored.status).toBe(200);
    expect((await api.post('/api/v1/forms', { item: { x: 1 } })).status).toBe(201);
    expectError(await operator.get('/api/v1/forms/list'), 403, 'rbac_forbidden');
    const audit = await api.get('/api/v1/modules/access-audit/list?module_id=forms');
    expect(audit.body.items.slice(0, 3).map((e: { decision: string; reason: string }) => `${e.decision}:${e.reason}`)).toEqual(['allow:rules_updated', 'deny:industry_policy_conflict', 'allow:rules_updated']);
    expect(audit.body.items[1]).toMatchObject({ operation: 'permissions_update', requested_industry_code: 'swine', module_industry_code: null, actor: 'alice' });
  });

  it('keeps an access audit of decisions, newest first, with filters and role checks', async () => {
    const res = await security.get('/api/v1/modules/access-audit/list?limit=500');
    expect(res.status).toBe(200);
    const items = res.body.items as { id: number; operation: string; decision: string; module_id: string; timestamp: string }[];
    expect(items.length).toBeGreaterThan(10);
    for (let i = 1; i < items.length; i++) expect(items[i - 1]!.id).toBeGreaterThan(items[i]!.id);
    const swine = await api.get('/api/v1/modules/access-audit/list?module_industry_code=swine&decision=deny');
    expect(swine.body.items[0]).toMatchObject({ operation: 'install', decision: 'deny', reason: 'industry_policy_conflict', module_id: 'swine', requested_industry_code: 'poultry', module_industry_code: 'swine', actor: 'alice' });
    const installs = await api.get('/api/v1/modules/access-audit/list?module_id=poultry&decision=allow');
    expect(installs.body.items.map((e: { operation: string }) => e.operation)).toEqual(['install', 'uninstall']);
    const requested = await api.get('/api/v1/modules/access-audit/list?requested_industry_code=swine');
    expect(requested.body.items.every((e: { requested_industry_code: string }) => e.requested_industry_code === 'swine')).toBe(true);
    expect(requested.body.total).toBeGreaterThan(0);
    expectError(await operator.get('/api/v1/modules/access-audit/list'), 403, 'rbac_forbidden');
    expectError(await api.get('/api/v1/modules/access-audit/list?decision=maybe'), 400, 'validation_error');
    const scheme = await security.get('/api/v1/modules/access-audit/scheme');
    expect(scheme.body.item.retention).toEqual({ kept: 200, storage: 'memory' });
  });

  it('sets site policies: modules/list with site_id leaves disabled modules out; tenants keep their own', async () => {
    const set = await api.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'forms', enabled: false });
    expect(set.status).toBe(200);
    expect(set.body.item).toMatchObject({ site_id: 'site-1', module_id: 'forms', enabled: false, tenant_id: null, updated_by: 'alice' });
    const ids = async (client: Client, q: string) => (await catalogue(client, q)).map((m) => m.id);
    expect(await ids(api, '&site_id=site-1')).not.toContain('forms');
    expect(await ids(api, '&site_id=site-2')).toContain('forms');
    expect(await ids(api, '')).toContain('forms');
    const dbIds = (await api.get('/api/v1/modules/database/list?site_id=site-1&limit=500')).body.items.map((i: { module_id: string }) => i.module_id);
    expect(dbIds).not.toContain('forms');
    const list = await operator.get('/api/v1/modules/site-policy/list?site_id=site-1');
    expect(list.body.items).toEqual([set.body.item]);
    expectError(await api.get('/api/v1/modules/site-policy/list'), 400, 'validation_error');
    expectError(await api.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'core', enabled: false }), 409, 'module_is_core');
    expectError(await api.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'ghost', enabled: false }), 404, 'module_not_found');
    expectError(await operator.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'forms', enabled: true }), 403, 'rbac_forbidden');

    const tenant = await clientAs(env, server, { subject: 'tina', scope_type: 'tenant', tenant_id: 't1' }, api.contract);
    expect(await ids(tenant, '&site_id=site-1')).toContain('forms');
    const mine = await tenant.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'tables', enabled: false });
    expect(mine.body.item).toMatchObject({ tenant_id: 't1', module_id: 'tables', enabled: false });
    expect(await ids(tenant, '&site_id=site-1')).not.toContain('tables');
    expect(await ids(api, '&site_id=site-1')).toContain('tables');
    expect((await tenant.get('/api/v1/modules/site-policy/list?site_id=site-1')).body.items.map((p: { module_id: string }) => p.module_id)).toEqual(['tables']);
    expect((await api.get('/api/v1/modules/site-policy/list?site_id=site-1&tenant_id=t1')).body.items.map((p: { module_id: string }) => p.module_id)).toEqual(['tables']);
    expect(await ids(api, '&site_id=site-1&tenant_id=t1')).not.toContain('tables');
    expectError(await tenant.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'tables', enabled: true, tenant_id: 't2' }), 403, 'tenant_boundary_denied');
    expectError(await tenant.get('/api/v1/modules/site-policy/list?site_id=site-1&tenant_id=t2'), 403, 'tenant_boundary_denied');
    const reenable = await api.post('/api/v1/modules/site-policy/commands/set', { site_id: 'site-1', module_id: 'forms', enabled: true });
    expect(reenable.body.item.enabled).toBe(true);
    expect(await ids(api, '&site_id=site-1')).toContain('forms');
  });

  it('keeps only the last 200 access decisions', async () => {
    const local = await createTestEnv(dialect);
    try {
      const s = await local.start();
      const admin = await clientAs(local, s, { subject: 'bulk' }, api.contract);
      for (let i = 0; i < 205; i++) expectError(await admin.post('/api/v1/modules/commands/install', { id: `ghost-${i}` }), 404, 'module_not_found');
      const res = await admin.get('/api/v1/modules/access-audit/list?limit=500');
      expect(res.body.total).toBe(200);
      expect(res.body.items).toHaveLength(200);
      expect(res.body.items[0]).toMatchObject({ module_id: 'ghost-204', decision: 'deny', reason: 'module_not_found', actor: 'bulk' });
      expect(res.body.items[199].module_id).toBe('ghost-5');
    } finally {
      await local.cleanup();
    }
  });
});

describe.each(DIALECTS)('module registry across restarts and modes (%s)', (dialect) => {
  it('keeps install state, site policies and permission rules over a restart', async () => {
    const env = await createTestEnv(dialect);
    try {
      let server = await env.start();
      let api = await clientAs(env, server);
      expect((await api.post('/api/v1/modules/commands/uninstall', { id: 'forms' })).status).toBe(200);
      expect((await api.post('/api/v1/modules/site-policy/commands/set', { site_id: 'barn-7', module_id: 'tables', enabled: false })).status).toBe(200);
      expect((await api.post('/api/v1/modules/permissions/commands/update', { id: 'tables', rules: [{ role: 'admin', resource: 'tables', actions: ['read'] }] })).status).toBe(200);
      await server.close();
      server = await env.start();
      api = await clientAs(env, server, {}, api.contract);
      expect((await byId(api, 'forms')).installed).toBe(false);
      expectError(await api.get('/api/v1/forms/list'), 404, 'module_not_installed');
      expect((await catalogue(api, '&site_id=barn-7')).map((m) => m.id)).not.toContain('tables');
      expect((await api.get('/api/v1/modules/site-policy/list?site_id=barn-7')).body.items).toMatchObject([{ module_id: 'tables', enabled: false }]);
      expectError(await api.post('/api/v1/tables', { item: {} }), 403, 'rbac_forbidden');
      expect((await api.get('/api/v1/tables/list')).status).toBe(200);
      await server.close();
      // Rows nobody decided (seeded defaults) follow a changed box industry; decisions stay.
      server = await env.start({ industry: 'swine' });
      api = await clientAs(env, server, {}, api.contract);
      const mods = await catalogue(api);
      const state = (id: string) => mods.find((m) => m.id === id)?.installed;
      expect([state('swine'), state('poultry'), state('forms'), state('tables')]).toEqual([true, false, false, true]);
    } finally {
      await env.cleanup();
    }
  });

  it('cloud-multi allows every industry, checks a requested industry_code against the module', async () => {
    const env = await createTestEnv(dialect);
    try {
      const server = await env.start({ mode: 'cloud-multi' });
      const api = await clientAs(env, server);
      const mods = await catalogue(api);
      expect(mods.filter((m) => ['poultry', 'swine', 'melioration'].includes(m.id)).every((m) => m.installed)).toBe(true);
      expect((await api.post('/api/v1/modules/commands/uninstall', { id: 'swine' })).status).toBe(200);
      expectError(await api.post('/api/v1/modules/commands/install', { id: 'swine', industry_code: 'poultry' }), 409, 'industry_policy_conflict');
      expect((await api.post('/api/v1/modules/commands/install', { id: 'swine', industry_code: 'swine' })).status).toBe(200);
      expectError(await api.post('/api/v1/modules/permissions/commands/update', { id: 'poultry', industry_code: 'swine', rules: [] }), 409, 'industry_policy_conflict');
      expect((await api.post('/api/v1/modules/permissions/commands/update', { id: 'tables', industry_code: 'swine', rules: [{ role: 'admin', resource: 'tables', actions: ['*'] }] })).status).toBe(200);
      expect((await api.post('/api/v1/tables', { item: { id: 'wild' } })).status).toBe(201);
      const swineOnly = (await api.get('/api/v1/modules/database/list?industry_code=swine&limit=500')).body.items.map((i: { module_id: string }) => i.module_id);
      expect(swineOnly).toContain('swine');
      expect(swineOnly).not.toContain('poultry');
    } finally {
      await env.cleanup();
    }
  });

  it('imports a legacy JSON state file once, recording it; a changed file is not re-imported', async () => {
    const env = await createTestEnv(dialect);
    try {
      const file = join(env.dataDir, 'modules-state.json');
      writeFileSync(file, JSON.stringify({ modules: { forms: { installed: false }, swine: { installed: true }, core: { installed: false }, ghost: { installed: true }, analytics: { installed: true, version: '1.2.0' } } }));
      let server = await env.start({ modules_state_path: file });
      let api = await clientAs(env, server);
      const first = await catalogue(api);
      const state = (id: string) => first.find((m) => m.id === id)?.installed;
      expect([state('forms'), state('swine'), state('core'), state('tables'), state('analytics')]).toEqual([false, false, true, true, true]);
      const rows = await server.services.db.rows<{ id: string; path: string; sha256: string; imported_at: string }>(sql`select id, path, sha256, imported_at from registry_imports`);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ id: 'legacy-json', path: file });
      expect(rows[0]!.sha256).toMatch(/^[0-9a-f]{64}$/);
      const audit = (await api.get('/api/v1/modules/access-audit/list?limit=500')).body.items as { operation: string; decision: string; reason: string; module_id: string }[];
      const legacy = audit.filter((e) => e.operation === 'legacy_import').map((e) => `${e.module_id}:${e.decision}:${e.reason}`).sort();
      expect(legacy).toEqual(['core:deny:module_is_core', 'forms:allow:uninstalled', 'ghost:deny:module_not_found', 'swine:deny:industry_policy_conflict']);
      expect(env.logs.filter((l) => l.msg === 'legacy module state imported')).toHaveLength(1);
      await server.close();

      writeFileSync(file, JSON.stringify({ installed: [] }));
      server = await env.start({ modules_state_path: file });
      api = await clientAs(env, server, {}, api.contract);
      const again = await catalogue(api);
      expect(again.find((m) => m.id === 'forms')?.installed).toBe(false);
      expect(again.find((m) => m.id === 'tables')?.installed).toBe(true);
      expect(env.logs.filter((l) => l.msg === 'legacy module state imported')).toHaveLength(1);
      const after = await server.services.db.rows<{ sha256: string }>(sql`select sha256 from registry_imports`);
      expect(after).toEqual([{ sha256: rows[0]!.sha256 }]);
    } finally {
      await env.cleanup();
    }
  });

  it('imports the complete-list legacy shape, keeping dependencies consistent; refuses a malformed file', async () => {
    const env = await createTestEnv(dialect);
    try {
      const file = join(env.dataDir, 'legacy.json');
      writeFileSync(file, JSON.stringify({ installed: ['tables', 'swine', 'poultry'] }));
      const server = await env.start({ mode: 'cloud-multi', modules_state_path: file });
      const api = await clientAs(env, server);
      const installed = (await catalogue(api)).filter((m) => m.installed).map((m) => m.id).sort();
      // industry is not listed, so swine and poultry (which need it) stay out; core modules stay in.
      expect(installed).toEqual(expect.arrayContaining(['auth', 'core', 'tables']));
      for (const id of ['forms', 'industry', 'swine', 'poultry', 'analytics']) expect(installed).not.toContain(id);
      await server.close();

      const broken = await createTestEnv(dialect);
      try {
        const bad = join(broken.dataDir, 'bad.json');
        writeFileSync(bad, '{"installed": "tables"}');
        await expect(broken.start({ modules_state_path: bad })).rejects.toThrow(/legacy module state file .*bad\.json has an "installed" that is not an array/);
      } finally {
        await broken.cleanup();
      }
    } finally {
      await env.cleanup();
    }
  });
});
