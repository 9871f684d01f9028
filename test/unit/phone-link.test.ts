// The hand-off link's origin (src/runtime/tls-routes.ts phoneOrigin): the host /ca.json names, never
// loopback, and none at all when the box has no LAN address. Across a real address:
// test/e2e/handoff-lan.test.ts.
import { describe, expect, it } from 'vitest';
import type { Services } from '../../src/kernel/context.js';
import type { BoxNames } from '../../src/runtime/tls-names.js';
import { lanHost, phoneOrigin } from '../../src/runtime/tls-routes.js';

const withTls = (names: BoxNames, httpsPort = 8443) => ({ tls: { box: { material: { names } }, httpPort: 8080, httpsPort } }) as unknown as Services;
const LOOPBACK_ONLY: BoxNames = { dns: ['localhost'], ips: ['127.0.0.1', '::1'] };
const ON_LAN: BoxNames = { dns: ['barn-box', 'barn-box.local', 'localhost'], ips: ['127.0.0.1', '192.168.4.20', '::1', 'fd00::20'] };

describe('the hand-off link names the box on the LAN', () => {
  it('the panel on loopback gets the first LAN address (IPv4 first), over HTTPS', () => {
    expect(phoneOrigin(withTls(ON_LAN), '127.0.0.1:8080', 'http://127.0.0.1:8080/api/v1/auth/passkey/commands/start')).toBe('https://192.168.4.20:8443');
    expect(phoneOrigin(withTls(ON_LAN, 443), 'localhost:8080', 'http://localhost:8080/x')).toBe('https://192.168.4.20');
  });
  it('a tablet that asked by one of the box\'s names keeps it; a name not the box\'s is not reflected', () => {
    expect(phoneOrigin(withTls(ON_LAN), 'barn-box.local:8443', 'https://barn-box.local:8443/x')).toBe('https://barn-box.local:8443');
    expect(phoneOrigin(withTls(ON_LAN), 'evil.example', 'https://evil.example/x')).toBe('https://192.168.4.20:8443');
  });
  it('no LAN address: no link at all, never a loopback one', () => {
    expect(lanHost('127.0.0.1:8080', LOOPBACK_ONLY)).toBeUndefined();
    expect(phoneOrigin(withTls(LOOPBACK_ONLY), '127.0.0.1:8080', 'http://127.0.0.1:8080/x')).toBeUndefined();
  });
  it('the address the box listens on: the one it was told, none when that is loopback', () => {
    const listening = (host: string) => ({ ...withTls(ON_LAN), config: { host } }) as unknown as Services;
    expect(phoneOrigin(listening('192.168.4.20'), '127.0.0.1:8080', 'http://127.0.0.1:8080/x')).toBe('https://192.168.4.20:8443');
    expect(phoneOrigin(listening('127.0.0.1'), '127.0.0.1:8080', 'http://127.0.0.1:8080/x')).toBeUndefined();
    expect(phoneOrigin(listening('::'), '127.0.0.1:8080', 'http://127.0.0.1:8080/x')).toBe('https://192.168.4.20:8443');
    expect(phoneOrigin({ config: { host: '127.0.0.1' } } as unknown as Services, '127.0.0.1:8080', 'http://127.0.0.1:8080/x')).toBeUndefined();
  });
  it('IPv6-only LAN: the address in brackets', () => {
    expect(phoneOrigin(withTls({ dns: ['localhost'], ips: ['127.0.0.1', '::1', 'fd00::20'] }), undefined, 'http://127.0.0.1:8080/x')).toBe('https://[fd00::20]:8443');
  });
  it('HTTPS off: the origin the tablet used when it is not loopback', () => {
    expect(phoneOrigin({} as Services, 'farm.example.com', 'https://farm.example.com/x')).toBe('https://farm.example.com');
    const fromPanel = phoneOrigin({} as Services, '127.0.0.1:8080', 'http://127.0.0.1:8080/x');
    if (fromPanel !== undefined) expect(new URL(fromPanel).hostname).not.toMatch(/^(127\.|\[::1\]$|localhost$)/);
  });
});
