// Tenant isolation, table-driven over every operation the served OpenAPI document lists: with
// another tenant's id in the query or the body, a tenant caller gets 403 (or an empty list),
// never another tenant's row; rows another tenant created are invisible by id and in lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const A = { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-a', subject: 'admin-a' } as const;
const B = { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-b', subject: 'admin-b' } as const;

/** A valid create body for each resource with POST /api/v1/<resource>; new resources must add one. */
const CREATE: Record<string, (id: string) => unknown> = {
  tables: (id) => ({ item: { id, name: 'B private' } }),
  forms: (id) => ({ item: { id, title: 'B private' } }),
  tasks: (id) => ({ item: { id, title: 'B private task', priority: 'high', sla_minutes: 30 } }),
  'swine-adapters': (id) => ({ item: { id, unit_id: 'b-room', controller_id: 'b-room-climate', transport: 'modbus-tcp', host: '127.0.0.1', points: [{ key: 'target_temp_c', address: 1 }] } }),
  'poultry-adapters': (id) => ({ item: { id, unit_id: 'H1', controller_id: 'B private controller', transport: 'modbus-tcp', host: '10.0.0.9', points: [{ key: 'target_temp_c', address: 100 }] } }),
  'melioration-adapters': (id) => ({ item: { id, unit_id: 'b-field', controller_id: 'B private station', transport: 'modbus-tcp', host: '10.0.0.9', readings: [{ key: 'air_temp_c', address: 0 }] } }),
  'melioration-field': (id) => ({ item: { id, name: 'B private field', site_id: 'b-site', crop: 'maize', field_capacity_pct: 30, wilting_point_pct: 15, root_depth_m: 0.5 } }),
  'notification-channels': (id) => {
    bChannel = id;
    return { item: { id, name: 'B private webhook', kind: 'webhook', webhook_url: 'http://127.0.0.1:9/hook', webhook_key: 'b-private-key-0123456789' } };
  },
  // A rule names a channel of its own tenant: B's, made just before (channels are listed first).
  'notification-rules': (id) => ({ item: { id, name: 'B private rule', channel_id: bChannel } }),
};
let bChannel = '';

describe.each(DIALECTS)('tenant isolation (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let a: Client;
  let b: Client;
  let ops: { method: string; path: string }[];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    // cloud-multi installs every industry's modules, so every served route is exercised.
    server = await env.start({ mode: 'cloud-multi', master_field_bus: 'true', master_private_targets: 'true', mqtt_broker: 'off' });
    a = await clientAs(env, server, A);
    b = await clientAs(env, server, B, a.contract);
    ops = Object.entries(a.contract.doc.paths).flatMap(([path, o]) => Object.keys(o).map((method) => ({ method, path })))
      .filter((o) => o.path.startsWith('/api/v1/') && !['/api/v1/auth/me', '/api/v1/auth/commands/logout', '/api/v1/auth/passkey/status'].includes(o.path) && !o.path.startsWith('/api/v1/auth/passkey/commands/'));
  });
  afterAll(async () => env.cleanup());

  it('refuses another tenant\'s id in the query of every GET', async () => {
    const gets = ops.filter((o) => o.method === 'get');
    expect(gets.length).toBeGreaterThan(15);
    for (const op of gets) {
      for (const key of ['tenant_id', 'target_tenant_id']) {
        const res = await a.get(`${op.path.replace(/\{\w+\}/g, 'x')}?${key}=farm-b`);
        expect(res.status, `${op.path}?${key}`).toBe(403);
        expect(['tenant_boundary_denied', 'scope_boundary_denied', 'rbac_forbidden'], op.path).toContain(res.body.error.code);
      }
    }
  }, 180_000);

  it('refuses another tenant\'s id anywhere in the body of every write', async () => {
    const writes = ops.filter((o) => o.method !== 'get' && o.method !== 'delete');
    expect(writes.length).toBeGreaterThan(10);
    const bodies = [{ tenant_id: 'farm-b' }, { target_tenant_id: 'farm-b' }, { item: { id: 'x', tenant_id: 'farm-b' } }, { params: [{ nested: { tenant_id: 'farm-b' } }] }];
    for (const op of writes) {
      for (const body of bodies) {
        const res = await a.request(op.method.toUpperCase(), op.path.replace(/\{\w+\}/g, 'x'), { body });
        expect(res.status, `${op.method} ${op.path} ${JSON.stringify(body)}`).toBe(403);
      }
    }
  }, 180_000);

  it('keeps rows another tenant created out of get, patch, delete and every list', async () => {
    const creatable = ops.filter((o) => o.method === 'post' && /^\/api\/v1\/[a-z-]+$/.test(o.path)).map((o) => o.path.split('/')[3] as string);
    expect(creatable.sort()).toEqual(Object.keys(CREATE).filter((r) => creatable.includes(r)).sort());
    for (const r of creatable) expect(CREATE[r], `a create fixture for ${r}`).toBeDefined();
    const owned: [string, string][] = [];
    for (const r of creatable) {
      const id = `b-only-${r}`;
      const res = await b.post(`/api/v1/${r}`, (CREATE[r] as (id: string) => unknown)(id));
      expect(res.status, `${r}: ${JSON.stringify(res.body)}`).toBe(201);
      owned.push([r, String(res.body.item.id)]);
    }
    for (const [r, id] of owned) {
      expect((await b.get(`/api/v1/${r}/${id}`)).status).toBe(200);
      const paths = ops.filter((o) => o.path === `/api/v1/${r}/{id}`).map((o) => o.method);
      if (paths.includes('get')) expect((await a.get(`/api/v1/${r}/${id}`)).status, `get ${r}`).toBe(404);
      if (paths.includes('patch')) expect((await a.patch(`/api/v1/${r}/${id}`, { item: { name: 'hijack' } })).status, `patch ${r}`).toBe(404);
      if (paths.includes('delete')) expect((await a.delete(`/api/v1/${r}/${id}`)).status, `delete ${r}`).toBe(404);
      expect((await b.get(`/api/v1/${r}/${id}`)).body.item.name ?? 'unchanged', r).not.toBe('hijack');
    }
    // No list shows A a row of B, whatever the list.
    const lists = ops.filter((o) => o.method === 'get' && o.path.endsWith('/list'));
    for (const op of lists) {
      const res = await a.get(`${op.path}?limit=500`, {});
      if (res.status !== 200) continue;
      for (const item of res.body.items as Record<string, unknown>[]) {
        const text = JSON.stringify(item);
        expect(text, op.path).not.toContain('farm-b');
        // Rows that name their tenant must be A's own (A's log entries may mention paths it probed).
        if ('tenant_id' in item && item.tenant_id !== null) expect(item.tenant_id, op.path).toBe('farm-a');
        else for (const [, id] of owned) expect(text, op.path).not.toContain(id);
      }
    }
  });
});
