// tables and forms (contract 4.6): the kit's first two resources, CRUD over HTTP on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';

describe.each(DIALECTS)('tables and forms (%s)', (dialect) => {
  let env: TestEnv;
  let api: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    api = await clientAs(env, await env.start());
  });
  afterAll(async () => env.cleanup());

  it.each(['tables', 'forms'])('%s: create with a generated id, read, list', async (resource) => {
    const created = await api.post(`/api/v1/${resource}`, { item: { title: 'Climate overview', columns: ['temp', 'rh'] } });
    expect(created.status).toBe(201);
    const item = created.body.item;
    expect(item.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(item).toMatchObject({ resource, title: 'Climate overview', columns: ['temp', 'rh'] });
    expect(item.created_at).toBe(item.updated_at);
    const read = await api.get(`/api/v1/${resource}/${item.id}`);
    expect(read.body.item).toEqual(item);
    const list = await api.get(`/api/v1/${resource}/list`);
    expect(list.body.items.map((i: { id: string }) => i.id)).toContain(item.id);
  });

  it('keeps the two resources apart', async () => {
    await api.post('/api/v1/tables', { item: { id: 'shared-id', kind: 'table' } });
    const form = await api.post('/api/v1/forms', { item: { id: 'shared-id', kind: 'form' } });
    expect(form.status).toBe(201);
    expect((await api.get('/api/v1/tables/shared-id')).body.item.kind).toBe('table');
    expect((await api.get('/api/v1/forms/shared-id')).body.item).toMatchObject({ kind: 'form', resource: 'forms' });
  });

  it('creates with a given id, refuses a taken id with 409 already_exists, and keeps the original', async () => {
    const first = await api.post('/api/v1/tables', { item: { id: 'house-1', name: 'House 1' } });
    expect(first.status).toBe(201);
    const again = await api.post('/api/v1/tables', { item: { id: 'house-1', name: 'Overwrite?' } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('already_exists');
    expect((await api.get('/api/v1/tables/house-1')).body.item.name).toBe('House 1');
  });

  it('ignores runtime fields sent by the client', async () => {
    const res = await api.post('/api/v1/tables', { item: { id: 'rt-1', created_at: '1999-01-01T00:00:00Z', resource: 'forms', updated_at: 'x' } });
    expect(res.status).toBe(201);
    expect(res.body.item.resource).toBe('tables');
    expect(res.body.item.created_at).not.toBe('1999-01-01T00:00:00Z');
    expect(Date.parse(res.body.item.updated_at)).not.toBeNaN();
  });

  it('PATCH merges, removes fields set to null, refreshes updated_at and cannot change the id', async () => {
    await api.post('/api/v1/forms', { item: { id: 'feed-form', title: 'Feed', fields: ['silo'], note: 'old' } });
    await new Promise((r) => setTimeout(r, 5));
    const patched = await api.patch('/api/v1/forms/feed-form', { item: { title: 'Feed log', note: null, id: 'feed-form' } });
    expect(patched.status).toBe(200);
    expect(patched.body.item).toMatchObject({ id: 'feed-form', title: 'Feed log', fields: ['silo'] });
    expect(patched.body.item).not.toHaveProperty('note');
    expect(patched.body.item.updated_at > patched.body.item.created_at).toBe(true);
    const rename = await api.patch('/api/v1/forms/feed-form', { item: { id: 'other' } });
    expect(rename.status).toBe(400);
    expect(rename.body.error.details).toContainEqual({ field: 'item.id', reason: 'immutable' });
    expect((await api.get('/api/v1/forms/other')).status).toBe(404);
    const missing = await api.patch('/api/v1/forms/nope', { item: { title: 'x' } });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
  });

  it('DELETE answers the removed item, then 404', async () => {
    await api.post('/api/v1/tables', { item: { id: 'to-delete', v: 1 } });
    const gone = await api.delete('/api/v1/tables/to-delete');
    expect(gone.status).toBe(200);
    expect(gone.body.item).toMatchObject({ id: 'to-delete', v: 1 });
    expect((await api.get('/api/v1/tables/to-delete')).status).toBe(404);
    expect((await api.delete('/api/v1/tables/to-delete')).body.error.code).toBe('not_found');
  });

  it('keeps data across a restart on the same data directory', async () => {
    await api.post('/api/v1/tables', { item: { id: 'durable', crop: 'maize' } });
    const second = await env.start();
    const api2 = await clientAs(env, second, {}, api.contract);
    expect((await api2.get('/api/v1/tables/durable')).body.item.crop).toBe('maize');
    const snapshot = await api2.get('/api/v1/operability/runtime');
    expect(snapshot.body.item.migrations.map((m: { module: string; tag: string }) => `${m.module}/${m.tag}`)).toEqual(expect.arrayContaining(['core/0000_init', 'tables/0000_init', 'forms/0000_init']));
    expect(snapshot.body.item.persistence.dialect).toBe(dialect === 'sqlite' ? 'sqlite' : 'postgres');
  });
});
