// HTTPS on a running box (src/server.ts, src/runtime/tls*.ts): the HTTPS listener with the box's
// certificate (trusted through its CA only), the CA downloads, the redirect of a LAN client (a
// real non-loopback address of this machine) while loopback and the probes stay on HTTP, the
// status WebSocket on both listeners, a certificate swapped without a restart, and https_port off
// or taken. SQLite only: nothing here touches the database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { X509Certificate } from 'node:crypto';
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { createServer as createNetServer, type AddressInfo, type Server as NetServer } from 'node:net';
import { networkInterfaces } from 'node:os';
import type { TLSSocket } from 'node:tls';
import { join } from 'node:path';
import WebSocket from 'ws';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import { ensureTls, tlsDir } from '../../src/runtime/tls.js';

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer; peer?: X509Certificate }

function get(url: string, opts: { ca?: string; method?: string; localAddress?: string; servername?: string } = {}): Promise<Answer> {
  const u = new URL(url);
  const secure = u.protocol === 'https:';
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(url, {
      method: opts.method ?? 'GET', agent: false,
      ...(opts.localAddress ? { localAddress: opts.localAddress } : {}),
      ...(secure ? { ca: opts.ca, servername: opts.servername } : {}),
    }, (res) => {
      const chunks: Buffer[] = [];
      const peer = secure ? (res.socket as TLSSocket).getPeerX509Certificate() : undefined;
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks), ...(peer ? { peer } : {}) }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** This machine's first non-loopback IPv4 address: a client from there is a LAN client. */
function lanIp(): string {
  // 10.213.*: the veth of test/e2e/https-lan.test.ts, which may come and go while this file runs.
  for (const list of Object.values(networkInterfaces())) for (const a of list ?? []) if (!a.internal && a.family === 'IPv4' && !a.address.startsWith('10.213.')) return a.address;
  throw new Error('this machine has no non-loopback IPv4 address: the LAN redirect cannot be tested here');
}

describe('HTTPS listener, CA downloads and redirects', () => {
  let env: TestEnv;
  let server: RunningServer;
  let ca: string;
  let lan: string;

  beforeAll(async () => {
    lan = lanIp();
    env = await createTestEnv('sqlite');
    server = await env.start({ host: '0.0.0.0', https_port: '0', mqtt_broker: 'off', rpc_port: 'off' });
    ca = readFileSync(join(tlsDir(env.dataDir), 'ca.crt'), 'utf8');
  });
  afterAll(async () => {
    await env?.cleanup();
  });

  it('serves the API over HTTPS with a certificate that chains to the box\'s CA and names the address used', async () => {
    expect(server.https?.port).toBeGreaterThan(0);
    const r = await get(`https://127.0.0.1:${server.https!.port}/health`, { ca });
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body.toString())).toMatchObject({ status: 'ok' });
    expect(r.peer?.checkIssued(new X509Certificate(ca))).toBe(true);
    expect(r.peer?.checkIP(lan)).toBe(lan);
    const byLan = await get(`https://${lan}:${server.https!.port}/ready`, { ca });
    expect(byLan.status).toBe(200);
    const byName = await get(`https://127.0.0.1:${server.https!.port}/live`, { ca, servername: 'localhost' });
    expect(byName.status).toBe(200);
    // Without the CA a client refuses it: the trust comes from the CA alone.
    await expect(get(`https://127.0.0.1:${server.https!.port}/health`)).rejects.toThrow(/self-signed|unable to (get|verify)/i);
    // The start-up line names both URLs.
    expect(env.logs.find((l) => String(l.msg).startsWith('cabinet listening on'))).toMatchObject({ https_port: server.https!.port });
  });

  it('offers the CA as DER and PEM with the right types and its fingerprint, and the login screen\'s summary', async () => {
    const der = await get(`${server.url}/ca.crt`);
    expect(der.status).toBe(200);
    expect(der.headers['content-type']).toBe('application/x-x509-ca-cert');
    const cert = new X509Certificate(der.body);
    expect(cert.ca).toBe(true);
    expect(cert.fingerprint256).toBe(new X509Certificate(ca).fingerprint256);
    expect(der.headers['x-certificate-sha256']).toBe(cert.fingerprint256);
    expect(der.headers['content-disposition']).toMatch(/^attachment; filename="cabinet-ca-[0-9a-f]{8}\.crt"$/);
    const pem = await get(`${server.url}/ca.pem`);
    expect(pem.headers['content-type']).toBe('application/x-pem-file');
    expect(pem.body.toString()).toBe(ca);

    // Asked on loopback (the panel), the links name the box's LAN address, on plain HTTP.
    const info = JSON.parse((await get(`${server.url}/ca.json`)).body.toString()) as Record<string, string>;
    expect(info.fingerprint_sha256).toBe(cert.fingerprint256);
    // The box's first LAN address when it started: this machine's, or the veth of
    // test/e2e/https-lan.test.ts (10.213.*) when that file had it up at the time.
    const boxLan = new URL(info.download_url!).hostname;
    expect([lan, boxLan.startsWith('10.213.') ? boxLan : lan]).toContain(boxLan);
    expect(info.download_url).toBe(`http://${boxLan}:${server.port}/ca.crt`);
    expect(info.https_url).toBe(`https://${boxLan}:${server.https!.port}/`);
    expect(info.qr_svg).toMatch(/^<svg[\s\S]+<\/svg>\s*$/);
    expect(new Date(info.server_not_after!).getTime()).toBeGreaterThan(Date.now() + 300 * 86_400_000);
    // Asked by the name a tablet used, the links keep it.
    const byLan = JSON.parse((await get(`http://${lan}:${server.port}/ca.json`, { localAddress: lan })).body.toString()) as Record<string, string>;
    expect(byLan.download_url).toBe(`http://${lan}:${server.port}/ca.crt`);
    // The documented route: in the OpenAPI document.
    const yaml = (await get(`${server.url}/openapi.yaml`)).body.toString();
    expect(yaml).toContain('/ca.crt:');
    expect(yaml).toContain('/ca.json:');
  });

  it('redirects a LAN client from HTTP to HTTPS (308, method kept), not loopback, not the probes or the CA', async () => {
    const shell = await get(`http://${lan}:${server.port}/?x=1`, { localAddress: lan });
    expect(shell.status).toBe(308);
    expect(shell.headers.location).toBe(`https://${lan}:${server.https!.port}/?x=1`);
    expect(shell.headers['cache-control']).toBe('no-store');
    const post = await get(`http://${lan}:${server.port}/api/v1/auth/passkey/commands/start`, { localAddress: lan, method: 'POST' });
    expect(post.status).toBe(308);
    for (const path of ['/health', '/ready', '/ca.crt', '/ca.json']) {
      expect((await get(`http://${lan}:${server.port}${path}`, { localAddress: lan })).status, path).toBe(200);
    }
    // The panel's kiosk browser on loopback keeps plain HTTP.
    const kiosk = await get(`${server.url}/api/v1/auth/passkey/status`);
    expect(kiosk.status).toBe(200);
    // Over HTTPS the LAN client gets the answer itself.
    expect((await get(`https://${lan}:${server.https!.port}/api/v1/auth/passkey/status`, { ca })).status).toBe(200);
  });

  it('takes the status WebSocket on both listeners', async () => {
    const token = await env.token(server);
    const open = (url: string, extra: WebSocket.ClientOptions = {}) =>
      new Promise<string>((resolve, reject) => {
        const ws = new WebSocket(url, { headers: { authorization: `Bearer ${token}` }, ...extra });
        ws.on('message', (data) => {
          ws.close();
          resolve((JSON.parse(String(data)) as { type: string }).type);
        });
        ws.on('error', reject);
      });
    expect(await open(`wss://${lan}:${server.https!.port}/api/v1/status/stream`, { ca })).toBe('ready');
    expect(await open(`${server.url.replace('http', 'ws')}/api/v1/status/stream`)).toBe('ready');
  });

  it('swaps in a certificate issued anew without a restart', async () => {
    const before = (await get(`https://127.0.0.1:${server.https!.port}/health`, { ca })).peer!;
    // A server certificate of another CA on disk: the next check replaces it and the listener takes the new one.
    const other = join(env.dataDir, 'other');
    await ensureTls({ dataDir: other });
    for (const f of ['server.crt', 'server.key']) copyFileSync(join(tlsDir(other), f), join(tlsDir(env.dataDir), f));
    expect(await server.https!.tls.check()).toBe(true);
    const after = (await get(`https://127.0.0.1:${server.https!.port}/health`, { ca })).peer!;
    expect(after.serialNumber).not.toBe(before.serialNumber);
    expect(after.checkIssued(new X509Certificate(ca))).toBe(true);
    rmSync(other, { recursive: true, force: true });
  });
});

