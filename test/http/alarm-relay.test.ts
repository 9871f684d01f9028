// The alarm relay against a real I/O module (io_peer.py, pymodbus) on both engines: the siren coil
// goes to 1 on an unacknowledged P1 and to 0 on its acknowledgement, a P2 does not drive it, a
// module that lost its coil gets it back at the next re-assert, the module down raises the P1
// drive-failure alarm and its return clears it, the same over RS-485 (socat pty pair), the test
// pulse, and who may configure or pulse it; the siren follows shelve, unshelve, a shelve's expiry and
// a return to service within a second, with a period of an hour. The watchdog is in alarm-relay-watchdog.test.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { RunningServer } from '../../src/server.js';
import { startIoPeer, type IoPeer } from '../field/peers/io-peer.js';
import { startPtyPair, stopAll, waitFor, type PtyPair } from '../field/helpers.js';

interface OutputView { output: string; configured: boolean; energised: boolean | null; driving_alarms: number; failing: boolean; last_error: string | null; last_ok_at: string | null }
interface AlarmItem { id: string; rule_id: string | null; raised_at: string; status: string; priority: string | null; title: string; message: string | null; correlation_id: string }

const SIREN = 'The alarm siren output does not answer — check the I/O module';

describe.each(DIALECTS)('alarm relay (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let peer: IoPeer;
  let owner: Client;
  let boxAdmin: Client;
  let operator: Client;
  let stranger: Client;

  const siren = async (): Promise<OutputView> => ((await owner.get('/api/v1/alarm-relay/list')).body.items as OutputView[]).find((o) => o.output === 'siren')!;
  const coil0 = async (p = peer) => (await p.coils(0, 1))[0];
  const publish = async (priority: 'P1' | 'P2', title: string): Promise<AlarmItem> => {
    const r = await boxAdmin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', unit_id: 'house-1', severity: priority === 'P1' ? 'critical' : 'high', priority, title });
    expect(r.status).toBe(201);
    return r.body.item as AlarmItem;
  };
  const alarms = async (): Promise<AlarmItem[]> => (await boxAdmin.get('/api/v1/industry-alarms/list?limit=100')).body.items as AlarmItem[];

  beforeAll(async () => {
    env = await createTestEnv(dialect);
    peer = await startIoPeer('tcp', '0');
    // Short field deadlines: a module that is down is known in 1 s, not 3 s (and a loaded machine's
    // slow answer is still an answer).
    // The escalator's pass (which also ends expired shelves) an hour apart: the siren must follow
    // a shelve's expiry without it.
    server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 1000, retries: 0 }) });
    const box = JSON.parse(readFileSync(join(env.dataDir, 'site.json'), 'utf8')) as { tenant_id: string };
    owner = await clientAs(env, server);
    boxAdmin = await clientAs(env, server, { subject: 'box-admin', role: 'admin', scope_type: 'tenant', tenant_id: box.tenant_id }, owner.contract);
    operator = await clientAs(env, server, { subject: 'crew', role: 'operator', scope_type: 'tenant', tenant_id: box.tenant_id }, owner.contract);
    stranger = await clientAs(env, server, { subject: 'other-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'another-farm' }, owner.contract);
  }, 90_000);
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
    await peer.stop();
  });

  it('is configured by the box admin only; bad input is refused and changes nothing', async () => {
    const body = { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 0, period_s: 1 };
    expect((await operator.post('/api/v1/alarm-relay/commands/configure', body)).body.error.code).toBe('rbac_forbidden');
    expect((await stranger.post('/api/v1/alarm-relay/commands/configure', body)).body.error.code).toBe('scope_boundary_denied');
    const noCoil = await owner.post('/api/v1/alarm-relay/commands/configure', { ...body, coil: undefined });
    expect(noCoil.status).toBe(400);
    expect(noCoil.body.error.details).toEqual([{ field: 'coil', reason: 'required' }]);
    expect((await owner.post('/api/v1/alarm-relay/commands/configure', { ...body, host: 'relay.local' })).body.error.code).toBe('validation_error');
    expect((await owner.post('/api/v1/alarm-relay/commands/configure', { ...body, output: 'watchdog', priorities: ['P1'] })).body.error.details).toEqual([{ field: 'priorities', reason: 'siren_only' }]);
    const list = (await owner.get('/api/v1/alarm-relay/list')).body.items as OutputView[];
    expect(list.map((o) => [o.output, o.configured])).toEqual([['siren', false], ['watchdog', false]]);
    expect(await peer.writes(0)).toEqual([]);
    // Another tenant's session sees no outputs of this box.
    expect((await stranger.get('/api/v1/alarm-relay/list')).body.items).toEqual([]);

    const saved = await boxAdmin.post('/api/v1/alarm-relay/commands/configure', body);
    expect(saved.status).toBe(200);
    expect(saved.body.item).toMatchObject({ output: 'siren', configured: true, enabled: true, target: `Modbus 127.0.0.1:${peer.port} unit 1 coil 0`, priorities: ['P1'], period_s: 1, energised: false, failing: false });
    const audit = (await owner.get('/api/v1/audit/list?action=alarm-relay.configure')).body.items;
    expect(audit).toHaveLength(1);
    expect(audit[0]).toMatchObject({ actor: 'box-admin', resource: 'alarm-relay/siren', result: 'success' });
  });

  it('energises the siren on an unacknowledged P1, not on a P2, re-asserts it and releases it on acknowledgement', async () => {
    const p2 = await publish('P2', 'House 1 feed line slow');
    const since = new Date().toISOString();
    await waitFor(async () => ((await siren()).last_ok_at ?? '') > since, 10_000, 'a drive after the P2');
    expect(await siren()).toMatchObject({ energised: false, driving_alarms: 0 });
    expect(await coil0()).toBe(0);

    const p1 = await publish('P1', 'House 1 temperature far below target');
    await waitFor(async () => (await coil0()) === 1, 10_000, 'siren coil energised');
    await waitFor(async () => (await siren()).energised === true, 5_000, 'the list says energised');
    expect(await siren()).toMatchObject({ energised: true, driving_alarms: 1, failing: false });
    // The write that energised it is audited under the alarm's correlation id.
    const writes = (await owner.get(`/api/v1/audit/list?correlation_id=${p1.correlation_id}`)).body.items as { action: string; actor: string; result: string; details: { wire?: unknown; verified?: boolean } }[];
    expect(writes.find((w) => w.action === 'field.write.modbus')).toMatchObject({ actor: 'alarm-relay', result: 'success', details: { wire: [1], verified: true } });

    // The I/O module rebooted and lost its coil: the next re-assert (period 1 s) energises it again.
    await peer.lose();
    expect(await coil0()).toBe(0);
    await waitFor(async () => (await coil0()) === 1, 10_000, 'siren coil re-asserted');

    expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: p1.id })).status).toBe(200);
    await waitFor(async () => (await coil0()) === 0, 10_000, 'siren coil released');
    await waitFor(async () => (await siren()).energised === false, 5_000, 'the list says released');
    expect(await siren()).toMatchObject({ energised: false, driving_alarms: 0 });
    // Still released after another re-assert: the acknowledged P1 and the P2 do not drive it.
    const after = new Date().toISOString();
    await waitFor(async () => ((await siren()).last_ok_at ?? '') > after, 10_000, 'a re-assert');
    expect(await coil0()).toBe(0);
    expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: p2.id })).status).toBe(200);
  });

  it('does not sound for a shelved P1, and audits the siren\'s changes, not its unchanged re-asserts', async () => {
    type Write = { details: { wire?: unknown } };
    const relayWrites = async () => ((await owner.get('/api/v1/audit/list?action=field.write.modbus&actor=alarm-relay&limit=200')).body.items as Write[]);
    const before = (await relayWrites()).length;
    const p1 = await publish('P1', 'House 1 water pressure low');
    await waitFor(async () => (await coil0()) === 1, 10_000, 'siren coil energised');
    // At least three re-asserts of the energised siren (period 1 s) ...
    const on = Date.now() / 1000;
    await waitFor(async () => (await peer.writes(0)).filter(([t, v]) => t >= on && v === 1).length >= 3, 10_000, 're-asserts');
    // ... and one audit record, for the change.
    const energising = (await relayWrites()).slice(0, (await relayWrites()).length - before);
    expect(energising.map((w) => w.details.wire)).toEqual([[1]]);

    // Shelved by the operator: listed as shelved, and the siren goes quiet at the next re-assert.
    expect((await operator.post('/api/v1/industry-alarms/commands/shelve', { id: p1.id, reason: 'vet in the house, pressure known', minutes: 30 })).status).toBe(200);
    await waitFor(async () => (await coil0()) === 0, 10_000, 'siren released for the shelved alarm');
    // The list is set once the write's answer is back, a moment after the coil changed.
    await waitFor(async () => (await siren()).driving_alarms === 0, 5_000, 'the list counts no driving alarm');
    expect((await operator.post('/api/v1/industry-alarms/commands/unshelve', { id: p1.id })).status).toBe(200);
    await waitFor(async () => (await coil0()) === 1, 10_000, 'siren again once unshelved');
    expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: p1.id })).status).toBe(200);
    await waitFor(async () => (await coil0()) === 0, 10_000, 'siren released');
  });

  it('follows shelve, unshelve, a shelve\'s expiry and a return to service within a second, not at its period', async () => {
    // A period far beyond the test's waits: only the alarm events can move the coil in time.
    const slow = await boxAdmin.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 0, period_s: 3600 });
    expect(slow.status).toBe(200);
    const latencies: string[] = [];
    /** When the module saw the coil written to `value` after `since` (ms), in ms after `since`; fails past 1 s. */
    const within1s = async (value: 0 | 1, since: number, what: string): Promise<number> => {
      let at: number | undefined;
      await waitFor(async () => (at = (await peer.writes(0)).find(([t, v]) => t * 1000 >= since && v === value)?.[0]) !== undefined, 5_000, what);
      const ms = Math.round(at! * 1000 - since);
      expect(ms, `${what}: ${ms} ms`).toBeLessThan(1000);
      latencies.push(`${what} ${ms} ms`);
      return ms;
    };
    try {
      const p1 = await publish('P1', 'House 1 water pressure low');
      await waitFor(async () => (await coil0()) === 1, 10_000, 'siren coil energised');

      let t = Date.now();
      expect((await operator.post('/api/v1/industry-alarms/commands/shelve', { id: p1.id, reason: 'vet in the house', minutes: 30 })).status).toBe(200);
      await within1s(0, t, 'released after the shelve');
      t = Date.now();
      expect((await operator.post('/api/v1/industry-alarms/commands/unshelve', { id: p1.id })).status).toBe(200);
      await within1s(1, t, 'energised after the unshelve');

      // Shelved a minute ago for a minute and a half (as the operator's own call would store
      // it): it expires 1.5 s from now, on no command of anyone's and long before the escalator's
      // next pass (alarm_escalation_interval_ms 1 hour here).
      const shelvedAt = Date.now();
      const shelved = await server.services.industryAlarms!.shelve({ id: p1.id, actor: 'crew', reason: 'short', minutes: 1, now: new Date(shelvedAt - 58_500) });
      const expiry = Date.parse(shelved.shelved_until!);
      await within1s(0, shelvedAt, 'released by the short shelve');
      await within1s(1, expiry, 'energised after the expiry');
      const item = (await alarms()).find((a) => a.id === p1.id) as AlarmItem & { shelved: boolean };
      expect(item.shelved).toBe(false);
      expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: p1.id })).status).toBe(200);
      await waitFor(async () => (await coil0()) === 0, 5_000, 'siren released on acknowledgement');

      // A P1 raised while its house is out of service does not sound; its return to service does.
      expect((await boxAdmin.post('/api/v1/industry-alarms/commands/out-of-service', { industry_code: 'poultry', unit_id: 'house-2', reason: 'washing out' })).status).toBe(200);
      const since = new Date().toISOString();
      const quiet = await boxAdmin.post('/api/v1/industry-alarms/commands/publish', { industry_code: 'poultry', unit_id: 'house-2', severity: 'critical', priority: 'P1', title: 'House 2 temperature far below target' });
      expect(quiet.body.item).toMatchObject({ out_of_service: true });
      await waitFor(async () => ((await siren()).last_ok_at ?? '') > since, 5_000, 'a drive after the raise');
      expect(await siren()).toMatchObject({ energised: false, driving_alarms: 0 });
      t = Date.now();
      expect((await boxAdmin.post('/api/v1/industry-alarms/commands/return-to-service', { industry_code: 'poultry', unit_id: 'house-2' })).status).toBe(200);
      await within1s(1, t, 'energised after the return to service');
      expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: quiet.body.item.id })).status).toBe(200);
      await waitFor(async () => (await coil0()) === 0, 5_000, 'siren released');
      console.info(`siren latencies (${dialect}): ${latencies.join(', ')}`);
    } finally {
      await boxAdmin.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 0, period_s: 1 });
    }
  });

  it('raises a P1 in farm words when the I/O module does not answer and clears it when it answers again', async () => {
    const port = peer.port;
    const stoppedAt = new Date().toISOString();
    await peer.stop();
    let failure: AlarmItem | undefined;
    await waitFor(async () => (failure = (await alarms()).find((a) => a.rule_id === 'alarm-relay:siren' && a.status === 'active')) !== undefined, 15_000, 'the drive-failure alarm');
    expect(failure).toMatchObject({ priority: 'P1', title: SIREN });
    expect(failure!.message).toContain(`Modbus 127.0.0.1:${port} unit 1 coil 0`);
    expect(await siren()).toMatchObject({ failing: true });
    expect((await siren()).last_error).toMatch(/Connection refused|Timeout/);
    // One alarm however many re-asserts fail.
    await new Promise((r) => setTimeout(r, 2500));
    expect((await alarms()).filter((a) => a.rule_id === 'alarm-relay:siren' && a.raised_at >= stoppedAt)).toHaveLength(1);

    peer = await startIoPeer('tcp', String(port));
    const back = Date.now() / 1000;
    await waitFor(async () => (await alarms()).find((a) => a.id === failure!.id)?.status === 'cleared', 15_000, 'the drive-failure alarm cleared');
    expect(await siren()).toMatchObject({ failing: false, last_error: null, energised: false });
    // Its own failure alarm does not sound the siren: nothing but 0 was written since it came back.
    expect((await peer.writes(0)).filter(([t]) => t >= back).map(([, v]) => v)).not.toContain(1);
  });

  it('pulses the siren on the admin\'s test command, audited under one correlation id; operators may not', async () => {
    expect((await operator.post('/api/v1/alarm-relay/commands/test', { seconds: 1 })).body.error.code).toBe('rbac_forbidden');
    const r = await owner.post('/api/v1/alarm-relay/commands/test', { seconds: 1 });
    expect(r.status).toBe(200);
    expect(r.body.item).toMatchObject({ ok: true, message: null });
    expect(await coil0()).toBe(1);
    await waitFor(async () => (await coil0()) === 0, 10_000, 'the pulse ends');
    // Both records share the command's correlation id; the write's may be stored a moment after the answer on a loaded machine.
    const trail = async () => (await owner.get(`/api/v1/audit/list?correlation_id=${r.body.item.correlation_id}`)).body.items as { action: string; result: string }[];
    await waitFor(async () => (await trail()).length >= 2, 10_000, 'both audit records');
    const audit = await trail();
    expect(audit.map((a) => a.action).sort()).toEqual(['alarm-relay.test', 'field.write.modbus']);
    expect(audit.every((a) => a.result === 'success')).toBe(true);
  });

  it('audits a test pulse under its correlation id also while the siren already sounds for a P1', async () => {
    const p1 = await publish('P1', 'House 3 too hot');
    await waitFor(async () => (await siren()).energised === true, 10_000, 'siren energised by the P1');
    const r = await owner.post('/api/v1/alarm-relay/commands/test', { seconds: 1 });
    expect(r.status).toBe(200);
    const trail = async () => (await owner.get(`/api/v1/audit/list?correlation_id=${r.body.item.correlation_id}`)).body.items as { action: string }[];
    await waitFor(async () => (await trail()).length >= 2, 10_000, 'both audit records of the pulse');
    expect((await trail()).map((a) => a.action).sort()).toEqual(['alarm-relay.test', 'field.write.modbus']);
    expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: p1.id })).status).toBe(200);
    await waitFor(async () => (await coil0()) === 0, 10_000, 'siren released');
  });

  it('drives a coil on an RS-485 I/O module the same way', async () => {
    const pty: PtyPair = await startPtyPair();
    const rtu = await startIoPeer('rtu', pty.b);
    try {
      const saved = await owner.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', transport: 'modbus-rtu', serial_port: pty.a, unit_id: 3, coil: 2, period_s: 1 });
      expect(saved.status).toBe(200);
      expect(saved.body.item).toMatchObject({ target: `Modbus ${pty.a} unit 3 coil 2`, energised: false, failing: false });
      const p1 = await publish('P1', 'House 1 controller not answering');
      await waitFor(async () => (await rtu.coils(2, 1))[0] === 1, 10_000, 'RTU siren coil energised');
      expect((await operator.post('/api/v1/industry-alarms/commands/ack', { id: p1.id })).status).toBe(200);
      await waitFor(async () => (await rtu.coils(2, 1))[0] === 0, 10_000, 'RTU siren coil released');
    } finally {
      await owner.post('/api/v1/alarm-relay/commands/configure', { output: 'siren', enabled: false, transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: 0 });
      await rtu.stop();
      await pty.stop();
    }
  });
});
