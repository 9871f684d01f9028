// HTTPS across a real network boundary (issue 23, item 5): a network namespace joined to this one by
// a veth pair; the box listens on the non-loopback address of this side (10.213.<n>.1), Debian's
// Chromium runs inside the namespace (10.213.<n>.2) and trusts the box's CA through an NSS database
// in its own HOME (certutil, the way a tablet installs the CA it downloaded over plain HTTP). The
// browser asks for plain HTTP, is redirected to HTTPS, sees a secure context, logs in with a card,
// gets the live stream over wss and a service worker; the box stops, the reload shows the last data
// marked stale. Needs root (ip netns); the namespace goes even when a step fails.
//
// The namespace also holds an intruder (10.213.<n>.3) beside the tablet, which is the panel here
// (panel_addresses). What the box refuses them, asked with Debian's curl from the namespace (issue
// 33): a session token in clear (ws:// on the plain port, access_token over plain HTTP), a card
// challenge the panel started completed from elsewhere, a write with the cookie from a page of
// another origin, a redirect to the host a request names, the first-run command; and HSTS, the
// Content-Security-Policy and no framing on what it answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { X509Certificate } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import type { RunningServer } from '../../src/server.js';
import { axeSerious, CHROMIUM, newPage, shoot } from './browser.js';

const n = 10 + (process.pid % 240);
const NS = `cabinet-https-${process.pid}`;
const VETH = `cbh${process.pid % 100000}`; // + a / b: under the 15 characters of an interface name
const BOX_IP = `10.213.${n}.1`;
const TABLET_IP = `10.213.${n}.2`;
const INTRUDER_IP = `10.213.${n}.3`;
const run = promisify(execFile);

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const quietly = (fn: () => unknown) => {
  try {
    fn();
  } catch {
    /* already gone */
  }
};

function removeNetwork(): void {
  quietly(() => ip('netns', 'del', NS)); // takes the namespace's veth end, and so the pair, with it
  quietly(() => ip('link', 'del', `${VETH}a`));
}

interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }
function call(url: string, opts: { method?: string; ca?: string; token?: string; body?: unknown } = {}): Promise<Answer> {
  const u = new URL(url);
  const data = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  return new Promise((resolve, reject) => {
    const req = (u.protocol === 'https:' ? httpsRequest : httpRequest)(url, {
      method: opts.method ?? 'GET', agent: false, ...(opts.ca ? { ca: opts.ca } : {}),
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...(data ? { 'content-type': 'application/json' } : {}) },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    req.on('error', reject);
    req.end(data);
  });
}

interface LanAnswer { status: number; headers: Record<string, string>; body: string }
/** An HTTP/1.1 request with curl inside the namespace from one of its addresses (async: the box answers from this process). */
async function fromLan(from: string, url: string, caFile: string, opts: { method?: string; headers?: Record<string, string>; body?: unknown; upgrade?: boolean } = {}): Promise<LanAnswer> {
  const args = ['netns', 'exec', NS, 'curl', '-sS', '-i', '--http1.1', '--interface', from, '--cacert', caFile, '-m', opts.upgrade ? '4' : '30'];
  const headers: Record<string, string> = { ...(opts.upgrade ? { connection: 'Upgrade', upgrade: 'websocket', 'sec-websocket-version': '13', 'sec-websocket-key': 'dGhlIHNhbXBsZSBub25jZQ==' } : {}), ...opts.headers };
  for (const [k, v] of Object.entries(headers)) args.push('-H', `${k}: ${v}`);
  if (opts.body !== undefined) args.push('-H', 'content-type: application/json', '--data-binary', JSON.stringify(opts.body));
  else if (opts.method) args.push('-X', opts.method);
  args.push(url);
  let out: string;
  try {
    out = (await run('ip', args, { encoding: 'latin1', maxBuffer: 4 << 20 })).stdout;
  } catch (err) {
    // An accepted WebSocket stays open: curl gives up after -m with what it got (exit 28).
    const e = err as { code?: number; stdout?: string };
    if (!(opts.upgrade && e.code === 28 && e.stdout)) throw err;
    out = e.stdout;
  }
  const end = out.indexOf('\r\n\r\n');
  const [first, ...lines] = out.slice(0, end < 0 ? out.length : end).split('\r\n');
  const headersOut: Record<string, string> = {};
  for (const l of lines) {
    const i = l.indexOf(':');
    if (i > 0) headersOut[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
  }
  return { status: Number(/^HTTP\/1\.1 (\d{3})/.exec(first ?? '')?.[1] ?? 0), headers: headersOut, body: end < 0 ? '' : out.slice(end + 4) };
}
const errorCode = (a: LanAnswer) => (JSON.parse(a.body) as { error?: { code?: string } }).error?.code;

describe('HTTPS on the site LAN across a network namespace, in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser | undefined;
  let home: string;
  let ca: string;
  let card: string;
  let caFile: string;
  const firstRun: { lan?: LanAnswer; panel?: LanAnswer } = {};

  beforeAll(async () => {
    if (process.getuid?.() !== 0) {
      throw new Error('this test makes a network namespace and a veth pair (ip netns, ip link): run it as root (CI runs as root)');
    }
    removeNetwork();
    ip('netns', 'add', NS);
    ip('link', 'add', `${VETH}a`, 'type', 'veth', 'peer', 'name', `${VETH}b`);
    ip('link', 'set', `${VETH}b`, 'netns', NS);
    ip('addr', 'add', `${BOX_IP}/24`, 'dev', `${VETH}a`);
    ip('link', 'set', `${VETH}a`, 'up');
    ip('netns', 'exec', NS, 'ip', 'addr', 'add', `${TABLET_IP}/24`, 'dev', `${VETH}b`);
    ip('netns', 'exec', NS, 'ip', 'addr', 'add', `${INTRUDER_IP}/24`, 'dev', `${VETH}b`);
    ip('netns', 'exec', NS, 'ip', 'link', 'set', `${VETH}b`, 'up');
    ip('netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up');

    env = await createTestEnv('sqlite');
    // The box on the LAN address only; the tablet's address is the panel's, so its card logs in.
    server = await env.start({
      host: BOX_IP, https_port: '0', panel_addresses: TABLET_IP,
      mqtt_broker: 'off', rpc_port: 'off', status_heartbeat_ms: '1000', shutdown_timeout_ms: '1000',
    });
    expect(server.https, 'the HTTPS listener').toBeDefined();

    // The tablet's step: the CA over plain HTTP, checked against the fingerprint the panel shows.
    const crt = await call(`${server.url}/ca.crt`);
    expect(crt.status).toBe(200);
    const info = JSON.parse((await call(`${server.url}/ca.json`)).body.toString()) as { fingerprint_sha256: string };
    expect(new X509Certificate(crt.body).fingerprint256).toBe(info.fingerprint_sha256);
    ca = new X509Certificate(crt.body).toString();

    home = mkdtempSync(join(tmpdir(), 'cabinet-https-home-'));
    const nss = join(home, '.pki', 'nssdb');
    mkdirSync(nss, { recursive: true });
    writeFileSync(join(home, 'ca.crt'), crt.body);
    execFileSync('certutil', ['-d', `sql:${nss}`, '-N', '--empty-password']);
    execFileSync('certutil', ['-d', `sql:${nss}`, '-A', '-t', 'C,,', '-n', 'cabinet box CA', '-i', join(home, 'ca.crt')]);
    caFile = join(home, 'ca.pem');
    writeFileSync(caFile, ca);

    // Before the first admin card: the first-run command (paths on the box) as the LAN and the panel see it.
    const statusUrl = `https://${BOX_IP}:${server.https!.port}/api/v1/auth/passkey/status`;
    firstRun.lan = await fromLan(INTRUDER_IP, statusUrl, caFile);
    firstRun.panel = await fromLan(TABLET_IP, statusUrl, caFile);

    // The admin card and an alarm, over HTTPS (a client on the LAN address is sent there anyway).
    const base = server.https!.url;
    const master = await env.token(server);
    const issued = await call(`${base}/api/v1/passkeys/commands/issue`, {
      method: 'POST', ca, token: master,
      body: { type: 'rfid', holder: 'Site admin', scope: 'tenant', tenant_id: 'farm-1', role: 'admin', ttl_minutes: 120, card_uid: '04B0000001' },
    });
    expect(issued.status, issued.body.toString()).toBe(201);
    card = (JSON.parse(issued.body.toString()) as { item: { credential: string } }).item.credential;
    const farm = await env.token(server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'farm-admin' });
    const raised = await call(`${base}/api/v1/alarms/commands/raise`, { method: 'POST', ca, token: farm, body: { severity: 'high', source: 'house-1', title: 'Across the LAN' } });
    expect(raised.status, raised.body.toString()).toBe(201);

    // Chromium inside the namespace, with the HOME that holds the NSS database.
    const wrapper = join(home, 'chromium-in-netns');
    writeFileSync(wrapper, `#!/bin/sh\nexec ip netns exec ${NS} ${CHROMIUM} "$@"\n`);
    chmodSync(wrapper, 0o755);
    browser = await chromium.launch({
      executablePath: wrapper,
      env: { ...process.env, HOME: home },
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
    });
  }, 120_000);

  afterAll(async () => {
    await browser?.close().catch(() => undefined);
    await env?.cleanup().catch(() => undefined);
    removeNetwork();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('tells the first-run command at the panel only, never to the LAN', () => {
    expect(firstRun.lan?.status).toBe(200);
    const lan = (JSON.parse(firstRun.lan!.body) as { item: Record<string, unknown> }).item;
    expect(lan.setup_required).toBe(true);
    expect(lan).not.toHaveProperty('setup_hint');
    const panel = (JSON.parse(firstRun.panel!.body) as { item: Record<string, unknown> }).item;
    expect(panel.setup_hint).toMatch(/passkey issue --data-dir /);
  });

  it('sends no token in clear: ws:// from the LAN and access_token over plain HTTP are refused, wss:// is taken', async () => {
    const token = await env.token(server, { role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1', subject: 'farm-admin' });
    const plain = `http://${BOX_IP}:${server.port}/api/v1/status/stream`;
    const secure = `https://${BOX_IP}:${server.https!.port}/api/v1/status/stream`;
    const byQuery = await fromLan(INTRUDER_IP, `${plain}?access_token=${token}`, caFile, { upgrade: true });
    expect(byQuery.status, byQuery.body).toBe(403);
    expect(errorCode(byQuery)).toBe('https_required');
    expect(JSON.parse(byQuery.body)).toMatchObject({ error: { message: expect.stringContaining(`wss://${BOX_IP}:${server.https!.port}/api/v1/status/stream`) } });
    // A cookie or a bearer header on ws:// crosses the LAN in clear as well.
    const byHeader = await fromLan(TABLET_IP, plain, caFile, { upgrade: true, headers: { authorization: `Bearer ${token}` } });
    expect([byHeader.status, errorCode(byHeader)]).toEqual([403, 'https_required']);
    // Over TLS the same token in the query is taken.
    const overTls = await fromLan(INTRUDER_IP, `${secure}?access_token=${token}`, caFile, { upgrade: true });
    expect(overTls.status).toBe(101);
    // A page of another origin opens no WebSocket with the tablet's credentials.
    const foreign = await fromLan(TABLET_IP, secure, caFile, { upgrade: true, headers: { authorization: `Bearer ${token}`, origin: 'https://elsewhere.example' } });
    expect([foreign.status, errorCode(foreign)]).toEqual([403, 'cross_site_request']);
  });

  it('completes a card challenge only at the panel that started it', async () => {
    const base = `https://${BOX_IP}:${server.https!.port}/api/v1/auth/passkey/commands`;
    const started = await fromLan(TABLET_IP, `${base}/start`, caFile, { body: { method: 'rfid' } });
    expect(started.status, started.body).toBe(201);
    const challenge_id = (JSON.parse(started.body) as { item: { challenge_id: string } }).item.challenge_id;
    // The card's own credential, from another address of the LAN: refused like any bad login.
    const stolen = await fromLan(INTRUDER_IP, `${base}/complete`, caFile, { body: { challenge_id, credential: card } });
    expect([stolen.status, errorCode(stolen)]).toEqual([401, 'login_refused']);
    expect(stolen.headers['set-cookie']).toBeUndefined();
    // At the panel the same challenge and credential log in.
    const done = await fromLan(TABLET_IP, `${base}/complete`, caFile, { body: { challenge_id, credential: card } });
    expect(done.status, done.body).toBe(200);
    expect(done.headers['set-cookie']).toMatch(/^cabinet_session=[^;]+; .*HttpOnly.*Secure/);
  });

  it('answers with HSTS, the CSP and no framing; refuses a write with the cookie from another origin; redirects to its own address', async () => {
    const origin = `https://${BOX_IP}:${server.https!.port}`;
    const shell = await fromLan(INTRUDER_IP, `${origin}/`, caFile);
    expect(shell.status).toBe(200);
    expect(shell.headers['strict-transport-security']).toBe('max-age=31536000');
    expect(shell.headers['content-security-policy']).toMatch(/(^|; )script-src 'self'(;|$)/);
    expect(shell.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    expect(shell.headers['content-security-policy']).not.toContain('unsafe-inline');
    expect(shell.headers['x-frame-options']).toBe('DENY');
    const api = await fromLan(INTRUDER_IP, `${origin}/api/v1/auth/passkey/status`, caFile);
    expect(api.headers['strict-transport-security']).toBe('max-age=31536000');
    // Plain HTTP (the probes and the CA stay there) carries no HSTS: it means nothing without TLS.
    const probe = await fromLan(INTRUDER_IP, `http://${BOX_IP}:${server.port}/health`, caFile);
    expect(probe.status).toBe(200);
    expect(probe.headers['strict-transport-security']).toBeUndefined();

    // A session cookie, as the panel's browser holds it after a card login.
    const base = `${origin}/api/v1/auth/passkey/commands`;
    const started = await fromLan(TABLET_IP, `${base}/start`, caFile, { body: { method: 'rfid' } });
    const challenge_id = (JSON.parse(started.body) as { item: { challenge_id: string } }).item.challenge_id;
    const done = await fromLan(TABLET_IP, `${base}/complete`, caFile, { body: { challenge_id, credential: card } });
    const cookie = done.headers['set-cookie']!.split(';')[0]!;
    const raise = (headers: Record<string, string>, title: string) =>
      fromLan(TABLET_IP, `${origin}/api/v1/alarms/commands/raise`, caFile, { headers: { cookie, ...headers }, body: { severity: 'low', source: 'house-9', title } });
    const foreign = await raise({ origin: 'https://elsewhere.example' }, 'From another site');
    expect(foreign.status, foreign.body).toBe(403);
    expect(JSON.parse(foreign.body)).toMatchObject({ error: { code: 'cross_site_request', details: [] }, meta: { request_id: expect.any(String) } });
    // The browser's own word on the request decides when it gives one.
    const crossSite = await raise({ origin, 'sec-fetch-site': 'cross-site' }, 'Cross-site');
    expect([crossSite.status, errorCode(crossSite)]).toEqual([403, 'cross_site_request']);
    const same = await raise({ origin, 'sec-fetch-site': 'same-origin' }, 'From the shell');
    expect(same.status, same.body).toBe(201);
    const list = await fromLan(TABLET_IP, `${origin}/api/v1/alarms/list?limit=100`, caFile, { headers: { cookie } });
    const titles = (JSON.parse(list.body) as { items: { title: string }[] }).items.map((a) => a.title);
    expect(titles).toContain('From the shell');
    expect(titles).not.toContain('From another site');

    // The redirect names the address the request arrived on, whatever Host says.
    const moved = await fromLan(INTRUDER_IP, `http://${BOX_IP}:${server.port}/?x=1`, caFile, { headers: { host: 'elsewhere.example' } });
    expect(moved.status).toBe(308);
    expect(moved.headers.location).toBe(`${origin}/?x=1`);
  });

  it('is redirected to HTTPS, trusts the box, registers the service worker and shows stale data once the box stops', async () => {
    const { page, problems } = await newPage(browser!);
    // Seen twice in about 25 runs, only on a loaded machine: Chromium reports an inline style
    // blocked by the page's CSP (style-src 'self') at the document itself, with no script of ours
    // on the stack; the shell sets no style attribute and ships no inline style (its bundle and
    // index.html hold none). What it was is printed here, so that a run that sees it says what it
    // was; a report from one of the shell's scripts still fails the test.
    await page.addInitScript(`document.addEventListener('securitypolicyviolation', (e) => console.info('csp violation', e.violatedDirective, e.sourceFile, e.lineNumber, JSON.stringify(e.sample), e.target && e.target.outerHTML ? e.target.outerHTML.slice(0, 200) : String(e.target)))`);
    page.on('console', (m) => { if (m.text().startsWith('csp violation')) console.log(m.text()); });
    const httpsOrigin = `https://${BOX_IP}:${server.https!.port}`;
    // Plain HTTP from the LAN: a 308 to HTTPS, which Chromium accepts without a warning (the CA is trusted).
    const first = await page.goto(`${server.url}/`);
    expect(page.url()).toBe(`${httpsOrigin}/`);
    expect(first?.status()).toBe(200);
    expect(await page.evaluate('window.isSecureContext')).toBe(true);
    expect(await page.evaluate('location.protocol')).toBe('https:');

    // The login screen offers the CA: its QR and the fingerprint the tablet compared.
    await page.locator('#trust-box').waitFor();
    const shown = (await page.locator('#ca-fingerprint').textContent())!.replace(/ /g, ':');
    expect(shown).toBe(new X509Certificate(ca).fingerprint256);
    expect(await page.locator('#trust-qr').getAttribute('src')).toMatch(/^data:image\/svg\+xml/);
    expect(await page.locator('#trust-https').getAttribute('href')).toBe(`${httpsOrigin}/`);
    expect(await axeSerious(page)).toEqual([]);
    await shoot(page, 'https-lan-login');

    await page.locator('#card').fill(card);
    await page.keyboard.press('Enter');
    await page.locator('#home').waitFor({ state: 'visible' });
    // The live stream runs over wss on the HTTPS listener.
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state'), { timeout: 15_000 }).toBe('live');
    await page.goto(`${httpsOrigin}/#/m/alarms`);
    await page.locator('[data-resource="alarms"] [data-id]', { hasText: 'Across the LAN' }).waitFor();
    // A secure context: the service worker installs and controls the page.
    await page.waitForFunction('navigator.serviceWorker.controller !== null', undefined, { timeout: 15_000 });
    expect(await page.evaluate('navigator.serviceWorker.controller.scriptURL')).toBe(`${httpsOrigin}/app/sw.js`);

    await server.close();
    await page.reload();
    await page.locator('#home').waitFor();
    await page.locator('.stale-note').first().waitFor();
    await page.locator('[data-resource="alarms"] [data-id]', { hasText: 'Across the LAN' }).waitFor();
    await expect.poll(() => page.locator('#live-state').getAttribute('data-state')).toBe('offline');
    expect(await page.locator('.stale-note').first().textContent()).toMatch(/The box does not answer.*last known data/);
    await shoot(page, 'https-lan-offline-stale');
    const ours = problems.filter((p) => !/^Applying inline style violates .* \(at https:\/\/[^/]+\/:\d+\)$/.test(p));
    expect(ours).toEqual([]);
  }, 90_000);
});
