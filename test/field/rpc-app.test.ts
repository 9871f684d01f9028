import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { writeFileSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createFieldService, type FieldService } from '../../src/field/service.js';
import { createRpcApp, type AuthResult } from '../../src/field/rpc-app.js';
import { runRpcCli } from '../../src/field/cli.js';
import { fieldConfig } from '../../src/field/config.js';
import type { FieldWriteAudit } from '../../src/field/types.js';
import { startModbusPeer, stopAll, type ModbusPeer } from './helpers.js';

// The HTTP endpoint on a real port, with a fake authenticate (fixed bearer tokens), and the CLI.

const TOKEN = 'writer-token';
const READER = 'reader-token';
let peer: ModbusPeer;
let service: FieldService;
let server: ServerType;
let url: string;
const audit: FieldWriteAudit[] = [];

async function authenticate(c: { req: { header(n: string): string | undefined } }): Promise<AuthResult> {
  const h = c.req.header('authorization') ?? '';
  if (h === `Bearer ${TOKEN}`) return { ok: true, actor: { id: 'u1', role: 'operator' } };
  if (h === `Bearer ${READER}`) return { ok: false, status: 403, message: 'Forbidden: role viewer may not write to field devices' };
  return { ok: false, status: 401, message: 'Unauthorized' };
}

const body = (value: number, addr = 12) => ({
  jsonrpc: '2.0',
  protocol: 'modbus',
  params: [{ device_ip: '127.0.0.1', device_port: peer.port, object_type: 'holding register', object_address: addr, data_type: 'int16', order: 'LE', value }],
});

const post = (b: unknown, headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` }) =>
  fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: typeof b === 'string' ? b : JSON.stringify(b) });

beforeAll(async () => {
  peer = await startModbusPeer('tcp', '0');
  service = createFieldService(fieldConfig({ request_timeout_ms: 2000 }), { audit: (e) => void audit.push(e) });
  const app = createRpcApp(service, { authenticate });
  await new Promise<void>((resolve) => {
    server = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve());
  });
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/rpc`;
});
afterAll(async () => {
  await new Promise<void>((r) => server?.close(() => r()));
  await service?.close();
  await stopAll();
});

