// The kit's own Node listener (src/runtime/node-serve.ts, in place of @hono/node-server): what a
// Hono app answers reaches the client as Hono built it (status, headers, length, streamed bodies,
// body-less answers), request bodies read through the web Request and through Hono's body limit
// (which re-wraps c.req.raw in `new Request`), and the adapter's refusals (a Host that is not a host).
import { request as httpRequest } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../src/runtime/node-serve.js';
import { LightResponse } from '../../src/runtime/web-classes.js';

let base: string;
let port: number;
let close: () => Promise<void>;
const failures: unknown[] = [];

beforeAll(async () => {
  const app = new Hono();
  app.get('/json', (c) => c.json({ ok: true }, 201, { 'x-one': '1' }));
  app.get('/text', (c) => c.text('héllo'));
  app.get('/bytes', (c) => c.body(new Uint8Array([1, 2, 3]), 200, { 'content-type': 'application/octet-stream' }));
  app.get('/none', (c) => c.body(null, 304, { etag: '"x"' }));
  app.delete('/gone', (c) => c.body(null, 204));
  app.get('/cookies', (c) => {
    c.header('set-cookie', 'a=1', { append: true });
    c.header('set-cookie', 'b=2', { append: true });
    return c.text('two');
  });
  app.get('/stream', (c) => {
    const parts = ['one,', 'two,', 'three'];
    return c.body(new ReadableStream({ pull(ctl) { const p = parts.shift(); if (p) ctl.enqueue(new TextEncoder().encode(p)); else ctl.close(); } }));
  });
  app.get('/real', () => Response.json({ real: true }));
  app.get('/instance', (c) => c.json({ light: c.json({}) instanceof Response, request: c.req.raw instanceof Request }));
  app.post('/echo', async (c) => c.json({ got: await c.req.json(), method: c.req.method }));
  // Refuses before reading the body, as a handler does for a declared length it will not take.
  app.put('/refuse', (c) => c.text('refused', 413));
  app.post('/limited', bodyLimit({ maxSize: 8, onError: (c) => c.text('too large', 413) }), async (c) => c.text(await c.req.text()));
  const server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1', onError: (err) => failures.push(err) });
  await new Promise((resolve) => server.once('listening', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  close = () => new Promise((resolve) => server.close(() => resolve()));
});

afterAll(() => close());

/** A raw request (chunked bodies, odd Host headers: fetch would not send them). */
function raw(method: string, path: string, headers: Record<string, string>, chunks: string[] = []): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body }));
    });
    req.on('error', reject);
    for (const c of chunks) req.write(c);
    req.end();
  });
}

describe('the kit\'s Node listener', () => {
  it('writes a JSON answer with its status, headers and length', async () => {
    const r = await fetch(`${base}/json`);
    expect(r.status).toBe(201);
    expect(r.headers.get('x-one')).toBe('1');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(r.headers.get('content-length')).toBe('11');
    expect(await r.json()).toEqual({ ok: true });
  });

  it('counts a text answer\'s length in bytes, and writes bytes as they are', async () => {
    const t = await fetch(`${base}/text`);
    expect(t.headers.get('content-length')).toBe(String(Buffer.byteLength('héllo')));
    expect(await t.text()).toBe('héllo');
    const b = await fetch(`${base}/bytes`);
    expect([...new Uint8Array(await b.arrayBuffer())]).toEqual([1, 2, 3]);
  });

  it('writes a body-less answer and keeps every Set-Cookie', async () => {
    const n = await raw('GET', '/none', { host: 'box' });
    expect(n.status).toBe(304);
    expect(n.headers.etag).toBe('"x"');
    expect(n.body).toBe('');
    const g = await raw('DELETE', '/gone', { host: 'box' });
    expect([g.status, g.body, g.headers['content-length']]).toEqual([204, '', undefined]);
    const c = await raw('GET', '/cookies', { host: 'box' });
    expect(c.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(c.body).toBe('two');
  });

  it('streams a stream body and answers with Node\'s own Response too', async () => {
    expect(await (await fetch(`${base}/stream`)).text()).toBe('one,two,three');
    expect(await (await fetch(`${base}/real`)).json()).toEqual({ real: true });
  });

  it('keeps instanceof Response and Request true for its light objects', async () => {
    expect(await (await fetch(`${base}/instance`)).json()).toEqual({ light: true, request: true });
    expect(new LightResponse('x') instanceof Response).toBe(true);
    expect(Response.json({}) instanceof Response).toBe(true);
    expect({} instanceof Response).toBe(false);
  });

  it('reads a request body, also chunked through the body limit', async () => {
    const r = await fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ a: 1 }) });
    expect(await r.json()).toEqual({ got: { a: 1 }, method: 'POST' });
    const small = await raw('POST', '/limited', { host: 'box', 'transfer-encoding': 'chunked' }, ['abc', 'def']);
    expect([small.status, small.body]).toEqual([200, 'abcdef']);
    const large = await raw('POST', '/limited', { host: 'box', 'transfer-encoding': 'chunked' }, ['abcdef', 'ghijkl']);
    expect([large.status, large.body]).toEqual([413, 'too large']);
  });

  it('drains a body the answer did not read for as long as it keeps coming, then serves the next request on that connection', async () => {
    // A client slowed by load sends its body for 1.8 s after the answer went. A drain capped at
    // 500 ms closed the connection under it (a 1 MiB chunk upload refused with 413 in
    // releases.test.ts: fetch failed, "other side closed").
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let endedAt: number | undefined;
    socket.setEncoding('utf8');
    socket.on('data', (d: string) => (text += d));
    socket.on('end', () => (endedAt ??= Date.now()));
    socket.on('error', () => (endedAt ??= Date.now()));
    await new Promise((r) => socket.once('connect', r));
    socket.write(`PUT /refuse HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: application/octet-stream\r\ncontent-length: ${10 * 1024}\r\n\r\n`);
    for (let n = 0; n < 10; n++) {
      socket.write(Buffer.alloc(1024));
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(text).toMatch(/^HTTP\/1\.1 413 [^]*refused$/);
    expect(endedAt).toBeUndefined();
    socket.write(`GET /text HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nconnection: close\r\n\r\n`);
    await new Promise((r) => socket.once('close', r));
    expect(text).toMatch(/HTTP\/1\.1 200 [^]*héllo$/);
  });

  it('refuses a Host header that is not a host, and a backslash in the path', async () => {
    expect((await raw('GET', '/json', { host: 'box/evil' })).status).toBe(400);
    expect((await raw('GET', '/a\\b', { host: 'box' })).status).toBe(400);
    expect((await raw('GET', '/json', { host: 'box:8080' })).status).toBe(201);
    expect(failures).toEqual([]);
  });
});
