// What the installer's siren screen asks of the alarm relay beyond configure and test: the check
// of an output before it is saved (one read of the coil on a real pymodbus I/O module, nothing
// written, nothing saved, no alarm when it does not answer, the configure body's refusals), and
// a failing output's live state (since when, and which alarm) until a good write clears both.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { startIoPeer, type IoPeer } from '../field/peers/io-peer.js';
import { closedTcpPort, stopAll, waitFor } from '../field/helpers.js';

interface OutputView { output: string; configured: boolean; energised: boolean | null; failing: boolean; failing_since: string | null; alarm_id: string | null; last_error: string | null }
interface AlarmItem { id: string; rule_id: string | null; raised_at: string; status: string }

describe('alarm relay: check before saving, failing since (sqlite)', () => {
  let env: TestEnv;
  let server: RunningServer;
  let peer: IoPeer;
  let owner: Client;
  let boxAdmin: Client;
  let operator: Client;

  const outputs = async (): Promise<OutputView[]> => (await owner.get('/api/v1/alarm-relay/list')).body.items as OutputView[];
  const siren = async (): Promise<OutputView> => (await outputs()).find((o) => o.output === 'siren')!;
  const relayAlarms = async (): Promise<AlarmItem[]> => ((await boxAdmin.get('/api/v1/industry-alarms/list?limit=100')).body.items as AlarmItem[]).filter((a) => a.rule_id === 'alarm-relay:siren');

  beforeAll(async () => {
    env = await createTestEnv('sqlite');
    peer = await startIoPeer('tcp', '0');
    server = await env.start({ mqtt_broker: 'off', field: JSON.stringify({ request_timeout_ms: 1000, retries: 0 }) });
    const box = JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string };
    owner = await clientAs(env, server);
    boxAdmin = await clientAs(env, server, { subject: 'box-admin', role: 'admin', scope_type: 'tenant', tenant_id: box.tenant_id }, owner.contract);
    operator = await clientAs(env, server, { subject: 'crew', role: 'operator', scope_type: 'tenant', tenant_id: box.tenant_id }, owner.contract);
  }, 90_000);
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
    await peer.stop();
  });

  it('reads the coil where the form points, writing and saving nothing', async () => {
    const body = { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 3, priorities: ['P1', 'P2'] };
    const r = await boxAdmin.post('/api/v1/alarm-relay/commands/check', body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(r.body.item).toMatchObject({ ok: true, energised: false, message: null, target: `Modbus 127.0.0.1:${peer.port} unit 1 coil 3` });
    expect(await peer.writes(3)).toEqual([]);
    expect((await siren()).configured).toBe(false);
    const audit = (await owner.get('/api/v1/audit/list?action=alarm-relay.check')).body.items;
    expect(audit[0]).toMatchObject({ actor: 'box-admin', resource: 'alarm-relay/siren', result: 'success', correlation_id: r.headers.get('x-request-id') });
    expect(audit[0].correlation_id).toBeTruthy();
  });

  it('says in words when the module does not answer, and raises no alarm', async () => {
    const port = await closedTcpPort();
    const r = await boxAdmin.post('/api/v1/alarm-relay/commands/check', { output: 'watchdog', transport: 'modbus-tcp', host: '127.0.0.1', port, coil: 0 });
    expect(r.status).toBe(200);
    expect(r.body.item.ok).toBe(false);
    expect(r.body.item.energised).toBeNull();
    expect(r.body.item.message).toMatch(new RegExp(`(Connection refused|Timeout) 127\\.0\\.0\\.1:${port}`));
    expect(((await boxAdmin.get('/api/v1/industry-alarms/list?limit=100')).body.items as AlarmItem[]).filter((a) => a.rule_id?.startsWith('alarm-relay:'))).toEqual([]);
  });

  it('refuses what configure refuses, and an operator', async () => {
    const bad = await boxAdmin.post('/api/v1/alarm-relay/commands/check', { output: 'siren', transport: 'modbus-tcp', host: 'relay.local', coil: 0 });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.map((d: { field: string }) => d.field)).toEqual(['host']);
    const rtu = await boxAdmin.post('/api/v1/alarm-relay/commands/check', { output: 'siren', transport: 'modbus-rtu', serial_port: '/dev/ttyUSB0', unit_id: 0, coil: 0 });
    expect(rtu.body.error.details).toEqual([{ field: 'unit_id', reason: 'out_of_range', min: 1, max: 247 }]);
    const denied = await operator.post('/api/v1/alarm-relay/commands/check', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 0 });
    expect(denied.body.error.code).toBe('rbac_forbidden');
    expect(await peer.writes(0)).toEqual([]);
  });

  it('a failing output says since when and which alarm, both gone once a write succeeds', async () => {
    const fresh = await siren();
    expect(fresh).toMatchObject({ failing: false, failing_since: null, alarm_id: null });
    const before = new Date().toISOString();
    const down = await boxAdmin.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: await closedTcpPort(), coil: 0 });
    expect(down.status).toBe(200);
    expect(down.body.item.failing).toBe(true);
    const [alarm] = await relayAlarms();
    expect(alarm).toBeDefined();
    expect(down.body.item.alarm_id).toBe(alarm!.id);
    expect(down.body.item.failing_since).toBe(alarm!.raised_at);
    expect(down.body.item.failing_since >= before).toBe(true);
    expect(down.body.item.last_error).toMatch(/Connection refused|Timeout/);

    const up = await boxAdmin.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 0 });
    expect(up.body.item).toMatchObject({ failing: false, failing_since: null, alarm_id: null, energised: false, last_error: null });
    await waitFor(async () => (await relayAlarms()).every((a) => a.status !== 'active'), 5_000, 'the drive-failure alarm cleared');
  });
});
