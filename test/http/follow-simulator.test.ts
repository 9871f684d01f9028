// Curve following end to end on the box's own clock: a real server whose clock (services.clock)
// the test steps, the simulated house controller (src/simulate) as the controller on the same
// clock, its own adapter profile POSTed, the live poller reading it and the curve follower writing
// it. A simulated week goes by in 12-hour steps (in each: one poll, then one following pass): the
// setpoint registers the simulator holds stay within the deadband of the interpolated curve, the
// polled readings carry the flock's growing age, every write is audited and verified; a value set
// at the simulator's registers by hand pauses following with an alarm; after the resume, the
// simulator stopped makes the next write fail, which pauses with an alarm too.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import ModbusRTU from 'modbus-serial';
import { createTestEnv, DIALECTS, type TestEnv } from '../helpers/server.js';
import { clientAs, type Client } from '../helpers/client.js';
import type { Contract } from '../helpers/contract.js';
import { SteppedClock } from '../helpers/clock.js';
import type { RunningServer } from '../../src/server.js';
import type { CurveFollower } from '../../src/modules/poultry/follow-service.js';
import { DEFAULT_DEADBAND } from '../../src/modules/poultry/follow-service.js';
import { curveOfPhases, valuesAt } from '../../src/industry/curve.js';
import { DEFAULT_BROILER_CURVE } from '../../src/modules/poultry/default-curve.js';
import { SETPOINT_KEYS } from '../../src/modules/poultry/climate.js';
import { adapterProfile } from '../../src/simulate/profile.js';
import { setpointEntries } from '../../src/simulate/register-map.js';
import { startTcpServer, type RunningServer as SimServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';

type Item = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const broiler = curveOfPhases(DEFAULT_BROILER_CURVE, SETPOINT_KEYS);
const PLACED = Date.parse('2026-03-01T00:00:00Z');
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP = 12 * HOUR;
const HOUSE = 'house-1';

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 10_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

let contract: Contract | undefined;

describe.each(DIALECTS)('curve following of the simulated house on a stepped clock (%s)', (dialect) => {
  const clock = new SteppedClock(PLACED + 6 * HOUR);
  const sim = new Simulation({ houses: 1, age_days: 0.25, birds: 20_000, speed: 1, seed: 5, noise: 0.2, clock: () => clock.now() });
  let simServer: SimServer;
  let port = 0;
  let env: TestEnv;
  let server: RunningServer;
  let follower: CurveFollower;
  let master: Client;
  let op: Client;

  const age = () => (clock.now() - PLACED) / DAY;
  /** One step of the box's clock: the poll and the pass it starts run to their end, one after the other. */
  const step = (ms = STEP) => clock.step(ms, async () => {
    await server.services.poller.idle();
    await follower.idle();
  });
  /** What the simulator's holding registers hold, in engineering units (its register map). */
  const registers = async (): Promise<Record<string, number>> => {
    const c = new ModbusRTU();
    await c.connectTCP('127.0.0.1', { port });
    c.setID(1);
    c.setTimeout(1000);
    const entries = setpointEntries();
    const { data } = await c.readHoldingRegisters(0, entries.length);
    await new Promise<void>((r) => c.close(() => r()));
    return Object.fromEntries(entries.map((e) => {
      const raw = data[e.address]!;
      return [e.key, (e.data_type === 'int16' && raw >= 0x8000 ? raw - 0x10000 : raw) / e.scale];
    }));
  };
  /** A person at the controller's keypad: a register written without the box. */
  const setByHand = async (address: number, raw: number) => {
    const c = new ModbusRTU();
    await c.connectTCP('127.0.0.1', { port });
    c.setID(1);
    await c.writeRegister(address, raw);
    await new Promise<void>((r) => c.close(() => r()));
  };
  const state = async (): Promise<Item> => (await op.get(`/api/v1/poultry-curve-follow/list?house_id=${HOUSE}`)).body.items[0];
  const followAlarms = async (): Promise<Item[]> => (await op.get(`/api/v1/poultry-alarms/list?house_id=${HOUSE}&limit=100`)).body.items.filter((a: Item) => a.rule_id === 'curve_follow');
  const offCurve = (held: Record<string, number>) => {
    const target = valuesAt(broiler, age());
    return Object.keys(target).filter((k) => Math.abs(held[k]! - target[k]!) > DEFAULT_DEADBAND[k]! + 1e-9).map((k) => `${k}: held ${held[k]}, curve ${target[k]}`);
  };

  beforeAll(async () => {
    simServer = await startTcpServer(sim, '127.0.0.1', 0);
    port = simServer.where as number;
    env = await createTestEnv(dialect);
    server = await env.start({ mqtt_broker: 'off', rpc_port: 'off', alarm_escalation_interval_ms: '3600000', field: JSON.stringify({ request_timeout_ms: 300, retries: 0 }) }, { clock });
    follower = server.services.curveFollower!;
    // The same binary's document on both engines: read once (it is the slow part of a start).
    master = await clientAs(env, server, {}, contract);
    contract = master.contract;
    const admin = await clientAs(env, server, { subject: 'barn-admin', role: 'admin', scope_type: 'tenant', tenant_id: 'tF', site_id: 'farm-f' }, master.contract);
    op = await clientAs(env, server, { subject: 'barn-op', role: 'operator', scope_type: 'tenant', tenant_id: 'tF', site_id: 'farm-f' }, master.contract);
    expect((await admin.post('/api/v1/poultry-flock/commands/place', { house_id: HOUSE, batch_id: 'B1', subtype: 'broiler', start_date: '2026-03-01', birds_placed: 20_000 })).status).toBe(201);
    const created = await admin.post('/api/v1/poultry-adapters', adapterProfile({ house: 1, port, unit_id: HOUSE }));
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await until('the profile in the poller', async () => (server.services.poller.snapshot().length ? true : undefined));
  });
  afterAll(async () => {
    await env.cleanup();
    await simServer.close().catch(() => undefined);
  });

  it('over a simulated week the simulator\'s setpoints follow the interpolated curve within the deadband, every write audited and verified', async () => {
    const on = await op.post('/api/v1/poultry-climate/commands/follow', { house_id: HOUSE, enabled: true, interval_s: 3600 });
    expect(on.status).toBe(200);
    // The simulator starts from its own curve (33 °C at placement): not the box's.
    expect(offCurve(await registers())).not.toEqual([]);
    let lastAge = -1;
    for (let day = 1; day <= 7; day++) {
      for (let s = 0; s < DAY / STEP; s++) {
        await step();
        expect(offCurve(await registers()), `day ${age().toFixed(2)}`).toEqual([]);
      }
      // The poll of this instant is stored as the house's reading, at the flock's age now.
      const at = new Date(clock.now()).toISOString();
      const reading = await until(`the reading of ${at}`, async () => {
        const [r] = (await op.get(`/api/v1/poultry-climate-readings/list?house_id=${HOUSE}&limit=1`)).body.items as Item[];
        return r?.ts === at ? r : undefined;
      });
      expect(reading).toMatchObject({ source: 'device', batch_id: 'B1', age_days: day });
      expect(reading.age_days).toBeGreaterThan(lastAge);
      lastAge = reading.age_days;
    }
    // Day 7 06:00 (the week's last step): 30.5 -> 28 from day 4 to 8 puts the target at 28.625; the register holds tenths.
    expect(Math.abs((await registers()).target_temp_c! - 28.625)).toBeLessThanOrEqual(DEFAULT_DEADBAND.target_temp_c!);
    expect(await state()).toMatchObject({ enabled: true, paused: false, pause_reason: null });

    const writes = (await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&limit=200')).body.items as Item[];
    // The first pass sets every key the simulator got from its own curve; then the temperature
    // (about 0.5 °C a day against a 0.2 deadband) needs a write most days, and more.
    expect(writes.length).toBeGreaterThanOrEqual(8);
    expect(new Set(writes.map((w) => w.correlation_id)).size).toBe(writes.length);
    for (const w of writes) {
      expect(w).toMatchObject({ actor: 'curve-follower', result: 'success', details: { house_id: HOUSE, dispatch_status: 'verified' } });
      expect(w.details.written.length).toBe(Object.keys(w.details.values).length);
      expect(w.details.written.every((x: Item) => x.verified === true)).toBe(true);
      const field = (await master.get(`/api/v1/audit/list?correlation_id=${w.correlation_id}&action=field.write.modbus`)).body.items as Item[];
      expect(field.length).toBe(Object.keys(w.details.values).length);
      expect(field.every((f) => f.result === 'success')).toBe(true);
    }
  });

  it('a temperature set at the simulator by hand pauses following with an alarm, and the box leaves it alone', async () => {
    await setByHand(0, 250);
    await step();
    const s = await state();
    expect(s).toMatchObject({ paused: true, pause_reason: 'changed_at_controller' });
    expect(s.pause_message).toContain('the controller holds 25');
    const open = (await followAlarms()).filter((a) => a.status === 'active');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ priority: 'P2', title: `House ${HOUSE}: curve following paused — the temperature changed at the controller` });
    for (let i = 0; i < 4; i++) await step();
    expect((await registers()).target_temp_c).toBe(25);
    expect((await state()).paused).toBe(true);
  });

  it('resumed, it follows again; the simulator stopped, the failed write pauses with an alarm', async () => {
    expect((await op.post('/api/v1/poultry-climate/commands/follow', { house_id: HOUSE, enabled: true })).body.item.paused).toBe(false);
    expect((await followAlarms()).every((a) => a.status === 'cleared')).toBe(true);
    await step();
    expect(offCurve(await registers())).toEqual([]);

    await simServer.close();
    let s = await state();
    for (let i = 0; i < 12 && !s.paused; i++) {
      await step();
      s = await state();
    }
    expect(s).toMatchObject({ paused: true, pause_reason: 'write_failed' });
    expect(s.pause_message).toContain('127.0.0.1');
    const open = (await followAlarms()).filter((a) => a.status === 'active');
    expect(open).toHaveLength(1);
    expect(open[0]).toMatchObject({ priority: 'P2', title: expect.stringContaining(`House ${HOUSE}: curve following paused — controller did not accept`) });
    const failed = (await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&result=error')).body.items as Item[];
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ correlation_id: open[0]!.correlation_id, details: { dispatch_status: 'failed' } });
    // Paused: no more attempts, step after step.
    for (let i = 0; i < 4; i++) await step();
    expect((await master.get('/api/v1/audit/list?action=poultry-climate.follow-write&result=error')).body.total).toBe(1);
    // The poller saw the controller go too: its own comm_loss, apart from following's alarm.
    const loss = await until('comm_loss', async () => {
      const items = ((await op.get(`/api/v1/industry-alarms/list?unit_id=${HOUSE}&rule_id=comm_loss:sim-house-1`)).body.items as Item[]).filter((a) => a.status === 'active');
      return items.length ? items : undefined;
    });
    expect(loss).toHaveLength(1);
  });
});
