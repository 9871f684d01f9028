// status/list?since=<id>: the polling form of the stream's catch-up. Every event after the id,
// oldest first, with the list's tenant scope, filters, search, sort and paging; on every dialect.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';

describe.each(DIALECTS)('status/list since (%s)', (dialect) => {
  let env: TestEnv;
  let master: Client;
  let tenantA: Client;
  const idsA: number[] = [];
  let idB = 0;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    const server = await env.start({ mqtt_broker: 'off' });
    master = await clientAs(env, server);
    tenantA = await clientAs(env, server, { role: 'operator', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    // a1..a5 for tenant A, with one tenant B event in the middle
    for (const [i, status] of (['ok', 'warn', 'ok', 'error', 'ok'] as const).entries()) {
      const res = await tenantA.post('/api/v1/status/commands/publish', { source: 'poll', event: `a${i + 1}`, status });
      expect(res.status).toBe(201);
      idsA.push(res.body.item.id as number);
      if (i === 1) idB = (await master.post('/api/v1/status/commands/publish', { source: 'poll', event: 'b1', status: 'ok', tenant_id: 'tB' })).body.item.id as number;
    }
  });
  afterAll(async () => env.cleanup());

  const events = (body: { items: { event: string }[] }) => body.items.map((e) => e.event);

  it('returns every event after the id, oldest first, within the caller tenant', async () => {
    const res = await tenantA.get(`/api/v1/status/list?since=${idsA[1]}`);
    expect(res.status).toBe(200);
    expect(events(res.body)).toEqual(['a3', 'a4', 'a5']);
    expect(res.body).toMatchObject({ total: 3, offset: 0, has_more: false });
    expect(events((await tenantA.get('/api/v1/status/list?since=0')).body)).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    expect((await tenantA.get(`/api/v1/status/list?since=${idsA[4]}`)).body).toMatchObject({ items: [], total: 0 });
    // a master sees tenant B's event too; a tenant caller naming tenant B is refused by the guard
    expect(events((await master.get(`/api/v1/status/list?since=${idsA[1]}`)).body)).toEqual(['b1', 'a3', 'a4', 'a5']);
    expect(events((await master.get(`/api/v1/status/list?since=0&tenant_id=tB`)).body)).toEqual(['b1']);
    expect((await tenantA.get('/api/v1/status/list?since=0&tenant_id=tB')).status).toBe(403);
    expect(idB).toBeGreaterThan(idsA[1]!);
  });

  it('pages in order: a poller with a small limit reads every event once', async () => {
    const seen: string[] = [];
    let since = 0;
    for (let guard = 0; guard < 10; guard++) {
      const page = (await tenantA.get(`/api/v1/status/list?since=${since}&limit=2`)).body;
      seen.push(...events(page));
      if (!page.items.length) break;
      since = page.items.at(-1).id;
      if (!page.has_more) break;
    }
    expect(seen).toEqual(['a1', 'a2', 'a3', 'a4', 'a5']);
    const second = (await tenantA.get(`/api/v1/status/list?since=0&limit=2&offset=2`)).body;
    expect(second).toMatchObject({ total: 5, offset: 2, limit: 2, has_more: true });
    expect(events(second)).toEqual(['a3', 'a4']);
  });

  it('combines with the filters, search and sort', async () => {
    expect(events((await tenantA.get(`/api/v1/status/list?since=${idsA[0]}&status=ok`)).body)).toEqual(['a3', 'a5']);
    expect(events((await tenantA.get(`/api/v1/status/list?since=${idsA[0]}&q=A4`)).body)).toEqual(['a4']);
    expect(events((await tenantA.get(`/api/v1/status/list?since=${idsA[2]}&sort=id&order=desc`)).body)).toEqual(['a5', 'a4']);
    expect(events((await tenantA.get(`/api/v1/status/list?since=0&sort=status&limit=2`)).body)).toEqual(['a4', 'a1']);
    // without since the list keeps its default, newest first
    expect(events((await tenantA.get('/api/v1/status/list?limit=2')).body)).toEqual(['a5', 'a4']);
  });

  it('refuses a since that is not a non-negative integer', async () => {
    for (const bad of ['-1', 'abc', '1.5']) {
      const res = await tenantA.get(`/api/v1/status/list?since=${bad}`);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_error', details: [expect.objectContaining({ field: 'since' })] });
    }
  });
});
