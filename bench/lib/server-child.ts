// A benchmark's server in its own process, so the load generator's CPU is not the server's.
// Started with fork(); argv[2] is JSON { config, tokens: [{ role, scope_type, tenant_id? }] }.
// Sends { url, rpcUrl, tokens } once ready; answers 'rss' with { rss } and 'stop' by exiting.
// `mode: 'bare-http'` instead serves a bare Hono POST /api/rpc answering a fixed JSON body: the
// HTTP floor of the RPC benchmark, with the same client.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { serve } from '@hono/node-server';
import { loadConfig } from '../../src/config.js';
import { startServer } from '../../src/server.js';
import { createLogger } from '../../src/kernel/logger.js';
import type { Caller } from '../../src/kernel/context.js';

interface Spec {
  mode?: 'cabinet' | 'bare-http';
  config?: Record<string, string>;
  tokens?: { role: Caller['role']; scope_type: Caller['scope_type']; tenant_id?: string }[];
}
const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const send = (m: unknown) => process.send?.(m);
let stop: () => Promise<void>;

if (spec.mode === 'bare-http') {
  const app = new Hono();
  app.post('/api/rpc', async (c) => {
    const body = (await c.req.json()) as { id?: unknown };
    return c.json({ jsonrpc: '2.0', ...(body.id === undefined ? {} : { id: body.id }), result: [] });
  });
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' });
  await new Promise((r) => server.once('listening', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  send({ url, rpcUrl: `${url}/api/rpc`, tokens: [] });
  stop = async () => void server.close();
} else {
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-'));
  const server = await startServer(
    loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, rpc_port: '0', log_level: 'error', ...spec.config }, {}),
    { log: createLogger('error') },
  );
  const tokens: string[] = [];
  for (const t of spec.tokens ?? []) tokens.push((await server.services.sessions.issue({ subject: `bench-${t.role}`, ...t })).token);
  send({ url: server.url, rpcUrl: server.services.field?.url, tokens });
  stop = async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  };
}

process.on('message', (m) => {
  if (m === 'rss') send({ rss: process.memoryUsage().rss });
  if (m === 'stop') void stop().finally(() => process.exit(0));
});
process.on('disconnect', () => void stop().finally(() => process.exit(0)));
