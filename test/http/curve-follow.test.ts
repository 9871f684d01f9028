// Curve following over HTTP on both dialects, with Debian's pymodbus as the house controller
// (target_temp_c at holding register 10, int16, scale 10) and the poultry clock injected: over a
// simulated week in steps of the interval, device_readings carrying the peer's register as the
// held setpoint, the register follows the interpolated broiler curve within the deadband; every
// write is audited with its own correlation id and verified by read-back; a value set at the
// controller by hand pauses following with an alarm; resuming clears it and follows again; a
// stopped controller pauses with an alarm too. Bad input is 400, other tenants see nothing.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ModbusRTU from 'modbus-serial';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import { startModbusPeer, stopAll, type ModbusPeer } from '../field/helpers.js';
import type { RunningServer } from '../../src/server.js';
import type { Clock } from '../../src/kernel/clock.js';
import type { CurveFollower } from '../../src/modules/poultry/follow-service.js';
import { curveOfPhases, valuesAt } from '../../src/industry/curve.js';
import { DEFAULT_BROILER_CURVE } from '../../src/modules/poultry/default-curve.js';
import { SETPOINT_KEYS } from '../../src/modules/poultry/climate.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const broiler = curveOfPhases(DEFAULT_BROILER_CURVE, SETPOINT_KEYS);
const START = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const REG = 10;
const int16 = (r: number) => (r >= 0x8000 ? r - 0x10000 : r);

