// Two cloud-multi processes on one PostgreSQL database (as behind a load balancer): an install
// or uninstall through one is seen by the other without a restart, and a status event published
// through one reaches a WebSocket client connected to the other. Needs a PostgreSQL server
// (CABINET_TEST_PG_URL); PGlite cannot be shared by two processes.
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { api, killAll, proc, waitFor, type Proc } from './procs.js';

const PG = Boolean(process.env.CABINET_TEST_PG_URL);

describe.runIf(PG)('two master processes on one PostgreSQL', () => {
  let env: TestEnv;
  let a: Proc;
  let b: Proc;
  let token: string;

  beforeAll(async () => {
    env = await createTestEnv('postgres');
    const secret = randomBytes(32).toString('hex');
    const flags = { mode: 'cloud-multi', data_dir: env.dataDir, database_url: env.databaseUrl };
    a = await proc('master-a', flags, { secret });
    b = await proc('master-b', flags, { secret });
    // One after the other: the first applies the migrations.
    await a.start();
    await b.start();
    token = await a.token();
  }, 120_000);

  afterAll(async () => {
    await a?.stop();
    await b?.stop();
    killAll();
    await env?.cleanup();
  });

  it('sees an uninstall and an install made through the other process, without a restart', async () => {
    expect((await api(b, token, 'GET', '/api/v1/tasks/list')).status).toBe(200);
    const down = await api(a, token, 'POST', '/api/v1/modules/commands/uninstall', { id: 'tasks' });
    expect(down.status).toBe(200);
    const gone = await waitFor('b to drop tasks', async () => {
      const r = await api(b, token, 'GET', '/api/v1/tasks/list');
      return r.status === 404 ? r : undefined;
    }, 10_000);
    expect(gone.body.error.code).toBe('module_not_installed');
    expect((await api(b, token, 'POST', '/api/v1/modules/commands/install', { id: 'tasks' })).status).toBe(200);
    await waitFor('a to serve tasks again', async () => ((await api(a, token, 'GET', '/api/v1/tasks/list')).status === 200 ? true : undefined), 10_000);
    // Permission rules too: b narrows operators' tasks rights, a enforces it at once.
    const operator = await a.token({ role: 'operator' });
    expect((await api(a, operator, 'GET', '/api/v1/tasks/list')).status).toBe(200);
    const rules = [{ role: 'admin', resource: 'tasks', actions: ['read', 'create', 'transition'] }];
    expect((await api(b, token, 'POST', '/api/v1/modules/permissions/commands/update', { id: 'tasks', rules })).status).toBe(200);
    const refused = await waitFor('a to refuse the operator', async () => {
      const r = await api(a, operator, 'GET', '/api/v1/tasks/list');
      return r.status === 403 ? r : undefined;
    }, 10_000);
    expect(refused.body.error.code).toBe('rbac_forbidden');
  });

  it('delivers a status event published through one process to a WebSocket client of the other', async () => {
    const ws = new WebSocket(`${b.url.replace('http', 'ws')}/api/v1/status/stream`, { headers: { authorization: `Bearer ${token}` } });
    const messages: { type: string; data?: { id: number; correlation_id: string | null } }[] = [];
    ws.on('message', (m) => messages.push(JSON.parse(String(m))));
    try {
      await waitFor('the stream to be ready', async () => messages.some((m) => m.type === 'ready'), 10_000);
      const published = await api(a, token, 'POST', '/api/v1/status/commands/publish', { source: 'test', event: 'door_open', status: 'warn', correlation_id: 'two-masters-1' });
      expect(published.status).toBe(201);
      const got = await waitFor('the event on b', async () => messages.find((m) => m.type === 'event' && m.data?.correlation_id === 'two-masters-1'), 10_000);
      expect(got.data?.id).toBe(published.body.item.id);
      // Exactly once.
      await new Promise((r) => setTimeout(r, 300));
      expect(messages.filter((m) => m.data?.correlation_id === 'two-masters-1')).toHaveLength(1);
    } finally {
      ws.close();
    }
  });
});
