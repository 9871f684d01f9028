// Every answer carries the envelope, also those no route produces: a request Node's HTTP parser
// refuses (431 oversized headers, 400 a malformed request line, 408 too slow) and a body over
// max_body_bytes (413, by Content-Length or chunked). Sent over a raw socket, as a broken client would.
import { connect, createServer, type AddressInfo, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { clientErrorHandler } from '../../src/kernel/client-error.js';
import type { RunningServer } from '../../src/server.js';

interface RawAnswer { status: number; headers: Record<string, string>; body: { error?: { code: string; message: string; details?: unknown[] }; meta?: { request_id: string; timestamp: string } } }

/** Writes `request` on a fresh connection and reads the answer until the server closes it. */
function raw(port: number, request: string | Buffer, keepOpen = false): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('error', reject);
    socket.on('close', () => resolve(parse(Buffer.concat(chunks).toString('utf8'))));
    socket.write(request);
    if (!keepOpen) socket.setTimeout(20_000, () => socket.destroy());
  });
}

function parse(text: string): RawAnswer {
  const [head = '', ...rest] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(rest.join('\r\n') || 'null') as RawAnswer['body'] };
}

describe('the envelope on answers no route produces', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off', max_body_bytes: '2048' });
    admin = await clientAs(env, server);
  }, 60_000);
  afterAll(async () => env.cleanup());

  const expectEnvelope = (res: RawAnswer, status: number, code: string) => {
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body.error?.code).toBe(code);
    expect(res.body.meta?.request_id).toBe(res.headers['x-request-id']);
    // The document's ErrorEnvelope (an undocumented path may answer only that).
    admin.contract.check('GET', '/no-route-here', status, res.body);
  };

  it('answers a 20 KB Authorization header with 431 headers_too_large, and logs no header', async () => {
    const secret = `Bearer ${'s'.repeat(20 * 1024)}`;
    const res = await raw(server.port, `GET /api/v1/tables/list HTTP/1.1\r\nHost: x\r\nAuthorization: ${secret}\r\n\r\n`);
    expectEnvelope(res, 431, 'headers_too_large');
    expect(res.headers.connection).toBe('close');
    expect(JSON.stringify(env.logs)).not.toContain('s'.repeat(100));
    // The server goes on answering.
    expect((await admin.get('/api/v1/tables/list')).status).toBe(200);
  });

  it('answers a malformed request line with 400 bad_request', async () => {
    expectEnvelope(await raw(server.port, 'NOT HTTP AT ALL\r\n\r\n'), 400, 'bad_request');
    expectEnvelope(await raw(server.port, 'GET /health HTTP/1.1\r\nBad Header Line\r\n\r\n'), 400, 'bad_request');
  });

  it('answers a body over max_body_bytes with 413 payload_too_large, by Content-Length and chunked', async () => {
    const token = await env.token(server);
    const body = JSON.stringify({ item: { id: 'big', name: 'x'.repeat(4096) } });
    const sized = await raw(server.port, `POST /api/v1/tables HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
    expectEnvelope(sized, 413, 'payload_too_large');
    const chunk = (s: string) => `${Buffer.byteLength(s).toString(16)}\r\n${s}\r\n`;
    const chunked = await raw(server.port, `POST /api/v1/tables HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk(body.slice(0, 2000))}${chunk(body.slice(2000))}0\r\n\r\n`);
    expectEnvelope(chunked, 413, 'payload_too_large');
    expect((await admin.get('/api/v1/tables/big')).status).toBe(404);
  });
});

describe('request validation decisions', () => {
  let env: TestEnv;
  let server: RunningServer;

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    server = await env.start({ mqtt_broker: 'off' });
  }, 60_000);
  afterAll(async () => env.cleanup());

  it('refuses text for an integer id, a blank string and a failed cross-field rule with 400 naming why', async () => {
    const admin = await clientAs(env, server);
    const bad = await admin.get('/api/v1/status/abc');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_error', details: [{ field: 'id', reason: 'invalid_type' }] });
    expect((await admin.get('/api/v1/status/999999')).status).toBe(404);
    const blank = await admin.post('/api/v1/tasks', { item: { title: '   ' } });
    expect(blank.status).toBe(400);
    expect(blank.body.error.details).toEqual([expect.objectContaining({ field: 'item.title', reason: 'out_of_range' })]);
    const tenant = await clientAs(env, server, { subject: 'farm-admin', role: 'admin', scope_type: 'tenant', tenant_id: 't1' }, admin.contract);
    const noHost = await tenant.post('/api/v1/poultry-adapters', { item: { unit_id: 'H1', controller_id: 'c1', transport: 'modbus-tcp', points: [{ key: 'target_temp_c', address: 1 }] } });
    expect(noHost.status).toBe(400);
    expect(noHost.body.error.details).toEqual([{ field: 'item', reason: 'invalid_value' }]);
    expect(noHost.body.error.message).toContain('modbus-tcp needs host');
  });
});

describe('the parser-error answer', () => {
  // Node answers 408 after headersTimeout (60 s); the handler is driven with that error directly, on a real socket.
  it('answers a request timeout with 408 request_timeout and closes', async () => {
    const handle = clientErrorHandler();
    const srv = createServer((socket) => handle(Object.assign(new Error('Request timeout'), { code: 'ERR_HTTP_REQUEST_TIMEOUT' }), socket));
    await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
    try {
      const res = await raw((srv.address() as AddressInfo).port, 'GET / HTTP/1.1\r\n', true);
      expect(res.status).toBe(408);
      expect(res.body.error?.code).toBe('request_timeout');
      expect(res.body.meta?.request_id).toBe(res.headers['x-request-id']);
      expect(res.headers.connection).toBe('close');
    } finally {
      srv.close();
    }
  });
});
