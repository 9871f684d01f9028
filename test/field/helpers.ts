import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import net from 'node:net';
import dgram from 'node:dgram';
import { fileURLToPath } from 'node:url';

// Test peers and fault injectors. Every child process is tracked and killed by stopAll().

const PEER = fileURLToPath(new URL('./peers/modbus_peer.py', import.meta.url));
const children = new Set<ChildProcess>();

export async function waitFor(cond: () => boolean | Promise<boolean>, timeoutMs = 15_000, what = 'condition'): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export interface ModbusPeer {
  port: number;
  proc: ChildProcess;
  hr(addr: number, count: number): Promise<number[]>;
  hrHex(addr: number, count: number): Promise<string>;
  co(addr: number, count: number): Promise<number[]>;
  /** The value at addr as pymodbus's own decoder reads it with that layout. */
  decode(addr: number, type: 'int32' | 'uint32' | 'float32' | 'float64', order: string): Promise<number>;
  reset(): Promise<void>;
  /** Places raw values in a table (hr, ir: registers; co, di: 0/1). */
  set(table: 'hr' | 'ir' | 'co' | 'di', addr: number, values: number[]): Promise<void>;
  /** Requests the peer handled, per function code. */
  requests(): Promise<Record<string, number>>;
  stop(): Promise<void>;
}

/** Debian's pymodbus as a TCP (`where` = "0" for any port) or RTU (`where` = pty path) slave. */
export async function startModbusPeer(mode: 'tcp' | 'rtu', where: string, extra: string[] = []): Promise<ModbusPeer> {
  const proc = spawn('/usr/bin/python3', [PEER, mode, where, ...extra], { stdio: ['pipe', 'pipe', 'pipe'] });
  children.add(proc);
  let stderr = '';
  proc.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000);
  });
  const lines = createInterface({ input: proc.stdout! });
  const waiting: ((line: string) => void)[] = [];
  const ready = new Promise<{ port: number }>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`modbus peer exited (${code}): ${stderr}`));
    proc.once('exit', onExit);
    lines.on('line', (line) => {
      const msg = JSON.parse(line) as { ready?: boolean; port?: number | string };
      if (msg.ready) {
        proc.off('exit', onExit);
        resolve({ port: typeof msg.port === 'number' ? msg.port : 0 });
      } else waiting.shift()?.(line);
    });
  });
  const { port } = await withTimeout(ready, 20_000, `modbus peer ${mode} ready: ${stderr}`);
  let chain = Promise.resolve();
  const ask = <T>(cmd: object): Promise<T> => {
    const p = chain.then(
      () =>
        new Promise<T>((resolve) => {
          waiting.push((line) => resolve(JSON.parse(line) as T));
          proc.stdin!.write(`${JSON.stringify(cmd)}\n`);
        }),
    );
    chain = p.then(() => undefined, () => undefined);
    return withTimeout(p, 10_000, 'modbus peer control answer');
  };
  const peer: ModbusPeer = {
    port,
    proc,
    hr: async (addr, count) => (await ask<{ hr: number[] }>({ op: 'hr', addr, count })).hr,
    hrHex: async (addr, count) => (await peer.hr(addr, count)).map((r) => r.toString(16).padStart(4, '0')).join(' '),
    co: async (addr, count) => (await ask<{ co: number[] }>({ op: 'co', addr, count })).co,
    decode: async (addr, type, order) => {
      const out = await ask<{ value?: number; error?: string }>({ op: 'decode', addr, type, order });
      if (out.value === undefined) throw new Error(`modbus peer decode: ${out.error}`);
      return out.value;
    },
    reset: async () => {
      await ask({ op: 'reset' });
    },
    set: async (table, addr, values) => {
      const out = await ask<{ ok?: boolean; error?: string }>({ op: 'set', table, addr, values });
      if (!out.ok) throw new Error(`modbus peer set: ${out.error}`);
    },
    requests: async () => (await ask<{ requests: Record<string, number> }>({ op: 'stats' })).requests,
    stop: () => kill(proc),
  };
  return peer;
}

export interface PtyPair {
  dir: string;
  /** Our end (the USB-RS485 adapter stand-in). */
  a: string;
  /** The slave's end. */
  b: string;
  proc: ChildProcess;
  stop(): Promise<void>;
}

/** `socat pty,raw,echo=0,link=a pty,raw,echo=0,link=b`; reuse `dir` to recreate the same paths. */
export async function startPtyPair(dir = mkdtempSync(join(tmpdir(), 'cabinet-pty-'))): Promise<PtyPair> {
  const a = join(dir, 'a');
  const b = join(dir, 'b');
  const proc = spawn('socat', ['-d', '-d', `pty,raw,echo=0,link=${a}`, `pty,raw,echo=0,link=${b}`], { stdio: ['ignore', 'ignore', 'pipe'] });
  children.add(proc);
  proc.stderr?.resume();
  await waitFor(() => existsSync(a) && existsSync(b), 15_000, 'socat pty links');
  return { dir, a, b, proc, stop: () => kill(proc) };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

export function kill(proc: ChildProcess): Promise<void> {
  children.delete(proc);
  if (proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const t = setTimeout(() => proc.kill('SIGKILL'), 3000);
    proc.once('exit', () => {
      clearTimeout(t);
      resolve();
    });
    proc.kill('SIGTERM');
  });
}

export async function stopAll(): Promise<void> {
  await Promise.all([...children].map(kill));
}

export function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`timeout: ${what}`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e);
      },
    );
  });
}

/** A TCP port nobody listens on (connection refused). */
export async function closedTcpPort(): Promise<number> {
  const s = net.createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const port = (s.address() as net.AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

export async function freeUdpPort(): Promise<number> {
  const s = dgram.createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/**
 * A TCP front for a Modbus peer that can go mute (accepts, never answers: "device that never
 * answers"), forward, or drop every connection. Listens on a fixed port so it can also be closed
 * and reopened (absent device, then back).
 */
export class FaultProxy {
  mode: 'forward' | 'mute' = 'forward';
  /** Delay on device -> client data: a reply that arrives after the client's deadline. */
  delayMs = 0;
  private server: net.Server | null = null;
  private readonly sockets = new Set<net.Socket>();
  connections = 0;

  constructor(
    private readonly upstreamPort: number,
    public port = 0,
  ) {}

  async listen(): Promise<void> {
    const server = net.createServer((sock) => {
      this.connections++;
      this.sockets.add(sock);
      sock.on('close', () => this.sockets.delete(sock));
      sock.on('error', () => {});
      if (this.mode === 'mute') {
        sock.resume();
        return;
      }
      const up = net.connect(this.upstreamPort, '127.0.0.1');
      this.sockets.add(up);
      up.on('close', () => {
        this.sockets.delete(up);
        sock.destroy();
      });
      up.on('error', () => sock.destroy());
      sock.on('close', () => up.destroy());
      sock.pipe(up);
      up.on('data', (d: Buffer) => {
        if (this.delayMs > 0) setTimeout(() => sock.destroyed || sock.write(d), this.delayMs);
        else sock.write(d);
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as net.AddressInfo).port;
    this.server = server;
  }

  dropAll(): void {
    for (const s of this.sockets) s.destroy();
  }

  async close(): Promise<void> {
    this.dropAll();
    const s = this.server;
    this.server = null;
    if (s) await new Promise<void>((r) => s.close(() => r()));
  }
}
