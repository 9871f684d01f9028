// What a stop may lose, per kind (docs/storage-and-reads.md, "What a power cut may lose"): a real
// server process polls two simulated house controllers (Modbus TCP, `cabinet simulate`'s server
// in this process) every second, so its climate readings and telemetry points are held in memory
// for the whole period's commit (telemetry_hold_ms, 20 s here) and its roll-ups stay open.
// - A graceful stop (SIGTERM) loses nothing: the readings and roll-ups read before the stop are
//   all there after the restart.
// - SIGKILL loses only what was held: every reading and every minute of telemetry older than the
//   bound (telemetry_hold_ms plus the 2 s grace) before the kill is there after the restart, the
//   minute roll-ups are rebuilt from the stored points, and an alarm raised and acknowledged, a
//   setpoint written to the controller (/api/rpc) and an audit record, each answered before the
//   kill, are all there.
// - The security log (src/auth/security-log.ts): a clean stop loses no entry; SIGKILL loses no
//   allowed request's entry older than the bound (they wait for the hold period's commit) and no
//   refusal older than its 2 s flush.
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, it } from 'vitest';
import { adapterProfile } from '../../src/simulate/profile.js';
import { setpointEntries } from '../../src/simulate/register-map.js';
import { startTcpServer } from '../../src/simulate/server.js';
import { Simulation } from '../../src/simulate/simulation.js';
import { createTestEnv, type TestEnv } from '../helpers/server.js';
import { api, freePort, killAll, proc, type Proc } from '../sync/procs.js';

const HOLD_MS = 20_000;
const BOUND_MS = HOLD_MS + 2000;
const HOUSES = 2;
const TENANT = { role: 'admin' as const, scope_type: 'tenant' as const, tenant_id: 'tP', site_id: 'farm-p' };

