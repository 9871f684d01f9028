// Field-write benchmark: `npx tsx bench/rpc.ts [writes]`. Not a test: prints figures only.
//  1. Modbus TCP: writes/s, p50/p99 of POST /api/rpc on the whole server (in a child process)
//     against the same writes made directly with modbus-serial on one connection, to the same
//     pymodbus slave, and a bare Hono POST answering without a write (the HTTP floor).
//  2. Modbus RTU on a socat pty pair: time per write through the service vs direct; the difference
//     is the software time the service adds per RTU write.
import ModbusRTU from 'modbus-serial';
import http from 'node:http';
import { loadavg } from 'node:os';
import { createFieldService } from '../src/field/service.js';
import { fieldConfig } from '../src/field/config.js';
import { startModbusPeer, startPtyPair, stopAll, removeDir } from '../test/field/helpers.js';
import { post, startChild } from './lib/child.js';

const N = Number(process.argv[2] ?? 2000);

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
    const reqBody = (i: number) =>
      JSON.stringify({
        jsonrpc: '2.0',
        protocol: 'modbus',
        params: [{ device_ip: '127.0.0.1', device_port: peer.port, object_type: 'holding register', object_address: 10, data_type: 'uint16', value: i & 0xffff }],
      });
    // The servers run in child processes (a real client is another program); the client keeps its
    // connection alive, as a rule engine or the CLI in a loop would, through node:http (undici's
    // fetch costs the client about as much again as the server's whole request).
    // CHILD_PROF=<dir> writes a CPU profile of the cabinet server there.
    const cabinet = await startChild({ config: { rpc_port: '0', mqtt_broker: 'off' }, tokens: [{ role: 'operator', scope_type: 'master' }] }, process.env.CHILD_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.CHILD_PROF}`] : []);
    cleanup.push(() => cabinet.stop());
    const bare = await startChild({ mode: 'bare-http' });
    cleanup.push(() => bare.stop());
    const rpcClient = (url: string, token: string | undefined, connections: number) => {
      const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
      cleanup.push(async () => agent.destroy());
      return async (i: number) => void (await post(agent, url, reqBody(i), token ? { authorization: `Bearer ${token}` } : {}));
    };
    const viaRpc = rpcClient(cabinet.rpcUrl, cabinet.tokens[0], 1);
    const viaRpc8 = rpcClient(cabinet.rpcUrl, cabinet.tokens[0], 8);
    const viaBare = rpcClient(bare.rpcUrl, undefined, 1);
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
    await timed(warm, viaBare);
    const d = await timed(N, viaDirect);
    const sv = await timed(N, viaService);
    const b = await timed(N, viaBare);
    const r1 = await timed(N, viaRpc);
    const r8 = await timed(N, viaRpc8, 8);
    console.log(`Modbus TCP, FC06, ${N} writes each, pymodbus slave on loopback, node ${process.version}, load average ${loadavg().map((l) => l.toFixed(2)).join(' ')}`);
    console.log(`  direct modbus-serial (1 conn)  ${fmt(d)}`);
    console.log(`  service.execute (no HTTP)      ${fmt(sv)}`);
    console.log(`  bare Hono POST, no write       ${fmt(b)}   (HTTP floor: same client, keep-alive)`);
    console.log(`  POST /api/rpc, 1 client        ${fmt(r1)}   (session token, security log, SQL audit per item)`);
    console.log(`  POST /api/rpc, 8 clients       ${fmt(r8)}   (one bus: serialised on the wire)`);
    console.log(`  added p50 over direct: ${(r1.p50 - d.p50).toFixed(3)} ms (HTTP floor ${(b.p50).toFixed(3)} ms); ratio rpc/direct: throughput ${(r1.perSec / d.perSec).toFixed(2)}x, p50 ${(r1.p50 / d.p50).toFixed(2)}x, p99 ${(r1.p99 / d.p99).toFixed(2)}x`);

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
