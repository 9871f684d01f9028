// MQTT across a real network boundary, as an installer's device sees it: a network namespace
// joined to this one by a veth pair (as test/e2e/https-lan.test.ts builds it), the box on the
// non-loopback address of this side, Debian's mosquitto_pub (package mosquitto-clients) inside the
// namespace. Over TLS with the box's CA and a device credential it publishes and the point is
// stored; a person's session token is refused from there even over TLS; the credential is refused
// on another device's topic; the plaintext port is not reachable from the LAN by default.
// Needs root (ip netns); the namespace goes even when a step fails.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';

const n = 10 + (process.pid % 240);
const NS = `cabinet-mqtt-${process.pid}`;
const VETH = `cbm${process.pid % 100000}`;
const BOX_IP = `10.214.${n}.1`;
const DEVICE_IP = `10.214.${n}.2`;

const ip = (...args: string[]) => execFileSync('ip', args, { stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const quietly = (fn: () => unknown) => {
  try {
    fn();
  } catch {
    /* already gone */
  }
};
function removeNetwork(): void {
  quietly(() => ip('netns', 'del', NS));
  quietly(() => ip('link', 'del', `${VETH}a`));
}

/**
 * mosquitto_pub run inside the namespace, as a device on the LAN would run it. Asynchronous: the
 * box runs in this process, and a synchronous spawn would stop it answering.
 */
function pub(args: string[]): Promise<{ status: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile('ip', ['netns', 'exec', NS, 'mosquitto_pub', '-h', BOX_IP, '-i', `lan-${Math.random().toString(16).slice(2, 8)}`, '-q', '1', ...args], { encoding: 'utf8', timeout: 20_000 }, (err, stdout, stderr) => {
      const code = err ? ((err as { code?: unknown }).code ?? null) : 0;
      resolve({ status: typeof code === 'number' ? code : null, out: `${stdout}${stderr}` });
    });
  });
}

