import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { SerialPort } from 'serialport';
import { createFieldService, type ExecuteResult, type FieldService } from '../../src/field/service.js';
import { fieldConfig } from '../../src/field/config.js';
import { removeDir, startModbusPeer, startPtyPair, stopAll, withTimeout, type ModbusPeer, type PtyPair } from './helpers.js';

// Modbus RTU faults on a socat pty pair: exception, silent slave, corrupted reply, and the
// adapter disappearing (socat killed) with writes queued.

const actor = { id: 'tester', role: 'operator' };
let pty: PtyPair;
let peer: ModbusPeer | null = null;
let service: FieldService;

const reg = (addr: number, value: number, extra: object = {}) => ({ unit_id: 1, object_type: 'holding register', object_address: addr, data_type: 'uint16', value, ...extra });
const write = (...items: object[]): Promise<ExecuteResult> => service.execute({ jsonrpc: '2.0', protocol: 'modbus-rtu', params: items }, actor, 'rtu');
const messages = (r: ExecuteResult): string[] => (r.ok ? [] : r.messages);

beforeAll(async () => {
  pty = await startPtyPair();
  service = createFieldService(fieldConfig({ request_timeout_ms: 400, retries: 1, modbus: { serial: { path: pty.a, baud_rate: 19200 } } }), { audit: () => {} });
});
afterEach(async () => {
  // each test leaves a working slave on the pty for the next
  if (!peer) peer = await startModbusPeer('rtu', pty.b);
});
afterAll(async () => {
  await service?.close();
  await stopAll();
  if (pty) removeDir(pty.dir);
});

describe('Modbus RTU faults', () => {
  it('exception 02 keeps the contract shape with the port and unit as target', async () => {
    peer ??= await startModbusPeer('rtu', pty.b);
    expect(messages(await write(reg(700, 1)))).toEqual([`Error write register ${pty.a} unit:1 addr:700 Illegal data address`]);
    expect(await write(reg(1, 21))).toMatchObject({ ok: true });
    expect(await peer.hr(1, 1)).toEqual([21]);
  });

  it('slave that never answers: Timeout, then the slave is back and the next write succeeds', async () => {
    await peer?.stop();
    peer = null;
    expect(messages(await write(reg(2, 1)))).toEqual([`Timeout ${pty.a} unit:1 addr:2`]);
    peer = await startModbusPeer('rtu', pty.b);
    expect(await write(reg(2, 22))).toMatchObject({ ok: true });
    expect(await peer.hr(2, 1)).toEqual([22]);
  });

  it('corrupted reply: CRC error after the bounded retry, then the next write succeeds', async () => {
    await peer?.stop();
    peer = null;
    const noisy = new SerialPort({ path: pty.b, baudRate: 19200, autoOpen: false });
    await new Promise<void>((res, rej) => noisy.open((e) => (e ? rej(e) : res())));
    let frames = 0;
    noisy.on('data', (d: Buffer) => {
      frames++;
      const reply = Buffer.from(d.subarray(0, 8)); // FC06 echo...
      reply[7] = (reply[7] ?? 0) ^ 0xff; // ...with a wrong CRC
      noisy.write(reply);
    });
    expect(messages(await write(reg(3, 1)))).toEqual([`CRC error ${pty.a} unit:1 addr:3`]);
    expect(frames).toBe(2);
    await new Promise<void>((res) => noisy.close(() => res()));
    peer = await startModbusPeer('rtu', pty.b);
    expect(await write(reg(3, 23))).toMatchObject({ ok: true });
    expect(await peer.hr(3, 1)).toEqual([23]);
  });

  it('adapter unplugged mid-queue (socat killed): every queued write settles in the contract shape; after replug the next write succeeds', async () => {
    await peer?.stop();
    peer = null;
    // the slave is silent, so writes pile up in the queue behind timeouts
    const pending = [10, 11, 12, 13].map((a) => write(reg(a, a)));
    await new Promise((r) => setTimeout(r, 150));
    await pty.stop();
    const results = await withTimeout(Promise.all(pending), 20_000, 'queued writes to settle after unplug');
    for (const [i, r] of results.entries()) {
      expect(r.ok).toBe(false);
      expect(messages(r)[0]).toMatch(new RegExp(`^(Timeout|Connection lost|Port unavailable) ${pty.a.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} unit:1 addr:${10 + i}$`));
    }
    // unplugged: refused at once, no hang
    expect(messages(await write(reg(14, 1)))).toEqual([`Port unavailable ${pty.a} unit:1 addr:14`]);
    // replug: same device path comes back
    pty = await startPtyPair(pty.dir);
    peer = await startModbusPeer('rtu', pty.b);
    expect(await write(reg(15, 25, { verify: true }))).toMatchObject({ ok: true, results: [{ verified: true }] });
    expect(await peer.hr(15, 1)).toEqual([25]);
  });
});
