import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createFieldService, type FieldService } from '../../src/field/service.js';
import { fieldConfig } from '../../src/field/config.js';
import type { FieldWriteAudit } from '../../src/field/types.js';
import { startModbusPeer, startPtyPair, stopAll, removeDir, type ModbusPeer, type PtyPair } from './helpers.js';
import { EXACT, MATRIX, caseName, words } from './matrix.js';

// Writes through the service to real pymodbus slaves (TCP, and RTU over a socat pty pair), then
// reads the raw registers inside the slave and compares them with hand-written hex.

const actor = { id: 'tester', role: 'operator' };
const ADDR = 20;

type Setup = { peer: ModbusPeer; service: FieldService; audit: FieldWriteAudit[]; item: (x: object) => object; protocol: 'modbus' | 'modbus-rtu' };

const setups: Record<'tcp' | 'rtu', () => Promise<Setup & { pty?: PtyPair }>> = {
  tcp: async () => {
    const peer = await startModbusPeer('tcp', '0');
    const audit: FieldWriteAudit[] = [];
    const service = createFieldService(fieldConfig({ request_timeout_ms: 3000 }), { audit: (e) => void audit.push(e) });
    return { peer, service, audit, protocol: 'modbus', item: (x) => ({ device_ip: '127.0.0.1', device_port: peer.port, ...x }) };
  },
  rtu: async () => {
    const pty = await startPtyPair();
    const peer = await startModbusPeer('rtu', pty.b);
    const audit: FieldWriteAudit[] = [];
    const service = createFieldService(fieldConfig({ request_timeout_ms: 3000, modbus: { serial: { path: pty.a } } }), { audit: (e) => void audit.push(e) });
    return { pty, peer, service, audit, protocol: 'modbus-rtu', item: (x) => ({ unit_id: 1, ...x }) };
  },
};

describe.each(['tcp', 'rtu'] as const)('Modbus %s against pymodbus', (kind) => {
  let s: Setup & { pty?: PtyPair };
  beforeAll(async () => {
    s = await setups[kind]();
  });
  afterAll(async () => {
    await s?.service.close();
    await stopAll();
    if (s?.pty) removeDir(s.pty.dir);
  });

  const send = (items: object[]) => s.service.execute({ jsonrpc: '2.0', protocol: s.protocol, params: items }, actor, `corr-${kind}`);

  for (const c of MATRIX) {
    it(caseName(c), async () => {
      await s.peer.reset();
      const r = await send([s.item({ object_type: 'holding register', object_address: ADDR, data_type: c.data_type, order: c.order, ...(c.scale === undefined ? {} : { scale: c.scale }), value: c.value })]);
      expect(r).toMatchObject({ ok: true, results: [{ function: c.fc }] });
      // one register beyond must stay untouched: an array writes exactly its own registers
      expect(await s.peer.hrHex(ADDR, words(c.hex) + 1)).toBe(`${c.hex} 0000`);
    });
  }

  for (const c of EXACT) {
    it(`exact: ${caseName(c)}, pymodbus decodes ${c.device}`, async () => {
      await s.peer.reset();
      const r = await send([s.item({ object_type: 'holding register', object_address: ADDR, data_type: c.data_type, order: c.order, ...(c.scale === undefined ? {} : { scale: c.scale }), value: c.value })]);
      expect(r).toMatchObject({ ok: true, results: [{ function: c.fc }] });
      expect(await s.peer.hrHex(ADDR, words(c.hex))).toBe(c.hex);
      // toBe is Object.is: -0 and +0 differ, and so does any last bit
      expect(await s.peer.decode(ADDR, c.data_type, c.order)).toBe(c.device);
    });
  }

  it('coil single uses FC05, array FC15; bool values and 0/1 both accepted', async () => {
    await s.peer.reset();
    let r = await send([s.item({ object_type: 'coil', object_address: 3, value: 1 })]);
    expect(r).toMatchObject({ ok: true, results: [{ function: 5 }] });
    expect(await s.peer.co(2, 3)).toEqual([0, 1, 0]);
    r = await send([s.item({ object_type: 'coil', object_address: 10, data_type: 'bool', value: [true, 0, 1, false, 1] })]);
    expect(r).toMatchObject({ ok: true, results: [{ function: 15 }] });
    expect(await s.peer.co(9, 7)).toEqual([0, 1, 0, 1, 0, 1, 0]);
  });

  it('several items in one request run in order; verify reads them back', async () => {
    await s.peer.reset();
    const r = await send([
      s.item({ object_type: 'holding register', object_address: 50, data_type: 'uint16', value: 7, verify: true }),
      s.item({ object_type: 'holding register', object_address: 50, data_type: 'uint16', value: 8, verify: true }),
      s.item({ object_type: 'coil', object_address: 51, value: [1, 1], verify: true }),
    ]);
    expect(r).toMatchObject({ ok: true, results: [{ verified: true }, { verified: true }, { verified: true }] });
    expect(await s.peer.hr(50, 1)).toEqual([8]);
    expect(await s.peer.co(51, 2)).toEqual([1, 1]);
    const last = s.audit.slice(-3);
    expect(last.map((a) => a.outcome)).toEqual(['ok', 'ok', 'ok']);
    expect(last[0]).toMatchObject({ actor, correlation_id: `corr-${kind}`, protocol: s.protocol, index: 0, address: '50', wire: '0007', verified: true });
  });

  it('a refused item means nothing of the request is written', async () => {
    await s.peer.reset();
    const r = await send([
      s.item({ object_type: 'holding register', object_address: 60, data_type: 'int16', value: 5 }),
      s.item({ object_type: 'holding register', object_address: 61, data_type: 'int16', value: 40000 }),
    ]);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(400);
    expect(r.messages).toEqual([expect.stringMatching(/^Invalid value .* addr:61 int16 value 40000 .*does not fit int16/)]);
    expect(await s.peer.hr(60, 2)).toEqual([0, 0]);
  });
});
