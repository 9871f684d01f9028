// The box's certificates (src/runtime/tls.ts): what the CA and the server certificate say (names,
// validity, key usage, the chain as node:crypto verifies it), renewal near expiry on an injected
// clock, re-issue when the addresses change, the key files' modes; the box's names from its
// interfaces; and the plain-HTTP redirect rules (src/runtime/tls-http.ts).
import 'reflect-metadata';
import { afterAll, describe, expect, it } from 'vitest';
import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { X509Certificate } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as x509 from '@peculiar/x509';
import { BoxTls, ensureTls, RENEW_BEFORE_DAYS, tlsDir } from '../../src/runtime/tls.js';
import { boxNames, lanAddress, type BoxNames } from '../../src/runtime/tls-names.js';
import { hostOf, redirectTarget } from '../../src/runtime/tls-http.js';
import { createLogger } from '../../src/kernel/logger.js';

const DAY = 86_400_000;
const dirs: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'cabinet-tls-'));
  dirs.push(d);
  return d;
};
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const NAMES: BoxNames = { dns: ['box-7', 'box-7.local', 'localhost'], ips: ['10.213.0.1', '127.0.0.1', '::1', 'fd00::2'] };
const T0 = new Date('2026-03-01T08:00:00Z');
const mode = (p: string) => (statSync(p).mode & 0o777).toString(8);
const read = (dir: string, f: string) => new X509Certificate(readFileSync(join(tlsDir(dir), f)));
/** Key usage bits as @peculiar/x509 reads them from the certificate. */
const keyUsage = (cert: X509Certificate) => {
  const parsed = new x509.X509Certificate(cert.raw);
  return {
    usages: parsed.getExtension(x509.KeyUsagesExtension)?.usages,
    critical: parsed.getExtension(x509.KeyUsagesExtension)?.critical,
    eku: parsed.getExtension(x509.ExtendedKeyUsageExtension)?.usages,
    basic: parsed.getExtension(x509.BasicConstraintsExtension),
  };
};