type Item = Record<string, unknown>;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Refusals and authentication events are written within this (the security log's flushMs). */
const SECURITY_FLUSH_MS = 2000;

describe('what a stop may lose, per kind', () => {
  let env: TestEnv;
  let box: Proc;
  let sim: Awaited<ReturnType<typeof startTcpServer>>;
  afterAll(async () => {
    await box?.stop();
    killAll();
    await sim?.close();
    await env?.cleanup();
  });

  /** Every climate reading the API shows (held ones included), by id. */
  const readings = async (token: string) => {
    const out = new Map<string, Item>();
    for (let offset = 0; ; offset += 500) {
      const r = await api(box, token, 'GET', `/api/v1/poultry-climate-readings/list?limit=500&offset=${offset}`);
      expect(r.status).toBe(200);
      for (const i of r.body.items as Item[]) out.set(String(i.id), i);
      if (!r.body.has_more) return out;
    }
  };
  /** Points per series and minute from the minute roll-ups (the open ones included). */
  const minutes = async (token: string) => {
    const r = await api(box, token, 'GET', '/api/v1/devices/telemetry-rollups/list?resolution=minute&limit=2000');
    expect(r.status).toBe(200);
    return new Map((r.body.items as Item[]).map((i) => [`${String(i.device_id)}/${String(i.metric)}/${String(i.bucket)}`, Number(i.count)]));
  };
  /** Rows committed to the database file, as another process sees them. */
  const committed = (table: string) => {
    const db = new Database(join(env.dataDir, 'cabinet.sqlite'), { readonly: true });
    try { return Number((db.prepare(`select count(*) as n from ${table}`).get() as { n: number }).n); } finally { db.close(); }
  };
  /** A request whose security-log entry carries `requestId`: allowed with the token, refused (401) without. */
  const logged = async (requestId: string, token?: string) => {
    const res = await fetch(`${box.url}/api/v1/tables/list?limit=1`, { headers: { 'x-request-id': requestId, ...(token ? { authorization: `Bearer ${token}` } : {}) } });
    await res.arrayBuffer();
    expect(res.status).toBe(token ? 200 : 401);
  };
  /** The security-log entries committed to the file, by request id: result of each. */
  const securityEntries = (ids: string[]) => {
    const db = new Database(join(env.dataDir, 'cabinet.sqlite'), { readonly: true });
    try {
      const rows = db.prepare(`select request_id, result from auth_security_log where request_id in (${ids.map(() => '?').join(', ')})`).all(...ids) as { request_id: string; result: string }[];
      return Object.fromEntries(rows.map((r) => [r.request_id, r.result]));
    } finally { db.close(); }
  };

  it('a clean stop loses nothing; SIGKILL loses only held readings, telemetry and allowed requests\' log entries younger than the bound, refusals younger than 2 s, and no alarm, acknowledgement, setpoint write or audit record', async () => {
    const simulation = new Simulation({ houses: HOUSES, age_days: 12, birds: 20_000, speed: 1, seed: 3, noise: 1 });
    sim = await startTcpServer(simulation, '127.0.0.1', 0);
    env = await createTestEnv('sqlite');
    const rpcPort = await freePort();
    box = await proc('box', { data_dir: env.dataDir, telemetry_hold_ms: String(HOLD_MS), rpc_port: String(rpcPort), stale_after_s: '3600' }, { secret: randomBytes(32).toString('hex') });
    await box.start();
    const token = await box.token(TENANT);
    const start = new Date(Date.now() - 12 * 86_400_000).toISOString().slice(0, 10);
    for (let h = 1; h <= HOUSES; h++) {
      const placed = await api(box, token, 'POST', '/api/v1/poultry-flock/commands/place', { house_id: `house-${h}`, batch_id: `B${h}`, subtype: 'broiler', start_date: start, birds_placed: 20_000 });
      expect(placed.status, JSON.stringify(placed.body)).toBe(201);
      const adapter = await api(box, token, 'POST', '/api/v1/poultry-adapters', adapterProfile({ house: h, port: sim.where as number, unit_id: `house-${h}`, poll_period_s: 1 }));
      expect(adapter.status, JSON.stringify(adapter.body)).toBe(201);
    }

    // Hold periods end on the wall clock (each period's commit is on the whole period plus 2 s).
    const phase = () => (Date.now() - 2000) % HOLD_MS;
    // A graceful stop: what the API showed is what the restarted box has. The polls stop a few
    // seconds into a hold period, so its readings are still held when the stop comes (the commit
    // between the last poll and the check made it hold none, now and then under load).
    await sleep(6000);
    while (phase() < 3000 || phase() > 9000) await sleep(200);
    await sim.close(); // no poll answers from here: nothing new arrives while the box stops
    await sleep(1500);
    const shownBefore = await readings(token);
    const minutesBefore = await minutes(token);
    // The house screen's hourly chart counts the held readings too.
    const hourly = await api(box, token, 'GET', '/api/v1/poultry-climate-readings/hourly?house_id=house-1');
    expect((hourly.body.item.items as Item[]).reduce((n, i) => n + Number(i.n), 0)).toBe([...shownBefore.values()].filter((r) => r.house_id === 'house-1').length);
    expect(shownBefore.size).toBeGreaterThan(0);
    expect(committed('poultry_climate_readings') + committed('poultry_climate_readings_recent')).toBeLessThan(shownBefore.size); // some were held, not committed
    await logged('clean-stop-allow', token);
    await logged('clean-stop-deny');
    await box.stop();
    expect(securityEntries(['clean-stop-allow', 'clean-stop-deny'])).toEqual({ 'clean-stop-allow': 'allow', 'clean-stop-deny': 'deny' });
    await box.start();
    expect([...(await readings(token)).keys()].sort()).toEqual([...shownBefore.keys()].sort());
    expect(await minutes(token)).toEqual(minutesBefore);

    // SIGKILL under polling: the critical writes are answered first, then the box is killed.
    sim = await startTcpServer(simulation, '127.0.0.1', sim.where as number);
    const oldAllowAt = Date.now();
    await logged('kill-old-allow', token);
    await sleep(BOUND_MS + 4000);
    // The kill falls in the middle of a hold period, so readings are held.
    // A refusal a few seconds before the kill, inside the same hold period: written within 2 s, not held.
    while (phase() < 3000 || phase() > 5000) await sleep(200);
    // Committed by the hold periods' own commits since (nothing else flushed the log meanwhile).
    expect(Date.now() - oldAllowAt).toBeGreaterThan(BOUND_MS);
    expect(securityEntries(['kill-old-allow'])).toEqual({ 'kill-old-allow': 'allow' });
    const denyAt = Date.now();
    await logged('kill-deny');
    while (phase() < 8000 || phase() > 11_000) await sleep(200);
    await logged('kill-held-allow', token);
    const raised = await api(box, token, 'POST', '/api/v1/alarms/commands/raise', { severity: 'high', source: 'rules', title: 'power cut test' });
    expect(raised.status, JSON.stringify(raised.body)).toBe(201);
    const alarmId = String(raised.body.item.id);
    const acked = await api(box, token, 'POST', '/api/v1/alarms/commands/ack', { id: alarmId });
    expect(acked.status, JSON.stringify(acked.body)).toBe(200);
    const setpoint = setpointEntries()[0]!;
    const write = await fetch(`http://127.0.0.1:${rpcPort}/api/rpc`, {
      method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', protocol: 'modbus', params: [{ device_ip: '127.0.0.1', device_port: sim.where, unit_id: 1, object_type: 'holding register', object_address: setpoint.address, data_type: 'uint16', value: 250 }] }),
    });
    expect(write.status, await write.clone().text()).toBe(200);
    const writeId = write.headers.get('x-correlation-id');
    expect(writeId).toBeTruthy();
    const audited = await api(box, token, 'POST', '/api/v1/audit/commands/log', { action: 'power.cut.test', resource: 'durability', result: 'success', correlation_id: 'power-cut-audit' });
    expect(audited.status, JSON.stringify(audited.body)).toBe(201);

    const shown = await readings(token);
    const shownMinutes = await minutes(token);
    const held = shown.size - committed('poultry_climate_readings') - committed('poultry_climate_readings_recent');
    expect(held).toBeGreaterThan(0); // the kill has held readings to lose
    // An allowed request's entry of this hold period is not committed yet: the kill has one to lose.
    expect(securityEntries(['kill-held-allow'])).toEqual({});
    const killedAt = Date.now();
    await box.kill9();
    await sim.close();
    await box.start();

    const after = await readings(token);
    const lost = [...shown.values()].filter((r) => !after.has(String(r.id)));
    expect(lost.length).toBeLessThanOrEqual(held);
    // Only readings taken within the bound before the kill may be lost.
    expect(lost.filter((r) => Date.parse(String(r.ts)) < killedAt - BOUND_MS)).toEqual([]);
    // Telemetry: every minute that ended before the bound has all its points; none has more than was shown.
    const afterMinutes = await minutes(token);
    for (const [key, count] of shownMinutes) {
      const bucket = Date.parse(key.split('/').at(-1)!);
      if (bucket + 60_000 <= killedAt - BOUND_MS) expect(afterMinutes.get(key), key).toBe(count);
      expect(afterMinutes.get(key) ?? 0, key).toBeLessThanOrEqual(count);
    }
    // The roll-ups agree with the stored points they were rebuilt from.
    const db = new Database(join(env.dataDir, 'cabinet.sqlite'), { readonly: true });
    try {
      const off = db.prepare(`select count(*) as n from (select series_id, (ts / 60000) * 60000 as b, count(*) as n from telemetry_points group by 1, 2) p
        left join telemetry_rollups r on r.series_id = p.series_id and r.resolution = 60 and r.bucket = p.b where r.count is not p.n`).get() as { n: number };
      expect(off.n).toBe(0);
    } finally {
      db.close();
    }

    // The security log: what is older than its bound is there.
    expect(killedAt - oldAllowAt).toBeGreaterThan(BOUND_MS);
    expect(killedAt - denyAt).toBeGreaterThan(SECURITY_FLUSH_MS + 500);
    expect(securityEntries(['kill-old-allow', 'kill-deny'])).toEqual({ 'kill-old-allow': 'allow', 'kill-deny': 'deny' });

    const alarm = await api(box, token, 'GET', `/api/v1/alarms/${alarmId}`);
    expect(alarm.status).toBe(200);
    expect(alarm.body.item).toMatchObject({ state: 'acknowledged', acknowledged_at: acked.body.item.acknowledged_at });
    const writes = await api(box, token, 'GET', '/api/v1/audit/list?action=field.write.modbus&limit=200');
    expect((writes.body.items as Item[]).map((i) => i.correlation_id)).toContain(writeId);
    const records = await api(box, token, 'GET', '/api/v1/audit/list?action=power.cut.test');
    expect((records.body.items as Item[]).map((i) => i.correlation_id)).toEqual(['power-cut-audit']);
  }, 180_000);
});
