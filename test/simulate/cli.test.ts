import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import ModbusRTU from 'modbus-serial';
import { decode } from './helpers.js';
import { cabinetArgs } from '../helpers/cabinet-main.js';

// `cabinet simulate` as a process, the way a user or a test harness starts it.
const MAIN = await cabinetArgs('simulate');
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

interface Ready { ready: boolean; port: number; houses: number; unit_ids: number[] }

function start(args: string[]): Promise<{ child: ChildProcess; ready: Ready; stderr: () => string }> {
  const child = spawn(process.execPath, [...MAIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`simulate exited ${code}: ${err}`)));
    createInterface({ input: child.stdout! }).once('line', (line) => resolve({ child, ready: JSON.parse(line) as Ready, stderr: () => err }));
  });
}

const exited = (child: ChildProcess) => new Promise<number | null>((r) => child.once('exit', (code) => r(code)));

async function connect(port: number): Promise<ModbusRTU> {
  const c = new ModbusRTU();
  await c.connectTCP('127.0.0.1', { port });
  c.setTimeout(3000);
  return c;
}

describe('cabinet simulate (process)', () => {
  it('prints the ready line, serves every house, and exits 0 on SIGTERM', async () => {
    const { child, ready, stderr } = await start(['--port', '0', '--houses', '3', '--seed', '7', '--age-days', '20']);
    expect(ready).toMatchObject({ ready: true, houses: 3, unit_ids: [1, 2, 3] });
    expect(ready.port).toBeGreaterThan(0);
    const c = await connect(ready.port);
    for (const unit of [1, 2, 3]) {
      c.setID(unit);
      const ir = (await c.readInputRegisters(0, 14)).data;
      expect(decode(ir.slice(0, 1), 'int16') / 10).toBeGreaterThan(20); // day 20: target ~26.3 °C
      expect(decode(ir.slice(0, 1), 'int16') / 10).toBeLessThan(32);
      expect(decode(ir.slice(11, 12), 'uint16') / 10).toBeCloseTo(20, 0);
      expect(decode(ir.slice(12, 14), 'uint32', 'CDAB')).toBe(20_000);
    }
    c.setID(2);
    await c.writeRegister(0, 222);
    expect((await c.readHoldingRegisters(0, 1)).data).toEqual([222]);
    await new Promise<void>((r) => c.close(() => r()));
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
    expect(stderr()).toBe('');
  });

  it('--speed runs the flock faster: a day per second ages it and fills the feed counter', async () => {
    const { child, ready } = await start(['--port', '0', '--speed', '86400', '--age-days', '10']);
    const c = await connect(ready.port);
    c.setID(1);
    const age0 = decode((await c.readInputRegisters(11, 1)).data, 'uint16') / 10;
    await new Promise((r) => setTimeout(r, 1500));
    const ir = (await c.readInputRegisters(0, 12)).data;
    expect(decode(ir.slice(11, 12), 'uint16') / 10 - age0).toBeGreaterThan(1);
    // ~20,000 birds x ~60 g a day at day 11: more than 1 t of feed in over a simulated day.
    expect(decode(ir.slice(9, 11), 'uint32', 'CDAB') / 10).toBeGreaterThan(1000);
    await new Promise<void>((r) => c.close(() => r()));
    const code = exited(child);
    child.kill('SIGINT');
    expect(await code).toBe(0);
  });

  it('--print-profile prints one POSTable body per house; a bad option exits 2 with the usage', async () => {
    const run = promisify(execFile);
    const out = await run(process.execPath, [...MAIN, '--print-profile', '--houses', '2', '--port', '5021'], { encoding: 'utf8' });
    const bodies = out.stdout.trim().split('\n').map((l) => JSON.parse(l) as { item: { port: number; modbus_unit_id: number; unit_id: string } });
    expect(bodies.map((b) => [b.item.unit_id, b.item.modbus_unit_id, b.item.port])).toEqual([['1', 1, 5021], ['2', 2, 5021]]);
    const bad = await run(process.execPath, [...MAIN, '--houses', 'many'], { encoding: 'utf8' }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/--houses must be an integer in 1\.\.247.*\n.*usage: cabinet simulate/);
    const anyPort = await run(process.execPath, [...MAIN, '--print-profile', '--port', '0'], { encoding: 'utf8' }).then(() => 0, (e: { code: number }) => e.code);
    expect(anyPort).toBe(2);
  });

  it('a port in use or a serial device that cannot be opened is one line on stderr and exit 1', async () => {
    const { child, ready } = await start(['--port', '0']);
    const run = promisify(execFile);
    const fail = (args: string[]) => run(process.execPath, [...MAIN, ...args], { encoding: 'utf8', timeout: 20_000 }).then(
      () => ({ code: 0, stderr: '' }),
      (e: { code: number; stderr: string }) => e,
    );
    const busy = await fail(['--port', String(ready.port)]);
    expect(busy).toMatchObject({ code: 1 });
    expect(busy.stderr).toMatch(/^cabinet simulate: listen EADDRINUSE.*\n$/);
    const noSerial = await fail(['--port', '0', '--serial', '/nonexistent/tty']);
    expect(noSerial).toMatchObject({ code: 1 });
    expect(noSerial.stderr).toMatch(/^cabinet simulate: .*\/nonexistent\/tty\n$/);
    const code = exited(child);
    child.kill('SIGTERM');
    expect(await code).toBe(0);
  });
});