describe.each(DIALECTS)('curve following (%s)', (dialect) => {
  let env: TestEnv;
  let server: RunningServer;
  let peer: ModbusPeer;
  let master: Client;
  let admin: Client;
  let op: Client;
  let sec: Client;
  let other: Client;
  let follower: CurveFollower;
  let adapterId: string;
  let sim = START;
  const age = () => (sim - START) / 86_400_000;

  const held = async () => int16((await peer.hr(REG, 1))[0]!) / 10;
  /** What the poller sends after a poll of the house controller (the held setpoint read back). */
  const emitHeld = async (value?: number) => {
    server.services.bus.emit('device_readings', {
      device_id: `poultry:${adapterId}`, industry: 'poultry', tenant_id: 'tA', site_id: 'farm-1', unit_id: 'H1', controller_id: 'house-1-climate',
      at: new Date(sim).toISOString(), values: { temp: 24 }, setpoints: { target_temp_c: value ?? (await held()) }, source: 'device',
    });
    await follower.idle();
  };
  const step = async (hours = 1) => {
    sim += hours * HOUR;
    await follower.tick();
  };
  const state = async (): Promise<Item> => (await op.get('/api/v1/poultry-curve-follow/list?house_id=H1')).body.items[0];
  const followAlarms = async (): Promise<Item[]> => (await op.get('/api/v1/poultry-alarms/list?house_id=H1&limit=100')).body.items.filter((a: Item) => a.rule_id === 'curve_follow');
  const addAdapter = async (port: number) => {
    const res = await admin.post('/api/v1/poultry-adapters', { item: {
      unit_id: 'H1', controller_id: 'house-1-climate', transport: 'modbus-tcp', host: '127.0.0.1', port, modbus_unit_id: 1,
      // The poller's read-back is what emitHeld() plays, on the injected clock: the box's own poller
      // (its timers are the test's, which never fire) stays off this controller.
      points: [{ key: 'target_temp_c', address: REG, data_type: 'int16', scale: 10, read_back: false }],
    } });
    expect(res.status).toBe(201);
    adapterId = res.body.item.id;
  };
  /** A person at the controller's keypad: a Modbus write that does not go through the box. */
  const setByHand = async (raw: number) => {
    const c = new ModbusRTU();
    await c.connectTCP('127.0.0.1', { port: peer.port });
    c.setID(1);
    await c.writeRegister(REG, raw);
    c.close(() => undefined);
  };

  beforeAll(async () => {
    peer = await startModbusPeer('tcp', '0');
    env = await createTestEnv(dialect);
    // The box's clock reads `sim` and its timers never fire: the test runs each pass itself.
    const clock: Clock = { now: () => sim, setTimeout: () => null, clearTimeout: () => undefined };
    server = await env.start({ mqtt_broker: 'off', alarm_escalation_interval_ms: '3600000' }, { clock });
    follower = server.services.curveFollower!;
    master = await clientAs(env, server);
    admin = await clientAs(env, server, { subject: 'admin-a', role: 'admin', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    op = await clientAs(env, server, { subject: 'op-a', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-1' }, master.contract);
    sec = await clientAs(env, server, { subject: 'sec-a', role: 'security', scope_type: 'tenant', tenant_id: 'tA' }, master.contract);
    other = await clientAs(env, server, { subject: 'admin-b', role: 'admin', scope_type: 'tenant', tenant_id: 'tB' }, master.contract);
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H1', batch_id: 'B1', subtype: 'broiler', start_date: '2026-03-01' })).status).toBe(201);
    expect((await other.post('/api/v1/poultry-flock/commands/place', { house_id: 'HB', batch_id: 'B1', subtype: 'broiler', start_date: '2026-03-01' })).status).toBe(201);
    await addAdapter(peer.port);
  });
  afterAll(async () => {
    await env.cleanup();
    await stopAll();
  });

  it('draws the curve: the targets now and for the days ahead, hours counted', async () => {
    sim = START + 12 * HOUR;
    const res = await op.get('/api/v1/poultry-climate-curve?house_id=H1&days=4&step_hours=24');
    expect(res.status).toBe(200);
    const c = res.body.item;
    expect(c).toMatchObject({ house_id: 'H1', batch_id: 'B1', age_days: 0.5, at: new Date(sim).toISOString(), following: null });
    expect(c.now.target_temp_c).toBe(32.25);
    expect(c.ahead.map((p: Item) => p.values.target_temp_c)).toEqual([32.25, 31.75, 31.25, 30.75, 30.188]);
    expect(c.ahead.map((p: Item) => p.age_days)).toEqual([0.5, 1.5, 2.5, 3.5, 4.5]);
    expect(c.points.map((p: Item) => [p.day, p.values.target_temp_c])).toEqual([[0, 32.5], [4, 30.5], [8, 28], [15, 25.5], [22, 23], [29, 21], [36, 20]]);
    expect((await op.get('/api/v1/poultry-climate-curve')).body.error).toMatchObject({ code: 'validation_error' });
    expect((await op.get('/api/v1/poultry-climate-curve?house_id=H1&days=0')).status).toBe(400);
    expect((await op.get('/api/v1/poultry-climate-curve?house_id=H404')).body.error.code).toBe('not_found');
    expect((await other.get('/api/v1/poultry-climate-curve?house_id=H1')).body.error.code).toBe('not_found');
    sim = START;
  });

  it('refuses bad switches and changes nothing; operators switch, security does not', async () => {
    for (const body of [{ house_id: 'H1' }, { house_id: 'H1', enabled: 'yes' }, { house_id: 'H1', enabled: true, interval_s: 5 }, { house_id: 'H1', enabled: true, deadband: { target_temp_c: -1 } }, { house_id: 'H1', enabled: true, deadband: { wind: 1 } }, { enabled: true }]) {
      const r = await op.post('/api/v1/poultry-climate/commands/follow', body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe('validation_error');
    }
    expect((await op.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H404', enabled: true })).body.error.code).toBe('not_found');
    expect((await other.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: true })).body.error.code).toBe('not_found');
    expect((await sec.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: true })).body.error.code).toBe('rbac_forbidden');
    expect((await op.get('/api/v1/poultry-curve-follow/list')).body.total).toBe(0);
    // Not following: a pass writes nothing.
    await emitHeld();
    await step();
    expect(await held()).toBe(0);
    sim = START;
  });

  it('follows the interpolated curve for a simulated week, each write verified and audited', async () => {
    const on = await op.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: true, interval_s: 3600, deadband: { target_temp_c: 0.2 } }, { 'x-request-id': `follow-on-${dialect}` });
    expect(on.status).toBe(200);
    expect(on.body.item).toMatchObject({ house_id: 'H1', site_id: 'farm-1', enabled: true, paused: false, interval_s: 3600, deadband: { target_temp_c: 0.2, humidity_min_pct: 1 }, held: { target_temp_c: 0 } });
    const switched = (await master.get(`/api/v1/audit/list?correlation_id=follow-on-${dialect}`)).body.items.find((a: Item) => a.action === 'poultry-climate.follow');
    expect(switched).toMatchObject({ actor: 'op-a', result: 'success', details: { house_id: 'H1', old: null, new: { enabled: true, paused: false } } });

    // Day 0 00:00: the controller holds 0.0 -> 32.5 is written at once.
    await follower.tick();
    expect(await held()).toBe(32.5);
    // Within the same interval nothing more happens, even when asked.
    await emitHeld();
    await setByHand(320);
    await follower.tick();
    expect(await held()).toBe(32);
    await setByHand(325);
    await emitHeld();
    for (let h = 1; h <= 7 * 24; h++) {
      await step();
      await emitHeld();
      const target = valuesAt(broiler, age()).target_temp_c!;
      const now = await held();
      expect(Math.abs(now - target), `hour ${h}: controller ${now}, curve ${target}`).toBeLessThanOrEqual(0.2 + 1e-9);
    }
    // Day 7: 28.625 on the curve; the controller moved from 32.5 with it.
    expect(Math.abs((await held()) - 28.625)).toBeLessThanOrEqual(0.2);
    const s = await state();
    expect(s).toMatchObject({ enabled: true, paused: false, pause_reason: null, held: { target_temp_c: await held() } });
    // The poll after the last write is recorded; later polls holding the same value do not rewrite the row.
    expect(Date.parse(s.held_at)).toBeGreaterThanOrEqual(Date.parse(s.last_write_at));
    expect(Math.abs(s.last_written.target_temp_c - (await held()))).toBeLessThanOrEqual(0.05 + 1e-9);

    const writes = (await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&limit=200')).body.items as Item[];
    // 32.5 -> 28.6 over the week, a write each time the curve is more than 0.2 from the register's
    // tenths: 20 (the first at hour 0), about one every eight hours.
    expect(writes.length).toBeGreaterThanOrEqual(18);
    expect(writes.length).toBeLessThanOrEqual(22);
    expect(new Set(writes.map((w) => w.correlation_id)).size).toBe(writes.length);
    for (const w of writes) {
      expect(w).toMatchObject({ actor: 'curve-follower', result: 'success', details: { house_id: 'H1', dispatch_status: 'verified' } });
      expect(w.details.written).toEqual([expect.objectContaining({ key: 'target_temp_c', verified: true })]);
    }
    const trail = (await master.get(`/api/v1/audit/list?correlation_id=${writes[0]!.correlation_id}`)).body.items.map((a: Item) => `${a.action}:${a.result}`);
    expect(trail).toContain('field.write.modbus:success');
    // Following makes no profile version: the seven phases stay at version 1.
    const phases = (await op.get('/api/v1/poultry-climate/list?house_id=H1&limit=100')).body.items as Item[];
    expect(phases.map((p) => `${p.version_id}:${p.state}`)).toEqual(Array(7).fill('1:published'));
  });

  it('pauses with an alarm when the setpoint is changed at the controller; resume clears it and follows again', async () => {
    await setByHand(250);
    await emitHeld();
    const s = await state();
    expect(s).toMatchObject({ paused: true, pause_reason: 'changed_at_controller' });
    expect(s.pause_message).toContain('the controller holds 25');
    const [alarm] = await followAlarms();
    expect(alarm).toMatchObject({ status: 'active', priority: 'P2', house_id: 'H1', title: 'House H1: curve following paused — the temperature changed at the controller' });
    expect(s.alarm_id).toBe(alarm!.id);
    // Paused: the box leaves the person's value alone, pass after pass.
    for (let h = 0; h < 6; h++) {
      await step();
      await emitHeld();
    }
    expect(await held()).toBe(25);

    const resumed = await op.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: true });
    expect(resumed.body.item).toMatchObject({ enabled: true, paused: false, pause_reason: null, alarm_id: null, interval_s: 3600 });
    expect((await followAlarms())[0]).toMatchObject({ id: alarm!.id, status: 'cleared' });
    await step();
    const target = valuesAt(broiler, age()).target_temp_c!;
    expect(Math.abs((await held()) - target)).toBeLessThanOrEqual(0.05 + 1e-9);
    await emitHeld();
    expect((await state()).paused).toBe(false);
  });

  it('pauses with an alarm when the controller does not accept a write; resume on the replaced controller follows again', async () => {
    await peer.stop();
    let s: Item = await state();
    for (let h = 0; h < 48 && !s.paused; h++) {
      await step();
      s = await state();
    }
    expect(s).toMatchObject({ paused: true, pause_reason: 'write_failed' });
    expect(s.pause_message).toContain('127.0.0.1');
    const open = (await followAlarms()).filter((a) => a.status === 'active');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ priority: 'P2', title: 'House H1: curve following paused — controller did not accept the temperature' });
    const failed = (await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&result=error')).body.items as Item[];
    expect(failed).toHaveLength(1);
    expect(failed[0]!.details.dispatch_status).toBe('failed');
    expect(open[0]!.correlation_id).toBe(failed[0]!.correlation_id);
    // Paused: no further attempts.
    await step(3);
    expect((await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&result=error')).body.total).toBe(1);

    // The controller is replaced (a new address); the operator resumes.
    peer = await startModbusPeer('tcp', '0');
    expect((await admin.delete(`/api/v1/poultry-adapters/${adapterId}`)).status).toBe(200);
    await addAdapter(peer.port);
    await emitHeld();
    expect((await op.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: true })).body.item.paused).toBe(false);
    expect((await followAlarms()).every((a) => a.status === 'cleared')).toBe(true);
    await step();
    expect(Math.abs((await held()) - valuesAt(broiler, age()).target_temp_c!)).toBeLessThanOrEqual(0.05 + 1e-9);

    // Off: no more writes, the state says so.
    const off = await op.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: false });
    expect(off.body.item).toMatchObject({ enabled: false, paused: false });
    await setByHand(0);
    await emitHeld();
    await step(24);
    expect(await held()).toBe(0);
    expect((await state()).paused).toBe(false);
  });

  it('without read-back writes once, then when the curve leaves what it wrote; several keys go in one write', async () => {
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: 'H2', batch_id: 'B1', subtype: 'broiler', start_date: '2026-03-01' })).status).toBe(201);
    expect((await admin.post('/api/v1/poultry-adapters', { item: {
      unit_id: 'H2', controller_id: 'house-2-climate', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, modbus_unit_id: 1,
      // Not read back: the box's poller leaves this controller alone, so only what the test emits is seen.
      points: [{ key: 'target_temp_c', address: 20, data_type: 'int16', scale: 10, read_back: false }, { key: 'min_ventilation_pct', address: 21, data_type: 'uint16', scale: 10, read_back: false }],
    } })).status).toBe(201);
    expect((await op.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H2', enabled: true, interval_s: 3600 })).body.item).toMatchObject({ held: null, deadband: { target_temp_c: 0.2, min_ventilation_pct: 1 } });
    await step();
    const target = valuesAt(broiler, age());
    expect(await peer.hr(20, 2)).toEqual([Math.round(target.target_temp_c! * 10), Math.round(target.min_ventilation_pct! * 10)]);
    const [first] = (await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&limit=200')).body.items.filter((w: Item) => w.details.house_id === 'H2');
    expect(Object.keys(first.details.values).sort()).toEqual(['min_ventilation_pct', 'target_temp_c']);
    const fieldWrites = (await master.get(`/api/v1/audit/list?correlation_id=${first.correlation_id}&action=field.write.modbus`)).body.items;
    expect(fieldWrites).toHaveLength(2);

    // A poll answered before that write (stale) is not a change at the controller.
    const written = (await op.get('/api/v1/poultry-curve-follow/list?house_id=H2')).body.items[0];
    server.services.bus.emit('device_readings', {
      device_id: 'poultry:h2', industry: 'poultry', tenant_id: 'tA', site_id: 'farm-1', unit_id: 'H2', controller_id: 'house-2-climate',
      at: new Date(Date.parse(written.last_write_at) - 1).toISOString(), values: {}, setpoints: { target_temp_c: 0, min_ventilation_pct: 0 }, source: 'device',
    });
    await follower.idle();
    expect((await op.get('/api/v1/poultry-curve-follow/list?house_id=H2')).body.items[0]).toMatchObject({ paused: false, held: { target_temp_c: 0 } });

    for (let h = 0; h < 36; h++) {
      await step();
      const t = valuesAt(broiler, age());
      const [temp, vent] = await peer.hr(20, 2);
      expect(Math.abs(temp! / 10 - t.target_temp_c!)).toBeLessThanOrEqual(0.2 + 1e-9);
      expect(Math.abs(vent! / 10 - t.min_ventilation_pct!)).toBeLessThanOrEqual(1 + 1e-9);
    }
    const h2 = (await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&limit=200')).body.items.filter((w: Item) => w.details.house_id === 'H2') as Item[];
    // Ventilation (5 points a week here) moves past its 1-point deadband less often than the temperature does.
    expect(h2.filter((w) => 'target_temp_c' in w.details.values).length).toBeGreaterThan(h2.filter((w) => 'min_ventilation_pct' in w.details.values).length);
    expect(h2.filter((w) => 'min_ventilation_pct' in w.details.values).length).toBeGreaterThanOrEqual(2);
  });

  it('keeps other sites out', async () => {
    const farm2 = await clientAs(env, server, { subject: 'op-2', role: 'operator', scope_type: 'tenant', tenant_id: 'tA', site_id: 'farm-2' }, master.contract);
    expect((await farm2.get('/api/v1/poultry-curve-follow/list')).body.total).toBe(0);
    expect((await farm2.post('/api/v1/poultry-climate/commands/follow', { house_id: 'H1', enabled: true })).body.error.code).toBe('not_found');
    expect((await farm2.get('/api/v1/poultry-climate-curve?house_id=H1')).body.error.code).toBe('not_found');
  });

  it('keeps tenants apart', async () => {
    expect((await other.get('/api/v1/poultry-curve-follow/list')).body.total).toBe(0);
    const on = await other.post('/api/v1/poultry-climate/commands/follow', { house_id: 'HB', enabled: true });
    expect(on.body.item).toMatchObject({ tenant_id: 'tB', house_id: 'HB', enabled: true });
    expect((await op.get('/api/v1/poultry-curve-follow/list')).body.items.map((r: Item) => r.house_id)).toEqual(['H1', 'H2']);
  });

  it('judges a following house\'s readings by the curve at their age, a house that does not follow by its phase', async () => {
    // HB follows (switched on above). At 3.9 days the curve holds 32.5 + (30.5 - 32.5) x 3.9 / 4 = 30.55 °C,
    // where the phase d00-03 still says 32.5: 30.4 °C is in norm for the controller's target, low for the phase's.
    const ts = new Date(START + 3.9 * 86_400_000).toISOString();
    const reading = async () => (await other.post('/api/v1/poultry-climate/commands/telemetry', { house_id: 'HB', ts, temp: 30.4 })).body.item as Item;
    const following = await reading();
    expect(following).toMatchObject({ age_phase_id: 'd00-03', target_temp_c: 30.55, status: 'ok' });
    expect(following.out_of_norm_flags).not.toContain('temp_low');
    expect((await other.post('/api/v1/poultry-climate/commands/follow', { house_id: 'HB', enabled: false })).status).toBe(200);
    const stepped = await reading();
    expect(stepped).toMatchObject({ age_phase_id: 'd00-03', target_temp_c: 32.5 });
    expect(stepped.out_of_norm_flags).toContain('temp_low');
  });
});
