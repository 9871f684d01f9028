import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createFieldService, type ExecuteResult, type FieldService } from '../../src/field/service.js';
import { fieldConfig } from '../../src/field/config.js';
import type { FieldWriteAudit } from '../../src/field/types.js';
import { closedTcpPort, FaultProxy, startModbusPeer, stopAll, waitFor, type ModbusPeer } from './helpers.js';

// Modbus TCP faults against pymodbus (directly, or through a proxy that can go mute, delay or drop).

const actor = { id: 'tester', role: 'operator' };
let peer: ModbusPeer;
let noFcPeer: ModbusPeer;
const services: FieldService[] = [];
const proxies: FaultProxy[] = [];

function service(over: Parameters<typeof fieldConfig>[0] = {}, audit: FieldWriteAudit[] = []): FieldService {
  const s = createFieldService(fieldConfig({ request_timeout_ms: 400, retries: 1, ...over }), { audit: (e) => void audit.push(e) });
  services.push(s);
  return s;
}

async function proxy(upstream: number, port = 0): Promise<FaultProxy> {
  const p = new FaultProxy(upstream, port);
  await p.listen();
  proxies.push(p);
  return p;
}

const reg = (port: number, addr: number, value: number | number[], extra: object = {}) => ({
  device_ip: '127.0.0.1',
  device_port: port,
  object_type: 'holding register',
  object_address: addr,
  data_type: 'uint16',
  value,
  ...extra,
});
const write = (s: FieldService, ...items: object[]): Promise<ExecuteResult> => s.execute({ jsonrpc: '2.0', protocol: 'modbus', params: items }, actor, 'c1');
const failed = (r: ExecuteResult) => {
  if (r.ok) throw new Error(`expected a failure, got ${JSON.stringify(r)}`);
  return r;
};

beforeAll(async () => {
  [peer, noFcPeer] = await Promise.all([startModbusPeer('tcp', '0'), startModbusPeer('tcp', '0', ['--disable-fc', '5,15,16'])]);
});
afterEach(async () => {
  await Promise.all(services.splice(0).map((s) => s.close()));
  await Promise.all(proxies.splice(0).map((p) => p.close()));
});
afterAll(stopAll);

