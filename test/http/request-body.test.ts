// How the kit reads a POST body (src/kernel/body.ts, the body limit in src/app.ts): with a
// Content-Length it is checked by that header and read from the Node request; a chunked body is
// counted by the body-limit middleware and read from what it buffered. Both arrive whole, with or
// without a byte order mark, and a body over max_body_bytes is 413 either way.
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';

interface Answer { status: number; body: { item?: Record<string, unknown>; error?: { code: string; details?: unknown[] } } }

/** POSTs `parts` as one body: with a Content-Length, or chunked (one chunk per part). */
function post(server: RunningServer, token: string, path: string, parts: string[], chunked: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    if (!chunked) headers['content-length'] = String(Buffer.byteLength(parts.join('')));
    const req = request(`${server.url}${path}`, { method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => { text += chunk; });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Answer['body'] }));
    });
    req.on('error', reject);
    // Written apart, so that a chunked body really comes in several chunks.
    for (const part of parts) req.write(part);
    req.end();
  });
}

describe('POST bodies', () => {
  let env: TestEnv;
  let server: RunningServer;
  let token: string;
  const telemetry = '/api/v1/poultry-climate/commands/telemetry';
  const reading = (temp: number) => JSON.stringify({ house_id: 'H1', temp });

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mode: 'cloud-multi', mqtt_broker: 'off', max_body_bytes: '2048' });
    token = await env.token(server, { subject: 'body', role: 'admin', scope_type: 'tenant', tenant_id: 't1', site_id: 's1' });
    const start = new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10);
    const placed = await post(server, token, '/api/v1/poultry-flock/commands/place', [JSON.stringify({ house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: start })], false);
    expect(placed.status).toBe(201);
  });
  afterAll(async () => env.cleanup());

  it.each([false, true])('reads a whole body, chunked=%s, with or without a byte order mark', async (chunked) => {
    const body = reading(28.4);
    const plain = await post(server, token, telemetry, [body.slice(0, 10), body.slice(10)], chunked);
    expect(plain.status).toBe(200);
    expect(plain.body.item).toMatchObject({ house_id: 'H1', temp: 28.4, status: 'ok' });
    const marked = await post(server, token, telemetry, ['\uFEFF', reading(28.6)], chunked);
    expect(marked.status).toBe(200);
    expect(marked.body.item).toMatchObject({ temp: 28.6 });
  });

  it.each([false, true])('refuses a body over max_body_bytes with 413, chunked=%s, and a malformed one with 400', async (chunked) => {
    const big = JSON.stringify({ house_id: 'H1', temp: 28, pad: 'x'.repeat(3000) });
    const refused = await post(server, token, telemetry, [big.slice(0, 1500), big.slice(1500)], chunked);
    expect(refused.status).toBe(413);
    expect(refused.body.error?.code).toBe('payload_too_large');
    const malformed = await post(server, token, telemetry, ['{"house_id": "H1", ', '"temp": }'], chunked);
    expect(malformed.status).toBe(400);
    expect(malformed.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'body', reason: 'malformed_json' }] });
  });
});
