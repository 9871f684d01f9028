// A benchmark's server in its own process, so the load generator's CPU is not the server's.
// Started with fork(); argv[2] is JSON { config, tokens: [{ role, scope_type, tenant_id? }] }.
// Sends { url, rpcUrl, tokens } once ready; answers 'rss' with { rss } and 'stop' by exiting.
// `mode: 'bare-http'` instead serves a bare Hono POST /api/rpc answering a fixed JSON body: the
// HTTP floor of the RPC benchmark, with the same client. `mode: 'bare-ws'` serves a bare `ws`
// server on the status stream's path (no auth) and POST /api/v1/status/commands/publish, which
// serialises the event once and sends it to every client: the fan-out benchmark's baseline.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { createServer } from 'node:http';
import { WebSocketServer } from 'ws';
import type { Caller } from '../../src/kernel/context.js';

interface Spec {
  mode?: 'cabinet' | 'bare-http' | 'bare-ws';
  config?: Record<string, string>;
  /** Sessions to issue; `count` distinct tokens of each (default 1). */
  tokens?: { role: Caller['role']; scope_type: Caller['scope_type']; tenant_id?: string; count?: number }[];
}
const spec = JSON.parse(process.argv[2] ?? '{}') as Spec;
const send = (m: unknown) => process.send?.(m);
let stop: () => Promise<void>;

if (spec.mode === 'bare-http') {
  const { Hono } = await import('hono');
  const { serve } = await import('@hono/node-server');
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
} else if (spec.mode === 'bare-ws') {
  const wss = new WebSocketServer({ noServer: true });
  let id = 0;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      const event = { id: ++id, tenant_id: body.tenant_id ?? null, site_id: null, correlation_id: null, details: null, ...body, timestamp: new Date().toISOString() };
      const text = JSON.stringify({ type: 'event', data: event });
      for (const ws of wss.clients) ws.send(text);
      res.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ item: event }));
    });
  });
  server.on('upgrade', (req, socket, head) => wss.handleUpgrade(req, socket, head, (ws) => ws.send(JSON.stringify({ type: 'ready', last_id: id, replayed: 0 }))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  send({ url, rpcUrl: '', tokens: [] });
  stop = async () => {
    for (const ws of wss.clients) ws.terminate();
    server.close();
  };
} else {
  // Imported here, so the bare baselines' processes do not carry the service's modules.
  const { loadConfig } = await import('../../src/config.js');
  const { startServer } = await import('../../src/server.js');
  const { createLogger } = await import('../../src/kernel/logger.js');
  const dir = mkdtempSync(join(tmpdir(), 'cabinet-bench-'));
  const server = await startServer(
    loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, rpc_port: '0', log_level: 'error', ...spec.config }, {}),
    { log: createLogger('error') },
  );
  const tokens: string[] = [];
  for (const { count = 1, ...t } of spec.tokens ?? []) {
    for (let i = 0; i < count; i++) tokens.push((await server.services.sessions.issue({ subject: `bench-${t.role}-${i}`, ...t })).token);
  }
  send({ url: server.url, rpcUrl: server.services.rpc?.url, tokens });
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