describe('POST /api/rpc', () => {
  it('200 with per-item results when executed', async () => {
    const res = await post({ ...body(-7), id: 42 });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(await res.json()).toEqual({ jsonrpc: '2.0', id: 42, result: [{ index: 0, target: `127.0.0.1:${peer.port} unit:1`, address: '12', function: 6, wire: 'fff9', attempts: 1, verified: false }] });
    expect(await peer.hr(12, 1)).toEqual([0xfff9]);
    expect(audit.at(-1)).toMatchObject({ actor: { id: 'u1', role: 'operator' }, outcome: 'ok', correlation_id: res.headers.get('x-correlation-id') });
  });

  it('refuses a missing or wrong token (401) and a role without write (403); nothing is written', async () => {
    await peer.reset();
    const before = audit.length;
    for (const [headers, status, msg] of [
      [{}, 401, 'Unauthorized'],
      [{ authorization: 'Bearer nope' }, 401, 'Unauthorized'],
      [{ authorization: `Bearer ${READER}` }, 403, 'Forbidden: role viewer may not write to field devices'],
    ] as const) {
      const res = await post(body(5), headers);
      expect(res.status).toBe(status);
      expect(res.headers.get('content-type')).toBe('application/json');
      expect(res.headers.get('x-correlation-id')).toMatch(/^[0-9a-f-]{36}$/);
      expect(await res.json()).toEqual([msg]);
    }
    expect(await peer.hr(12, 1)).toEqual([0]);
    expect(audit.length).toBe(before);
  });

  it('502 with the contract message array when the device refuses; the caller correlation id is echoed', async () => {
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, 'x-correlation-id': 'job-77' }, body: JSON.stringify(body(1, 999)) });
    expect(res.status).toBe(502);
    expect(res.headers.get('x-correlation-id')).toBe('job-77');
    expect(await res.json()).toEqual([`Error write register 127.0.0.1:${peer.port} addr:999 Illegal data address`]);
  });

  it('400 with clear messages for malformed requests, never a crash', async () => {
    const cases: [unknown, RegExp][] = [
      ['{not json', /^Invalid request: body is not valid JSON$/],
      [null, /^Invalid request: /],
      [[], /^Invalid request: /],
      [{ jsonrpc: '1.0', protocol: 'modbus', params: [{}] }, /^Invalid request: jsonrpc: jsonrpc must be "2.0"$/],
      [{ jsonrpc: '2.0', protocol: 'mqtt', params: [{}] }, /^Invalid request: protocol: protocol must be one of/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: {} }, /^Invalid request: params: params must be an array$/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [] }, /^Invalid request: params: params must not be empty$/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: '12', data_type: 'int16', value: 1 }] }, /^Invalid request: params\[0\]\.object_address: /],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: 1, data_type: 'int16', value: 1, scal: 10 }] }, /^Invalid request: params\[0\]\.scal: /],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: 'plc.local', object_type: 'coil', object_address: 1, value: 1 }] }, /device_ip must be a dotted IPv4 address/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'coil', object_address: 1, data_type: 'float32', value: 1 }] }, /^Invalid value 127\.0\.0\.1:502 addr:1 a coil holds one bit: data_type must be bool or omitted, got float32$/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: 1, value: 1 }] }, /data_type is required for a holding register$/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: 1, data_type: 'float32', value: 1 }] }, /order \(LE, BE, CDAB or BADC\) is required for float32$/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: 1, data_type: 'float32', order: 'DCBA', value: 1 }] }, /^Invalid request: params\[0\]\.order: /],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: 1, data_type: 'bool', scale: 2, value: 1 }] }, /scale is not allowed with data_type bool$/],
      [{ jsonrpc: '2.0', protocol: 'modbus-rtu', params: [{ unit_id: 0, object_type: 'coil', object_address: 1, value: 1 }] }, /unit_id must be 1\.\.247 on RTU, got 0$/],
      [{ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', object_type: 'holding register', object_address: 65535, data_type: 'int32', order: 'LE', value: 1 }] }, /registers run past address 65535$/],
    ];
    for (const [b, re] of cases) {
      const res = await post(typeof b === 'string' ? b : JSON.stringify(b));
      expect(res.status, JSON.stringify(b)).toBe(400);
      const msgs = (await res.json()) as string[];
      expect(msgs[0], JSON.stringify(b)).toMatch(re);
    }
  });

  it('415 without JSON content type, 405 for other methods, 404 elsewhere', async () => {
    const r1 = await fetch(url, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'text/plain' }, body: JSON.stringify(body(1)) });
    expect(r1.status).toBe(415);
    const r2 = await fetch(url, { headers: { authorization: `Bearer ${TOKEN}` } });
    expect(r2.status).toBe(405);
    expect(r2.headers.get('allow')).toBe('POST');
    const r3 = await fetch(url.replace('/api/rpc', '/api/other'), { method: 'POST' });
    expect(r3.status).toBe(404);
  });

  it('413 for a body over the limit, announced or streamed without a length, and nothing is sent or audited', async () => {
    const before = audit.length;
    const big = JSON.stringify({ ...body(1), pad: 'x'.repeat(1_100_000) });
    const announced = await post(big);
    expect(announced.status).toBe(413);
    expect(await announced.json()).toEqual(['Request body larger than 1000000 bytes']);
    const chunks = [big.slice(0, 600_000), big.slice(600_000)];
    const streamed = await fetch(url, {
      method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body: new ReadableStream({ pull(ctl) { const next = chunks.shift(); if (next === undefined) ctl.close(); else ctl.enqueue(new TextEncoder().encode(next)); } }),
      duplex: 'half',
    } as RequestInit);
    expect(streamed.status).toBe(413);
    expect(audit.length).toBe(before);
    // The connection's next request is served normally.
    expect((await post(body(5))).status).toBe(200);
  });
});

describe('cabinet rpc (CLI)', () => {
  it('sends --file, prints the answer, exit 0; a failure exits 1; stdin works; no token is 401', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cabinet-cli-'));
    const file = join(dir, 'req.json');
    writeFileSync(file, JSON.stringify(body(99, 13)));
    const out: string[] = [];
    const err: string[] = [];
    const io = { out: (t: string) => void out.push(t), err: (t: string) => void err.push(t) };
    expect(await runRpcCli(['--file', file], { url, token: TOKEN, ...io })).toBe(0);
    expect(out.join('\n')).toContain('HTTP 200');
    expect(await peer.hr(13, 1)).toEqual([99]);

    expect(await runRpcCli([], { url, token: TOKEN, stdin: Readable.from([JSON.stringify(body(1, 999))]), ...io })).toBe(1);
    expect(err.join('\n')).toContain(`Error write register 127.0.0.1:${peer.port} addr:999 Illegal data address`);

    expect(await runRpcCli(['--file', file], { url, ...io })).toBe(1);
    expect(err.join('\n')).toContain('HTTP 401');
    expect(await runRpcCli(['--file', join(dir, 'missing.json')], { url, ...io })).toBe(2);
    expect(await runRpcCli(['--bogus'], { url, ...io })).toBe(2);
  });
});
