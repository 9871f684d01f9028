// The kit's behaviour over real HTTP, on every dialect: envelopes, error paths, paging limits,
// idempotent replay, and answers that validate against the served OpenAPI document.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

describe.each(DIALECTS)('kernel over HTTP (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let api: Client;

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    server = await env.start();
    api = await clientAs(env, server);
  });
  afterAll(async () => env.cleanup());

  it('answers probes publicly', async () => {
    expect((await api.get('/health')).body).toEqual({ status: 'ok', layer: 'master-cloud' });
    expect((await api.get('/live')).status).toBe(200);
    const ready = await api.get('/ready');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
  });

  it('puts meta with request id and RFC 3339 timestamp on every answer, echoing X-Request-Id', async () => {
    const given = await api.get('/api/v1/tables/list', { 'x-request-id': 'req-abc.123' });
    expect(given.headers.get('x-request-id')).toBe('req-abc.123');
    expect(given.body.meta.request_id).toBe('req-abc.123');
    expect(given.body.meta.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const generated = await api.get('/api/v1/tables/list', { 'x-request-id': 'bad id with spaces' });
    expect(generated.body.meta.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.headers.get('x-request-id')).toBe(generated.body.meta.request_id);
    const error = await api.get('/api/v1/nothing-here', { 'x-request-id': 'err-1' });
    expect(error.body.meta.request_id).toBe('err-1');
  });

  it('sends the request id, nosniff and no-referrer once on every kind of answer', async () => {
    const ok = await api.get('/api/v1/tables/list', { 'x-request-id': 'h-1' });
    const answers = [
      { status: ok.status, headers: ok.headers, arrayBuffer: async () => undefined },
      await fetch(`${server.url}/api/v1/tables/list`, { headers: { 'x-request-id': 'h-2' } }),
      await fetch(`${server.url}/api/v1/nothing-here`, { headers: { 'x-request-id': 'h-3' } }),
      await fetch(`${server.url}/openapi.yaml`, { headers: { 'x-request-id': 'h-4' } }),
      await fetch(`${server.url}/health`, { method: 'HEAD', headers: { 'x-request-id': 'h-5' } }),
      await fetch(`${server.url}/api/v1/tables/list`, { method: 'PUT', headers: { 'x-request-id': 'h-6' } }),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 404, 200, 200, 405]);
    answers.forEach((r, i) => {
      expect(r.headers.get('x-request-id')).toBe(`h-${i + 1}`);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      expect(r.headers.get('referrer-policy')).toBe('no-referrer');
    });
    await Promise.all(answers.map((r) => r.arrayBuffer()));
  });

  it('maps an unknown route to 404 not_found and a wrong method to 405', async () => {
    const missing = await api.get('/api/v1/nothing-here');
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('not_found');
    const wrong = await api.request('PUT', '/api/v1/tables/x', { body: { item: {} }, skipContract: true });
    expect(wrong.status).toBe(405);
    expect(wrong.body.error.code).toBe('method_not_allowed');
    expect(wrong.headers.get('allow')).toContain('PATCH');
  });

  it('refuses malformed JSON, a non-JSON body and an oversize body without changing anything', async () => {
    const malformed = await api.request('POST', '/api/v1/tables', { raw: '{"item": {', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'body', reason: 'malformed_json' }] });
    const text = await api.request('POST', '/api/v1/tables', { raw: 'id=1', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.error.code).toBe('unsupported_media_type');
    const big = await api.post('/api/v1/tables', { item: { id: 'big', blob: 'x'.repeat(1024 * 1024 + 10) } });
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('payload_too_large');
    expect((await api.get('/api/v1/tables/big')).status).toBe(404);
  });

  it('validates body fields with details', async () => {
    const noItem = await api.post('/api/v1/tables', { thing: 1 });
    expect(noItem.status).toBe(400);
    expect(noItem.body.error.details).toContainEqual({ field: 'item', reason: 'required' });
    const badId = await api.post('/api/v1/tables', { item: { id: 'has space' } });
    expect(badId.status).toBe(400);
    expect(badId.body.error.details[0].field).toBe('item');
  });

  it('enforces paging limits, sortable fields, enum values and known parameters', async () => {
    const expectInvalid = async (query: string, field: string, reason: string) => {
      const res = await api.get(`/api/v1/tables/list?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.error.code).toBe('validation_error');
      expect(res.body.error.details).toContainEqual({ field, reason });
    };
    await expectInvalid('limit=501', 'limit', 'above_maximum');
    await expectInvalid('limit=0', 'limit', 'below_minimum');
    await expectInvalid('limit=ten', 'limit', 'invalid_type');
    await expectInvalid('offset=-1', 'offset', 'below_minimum');
    await expectInvalid('sort=data', 'sort', 'unsupported_value');
    await expectInvalid('order=sideways', 'order', 'unsupported_value');
    await expectInvalid('colour=blue', 'colour', 'unknown_parameter');
    await expectInvalid('limit=5&limit=6', 'limit', 'repeated_parameter');
    const max = await api.get('/api/v1/tables/list?limit=500');
    expect(max.status).toBe(200);
    expect(max.body.limit).toBe(500);
    const dflt = await api.get('/api/v1/tables/list');
    expect(dflt.body.limit).toBe(50);
    expect(dflt.body.offset).toBe(0);
  });

  it('pages, sorts and searches tables', async () => {
    for (const [i, name] of ['Alpha barn', 'beta barn', 'Gamma field', 'delta barn', 'epsilon_house'].entries()) {
      const res = await api.post('/api/v1/tables', { item: { id: `page-${i}`, name } });
      expect(res.status).toBe(201);
    }
    const page = await api.get('/api/v1/tables/list?q=page-&sort=id&order=asc&limit=2&offset=1');
    expect(page.body.items.map((i: { id: string }) => i.id)).toEqual(['page-1', 'page-2']);
    expect(page.body).toMatchObject({ offset: 1, limit: 2, total: 5, has_more: true });
    const last = await api.get('/api/v1/tables/list?q=page-&sort=id&order=asc&limit=2&offset=4');
    expect(last.body).toMatchObject({ total: 5, has_more: false });
    const barns = await api.get('/api/v1/tables/list?q=BARN&sort=id&order=desc');
    expect(barns.body.items.map((i: { id: string }) => i.id)).toEqual(['page-3', 'page-1', 'page-0']);
    // LIKE wildcards in q are literal characters, not patterns.
    const underscore = await api.get('/api/v1/tables/list?q=n_h');
    expect(underscore.body.items.map((i: { id: string }) => i.id)).toEqual(['page-4']);
    const percent = await api.get('/api/v1/tables/list?q=%25');
    expect(percent.body.total).toBe(0);
  });

  it('replays the first answer for a repeated Idempotency-Key and refuses it for another body', async () => {
    const first = await api.post('/api/v1/forms', { item: { title: 'intake' } }, { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    const again = await api.post('/api/v1/forms', { item: { title: 'intake' } }, { 'idempotency-key': 'k-1' });
    expect(again.status).toBe(201);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const list = await api.get('/api/v1/forms/list?q=intake');
    expect(list.body.total).toBe(1);
    const other = await api.post('/api/v1/forms', { item: { title: 'other' } }, { 'idempotency-key': 'k-1' });
    expect(other.status).toBe(422);
    expect(other.body.error.code).toBe('idempotency_key_reused');
    expect((await api.get('/api/v1/forms/list?q=other')).body.total).toBe(0);
    // A failed command replays its failure too, and still changes nothing.
    const dupe1 = await api.post('/api/v1/forms', { item: { id: first.body.item.id } }, { 'idempotency-key': 'k-2' });
    const dupe2 = await api.post('/api/v1/forms', { item: { id: first.body.item.id } }, { 'idempotency-key': 'k-2' });
    expect([dupe1.status, dupe2.status]).toEqual([409, 409]);
    expect(dupe2.body).toEqual(dupe1.body);
  });

  it('answers every /api route 503 service_unavailable with Retry-After while not ready, and leaves probes and other paths alone', async () => {
    // Plain fetch: the served OpenAPI document does not list 503 for each operation.
    const token = await env.token(server);
    const call = (path: string, init: RequestInit = {}) =>
      fetch(`${server.url}${path}`, { ...init, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' } });
    const lifecycle = server.services.lifecycle;
    lifecycle.state = 'stopping';
    try {
      for (const res of [await call('/api/v1/tables/list'), await call('/api/v1/tables', { method: 'POST', body: JSON.stringify({ item: { id: 'never' } }) }), await call('/api')]) {
        expect(res.status).toBe(503);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe('service_unavailable');
        expect(res.headers.get('retry-after')).toBe('2');
      }
      expect((await call('/ready')).status).toBe(503);
      expect((await call('/live')).status).toBe(200);
      expect((await call('/apix')).status).toBe(404);
    } finally {
      lifecycle.state = 'ready';
    }
    expect((await call('/api/v1/tables/never')).status).toBe(404);
  });

  it('records the five contract headers in the access log', async () => {
    await api.get('/api/v1/forms/list', {
      'x-request-id': 'hdr-1', 'x-route-path': '/dashboard/forms', 'x-route-module': 'forms', 'x-route-filter': 'q=abc',
      'x-client-version': '2.3.4', 'x-client-build-time': '2026-11-01T10:00:00Z', cookie: 'cabinet_session=secret-never-logged',
    });
    const entry = env.logs.find((l) => l.msg === 'request' && l.request_id === 'hdr-1');
    expect(entry).toMatchObject({
      route_path: '/dashboard/forms', route_module: 'forms', route_filter: 'q=abc', client_version: '2.3.4',
      client_build_time: '2026-11-01T10:00:00Z', status: 200, method: 'GET', path: '/api/v1/forms/list',
    });
    expect(JSON.stringify(env.logs)).not.toContain('secret-never-logged');
  });

  it('writes a read answered well at debug, and a change or a failure at info', async () => {
    await api.get('/api/v1/forms/list', { 'x-request-id': 'lvl-read' });
    await api.get('/api/v1/tables/never', { 'x-request-id': 'lvl-missing' });
    await api.post('/api/v1/tables', { item: { id: 'lvl-row', name: 'x' } }, { 'x-request-id': 'lvl-change' });
    const level = (id: string) => env.logs.find((l) => l.msg === 'request' && l.request_id === id)?.level;
    expect(level('lvl-read')).toBe('debug');
    expect(level('lvl-missing')).toBe('info');
    expect(level('lvl-change')).toBe('info');
  });

  it('serves the OpenAPI document and the docs UI from the binary', async () => {
    const yaml = await api.get('/openapi.yaml');
    expect(yaml.status).toBe(200);
    expect(yaml.headers.get('content-type')).toContain('yaml');
    expect(api.contract.doc.paths['/api/v1/tables/{id}']).toBeDefined();
    const html = await api.get('/docs');
    expect(html.text).toContain('/docs/swagger-ui-bundle.js');
    expect(html.text).not.toMatch(/https?:\/\//);
    const js = await api.get('/docs/swagger-ui-bundle.js');
    expect(js.status).toBe(200);
    expect(js.text.length).toBeGreaterThan(100_000);
    expect((await api.get('/docs/init.js')).text).toContain('/openapi.yaml');
    expect((await api.get('/docs/../../package.json')).status).toBe(404);
  });

  it('returns 500 internal_error without a stack when the database fails under it', async () => {
    const local = await env.start();
    const client = await clientAs(env, local, {}, api.contract);
    await local.services.db.close();
    const res = await client.get('/api/v1/tables/list', { 'x-request-id': 'boom-1' });
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(res.body.error.message).toContain('boom-1');
    expect(res.text).not.toMatch(/at .*\.(ts|js):\d+/);
    expect(env.logs.some((l) => l.msg === 'unexpected error' && l.request_id === 'boom-1')).toBe(true);
  });
});

describe('PostgreSQL connection loss', () => {
  it.runIf(Boolean(process.env.CABINET_TEST_PG_URL))('survives the server ending its connections and reconnects', async () => {
    const env = await createTestEnv('postgres');
    try {
      const server = await env.start();
      const api = await clientAs(env, server);
      expect((await api.get('/api/v1/tables/list')).status).toBe(200);
      const { default: pg } = await import('pg');
      const admin = new pg.Client({ connectionString: process.env.CABINET_TEST_PG_URL });
      await admin.connect();
      const dbName = new URL(env.databaseUrl).pathname.slice(1);
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [dbName]);
      await admin.end();
      await new Promise((r) => setTimeout(r, 200));
      expect((await api.get('/api/v1/tables/list')).status).toBe(200);
      expect(env.logs.some((l) => l.msg === 'database connection lost; it will reconnect')).toBe(true);
    } finally {
      await env.cleanup();
    }
    // A fresh database, all migrations and a server start happen inside this test: on a loaded
    // 2-core machine that alone has taken most of the default 30 s.
  }, 120_000);
});
