// Field-write benchmark: `npx tsx bench/rpc.ts [writes]`. Not a test: prints figures only.
//  1. Modbus TCP: writes/s, p50/p99 of POST /api/rpc against the same writes made directly with
//     modbus-serial on one connection, to the same pymodbus slave (the ratio is the figure).
//  2. Modbus RTU on a socat pty pair: time per write through the service vs direct; the difference
//     is the software time the service adds per RTU write.
import ModbusRTU from 'modbus-serial';
import { serve, type ServerType } from '@hono/node-server';
import type { AddressInfo } from 'node:net';
import { createFieldService } from '../src/field/service.js';
import { createRpcApp } from '../src/field/rpc-app.js';
import { fieldConfig } from '../src/field/config.js';
import { startModbusPeer, startPtyPair, stopAll, removeDir } from '../test/field/helpers.js';

const N = Number(process.argv[2] ?? 2000);
const TOKEN = 'bench';

interface Stats {
  perSec: number;
  p50: number;
  p99: number;
  mean: number;
}

function stats(lat: number[], wallMs: number): Stats {
  const s = [...lat].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return { perSec: (lat.length / wallMs) * 1000, p50: q(0.5), p99: q(0.99), mean: s.reduce((a, b) => a + b, 0) / s.length };
}

async function timed(n: number, op: (i: number) => Promise<void>, concurrency = 1): Promise<Stats> {
  const lat: number[] = [];
  let next = 0;
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        const s = performance.now();
        await op(i);
        lat.push(performance.now() - s);
      }
    }),
  );
  return stats(lat, performance.now() - t0);
}

const fmt = (s: Stats) => `${s.perSec.toFixed(0).padStart(6)} writes/s   p50 ${s.p50.toFixed(3)} ms   p99 ${s.p99.toFixed(3)} ms   mean ${s.mean.toFixed(3)} ms`;

async function main(): Promise<void> {
  const cleanup: (() => Promise<void>)[] = [];
  try {
    // ---------- Modbus TCP ----------
    const peer = await startModbusPeer('tcp', '0');
    const service = createFieldService(fieldConfig({ request_timeout_ms: 2000, queue_max_length: 1000 }), { audit: () => {} });
    cleanup.push(() => service.close());
    const app = createRpcApp(service, {
      authenticate: async (c) =>
        c.req.header('authorization') === `Bearer ${TOKEN}` ? { ok: true, actor: { id: 'bench', role: 'operator' } } : { ok: false, status: 401, message: 'Unauthorized' },
    });
    const server: ServerType = await new Promise((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, () => resolve(s));
    });
    cleanup.push(() => new Promise<void>((r) => server.close(() => r())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/rpc`;
    const reqBody = (i: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        protocol: 'modbus',
        params: [{ device_ip: '127.0.0.1', device_port: peer.port, object_type: 'holding register', object_address: 10, data_type: 'uint16', value: i & 0xffff }],
      });
    const viaRpc = async (i: number) => {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` }, body: reqBody(i) });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}: ${await res.text()}`);
      await res.arrayBuffer();
    };
    const direct = new ModbusRTU();
    await direct.connectTCP('127.0.0.1', { port: peer.port });
    direct.setID(1);
    direct.setTimeout(2000);
    cleanup.push(() => new Promise<void>((r) => direct.close(() => r())));
    const viaDirect = async (i: number) => {
      await direct.writeRegister(10, i & 0xffff);
    };
    const viaService = async (i: number) => {
      const r = await service.execute(JSON.parse(reqBody(i)), { id: 'bench', role: 'operator' }, 'b');
      if (!r.ok) throw new Error(r.messages.join('; '));
    };

    const warm = Math.min(200, N);
    await timed(warm, viaDirect);
    await timed(warm, viaRpc);
    const d = await timed(N, viaDirect);
    const sv = await timed(N, viaService);
    const r1 = await timed(N, viaRpc);
    const r8 = await timed(N, viaRpc, 8);
    console.log(`Modbus TCP, FC06, ${N} writes each, pymodbus 3.0 slave on loopback, node ${process.version}`);
    console.log(`  direct modbus-serial (1 conn) ${fmt(d)}`);
    console.log(`  service.execute (no HTTP)     ${fmt(sv)}`);
    console.log(`  POST /api/rpc, 1 client       ${fmt(r1)}`);
    console.log(`  POST /api/rpc, 8 clients      ${fmt(r8)}   (one bus: serialised on the wire)`);
    console.log(`  ratio rpc/direct: throughput ${(r1.perSec / d.perSec).toFixed(2)}x, p50 latency ${(r1.p50 / d.p50).toFixed(2)}x, p99 ${(r1.p99 / d.p99).toFixed(2)}x`);

    // ---------- Modbus RTU on a pty pair ----------
    const pty = await startPtyPair();
    cleanup.push(async () => removeDir(pty.dir));
    await startModbusPeer('rtu', pty.b);
    const M = Math.max(100, Math.floor(N / 4));
    const rtuService = createFieldService(fieldConfig({ request_timeout_ms: 2000, modbus: { serial: { path: pty.a } } }), { audit: () => {} });
    cleanup.push(() => rtuService.close());
    const rtuItem = (i: number) => ({ jsonrpc: '2.0', protocol: 'modbus-rtu', params: [{ unit_id: 1, object_type: 'holding register', object_address: 11, data_type: 'uint16', value: i & 0xffff }] });
    const rtuViaService = async (i: number) => {
      const r = await rtuService.execute(rtuItem(i), { id: 'bench', role: 'operator' }, 'b');
      if (!r.ok) throw new Error(r.messages.join('; '));
    };
    await timed(50, rtuViaService);
    const rs = await timed(M, rtuViaService);
    await rtuService.close();
    const rtuDirect = new ModbusRTU();
    await rtuDirect.connectRTUBuffered(pty.a, { baudRate: 9600 });
    rtuDirect.setID(1);
    rtuDirect.setTimeout(2000);
    cleanup.push(() => new Promise<void>((r) => rtuDirect.close(() => r())));
    await timed(50, async (i) => void (await rtuDirect.writeRegister(11, i & 0xffff)));
    const rd = await timed(M, async (i) => void (await rtuDirect.writeRegister(11, i & 0xffff)));
    console.log(`Modbus RTU, FC06, ${M} writes each, socat pty pair (no baud-rate pacing), pymodbus RTU slave`);
    console.log(`  direct modbus-serial          ${fmt(rd)}`);
    console.log(`  service.execute               ${fmt(rs)}`);
    console.log(`  software time added per RTU write: ${(rs.mean - rd.mean).toFixed(3)} ms mean, ${(rs.p50 - rd.p50).toFixed(3)} ms at p50`);
    const frameMs = (8 * 11 * 1000) / 9600; // FC06 request + reply are 8 bytes each, 11 bits/char at 9600 8N1
    console.log(`  for scale: one FC06 request+reply at 9600 baud is ${(2 * frameMs).toFixed(1)} ms on a real RS485 line`);
  } finally {
    for (const c of cleanup.reverse()) await c().catch(() => {});
    await stopAll();
  }
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    void stopAll().then(() => process.exit(1));
  },
);