describe('HTTPS off or its port taken', () => {
  let env: TestEnv;
  let blocker: NetServer;
  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    blocker = createNetServer();
    await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    blocker?.close();
    await env?.cleanup();
  });

  it('off: no listener, no certificates, the CA routes answer not_found and nothing is redirected', async () => {
    const server = await env.start({ host: '0.0.0.0', https_port: 'off', mqtt_broker: 'off', rpc_port: 'off' });
    expect(server.https).toBeUndefined();
    expect(existsSync(tlsDir(env.dataDir))).toBe(false);
    const r = await get(`${server.url}/ca.crt`);
    expect(r.status).toBe(404);
    expect(JSON.parse(r.body.toString()).error.code).toBe('not_found');
    expect((await get(`http://${lanIp()}:${server.port}/health`, { localAddress: lanIp() })).status).toBe(200);
    expect((await get(`http://${lanIp()}:${server.port}/api/v1/auth/passkey/status`, { localAddress: lanIp() })).status).toBe(200);
    await server.close();
  });

  it('taken: says so in the log and HTTP goes on without redirects', async () => {
    const port = (blocker.address() as AddressInfo).port;
    const server = await env.start({ host: '127.0.0.1', https_port: String(port), mqtt_broker: 'off', rpc_port: 'off' });
    expect(server.https).toBeUndefined();
    expect(env.logs.find((l) => l.msg === 'HTTPS is off: cannot listen')).toMatchObject({ level: 'error', port, error: 'EADDRINUSE' });
    expect((await get(`${server.url}/health`)).status).toBe(200);
    expect((await get(`${server.url}/ca.json`)).status).toBe(404);
    await server.close();
  });

  it('certificates that cannot be written: says so in the log and HTTP goes on', async () => {
    rmSync(tlsDir(env.dataDir), { recursive: true, force: true });
    writeFileSync(tlsDir(env.dataDir), 'not a folder');
    const server = await env.start({ host: '127.0.0.1', https_port: '0', mqtt_broker: 'off', rpc_port: 'off' });
    expect(server.https).toBeUndefined();
    expect(env.logs.find((l) => l.msg === 'HTTPS is off: cannot make or read the certificates')).toMatchObject({ level: 'error' });
    expect((await get(`${server.url}/ready`)).status).toBe(200);
    await server.close();
  });
});
