// HTTPS across a real network boundary (issue 23, item 5): a network namespace joined to this one by
// a veth pair; the box listens on the non-loopback address of this side (10.213.<n>.1), Debian's
// Chromium runs inside the namespace (10.213.<n>.2) and trusts the box's CA through an NSS database
// in its own HOME (certutil, the way a tablet installs the CA it downloaded over plain HTTP). The
// browser asks for plain HTTP, is redirected to HTTPS, sees a secure context, logs in with a card,
// gets the live stream over wss and a service worker; the box stops, the reload shows the last data
// marked stale. Needs root (ip netns); the namespace goes even when a step fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
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

describe('HTTPS on the site LAN across a network namespace, in Chromium', () => {
  let env: TestEnv;
  let server: RunningServer;
  let browser: Browser | undefined;
  let home: string;
  let ca: string;
  let card: string;

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
    expect(await page.locator('.stale-note').first().textContent()).toMatch(/Stale/);
    await shoot(page, 'https-lan-offline-stale');
    const ours = problems.filter((p) => !/^Applying inline style violates .* \(at https:\/\/[^/]+\/:\d+\)$/.test(p));
    expect(ours).toEqual([]);
  }, 90_000);
});