describe('Modbus TCP faults', () => {
  it('absent device: Connection refused, then the device appears and the next write succeeds', async () => {
    const port = await closedTcpPort();
    const s = service();
    const r = failed(await write(s, reg(port, 5, 1)));
    expect(r.status).toBe(502);
    expect(r.messages).toEqual([`Connection refused 127.0.0.1:${port} addr:5`]);
    await proxy(peer.port, port);
    expect(await write(s, reg(port, 5, 11))).toMatchObject({ ok: true });
    expect(await peer.hr(5, 1)).toEqual([11]);
  });

  it('device that never answers: Timeout after the bounded retry, then the next write succeeds', async () => {
    const p = await proxy(peer.port);
    p.mode = 'mute';
    const s = service({ request_timeout_ms: 300, retries: 2 });
    const t0 = Date.now();
    const r = failed(await write(s, reg(p.port, 6, 1)));
    expect(r.messages).toEqual([`Timeout 127.0.0.1:${p.port} addr:6`]);
    expect(Date.now() - t0).toBeLessThan(10_000);
    expect(p.connections).toBe(3); // each attempt on a fresh link
    p.mode = 'forward';
    expect(await write(s, reg(p.port, 6, 12))).toMatchObject({ ok: true, results: [{ attempts: 1 }] });
    expect(await peer.hr(6, 1)).toEqual([12]);
  });

  it('a late reply to a timed-out request is never taken as the answer to the next one', async () => {
    const p = await proxy(peer.port);
    p.delayMs = 900;
    const s = service({ request_timeout_ms: 300, retries: 0 });
    expect(failed(await write(s, reg(p.port, 7, 1))).messages).toEqual([`Timeout 127.0.0.1:${p.port} addr:7`]);
    p.delayMs = 0;
    const r = await write(s, reg(p.port, 8, 13, { verify: true }));
    expect(r).toMatchObject({ ok: true, results: [{ verified: true }] });
    await new Promise((res) => setTimeout(res, 1000)); // let the stale reply arrive; nothing may break
    expect(await write(s, reg(p.port, 8, 14, { verify: true }))).toMatchObject({ ok: true });
    expect(await peer.hr(7, 2)).toEqual([1, 14]);
  });

  it('illegal address: exception 02 in the contract shape, for registers and coils; the bus stays usable', async () => {
    const s = service();
    expect(failed(await write(s, reg(peer.port, 500, 1))).messages).toEqual([`Error write register 127.0.0.1:${peer.port} addr:500 Illegal data address`]);
    expect(failed(await write(s, { device_ip: '127.0.0.1', device_port: peer.port, object_type: 'coil', object_address: 500, value: 1 })).messages).toEqual([
      `Error write bit 127.0.0.1:${peer.port} addr:500 Illegal data address`,
    ]);
    expect(await write(s, reg(peer.port, 9, 15))).toMatchObject({ ok: true });
    expect(await peer.hr(9, 1)).toEqual([15]);
  });

  it('illegal function: exception 01 (device without FC05/15/16) is not retried; FC06 still works', async () => {
    const audit: FieldWriteAudit[] = [];
    const s = service({}, audit);
    const coil = { device_ip: '127.0.0.1', device_port: noFcPeer.port, object_type: 'coil', object_address: 3, value: 1 };
    expect(failed(await write(s, coil)).messages).toEqual([`Error write bit 127.0.0.1:${noFcPeer.port} addr:3 Illegal function`]);
    expect(failed(await write(s, reg(noFcPeer.port, 4, [1, 2]))).messages).toEqual([`Error write register 127.0.0.1:${noFcPeer.port} addr:4 Illegal function`]);
    expect(audit.at(-1)).toMatchObject({ outcome: 'failed', failure_kind: 'exception' });
    expect(await write(s, reg(noFcPeer.port, 4, 16))).toMatchObject({ ok: true, results: [{ function: 6, attempts: 1 }] });
    expect(await noFcPeer.hr(4, 1)).toEqual([16]);
  });

  it('stops at the first failed item: earlier items done, later ones reported as not executed and audited', async () => {
    await peer.reset();
    const audit: FieldWriteAudit[] = [];
    const s = service({}, audit);
    const r = failed(await write(s, reg(peer.port, 30, 1), reg(peer.port, 900, 2), reg(peer.port, 31, 3)));
    expect(r.status).toBe(502);
    expect(r.messages).toEqual([
      `Error write register 127.0.0.1:${peer.port} addr:900 Illegal data address`,
      `Not executed 127.0.0.1:${peer.port} addr:31 (an earlier item failed)`,
    ]);
    expect(r.results).toHaveLength(1);
    expect(await peer.hr(30, 2)).toEqual([1, 0]);
    expect(audit.map((a) => a.outcome)).toEqual(['ok', 'failed', 'skipped']);
  });

  it('link dropped while a request is outstanding: reconnect and retry succeed', async () => {
    const p = await proxy(peer.port);
    p.mode = 'mute';
    const s = service({ request_timeout_ms: 3000, retries: 1 });
    const pending = write(s, reg(p.port, 10, 17));
    await waitFor(() => p.connections >= 1, 5000, 'first connection');
    p.mode = 'forward';
    p.dropAll();
    expect(await pending).toMatchObject({ ok: true, results: [{ attempts: 2 }] });
    expect(await peer.hr(10, 1)).toEqual([17]);
  });

  it('one request on the wire at a time, bounded queue refuses with 503, and the queue drains', async () => {
    const p = await proxy(peer.port);
    p.mode = 'mute';
    const s = service({ request_timeout_ms: 500, retries: 0, queue_max_length: 2 });
    const all = await Promise.all([1, 2, 3, 4, 5].map((i) => write(s, reg(p.port, 40 + i, i))));
    const statuses = all.map((r) => (r.ok ? 200 : r.status));
    expect(statuses.filter((x) => x === 503)).toHaveLength(2);
    expect(statuses.filter((x) => x === 502)).toHaveLength(3);
    expect(all.flatMap((r) => (r.ok ? [] : r.messages)).filter((m) => m.startsWith('Queue full'))).toEqual([
      `Queue full 127.0.0.1:${p.port} addr:44`,
      `Queue full 127.0.0.1:${p.port} addr:45`,
    ]);
    p.mode = 'forward';
    // sequential on the wire: concurrent requests on one bus all land, in order
    const ok = await Promise.all([1, 2, 3].map((i) => write(s, reg(p.port, 46, i))));
    expect(ok.every((r) => r.ok)).toBe(true);
    expect(await peer.hr(46, 1)).toEqual([3]);
  });
});