describe('the box\'s certificate authority and server certificate', () => {
  it('on first start makes a CA and a server certificate for the box\'s names, keys 0600 in a 0700 folder', async () => {
    const dir = tempDir();
    const first = await ensureTls({ dataDir: dir, now: T0, names: NAMES, hostname: 'box-7' });
    expect(first.issued).toEqual({ ca: true, reason: 'first start' });
    expect(mode(tlsDir(dir))).toBe('700');
    expect(mode(join(tlsDir(dir), 'ca.key'))).toBe('600');
    expect(mode(join(tlsDir(dir), 'server.key'))).toBe('600');
    // The certificate is public, but nothing in the data directory is anyone else's to read.
    expect(mode(join(tlsDir(dir), 'ca.crt'))).toBe('600');
    expect(mode(join(tlsDir(dir), 'server.crt'))).toBe('600');

    const ca = read(dir, 'ca.crt');
    const leaf = read(dir, 'server.crt');
    // The chain as Node (and so a TLS client) checks it.
    expect(ca.ca).toBe(true);
    expect(ca.checkIssued(ca) && ca.verify(ca.publicKey)).toBe(true);
    expect(leaf.ca).toBe(false);
    expect(leaf.checkIssued(ca)).toBe(true);
    expect(leaf.verify(ca.publicKey)).toBe(true);
    expect(ca.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(leaf.subject).toContain('CN=box-7');
    expect(ca.subject).toMatch(/CN=cabinet box-7 CA [0-9a-f]{8}/);
    // Every name and address, and nothing else.
    expect(leaf.subjectAltName?.split(', ').sort()).toEqual(
      ['DNS:box-7', 'DNS:box-7.local', 'DNS:localhost', 'IP Address:10.213.0.1', 'IP Address:127.0.0.1', 'IP Address:0:0:0:0:0:0:0:1', 'IP Address:FD00:0:0:0:0:0:0:2'].sort(),
    );
    expect(leaf.checkIP('10.213.0.1')).toBe('10.213.0.1');
    expect(leaf.checkIP('10.213.0.9')).toBeUndefined();
    expect(leaf.checkHost('box-7.local')).toBe('box-7.local');
    // Validity: backdated an hour; the server's 397 days, the CA's 20 years.
    expect(new Date(leaf.validFrom).getTime()).toBe(T0.getTime() - 3_600_000);
    expect(new Date(leaf.validTo).getTime()).toBe(T0.getTime() + 397 * DAY);
    expect(new Date(ca.validTo).getTime()).toBe(T0.getTime() + 20 * 365 * DAY);
    // Key usage: the CA signs certificates only (path length 0), the server authenticates TLS only.
    const caUse = keyUsage(ca);
    expect(caUse.usages).toBe(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign);
    expect(caUse.critical).toBe(true);
    expect(caUse.basic?.ca).toBe(true);
    expect(caUse.basic?.pathLength).toBe(0);
    const leafUse = keyUsage(leaf);
    expect(leafUse.usages).toBe(x509.KeyUsageFlags.digitalSignature);
    expect(leafUse.eku).toEqual([x509.ExtendedKeyUsage.serverAuth]);
    expect(leafUse.basic?.ca).toBe(false);
    // What the service hands out matches the files.
    expect(first.material.caFingerprint).toBe(ca.fingerprint256);
    expect(first.material.caDer.equals(ca.raw)).toBe(true);
    expect(first.material.notAfter.getTime()).toBe(new Date(leaf.validTo).getTime());
  });

  it('keeps both on a restart, renews the server certificate 30 days before expiry and keeps the CA', async () => {
    const dir = tempDir();
    await ensureTls({ dataDir: dir, now: T0, names: NAMES, hostname: 'box-7' });
    const ca0 = read(dir, 'ca.crt');
    const leaf0 = read(dir, 'server.crt');

    const restart = await ensureTls({ dataDir: dir, now: new Date(T0.getTime() + 10 * DAY), names: NAMES, hostname: 'box-7' });
    expect(restart.issued).toBeUndefined();
    expect(read(dir, 'server.crt').serialNumber).toBe(leaf0.serialNumber);

    // One day before the renewal window: nothing yet.
    const notYet = new Date(T0.getTime() + (397 - RENEW_BEFORE_DAYS - 1) * DAY);
    expect((await ensureTls({ dataDir: dir, now: notYet, names: NAMES, hostname: 'box-7' })).issued).toBeUndefined();

    const due = new Date(T0.getTime() + (397 - RENEW_BEFORE_DAYS + 1) * DAY);
    const renewed = await ensureTls({ dataDir: dir, now: due, names: NAMES, hostname: 'box-7' });
    expect(renewed.issued?.ca).toBe(false);
    expect(renewed.issued?.reason).toMatch(/within 30 days/);
    const leaf1 = read(dir, 'server.crt');
    expect(leaf1.serialNumber).not.toBe(leaf0.serialNumber);
    expect(new Date(leaf1.validTo).getTime()).toBe(due.getTime() + 397 * DAY);
    expect(leaf1.publicKey.export({ format: 'der', type: 'spki' }).equals(leaf0.publicKey.export({ format: 'der', type: 'spki' }))).toBe(false);
    // The tablets' trust stays: same CA, and it signed the new one.
    expect(read(dir, 'ca.crt').fingerprint256).toBe(ca0.fingerprint256);
    expect(leaf1.verify(ca0.publicKey)).toBe(true);
  });

  it('issues anew when an address is added or removed, or the certificate is not the CA\'s; a key made readable goes back to 0600', async () => {
    const dir = tempDir();
    await ensureTls({ dataDir: dir, now: T0, names: NAMES, hostname: 'box-7' });
    const moved = { ...NAMES, ips: ['10.213.0.7', '127.0.0.1', '::1', 'fd00::2'] };
    const a = await ensureTls({ dataDir: dir, now: T0, names: moved, hostname: 'box-7' });
    expect(a.issued?.reason).toBe('the box\'s addresses or host name changed');
    expect(read(dir, 'server.crt').checkIP('10.213.0.7')).toBe('10.213.0.7');
    expect(read(dir, 'server.crt').checkIP('10.213.0.1')).toBeUndefined();
    const fewer = { ...NAMES, ips: ['127.0.0.1', '::1', '10.213.0.7'].sort() };
    expect((await ensureTls({ dataDir: dir, now: T0, names: fewer, hostname: 'box-7' })).issued?.reason).toBe('the box\'s addresses or host name changed');

    // A server certificate from another box's CA (copied over) is replaced.
    const other = tempDir();
    await ensureTls({ dataDir: other, now: T0, names: fewer, hostname: 'box-7' });
    rmSync(join(tlsDir(dir), 'server.crt'));
    rmSync(join(tlsDir(dir), 'server.key'));
    const { copyFileSync } = await import('node:fs');
    copyFileSync(join(tlsDir(other), 'server.crt'), join(tlsDir(dir), 'server.crt'));
    copyFileSync(join(tlsDir(other), 'server.key'), join(tlsDir(dir), 'server.key'));
    chmodSync(join(tlsDir(dir), 'ca.key'), 0o644);
    const b = await ensureTls({ dataDir: dir, now: T0, names: fewer, hostname: 'box-7' });
    expect(b.issued?.reason).toBe('not signed by this box\'s CA');
    expect(read(dir, 'server.crt').verify(read(dir, 'ca.crt').publicKey)).toBe(true);
    expect(mode(join(tlsDir(dir), 'ca.key'))).toBe('600');
  });

  it('BoxTls checks on its clock and names and tells the listener only when it issued', async () => {
    const dir = tempDir();
    let now = T0;
    let names = NAMES;
    const logs: Record<string, unknown>[] = [];
    const log = createLogger('info', (line) => logs.push(JSON.parse(line) as Record<string, unknown>));
    const tls = new BoxTls({ dataDir: dir, log, clock: () => now, names: () => names, hostname: () => 'box-7' });
    const changes: string[] = [];
    tls.onChange((m) => changes.push(m.names.ips.join(' ')));
    expect(await tls.check()).toBe(true); // first start: the listener is not running yet, no change event
    expect(changes).toEqual([]);
    expect(await tls.check()).toBe(false);
    names = { ...NAMES, ips: ['10.213.0.2', '127.0.0.1', '::1'] };
    expect(await tls.check()).toBe(true);
    expect(changes).toEqual(['10.213.0.2 127.0.0.1 ::1']);
    now = new Date(T0.getTime() + 380 * DAY);
    expect(await tls.check()).toBe(true);
    expect(changes).toHaveLength(2);
    expect(tls.material.notAfter.getTime()).toBe(now.getTime() + 397 * DAY);
    // The log says what and why, never a key.
    const text = JSON.stringify(logs);
    expect(text).toContain('issued a new server certificate');
    expect(text).not.toContain('PRIVATE KEY');
    expect(text).not.toContain(readFileSync(join(tlsDir(dir), 'server.key'), 'utf8').split('\n')[1]!);
  });
});

describe('the box\'s names', () => {
  const iface = (address: string, family: 'IPv4' | 'IPv6', internal = false) => ({ address, family, internal, netmask: '', mac: '00:00:00:00:00:00', cidr: null, ...(family === 'IPv6' ? { scopeid: 0 } : {}) }) as never;
  it('are the non-internal addresses without link-local ones, the loopbacks, the host name, its .local and localhost', () => {
    const names = boxNames({ lo: [iface('127.0.0.1', 'IPv4', true), iface('::1', 'IPv6', true)], eth0: [iface('192.168.1.20', 'IPv4'), iface('FD00::20', 'IPv6'), iface('fe80::1', 'IPv6')], wlan0: [iface('10.0.0.5', 'IPv4')] }, 'Farm-Box');
    expect(names).toEqual({ dns: ['farm-box', 'farm-box.local', 'localhost'], ips: ['10.0.0.5', '127.0.0.1', '192.168.1.20', '::1', 'fd00::20'] });
    expect(lanAddress(names)).toBe('10.0.0.5');
    expect(boxNames({}, 'box.example.org').dns).toEqual(['box.example.org', 'box.local', 'localhost']);
    expect(boxNames({}, 'not_a_dns name').dns).toEqual(['localhost']);
    expect(lanAddress(boxNames({}, 'x'))).toBeUndefined();
  });
});

describe('plain HTTP redirect rules', () => {
  const req = (url: string, remote: string, host?: string, local = '10.213.0.1') => ({ url, headers: { host }, socket: { remoteAddress: remote, localAddress: local } });
  const names = { dns: ['box', 'box.local', 'localhost'], ips: ['10.213.0.1', '127.0.0.1', '::1', 'fd00::2'] };
  it('sends LAN clients to HTTPS with path and query, keeps loopback, the probes and the CA on HTTP', () => {
    expect(redirectTarget(req('/#x', '10.213.0.2', '10.213.0.1:8080'), 8443, names)).toBe('https://10.213.0.1:8443/#x');
    // One of the box's own names is kept; any other host (issue 33) is not reflected.
    expect(redirectTarget(req('/api/v1/alarms?limit=5', '10.213.0.2', 'Box.local:8080'), 8443, names)).toBe('https://box.local:8443/api/v1/alarms?limit=5');
    expect(redirectTarget(req('/api/v1/alarms?limit=5', '10.213.0.2', 'elsewhere.example'), 8443, names)).toBe('https://10.213.0.1:8443/api/v1/alarms?limit=5');
    expect(redirectTarget(req('/', '10.213.0.2', 'localhost:8080'), 8443, names)).toBe('https://10.213.0.1:8443/');
    expect(redirectTarget(req('/', '10.213.0.2', '127.0.0.1:8080'), 8443, names)).toBe('https://10.213.0.1:8443/');
    expect(redirectTarget(req('/', '10.213.0.2', 'box.local'), 8443)).toBe('https://10.213.0.1:8443/');
    expect(redirectTarget(req('/', '::ffff:10.213.0.2', '[fd00::2]:8080', 'fd00::2'), 443, names)).toBe('https://[fd00::2]/');
    // A listener on :: sees an IPv4 client's box address as ::ffff:a.b.c.d, which no certificate names.
    expect(redirectTarget(req('/', '::ffff:10.213.0.2', 'evil.example', '::ffff:10.213.0.1'), 8443, names)).toBe('https://10.213.0.1:8443/');
    for (const path of ['/health', '/live', '/ready', '/ready?x=1', '/ca.crt', '/ca.pem', '/ca.json']) expect(redirectTarget(req(path, '10.213.0.2', 'b'), 8443)).toBeUndefined();
    for (const remote of ['127.0.0.1', '127.0.1.1', '::1', '::ffff:127.0.0.1']) expect(redirectTarget(req('/', remote, 'localhost:8080'), 8443)).toBeUndefined();
    // HTTPS not listening: nothing is redirected.
    expect(redirectTarget(req('/', '10.213.0.2', '10.213.0.1:8080'), undefined)).toBeUndefined();
    // A Host header that is not a host falls back to the address the client reached.
    expect(redirectTarget(req('/', '10.213.0.2', 'evil.example/x@y'), 8443)).toBe('https://10.213.0.1:8443/');
    expect(redirectTarget(req('/', 'fd00::9', undefined, 'fd00::2'), 8443)).toBe('https://[fd00::2]:8443/');
    expect(hostOf('[zz::1]:80')).toBeUndefined();
    expect(hostOf('Box-7.local')).toBe('Box-7.local');
  });
});
