// Bad input never yields a 500: every documented operation, called by an admin with malformed
// bodies and queries, answers a 4xx error envelope (or succeeds), never an internal error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';

const BODIES: unknown[] = [[], 'text', 42, null, { zzz: 1 }, { id: { nested: [1, 2] }, item: 'x', params: 'y' }, { id: 'x'.repeat(5000) }, { tenant_id: 7, limit: -1, value: Number.POSITIVE_INFINITY /* sent as null */ }];
const QUERIES = ['limit=abc', 'offset=-5', 'sort=%00', 'q=' + '%25'.repeat(300), 'id=%E0%A4%A'];

describe('bad input (sqlite)', () => {
  let env: TestEnv;
  let admin: Client;
  let tenant: Client;

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    const server = await env.start({ mqtt_broker: 'off', mode: 'cloud-multi' });
    admin = await clientAs(env, server);
    tenant = await clientAs(env, server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' }, admin.contract);
  });
  afterAll(async () => env.cleanup());

  it('answers every malformed request with a client error, never 500', async () => {
    const ops = Object.entries(admin.contract.doc.paths).flatMap(([path, o]) => Object.keys(o).map((method) => ({ method, path })))
      .filter((o) => o.path.startsWith('/api/') && o.path !== '/api/v1/status/stream' && o.path !== '/api/v1/auth/commands/logout');
    let calls = 0;
    for (const client of [admin, tenant]) {
      for (const { method, path } of ops) {
        const concrete = path.replace(/\{\w+\}/g, 'no-such-id');
        const attempts = method === 'get' || method === 'delete'
          ? QUERIES.map((q) => client.request(method.toUpperCase(), `${concrete}?${q}`, { skipContract: true }))
          : BODIES.map((b) => client.request(method.toUpperCase(), concrete, { raw: JSON.stringify(b), headers: { 'content-type': 'application/json' } }));
        for (const res of await Promise.all(attempts)) {
          calls++;
          expect(res.status, `${method} ${path}: ${res.text.slice(0, 200)}`).toBeLessThan(500);
          if (res.status >= 400) expect(res.body.error?.code, `${method} ${path}`).toEqual(expect.any(String));
        }
      }
    }
    expect(calls).toBeGreaterThan(300);
    expect(env.logs.filter((l) => l.msg === 'unexpected error')).toEqual([]);
  }, 300_000);
});
