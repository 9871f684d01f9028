import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { startServer } from '../src/server.js';
import { createLogger } from '../src/kernel/logger.js';
const dir = mkdtempSync(join(tmpdir(), 'rp2-'));
const server = await startServer(loadConfig({ http_port: '0', host: '127.0.0.1', data_dir: dir, rpc_port: '0', log_level: 'error', mqtt_broker: 'off' }, {}), { log: createLogger('error') });
const s = server.services;
const token = (await s.sessions.issue({ subject: 'b', role: 'operator', scope_type: 'master' })).token;
async function t(name: string, n: number, f: () => unknown) {
  for (let i = 0; i < 200; i++) await f();
  const lat: number[] = [];
  for (let i = 0; i < n; i++) { const a = performance.now(); await f(); lat.push(performance.now() - a); }
  lat.sort((a, b) => a - b);
  console.log(name.padEnd(30), 'p50', (lat[n >> 1]! * 1000).toFixed(1), 'us  mean', (lat.reduce((a, b) => a + b) / n * 1000).toFixed(1), 'us');
}
const entry = { actor: 'b', action: 'field.write.modbus', resource: '127.0.0.1:502 unit:1 10', result: 'success' as const, correlation_id: 'abc', tenant_id: null, details: { index: 0, values: { a: 1 }, wire: '0001', outcome: 'ok', attempts: 1, verified: false, duration_ms: 0 } };
await t('audit.record', 3000, () => s.audit.record(entry));
await t('sessions.verify', 3000, () => s.sessions.verify(token));
await t('security.record', 3000, () => s.security.record({ category: 'access', event: 'field_write', method: 'POST', path: '/api/rpc', result: 'allow', subject: 'b', role: 'operator' }));
await t('db.transaction noop', 3000, () => s.db.transaction(async () => {}));
await t('await noop', 3000, async () => {});

import http from 'node:http';
import { post } from './lib/child.js';
import { startModbusPeer, stopAll } from '../test/field/helpers.js';
import ModbusRTU from 'modbus-serial';
const peer = await startModbusPeer('tcp', '0');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const url = s.field!.url;
const body = (i: number) => JSON.stringify({ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', device_port: peer.port, object_type: 'holding register', object_address: 10, data_type: 'uint16', value: i & 0xffff }] });
let i = 0;
const direct = new ModbusRTU(); await direct.connectTCP('127.0.0.1', { port: peer.port }); direct.setID(1);
await t('direct', 2000, () => direct.writeRegister(10, i++ & 0xffff));
await t('rpc', 2000, () => post(agent, url, body(i++), { authorization: `Bearer ${token}` }));
const realAudit = s.audit.record; s.audit.record = async () => {};
await t('rpc no audit', 2000, () => post(agent, url, body(i++), { authorization: `Bearer ${token}` }));
s.audit.record = realAudit;
const realSec = s.security.record; s.security.record = () => {};
await t('rpc no seclog', 2000, () => post(agent, url, body(i++), { authorization: `Bearer ${token}` }));
s.security.record = realSec;
const realVerify = s.sessions.verify; const c0 = await realVerify(token); s.sessions.verify = async () => c0;
await t('rpc no verify', 2000, () => post(agent, url, body(i++), { authorization: `Bearer ${token}` }));
s.sessions.verify = realVerify;
await t('rpc', 2000, () => post(agent, url, body(i++), { authorization: `Bearer ${token}` }));
await t('rpc bad token (401)', 2000, () => post(agent, url, body(i++), { authorization: `Bearer x` }).catch(() => {}));
direct.close(() => {}); agent.destroy();
await server.close();
await stopAll();