describe('MQTT on the site LAN across a network namespace, with mosquitto_pub', () => {
  let env: TestEnv;
  let server: RunningServer;
  let admin: Client;
  let dir: string;
  let cafile: string;
  let credential: string;
  let topic: string;

  beforeAll(async () => {
    if (process.getuid?.() !== 0) throw new Error('this test makes a network namespace and a veth pair (ip netns, ip link): run it as root (CI runs as root)');
    removeNetwork();
    ip('netns', 'add', NS);
    ip('link', 'add', `${VETH}a`, 'type', 'veth', 'peer', 'name', `${VETH}b`);
    ip('link', 'set', `${VETH}b`, 'netns', NS);
    ip('addr', 'add', `${BOX_IP}/24`, 'dev', `${VETH}a`);
    ip('link', 'set', `${VETH}a`, 'up');
    ip('netns', 'exec', NS, 'ip', 'addr', 'add', `${DEVICE_IP}/24`, 'dev', `${VETH}b`);
    ip('netns', 'exec', NS, 'ip', 'link', 'set', `${VETH}b`, 'up');
    ip('netns', 'exec', NS, 'ip', 'link', 'set', 'lo', 'up');

    env = await createTestEnv('sqlite');
    // The shipped MQTT defaults but the ports (any free one): plaintext on loopback, TLS on every
    // address, with the HTTPS listener's certificate (made after the veth is up: it names BOX_IP).
    const defaults = env.config();
    expect(defaults.mqtt_host).toBe('127.0.0.1');
    server = await env.start({ https_port: '0', mqtt_broker: 'embedded', mqtt_port: '0', mqtt_tls_port: '0', telemetry_flush_ms: '10', rpc_port: 'off', mqtt_host: defaults.mqtt_host });
    expect(server.services.mqtt?.tlsPort).toBeGreaterThan(0);
    dir = mkdtempSync(join(tmpdir(), 'cabinet-mqtt-lan-'));
    // The installer's step: the box's CA, as /ca.pem serves it.
    cafile = join(dir, 'ca.pem');
    writeFileSync(cafile, await (await fetch(`${server.url}/ca.pem`)).text());
    expect(readFileSync(cafile, 'utf8')).toBe(readFileSync(join(env.dataDir, 'tls', 'ca.crt'), 'utf8'));
    admin = await clientAs(env, server, { subject: 'farm-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' });
    const issued = (await admin.post('/api/v1/device-credentials/commands/issue', { device_id: 'co2-3', site_id: 'barn', name: 'House 3 CO2' })).body.item;
    credential = issued.credential;
    topic = issued.topics.publish;
  }, 120_000);

  afterAll(async () => {
    await env?.cleanup().catch(() => undefined);
    removeNetwork();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  const tls = () => ['-p', String(server.services.mqtt!.tlsPort), '--cafile', cafile];

  it('publishes over TLS with a device credential and the point is stored', async () => {
    const r = await pub([...tls(), '-u', 'co2-3', '-P', credential, '-t', topic, '-m', JSON.stringify({ metric: 'co2', value: 1450, unit: 'ppm' })]);
    expect(r.status, r.out).toBe(0);
    const deadline = Date.now() + 10_000;
    let items: { device_id: string; metric: string; value: number; site_id: string }[] = [];
    while (Date.now() < deadline && items.length === 0) {
      items = (await admin.get('/api/v1/devices/telemetry/list?device_id=co2-3')).body.items;
      if (!items.length) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(items).toMatchObject([{ device_id: 'co2-3', site_id: 'barn', metric: 'co2', value: 1450 }]);
    const listed = (await admin.get('/api/v1/device-credentials/list')).body.items[0];
    expect(listed.last_address).toBe(DEVICE_IP);
  });

  it('refuses a person\'s session token as the password from the LAN, even over TLS', async () => {
    const token = await env.token(server, { subject: 'farm-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'farm-1' });
    const r = await pub([...tls(), '-u', 'someone', '-P', token, '-t', 'cabinet/farm-1/barn/telemetry/co2-3', '-m', JSON.stringify({ metric: 'sneaked', value: 1 })]);
    expect(r.status, r.out).toBeTypeOf('number'); // an answer, not our timeout
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/not authori[sz]ed|bad user ?name or password/i);
    expect((await admin.get('/api/v1/devices/telemetry/list?metric=sneaked')).body.total).toBe(0);
    const refused = env.logs.find((l) => l.msg === 'MQTT connection refused' && l.reason === 'session_token_from_lan');
    expect(refused?.address).toBe(DEVICE_IP);
  });

  it('refuses the credential on another device\'s topic', async () => {
    const r = await pub([...tls(), '-u', 'co2-3', '-P', credential, '-t', 'cabinet/farm-1/barn/telemetry/co2-4', '-m', JSON.stringify({ metric: 'foreign', value: 1 })]);
    expect(r.status, r.out).toBeTypeOf('number');
    expect(r.status).not.toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await admin.get('/api/v1/devices/telemetry/list?metric=foreign')).body.total).toBe(0);
  });

  it('does not answer plaintext MQTT on the LAN by default', async () => {
    const r = await pub(['-p', String(server.services.mqtt!.port), '-u', 'co2-3', '-P', credential, '-t', topic, '-m', '{"metric":"clear","value":1}']);
    expect(r.status, r.out).toBeTypeOf('number');
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/connection refused/i);
  });

  it('refuses TLS to a device that does not trust the box\'s CA', async () => {
    const other = join(dir, 'other.pem');
    writeFileSync(other, readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8'));
    const r = await pub(['-p', String(server.services.mqtt!.tlsPort), '--cafile', other, '-u', 'co2-3', '-P', credential, '-t', topic, '-m', '{"metric":"untrusted","value":1}']);
    expect(r.status, r.out).toBeTypeOf('number');
    expect(r.status).not.toBe(0);
    expect(r.out).toMatch(/certificate verify failed|tls|ssl/i);
  });
});
