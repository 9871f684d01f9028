// The digital I/O module peer (io_peer.py) from a test: start it on a port (0 for any, or the
// port it had, to bring the module back), read its coils and the log of writes to a coil.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { kill, withTimeout } from '../helpers.js';

const PEER = fileURLToPath(new URL('./io_peer.py', import.meta.url));

export interface IoPeer {
  port: number;
  proc: ChildProcess;
  coils(addr: number, count: number): Promise<number[]>;
  /** Every write the network made to the coil: [unix time in s, value]. */
  writes(addr: number): Promise<[number, number][]>;
  /** All coils to 0 with no write logged: the module rebooted and lost its outputs. */
  lose(): Promise<void>;
  stop(): Promise<void>;
}

export async function startIoPeer(mode: 'tcp' | 'rtu', where: string): Promise<IoPeer> {
  const proc = spawn('/usr/bin/python3', [PEER, mode, where], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  proc.stderr!.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-4000); });
  const waiting: ((line: string) => void)[] = [];
  const ready = new Promise<number>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`io peer exited (${code}): ${stderr}`));
    proc.once('exit', onExit);
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const msg = JSON.parse(line) as { ready?: boolean; port?: number | string };
      if (msg.ready) {
        proc.off('exit', onExit);
        resolve(typeof msg.port === 'number' ? msg.port : 0);
      } else waiting.shift()?.(line);
    });
  });
  const port = await withTimeout(ready, 20_000, `io peer ${mode} ready: ${stderr}`);
  let chain: Promise<unknown> = Promise.resolve();
  const ask = <T>(cmd: object): Promise<T> => {
    const p = chain.then(() => new Promise<T>((resolve) => {
      waiting.push((line) => resolve(JSON.parse(line) as T));
      proc.stdin!.write(`${JSON.stringify(cmd)}\n`);
    }));
    chain = p.catch(() => undefined);
    return withTimeout(p, 10_000, 'io peer control answer');
  };
  return {
    port,
    proc,
    coils: async (addr, count) => (await ask<{ co: number[] }>({ op: 'co', addr, count })).co,
    writes: async (addr) => (await ask<{ writes: [number, number][] }>({ op: 'writes', addr })).writes,
    lose: async () => { await ask({ op: 'lose' }); },
    stop: () => kill(proc),
  };
}
