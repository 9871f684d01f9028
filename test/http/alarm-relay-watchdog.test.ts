// The watchdog against a real I/O module (io_peer.py): the box, a child process running
// `src/main.ts serve`, toggles the watchdog coil at its period while healthy, and the toggling
// stops when the box is killed with SIGKILL (what an external dialler watches for). SQLite: the
// database engine plays no part in the toggling (its health check is `select 1` on either).
import { createSecretKey, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { signSession } from '../../src/auth/tokens.js';
import { clientAs, createClient } from '../helpers/client.js';
import { createTestEnv } from '../helpers/server.js';
import { LOOP_LATE_MS } from '../../src/modules/alarm-relay/runtime.js';
import { startIoPeer, type IoPeer } from '../field/peers/io-peer.js';
import { waitFor } from '../field/helpers.js';
import { spawnServe } from '../helpers/serve-child.js';

const PERIOD_S = 1;
const COIL = 5;

/** `node <cabinet> serve`: one process, so SIGKILL hits the box itself. */
const serve = (env: Record<string, string>) => spawnServe([], { env });

describe('alarm relay watchdog (a box in a child process)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'cabinet-watchdog-'));
  let peer: IoPeer | undefined;
  let box: Awaited<ReturnType<typeof serve>> | undefined;
  afterAll(async () => {
    if (box && box.proc.exitCode === null && box.proc.signalCode === null) { box.proc.kill('SIGKILL'); await box.exited; }
    await peer?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('toggles the watchdog coil at its period while the box runs and stops when the box is killed', async () => {
    peer = await startIoPeer('tcp', '0');
    const secret = randomBytes(32).toString('hex');
    box = await serve({
      CABINET_DATA_DIR: dataDir, CABINET_DATABASE_URL: '', CABINET_SESSION_SECRET: secret, CABINET_HOST: '127.0.0.1', CABINET_HTTP_PORT: '0',
      CABINET_RPC_PORT: 'off', CABINET_MQTT_BROKER: 'off', CABINET_LOG_LEVEL: 'info',
    });
    const { token } = await signSession(createSecretKey(Buffer.from(secret)), { subject: 'installer', role: 'admin', scope_type: 'master', ttlMinutes: 30 });
    const api = await createClient(box.url, { authorization: `Bearer ${token}` });
    await waitFor(async () => (await api.get('/ready')).status === 200, 60_000, 'the box ready');
    const saved = await api.post('/api/v1/alarm-relay/commands/configure', { output: 'watchdog', transport: 'modbus-tcp', host: '127.0.0.1', port: peer.port, coil: COIL, period_s: PERIOD_S });
    expect(saved.status).toBe(200);
    expect(saved.body.item).toMatchObject({ output: 'watchdog', period_s: PERIOD_S, failing: false });

    // Alternate values, one write a period. The first write also opened the connection, so the
    // gaps are measured from the second on (six periods).
    await waitFor(async () => (await peer!.writes(COIL)).length >= 8, 20_000, 'eight watchdog writes');
    const running = await peer.writes(COIL);
    const values = running.map(([, v]) => v);
    expect(values.slice(0, 8)).toEqual([1, 0, 1, 0, 1, 0, 1, 0]);
    const gaps = running.slice(2, 8).map(([t], i) => t - running[i + 1]![0]);
    for (const gap of gaps) expect(gap).toBeGreaterThan(PERIOD_S * 0.5);
    for (const gap of gaps) expect(gap).toBeLessThan(PERIOD_S * 1.8);
    const mean = gaps.reduce((a, b) => a + b, 0) / gaps.length;
    expect(Math.abs(mean - PERIOD_S)).toBeLessThan(0.15);
    const listed = ((await api.get('/api/v1/alarm-relay/list')).body.items as { output: string; healthy: boolean | null; failing: boolean }[]).find((o) => o.output === 'watchdog');
    expect(listed).toMatchObject({ healthy: true, failing: false });

    box.proc.kill('SIGKILL');
    await box.exited;
    const killedAt = Date.now() / 1000;
    const before = (await peer.writes(COIL)).length;
    await new Promise((r) => setTimeout(r, PERIOD_S * 4000));
    const after = await peer.writes(COIL);
    // A write on the wire when the kill came may still land; none after that.
    expect(after.filter(([t]) => t > killedAt + 0.2)).toEqual([]);
    expect(after.length - before).toBeLessThanOrEqual(1);
  }, 120_000);

  it('does not toggle on a tick the event loop answered too late, and goes on once it answers', async () => {
    const env = await createTestEnv('sqlite');
    const io = await startIoPeer('tcp', '0');
    try {
      const server = await env.start({ mqtt_broker: 'off', rpc_port: 'off' });
      const api = await clientAs(env, server);
      expect((await api.post('/api/v1/alarm-relay/commands/configure', { output: 'watchdog', transport: 'modbus-tcp', host: '127.0.0.1', port: io.port, coil: 0, period_s: PERIOD_S })).status).toBe(200);
      await waitFor(async () => (await io.writes(0)).length >= 3, 10_000, 'three watchdog writes');
      // The box's event loop (this process's) does not answer for longer than the lateness limit.
      const stalled = Date.now() / 1000;
      const end = Date.now() + LOOP_LATE_MS + 1500;
      while (Date.now() < end) { /* a stuck event loop */ }
      const resumed = Date.now() / 1000;
      const healthy = async () => ((await api.get('/api/v1/alarm-relay/list')).body.items as { output: string; healthy: boolean | null }[]).find((o) => o.output === 'watchdog')!.healthy;
      await waitFor(() => env.logs.some((l) => String(l.msg).startsWith('alarm relay: the box is not healthy') && Number(l.late_ms) > LOOP_LATE_MS), 5_000, 'the late tick logged');
      await waitFor(async () => (await io.writes(0)).some(([t]) => t > resumed), 10_000, 'toggling again');
      const writes = await io.writes(0);
      // No write while stalled, and the late tick itself wrote nothing: the next one came a period later.
      expect(writes.filter(([t]) => t > stalled + 0.2 && t < resumed)).toEqual([]);
      const next = writes.find(([t]) => t > resumed)!;
      expect(next[0] - resumed).toBeGreaterThan(PERIOD_S * 0.8);
      expect(await healthy()).toBe(true);
      // The values still alternate across the stall.
      const values = writes.map(([, v]) => v);
      expect(values.every((v, i) => i === 0 || v !== values[i - 1])).toBe(true);
    } finally {
      await env.cleanup();
      await io.stop();
    }
  }, 60_000);
});
